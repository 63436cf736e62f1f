#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The machine's NUMA nodes in prec's perf.data as in perf's own: perf
# report --header-only -I shows the same nodes (their CPU lists and total
# memory; the free memory is the moment's) and the same memory nodes
# (MEM_TOPOLOGY: block size, each node's blocks), file and pipe; and perf
# c2c report, which sets its nodes up from them, reads a --data recording
# of prec's with no word on stderr, as it reads perf's ("Failed setup
# nodes" before, then "No memory nodes").
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir topology
[ -r /sys/devices/system/node/online ] || skip "no NUMA nodes in sysfs (a kernel without NUMA)"

# topo FILE-OR-DASH: the node lines of the header, free memory cut: each
# node's, the memory nodes' title and their "#    N [SIZE]: RANGES" lines
# (not whatever feature perf prints next: a BPF program loaded meanwhile
# by another process is perf's and not prec's)
topo() {
	perf report --header-only -I -i "$1" 2>/dev/null |
		sed -n -e 's/, free = [0-9]* kB//' -e '/^# node[0-9]/p' -e '/^# memory nodes/p' \
			-e '/^# *[0-9][0-9]* \[[^]]*\]: /p'
}

perf record -q -o "$tmp/p.data" --data -e page-faults -c 1 -- "$H/faults" 200 >/dev/null 2>"$tmp/p.err" ||
	fail_rc "$tmp/p.err" "perf record"
"$PREC" record -q -d "$tmp/q" --data -e page-faults -c 1 -- "$H/faults" 200 >/dev/null 2>"$tmp/q.err" ||
	fail_rc "$tmp/q.err" "prec record"
"$PREC" merge -q "$tmp/q" -o "$tmp/q.data" || fail "prec merge"
topo "$tmp/p.data" >"$tmp/p.topo"
topo "$tmp/q.data" >"$tmp/q.topo"
"$PREC" merge -q "$tmp/q" | topo - >"$tmp/qp.topo"
grep -q '^# node0 cpu list' "$tmp/p.topo" || fail "perf's own header has no node: $(cat "$tmp/p.topo")"
diff -u "$tmp/p.topo" "$tmp/q.topo" >"$tmp/d" || fail "the nodes differ from perf's (- perf, + prec): $(cat "$tmp/d")"
diff -u "$tmp/p.topo" "$tmp/qp.topo" >"$tmp/d" || fail "the pipe's nodes differ from perf's (- perf, + prec): $(cat "$tmp/d")"
perf c2c report --stdio -i "$tmp/q.data" >"$tmp/c2c.out" 2>"$tmp/c2c.err" ||
	fail_rc "$tmp/c2c.err" "perf c2c report on prec's file"
[ ! -s "$tmp/c2c.err" ] || fail "perf c2c report on prec's file said: $(head -3 "$tmp/c2c.err")"
grep -q 'Shared Data Cache Line Table' "$tmp/c2c.out" || fail "perf c2c report: no table: $(head -5 "$tmp/c2c.out")"
echo "PASS: $(grep -c . "$tmp/q.topo") node lines as perf's, file and pipe; perf c2c report reads prec's file"
