#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf itself is the judge: real prec recordings of workloads with known
# counts, merged by prec merge in file and pipe format, read by perf script,
# perf report and perf buildid-list, which must agree on every count and
# print nothing on stderr.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-50000}
need_root
need_tracepoint raw_syscalls
e2e_tmpdir mergeperf
quiet_stderr() { # file, what
	[ ! -s "$1" ] || { cat "$1"; fail "$2 printed on stderr"; }
}
# The exact-count recordings use a ring that holds the whole workload (-m 16M):
# a count must not depend on how a loaded CI machine schedules the drainer
# (loss against ring size is bench/record_ring.sh's business).
rec() { # dir, prec record args...
	local d=$1; shift
	"$PREC" record -q -d "$d" -m 16M "$@" 2>"$tmp/rec.err" || fail_rc "$tmp/rec.err" "record $*"
}

# 1. The storm: exactly N sys_enter samples, NR 110 decoded, times sorted.
rec "$tmp/storm" -e raw_syscalls:sys_enter --filter 'id == 110' -- "$H/storm" "$N"
"$PREC" merge "$tmp/storm" -o "$tmp/storm.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge"; }
perf script -i "$tmp/storm.data" --ns >"$tmp/script" 2>"$tmp/script.err"
quiet_stderr "$tmp/script.err" "perf script (file format)"
got=$(grep -c 'raw_syscalls:sys_enter' "$tmp/script")
[ "$got" = "$N" ] || fail "perf script shows $got samples, want $N"
nr=$(grep -c 'NR 110 ' "$tmp/script")
[ "$nr" = "$N" ] || fail "perf script decodes NR 110 in $nr samples, want $N"
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t < last) bad++; last = t } }
     END { exit bad > 0 }' "$tmp/script" || fail "perf script timestamps go backwards"
"$PREC" merge "$tmp/storm" 2>"$tmp/pmerge.err" | perf script -i - >"$tmp/pscript" 2>"$tmp/pscript.err"
quiet_stderr "$tmp/pscript.err" "perf script (pipe format)"
got=$(grep -c 'raw_syscalls:sys_enter' "$tmp/pscript")
[ "$got" = "$N" ] || fail "pipe format: perf script shows $got samples, want $N"
echo "storm: $N samples in file and pipe format, NR 110 decoded, sorted"

# 2. perf report --header-only: host facts, cmdline, event names.
perf report --header-only -i "$tmp/storm.data" >"$tmp/hdr" 2>&1
for want in "hostname : $(uname -n)" "os release : $(uname -r)" "nrcpus online" \
	"cmdline : " "raw_syscalls:sys_enter" "arch : $(uname -m)"; do
	grep -qF "$want" "$tmp/hdr" || { cat "$tmp/hdr"; fail "header lacks '$want'"; }
done
echo "header: hostname, os release, cpus, cmdline, event names present"

