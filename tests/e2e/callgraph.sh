#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Call chains that perf unwinds from our files. The callchain helper spins in
# callchain_inner, called by callchain_middle, called by callchain_outer,
# called by main. In every recording, almost all samples in callchain_inner
# must carry that whole chain in `perf script`:
# 1. -g (frame pointers), the helper as the workload;
# 2. --call-graph dwarf, the helper as the workload (perf unwinds the 8 KiB
#    stack copies with the binary's .eh_frame, which it reaches through the
#    data maps the tracking event records: mmap_data);
# 3. --call-graph dwarf -p PID on the helper already running (the side band
#    must then carry its data maps too).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir callgraph
spin=
cleanup() { [ -n "$spin" ] && kill "$spin" 2>/dev/null; }
at_exit cleanup

# chains DIR WHAT: merge DIR, count the samples in callchain_inner and those
# whose chain goes on through middle, outer and main; want >= 95% of >= 100
chains() {
	"$PREC" merge "$1" -o "$1.data" 2>/dev/null || fail "$2: merge"
	perf script -i "$1.data" -F ip,sym >"$1.script" 2>"$1.err" || fail "$2: perf script"
	read -r n full < <(awk 'BEGIN { RS = "" } /callchain_inner/ { n++
		if (/callchain_middle/ && /callchain_outer/ && /[ \t]main\n/) full++ }
		END { print n + 0, full + 0 }' "$1.script")
	echo "$2: $full of $n samples in callchain_inner unwound to main"
	[ "$n" -ge 100 ] || fail "$2: only $n samples in callchain_inner"
	[ $((full * 100)) -ge $((n * 95)) ] || fail "$2: $full of $n unwound to main"
}

"$PREC" record -q -d "$tmp/fp" -e cpu-clock -F 2000 -g -- "$H/callchain" 400 ||
	fail "record -g"
chains "$tmp/fp" "-g"
"$PREC" record -q -d "$tmp/dw" -e cpu-clock -F 2000 --call-graph dwarf -- "$H/callchain" 400 ||
	fail "record --call-graph dwarf"
chains "$tmp/dw" "--call-graph dwarf"

"$H/callchain" 3000 &
spin=$!
sleep 0.2
mkfifo "$tmp/ctl" "$tmp/ack"
"$PREC" record -q -d "$tmp/dwp" -e cpu-clock -F 2000 --call-graph dwarf -p "$spin" \
	--control "fifo:$tmp/ctl,$tmp/ack" &
rec=$!
# recorded until the helper has had 0.4 s of CPU (its ticks in /proc), not
# for a time on the wall, in which other processes' load takes its CPU;
# counted from the events' enabling
wait_enabled "$tmp/ctl" "$tmp/ack" "record --call-graph dwarf -p"
ticks() { awk '{ print $14 + $15 }' "/proc/$spin/stat"; }
t0=$(ticks) i=0
while [ $(($(ticks) - t0)) -lt $(($(getconf CLK_TCK) * 2 / 5)) ] && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT $rec
wait_signaled $rec INT "record --call-graph dwarf -p"
chains "$tmp/dwp" "--call-graph dwarf -p"
echo "PASS: fp and dwarf call chains unwind to main, workload and -p"
