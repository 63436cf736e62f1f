#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The task records of a --tail-synthesize tail, from perf script -D, so
that perf's and prec's can be compared line by line (the e2e tests
record_tail_tasks.sh and record_tail_cut_fail.sh).

Usage: tail_records.py FILE [TIME_NS | first]

Without a time (perf's file): the records after the file's first
FINISHED_INIT that are stamped 0 (perf writes its tail at the end with time
0, after that record). With TIME_NS (prec's tail, stamped with its epoch's
start; prec info names it as tail.shard's first time): the records stamped
TIME_NS. 'first': TIME_NS is the time of the first record after
FINISHED_INIT that has one (prec's tail comes before every record of the
kernel's).

One line per FORK, COMM, NAMESPACES (with its pairs) or MMAP2 of a task
(the kernel's MMAP is left out), in file order: pids and tids numbered by first appearance
(P0, P1, ...), as the runs compared have their own; an MMAP2 as its pid,
tid, protection and file, and each run of MMAP2s sorted, as its addresses
(and so /proc's order) differ from run to run.
"""
import re
import subprocess
import sys

REC = re.compile(r"^(?:-?\d+ )?(\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_(\w+)(.*)$")
IDS = {}


def num(v):
    if v not in IDS:
        IDS[v] = "P%d" % len(IDS)
    return IDS[v]


def norm(typ, rest):
    m = re.match(r" (\d+)/(\d+): \[.*\]: (\S+) (.*)$", rest)
    if typ == "MMAP2" and m:
        return "MMAP2 %s/%s %s %s" % (num(m.group(1)), num(m.group(2)), m.group(3), m.group(4))
    m = re.match(r"(: .*):(\d+)/(\d+)$", rest)
    if typ == "COMM" and m:
        return "COMM%s:%s/%s" % (m.group(1), num(m.group(2)), num(m.group(3)))
    m = re.match(r"\((\d+):(\d+)\):\((\d+):(\d+)\)$", rest)
    if typ == "FORK" and m:
        return "FORK(%s:%s):(%s:%s)" % tuple(num(g) for g in m.groups())
    m = re.match(r" (\d+)/(\d+)(.*)$", rest)
    if typ == "NAMESPACES" and m:
        return "NAMESPACES %s/%s%s" % (num(m.group(1)), num(m.group(2)), m.group(3))
    return typ + rest


def main():
    want = sys.argv[2] if len(sys.argv) > 2 else None
    out = subprocess.run(["perf", "script", "-D", "-i", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    init = False
    picked = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = REC.match(line)
        if not m:
            continue
        t, typ, rest = int(m.group(1)), m.group(2), m.group(3)
        if typ == "NAMESPACES":  # its dev/inode pairs on the next lines
            rest += " " + " ".join(x.strip() for x in lines[i + 1:i + 3])
        if typ == "FINISHED_INIT":
            init = True
            continue
        if want == "first" and init and t:
            want = str(t)
        if typ not in ("FORK", "COMM", "NAMESPACES", "MMAP2"):
            continue
        if (want is None and init and t == 0) or (want is not None and str(t) == want):
            picked.append((typ, rest))
    run = []
    for typ, rest in picked + [("", "")]:
        if typ == "MMAP2":
            run.append(norm(typ, rest))
            continue
        print("\n".join(sorted(run)), end="\n" if run else "")
        run = []
        if typ:
            print(norm(typ, rest))


main()
