#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The newcomer documents against the tree. docs/design.md's file tables:
# every file of src/ has a row in its layer's table, every file a row names
# exists, and each row's "calls" column is what the built objects say it
# calls (nm: file A calls file B when A's object uses a symbol B's object
# defines), util/log.c aside, both ways; a row of several files with as many
# ';'-separated parts as files is checked file by file, else as one. And
# every path README.md, HACKING.md, docs/design.md and docs/style.md name in
# backquotes exists: src/, docs/, tests/, bench/, scripts/, completion/,
# debian/ paths as written (util/, store/, read/, record/ under src/), a bare
# NAME.c, .h, .sh, .py or .md somewhere in the tree. Prints one line per
# problem and exits 1 if there is one.
# Usage: scripts/doc_files.py TOP BUILD_DIR
import collections
import glob
import os
import re
import subprocess
import sys

LAYERS = ('record', 'read', 'store', 'util')
# Other projects' files the documents name (style.md: trace-cmd's).
FOREIGN = {'trace-record.c'}


def call_graph(top, build):
    src = os.path.join(build, 'src')
    # a source's name from its object's path below BUILD/src (BUILD's own
    # path may hold a /src/ too: ~/src/prec/build)
    name = lambda o: os.path.relpath(o, src)[:-2] + '.c'
    # the objects of the tree's sources only: one whose source went (renamed
    # or deleted, its object left in BUILD) defines what another defines now
    objs = sorted(o for o in glob.glob(src + '/*/*.o') + glob.glob(src + '/*.o')
                  if os.path.isfile(os.path.join(top, 'src', name(o))))
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDBR':
                defs[p[2]] = o
            elif len(p) == 2 and p[0] == 'U':
                uses[o].add(p[1])
    return {name(o): {name(defs[s]) for s in uses[o] if s in defs and defs[s] != o}
            for o in objs}


def design_tables(top, calls, problems):
    path = 'docs/design.md'
    layer, rows = None, {}
    for n, line in enumerate(open(os.path.join(top, path)), 1):
        if line.startswith('## ') and rows:
            layer = None
        m = re.search(r'\*\*`src/(\w+)`\*\*', line) or \
            re.search(r'\*\*`src/main\.c` and `src/(util)`\*\*', line)
        if m:
            layer = m.group(1)
            continue
        if not layer or not line.startswith('|') or line.startswith(('|---', '| file')):
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3:
            problems.append(f'{path}:{n}: a table row without 3 cells')
            continue
        files = ['main.c' if f == 'main.c' else f'{layer}/{f}'
                 for f in re.findall(r'`([\w./]+\.[ch])`', cells[0])]
        for f in files:
            rows[f] = n
            if not os.path.isfile(os.path.join(top, 'src', f)):
                problems.append(f'{path}:{n}: src/{f} does not exist')
        parts = [p for p in cells[2].split(';')]
        if len(parts) != len(files):
            parts = [cells[2]] * len(files) if len(files) else []
            whole = True
        else:
            whole = False
        listed_all, actual_all = set(), set()
        for f, part in zip(files, parts):
            here = f.split('/')[0] if '/' in f else ''
            listed = set()
            for t in re.findall(r'`([\w./*]+\.[ch])`', part):
                p = t if t.split('/')[0] in LAYERS else f'{here}/{t}'
                if not os.path.isfile(os.path.join(top, 'src', p)):
                    problems.append(f'{path}:{n}: calls column names src/{p}, which does not exist')
                elif p.endswith('.c'):
                    listed.add(p)
            actual = calls.get(f, set()) - {'util/log.c'} - set(files if whole else [f])
            if f.endswith('.c') and f not in calls:
                problems.append(f'{path}:{n}: no object for src/{f} (built?)')
            if whole:
                listed_all |= listed
                actual_all |= actual
                continue
            for x in sorted(listed - actual):
                problems.append(f'{path}:{n}: {f} is said to call {x}, and does not')
            for x in sorted(actual - listed):
                problems.append(f'{path}:{n}: {f} calls {x}, not in its calls column')
        if whole:
            for x in sorted(listed_all - actual_all):
                problems.append(f'{path}:{n}: no file of the row calls {x}, as its calls column says')
            for x in sorted(actual_all - listed_all):
                problems.append(f'{path}:{n}: the row calls {x}, not in its calls column')
    for f in sorted(glob.glob(os.path.join(top, 'src/*/*.c')) + [os.path.join(top, 'src/main.c')]):
        rel = os.path.relpath(f, os.path.join(top, 'src'))
        if rel not in rows:
            problems.append(f'{path}: src/{rel} is in no file table')


def named_paths(top, problems):
    tree = subprocess.run(['git', '-C', top, 'ls-files'], capture_output=True, text=True).stdout.split()
    if not tree:
        tree = [os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs]
    names = {os.path.basename(p) for p in tree}
    roots = ('src/', 'docs/', 'tests/', 'bench/', 'scripts/', 'completion/', 'debian/')
    for doc in ('README.md', 'HACKING.md', 'docs/design.md', 'docs/style.md'):
        for n, line in enumerate(open(os.path.join(top, doc)), 1):
            for t in re.findall(r'`([^`\s]+)`', line):
                t = t.rstrip('.,:;')
                if re.search(r'[*<>]|NAME|TOPIC|SCRIPT|\.\.\.', t):
                    continue
                if t.split('/')[0] in LAYERS and '/' in t:
                    t = 'src/' + t
                if t.startswith(roots):
                    p = os.path.join(top, t)
                    if not (os.path.exists(p) or os.path.exists(p + '.c')):
                        problems.append(f'{doc}:{n}: {t} does not exist')
                elif '/' not in t and re.fullmatch(r'[\w.-]+\.(c|h|sh|py|md)', t):
                    if t not in names and t not in FOREIGN:
                        problems.append(f'{doc}:{n}: no file {t} in the tree')


def main():
    top, build = sys.argv[1], sys.argv[2]
    problems = []
    design_tables(top, call_graph(top, build), problems)
    named_paths(top, problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


sys.exit(main())
