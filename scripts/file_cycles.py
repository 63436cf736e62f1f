#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Files of src/ that call each other in a circle, from the objects' symbols:
# file A calls file B when A's object uses a symbol B's object defines (nm).
# Prints one "cycle:" line per strongly connected group of two or more
# files, with the symbols on each edge, and exits 1 if there is one.
# Usage: scripts/file_cycles.py BUILD_DIR
import collections
import glob
import subprocess
import sys


def main():
    objs = sorted(glob.glob(sys.argv[1] + '/src/*/*.o'))
    if not objs:
        print(f'file_cycles: no objects under {sys.argv[1]}/src', file=sys.stderr)
        return 2
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in 'TDBR':
                defs[p[2]] = o
            elif len(p) == 2 and p[0] == 'U':
                uses[o].add(p[1])
    calls = {o: {defs[s] for s in uses[o] if s in defs and defs[s] != o} for o in objs}
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, groups, n = {}, {}, set(), [], [], 0
    for root in objs:
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    g = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        g.append(x)
                        if x == v:
                            break
                    groups.append(g)
            elif w not in index:
                index[w] = low[w] = n
                n += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(calls[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
    name = lambda o: o.split('/src/', 1)[1][:-2] + '.c'
    bad = [g for g in groups if len(g) > 1]
    for g in bad:
        print('cycle:', ' '.join(sorted(name(x) for x in g)))
        for a in sorted(g):
            for b in sorted(calls[a] & set(g)):
                syms = sorted(s for s in uses[a] if defs.get(s) == b)
                print(f'  {name(a)} -> {name(b)}: {", ".join(syms[:6])}')
    return 1 if bad else 0


sys.exit(main())
