#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The events' own loss count (PERF_FORMAT_LOST) read at the close, whatever
# else read_format holds: with --running-time or -s the kernel puts the
# enabled and running times before the id and the lost count, once per read
# for a group. For a workload that loses nothing (a few dozen openat
# tracepoint samples in a 256-page ring), prec says 0 lost, prints no LOST
# warning, and records as many samples as perf does of the same command.
# Read as if the times were not there, the running time was taken for a
# loss: "68 records LOST" on every run.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint syscalls/sys_enter_openat
need_cmd taskset
e2e_tmpdir lostfmt

group='{syscalls:sys_enter_openat,syscalls:sys_exit_openat}:S'
single=syscalls:sys_enter_openat
n=0
for opt in --running-time -s; do
	for ev in "$group" "$single"; do
		n=$((n + 1))
		# the command on one CPU from its fork on: a group's member
		# samples are the changes its leader's reads see on the
		# leader's CPU, and a migration between an enter and its exit
		# would hide one
		taskset -c 0 "$PREC" record -o "$tmp/q$n.data" "$opt" -e "$ev" -- ls / >/dev/null 2>"$tmp/q$n.err" ||
			fail_rc "$tmp/q$n.err" "prec record $opt -e $ev"
		taskset -c 0 perf record -q -o "$tmp/p$n.data" "$opt" -e "$ev" -- ls / >/dev/null 2>"$tmp/p$n.err" ||
			fail_rc "$tmp/p$n.err" "perf record $opt -e $ev"
		grep -q 'LOST' "$tmp/q$n.err" && fail "$opt -e $ev: $(grep LOST "$tmp/q$n.err" | head -1)"
		grep -q ', 0 lost,' "$tmp/q$n.err" || fail "$opt -e $ev: the summary does not say 0 lost: $(cat "$tmp/q$n.err")"
		q=$(perf script -i "$tmp/q$n.data" -F event 2>"$tmp/qs.err" | sort | uniq -c)
		[ -s "$tmp/qs.err" ] && fail "perf script on prec's $opt -e $ev: $(head -2 "$tmp/qs.err")"
		p=$(perf script -i "$tmp/p$n.data" -F event 2>/dev/null | sort | uniq -c)
		[ -n "$q" ] || fail "$opt -e $ev: no samples"
		[ "$q" = "$p" ] || fail "$opt -e $ev: samples by event, prec: $q; perf: $p"
		echo "$opt -e $ev: 0 lost, samples as perf's: $(echo "$q" | tr -s ' \n' ' ')"
	done
done
echo "PASS: no loss read from the events' times, $n recordings"
