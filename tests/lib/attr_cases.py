#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# One case of perf's tests/attr (/usr/lib/perf-core/tests/attr/test-record-*)
# against what `prec record -vv` printed for the case's args: the expected
# events (the case's [event*] sections over their base file) and prec's
# events must match both ways, field by field over perf's attr test terms,
# a value '*' matching anything and 'a|b' any of its alternatives, group
# leaders matching group leaders, as perf's tests/attr.py decides.
#   attr_cases.py list DIR ARCH      each record case: name, run or skip
#                                    (its arch, as attr.py), its exit
#                                    status, its args (redirections cut)
#   attr_cases.py compare CASE OUT...  each case against prec's output:
#                                    name, mode, equal|differ|noattrs, why
# (one process for all: python starts slowly on a loaded machine)
# prec's events: one per successful open in OUT (its "sys_perf_event_open:
# ... = FD  (event N)" lines, the attr the N-th dump block) when prec opened
# every event; else, for a case this machine cannot open (hardware events,
# branch stacks), one per dump block (prec prints every attr before the
# first open), fd its position, group_fd its leader's (prec's "leader L"
# debug line), flags prec's CLOEXEC and cpu unknown: such a case must not
# expect a cpu. The fields prec sets by design are normalized in DESIGN.
import configparser
import os
import re
import sys

# perf's tests/attr terms: the fields compared
TERMS = ['cpu', 'flags', 'type', 'size', 'config', 'sample_period', 'sample_type',
         'read_format', 'disabled', 'inherit', 'pinned', 'exclusive', 'exclude_user',
         'exclude_kernel', 'exclude_hv', 'exclude_idle', 'mmap', 'comm', 'freq',
         'inherit_stat', 'enable_on_exec', 'task', 'watermark', 'precise_ip', 'mmap_data',
         'sample_id_all', 'exclude_host', 'exclude_guest', 'exclude_callchain_kernel',
         'exclude_callchain_user', 'wakeup_events', 'bp_type', 'config1', 'config2',
         'branch_sample_type', 'sample_regs_user', 'sample_stack_user']

SAMPLE = ['IP', 'TID', 'TIME', 'ADDR', 'READ', 'CALLCHAIN', 'ID', 'CPU', 'PERIOD',
          'STREAM_ID', 'RAW', 'BRANCH_STACK', 'REGS_USER', 'STACK_USER', 'WEIGHT',
          'DATA_SRC', 'IDENTIFIER', 'TRANSACTION', 'REGS_INTR', 'PHYS_ADDR', 'AUX',
          'CGROUP', 'DATA_PAGE_SIZE', 'CODE_PAGE_SIZE', 'WEIGHT_STRUCT']
READ = ['TOTAL_TIME_ENABLED', 'TOTAL_TIME_RUNNING', 'ID', 'GROUP', 'LOST']
BRANCH = ['USER', 'KERNEL', 'HV', 'ANY', 'ANY_CALL', 'ANY_RETURN', 'IND_CALL',
          'ABORT_TX', 'IN_TX', 'NO_TX', 'COND', 'CALL_STACK', 'IND_JUMP', 'CALL',
          'NO_FLAGS', 'NO_CYCLES', 'TYPE_SAVE', 'HW_INDEX', 'PRIV_SAVE']
BITS = {'sample_type': SAMPLE, 'read_format': READ, 'branch_sample_type': BRANCH}
# perf -vv's names of the unions, as attr.py's terms name them
UNION = {'{ sample_period, sample_freq }': 'sample_period',
         '{ wakeup_events, wakeup_watermark }': 'wakeup_events',
         '{ bp_addr, config1 }': 'config1', '{ bp_len, config2 }': 'config2'}

# ---- prec's design (docs/events.md, "Attr fields that differ by design"):
# the one place the comparison departs from perf's attrs, each with why.
# 1. sample_type ID, CPU, IDENTIFIER: every prec record carries an id and
#    a CPU at fixed places (IDENTIFIER, CPU), so the merge reads any record
#    without knowing its event; perf's ID is then redundant. Masked out of
#    both sides (C0's CPU from -C included).
MASKED_SAMPLE = (1 << SAMPLE.index('ID')) | (1 << SAMPLE.index('CPU')) | \
                (1 << SAMPLE.index('IDENTIFIER'))