# 3. perf buildid-list: the workload binary and libc with readelf's ids.
perf buildid-list -i "$tmp/storm.data" >"$tmp/bids" 2>"$tmp/bids.err"
quiet_stderr "$tmp/bids.err" "perf buildid-list"
libc=$(ldd "$H/storm" | awk '/libc\.so/ { print $3 }')
for f in "$H/storm" "$libc"; do
	real=$(readlink -f "$f")
	id=$(readelf -n "$real" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || fail "readelf finds no build-id in $real"
	grep -q "^$id " "$tmp/bids" || { cat "$tmp/bids"; fail "buildid-list lacks $id ($real)"; }
done
echo "buildid-list: storm and libc ids equal readelf -n"

# 4. cpu-clock on all CPUs: perf script shows exactly the samples prec holds.
rec "$tmp/clock" -a -e cpu-clock -F 1000 -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
"$PREC" merge "$tmp/clock" -o "$tmp/clock.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge clock"; }
want=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/merge.err")
perf script -i "$tmp/clock.data" >"$tmp/cscript" 2>"$tmp/cscript.err"
quiet_stderr "$tmp/cscript.err" "perf script (cpu-clock -a)"
got=$(grep -c 'cpu-clock' "$tmp/cscript")
[ -n "$want" ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "cpu-clock: perf script $got, prec merged $want"
echo "cpu-clock -a: $got samples, perf agrees"

# 5. sched_switch under a ping-pong of two processes: each of the 2 sides
# blocks N times when both share one CPU, so at least 2N switches away
# from pingpong.
P=5000
# (--round-ms 10: idle drainers wake, and switch, at least every 10 ms)
rec "$tmp/sched" -a --round-ms 10 -e sched:sched_switch -- taskset -c 0 "$H/pingpong" "$P"
"$PREC" merge "$tmp/sched" 2>"$tmp/merge.err" | perf script -i - >"$tmp/sscript" 2>"$tmp/sscript.err"
quiet_stderr "$tmp/sscript.err" "perf script (sched_switch, pipe)"
want=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/merge.err")
got=$(grep -c 'sched:sched_switch' "$tmp/sscript")
[ "$got" = "$want" ] || fail "sched_switch: perf script $got, prec merged $want"
away=$(grep -c 'prev_comm=pingpong' "$tmp/sscript")
[ "$away" -ge $((2 * P)) ] || fail "only $away switches away from pingpong, want >= $((2 * P))"
# prec's own drainer threads are named in the side band (they exist before
# it is read from /proc): perf shows them by name, never as ":tid".
own=$(grep -c 'prev_comm=prec-drain' "$tmp/sscript")
[ "$own" -gt 0 ] || fail "no switch away from a prec-drain thread"
grep 'prev_comm=prec-drain' "$tmp/sscript" | grep -q '^ *:[0-9]' &&
	fail "a drainer thread without its name: $(grep 'prev_comm=prec-drain' "$tmp/sscript" | grep -m1 '^ *:[0-9]')"
echo "sched_switch: $got samples, $away away from pingpong (>= $((2 * P))), $own from named drainers"

# 6. perf report per-comm shares equal those of perf record on the same
# workload: two storms of known sizes under different names, 3:1, recorded
# system-wide by both (perf 6.1's build-id pass aborts in workload mode on
# this kernel, so both use -a; the filter keeps only getppid calls; perf
# and prec get 16 MiB rings, which hold the whole burst, so neither depends
# on how fast it drains on a loaded 2-CPU machine).
# Both storms get names of their own: other storms on the machine (the
# recordings are system-wide) must not count.
A=sa$$ B=sb$$
cp "$H/storm" "$tmp/$A"
cp "$H/storm" "$tmp/$B"
work="$tmp/$A 30000; $tmp/$B 10000"
rec "$tmp/two" -a -m 16M -e raw_syscalls:sys_enter --filter 'id == 110' -- sh -c "$work"
"$PREC" merge "$tmp/two" -o "$tmp/two.data" 2>/dev/null || fail "merge two"
# perf is the reference here, so its run must be complete: a run in which
# perf itself missed samples (seen once on a loaded 2-CPU machine) is retried.
n=0
for try in 1 2 3; do
	if perf record -q -a -m 4096 -o "$tmp/perf.data" -e raw_syscalls:sys_enter \
		--filter 'id == 110' -- sh -c "$work" 2>"$tmp/perf.err"; then
		n=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | grep -cE "^ *($A|$B) *\$")
	else
		echo "perf record failed on try $try: $(tail -n 1 "$tmp/perf.err")"
	fi
	[ "$n" != 40000 ] || break
	echo "perf recorded $n of the 40000 storm samples on try $try"
done
[ "$n" = 40000 ] || fail "no complete perf record run to compare with"
# The share of A among A and B, from perf report --sort comm.
share() {
	perf report -i "$1" --stdio --sort comm 2>/dev/null |
		awk -v a="$A" -v b="$B" '/%/ && !/^#/ { sub("%", "", $1); p[$2] = $1 }
			END { if (p[a] + p[b] > 0) printf "%.2f\n", 100 * p[a] / (p[a] + p[b]) }'
}
sp=$(share "$tmp/two.data")
sf=$(share "$tmp/perf.data")
echo "share of the 30000-call storm: prec $sp%, perf $sf%"
awk -v a="$sp" -v b="$sf" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d < 0.2 && d > -0.2) }' ||
	fail "per-comm shares differ: prec $sp%, perf $sf%"
awk -v a="$sp" 'BEGIN { exit !(a > 74.9 && a < 75.1) }' || fail "storm share is $sp%, not 75%"
echo "PASS"