# 2. watermark 1 with wakeup_watermark (a quarter of the ring): the drainer
#    wakes on that and on its round timer; perf's default is watermark 0
#    and wakeup_events 0. prec's pair is read as perf's default (an
#    explicit --no-buffering, watermark 0 and wakeup_events 1, is compared
#    as it is).
# 3. The side band (mmap, comm, task, mmap_data) is asked for by prec's
#    tracking dummy (its event 0), opened first on every CPU, not by the
#    first event: where perf has no dummy, the dummy's side-band bits are
#    the first event's and the dummy is not an event of its own; where
#    perf has one (a system-wide dummy: -a, -C), the dummy is compared
#    with perf's on its kind (type, config), its side-band bits and its
#    CPU: its period (1, no frequency), enabling (at the start, not at the
#    open) and exclude_guest are its own.
SIDEBAND = ['mmap', 'comm', 'task', 'mmap_data']
DUMMY_TERMS = ['type', 'config', 'cpu'] + SIDEBAND


def case_parser(path):
    p = configparser.ConfigParser(delimiters=('=',), interpolation=None)
    p.read(path)
    return p


# 4. perf record's -d is --data; prec's -d names its recording directory
#    (prec-record(1)), so a case's -d is given as --data.
OPTIONS = {'-d': '--data'}


def case_args(path):
    args = case_parser(path).get('config', 'args')
    args = re.sub(r'\s*[0-9]*>\s*/dev/null|\s*2>&1', '', args).strip()
    return ' '.join(OPTIONS.get(w, w) for w in args.split(' '))


def expected(path):
    p = case_parser(path)
    events = {}
    for sec in p.sections():
        if 'event' not in sec:
            continue
        ev = {}
        if ':' in sec:
            base = case_parser(os.path.join(os.path.dirname(path), sec.split(':', 1)[1]))
            ev.update(base.items('event'))
        ev.update(p.items(sec))
        events[sec] = ev
    return events


def number(field, text):
    if field in BITS:
        v = 0
        for name in text.split('|'):
            v |= 1 << BITS[field].index(name)
        return v
    return int(text, 0)


def prec_output(path):
    """The dump's blocks (dicts of numbers), leaders, opens, failed opens."""
    blocks, leaders, opens, failed = [], {}, [], False
    cur = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line == 'perf_event_attr:':
            cur = {}
            continue
        if line.startswith('-----'):
            if cur is not None:
                blocks.append(cur)
            cur = None
            continue
        if cur is not None and line.startswith('  '):
            text = line[2:]
            m = re.match(r'(\{[^}]*\})\s+(.*)$', text) or re.match(r'(\S+)\s+(.*)$', text)
            cur[UNION.get(m.group(1), m.group(1))] = number(m.group(1), m.group(2).strip())
            continue
        m = re.match(r"prec: debug: event (\d+) '.*'.* leader (-?\d+)", line)
        if m:
            leaders[int(m.group(1))] = int(m.group(2))
        m = re.match(r'sys_perf_event_open: pid (-?\d+)  cpu (-?\d+)  group_fd (-?\d+)  '
                     r'flags (0x[0-9a-f]+|0) = (\d+)  \(event (\d+)\)', line)
        if m:
            opens.append({'cpu': m.group(2), 'group_fd': m.group(3),
                          'flags': str(int(m.group(4), 0)), 'fd': m.group(5),
                          'n': int(m.group(6))})
        if line.startswith('sys_perf_event_open failed'):
            failed = True
    return blocks, leaders, opens, failed


def prec_events(path):
    """prec's events as attr.py's result events, and the mode used."""
    blocks, leaders, opens, failed = prec_output(path)
    if not blocks:
        return None, None
    opened = {o['n'] for o in opens}
    mode = 'opened' if not failed and opened == set(range(len(blocks))) else 'dump'
    if mode == 'dump':
        opens = []
        for n in range(len(blocks)):
            lead = leaders.get(n, -1)
            opens.append({'cpu': '*', 'flags': '8', 'fd': str(n + 1),
                          'group_fd': str(lead + 1) if lead not in (-1, n) else '-1',
                          'n': n})
    events = {}
    for i, o in enumerate(opens):
        ev = {t: '0' for t in TERMS}
        for k, v in blocks[o['n']].items():
            ev[k] = str(v)
        ev.update({k: o[k] for k in ('cpu', 'flags', 'fd', 'group_fd')})
        ev['n'] = o['n']
        events['prec-%d-%d' % (o['n'], i)] = ev
    return events, mode


def design(expect, result):
    """prec's design differences (above), applied to both sides."""
    for ev in list(expect.values()) + list(result.values()):
        ev['sample_type'] = '|'.join(str(int(v) & ~MASKED_SAMPLE) if v != '*' else v
                                     for v in ev['sample_type'].split('|'))
    for ev in result.values():
        if ev['watermark'] == '1':
            ev['watermark'] = ev['wakeup_events'] = '0'
    perf_dummy = any(e['type'] == '1' and e['config'] == '9' for e in expect.values())
    dummies = [k for k, e in result.items() if e['n'] == 0]
    if perf_dummy:
        for k in dummies:
            result[k]['dummy'] = True
        return
    for ev in result.values():
        if ev['n'] == 1:
            for t in SIDEBAND:
                ev[t] = result[dummies[0]][t] if dummies else ev[t]
    for k in dummies:
        del result[k]


def term_eq(e, r, t):
    if t not in e or t not in r:
        return False
    a, b = e[t].split('|'), r[t].split('|')
    return any(x == y or x == '*' or y == '*' for x in a for y in b)


def terms_of(e, r):
    return DUMMY_TERMS if r.get('dummy') or e.get('dummy') else TERMS


def equal(e, r):
    return all(term_eq(e, r, t) for t in terms_of(e, r))


def groups(events):
    for ev in events.values():
        ev['group'] = ''
        if ev.get('group_fd', '-1') != '-1':
            for name, other in events.items():
                if other.get('fd') == ev['group_fd'] and other.get('cpu') == ev.get('cpu'):
                    ev['group'] = name
                    break


def match(a, b, what):
    found = {}
    for name, ev in a.items():
        found[name] = [n for n, o in b.items() if equal(ev, o)]
        if found[name] or ev.get('optional') == '1':
            continue
        near = min(b.values(), default=None, key=lambda o: sum(
            not term_eq(ev, o, t) for t in terms_of(ev, o)))
        diffs = [] if near is None else ['%s=%s, got %s' % (t, ev.get(t), near.get(t))
                                         for t in terms_of(ev, near)
                                         if not term_eq(ev, near, t)]
        return '%s event [%s] matches none (closest: %s)' % (what, name, '; '.join(diffs))
    for name, ev in a.items():
        for other in found[name] if ev['group'] else []:
            if b[other]['group'] not in found[ev['group']]:
                return '%s event [%s]: group leader differs' % (what, name)
    return None


def arch_ok(path, arch):
    """attr.py's rule: a case's arch list, '!' at its start negating it."""
    want = case_parser(path).get('config', 'arch', fallback='')
    if not want:
        return True
    archs = want.lstrip('!').split(',')
    return (arch in archs) != want.startswith('!')


def compare(path, out):
    """(mode, status, message) of one case against prec's output."""
    expect = expected(path)
    result, mode = prec_events(out)
    if result is None:
        return 'none', 'noattrs', 'prec printed no attrs'
    if mode == 'dump' and any(e.get('cpu', '*') != '*' for e in expect.values()):
        return mode, 'noattrs', 'the case expects a cpu, and prec did not open its events'
    design(expect, result)
    groups(expect)
    groups(result)
    why = match(expect, result, 'expected') or match(result, expect, "prec's")
    return mode, 'differ' if why else 'equal', why or ''


def main():
    if sys.argv[1] == 'list':
        # list DIR ARCH: NAME, run|skip, ret, args of each record case
        d, arch = sys.argv[2], sys.argv[3]
        for f in sorted(os.listdir(d)):
            if f.startswith('test-record-'):
                path = os.path.join(d, f)
                print('\t'.join([f[len('test-record-'):],
                                 'run' if arch_ok(path, arch) else 'skip',
                                 case_parser(path).get('config', 'ret', fallback='0'),
                                 case_args(path)]))
        return 0
    # compare CASE OUT...: NAME, mode (opened|dump|none), equal|differ|noattrs, why
    for path, out in zip(sys.argv[2::2], sys.argv[3::2]):
        name = os.path.basename(path)[len('test-record-'):]
        print('\t'.join((name,) + compare(path, out)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
