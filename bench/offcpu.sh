#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What --off-cpu costs on a switch-heavy workload: the pingpong helper (two
# processes bouncing a byte over pipes PP_N times, each side blocking every
# time: 2 x PP_N sleeps and switches), recorded per task by
#   prec         prec record -e cpu-clock
#   prec-offcpu  prec record -e cpu-clock --off-cpu
#   perf         perf record -e cpu-clock
#   perf-ssfp    perf record -e cpu-clock -e sched:sched_switch/call-graph=fp/
#                (the data prec's source is: each switch-out with its stack)
#   perf-ssg     perf record -e sched:sched_switch -g
# perf 6.1 here is built without BPF skeletons and ignores --off-cpu, so
# its own off-CPU cost cannot be measured; the sched_switch recordings
# stand for it. Columns (medians of REPEAT runs): wall seconds of the
# recorded command (recorder and workload), user+system CPU seconds of the
# recorder and its workload together (rusage of the recorder's children
# included), their excess over the workload alone, bytes written, and for
# prec the merge's seconds (the off-CPU samples are made there) with the
# offcpu-time samples it wrote.
# Usage: bench/offcpu.sh   (env: PREC, BUILD, REPEAT, PP_N)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
REPEAT=${REPEAT:-5}
PP_N=${PP_N:-100000}
bench_require "$PREC" "$H/pingpong" /usr/bin/time
tmp=$(mktemp -d /tmp/prec-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
W=("$H/pingpong" "$PP_N")

# run NAME: one recording; "wall cpu bytes merge_s samples" on stdout
run() {
	local cmd e u s bytes merge=- samples=- t0
	rm -rf "$tmp/out" "$tmp/out.data" "$tmp/merged.data"
	case $1 in
	none) cmd=("${W[@]}") ;;
	prec) cmd=("$PREC" record -q -e cpu-clock -d "$tmp/out" -- "${W[@]}") ;;
	prec-offcpu) cmd=("$PREC" record -q -e cpu-clock --off-cpu -d "$tmp/out" -- "${W[@]}") ;;
	perf) cmd=(perf record -q -e cpu-clock -o "$tmp/out.data" -- "${W[@]}") ;;
	perf-ssfp) cmd=(perf record -q -e cpu-clock -e 'sched:sched_switch/call-graph=fp/'
		-o "$tmp/out.data" -- "${W[@]}") ;;
	perf-ssg) cmd=(perf record -q -e sched:sched_switch -g -o "$tmp/out.data" -- "${W[@]}") ;;
	esac
	/usr/bin/time -f "%e %U %S" -o "$tmp/t" "${cmd[@]}" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo "- - - - -"; return; }
	read -r e u s <"$tmp/t"
	bytes=$(du -sb "$tmp"/out* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	if [ -d "$tmp/out" ]; then
		t0=$(now)
		"$PREC" merge "$tmp/out" -o "$tmp/merged.data" 2>/dev/null
		merge=$(echo "$(now) - $t0" | bc)
		samples=$(perf report -i "$tmp/merged.data" --stdio 2>/dev/null |
			awk "/of event 'offcpu-time'/ { print \$3; exit }")
	fi
	echo "$e $(echo "$u + $s" | bc) $bytes $merge ${samples:--}"
}

echo "# bench/offcpu.sh: pingpong $PP_N, $(nproc) CPUs, $(uname -r), REPEAT=$REPEAT"
printf "%-12s %8s %8s %8s %12s %8s %10s\n" recorder wall_s cpu_s +cpu_s bytes merge_s offcpu
base_cpu=
for r in none prec prec-offcpu perf perf-ssfp perf-ssg; do
	: >"$tmp/runs"
	for ((i = 0; i < REPEAT; i++)); do run "$r" >>"$tmp/runs"; done
	wall=$(awk '{ print $1 }' "$tmp/runs" | median)
	cpu=$(awk '{ print $2 }' "$tmp/runs" | median)
	[ -n "$base_cpu" ] || base_cpu=$cpu
	bytes=$(awk '{ print $3 }' "$tmp/runs" | median)
	merge=$(awk '{ print $4 }' "$tmp/runs" | median)
	samples=$(awk '{ print $5 }' "$tmp/runs" | median)
	printf "%-12s %8s %8s %8.2f %12.0f %8s %10s\n" "$r" "$wall" "$cpu" \
		"$(echo "$cpu - $base_cpu" | bc)" "$bytes" "$merge" "$samples"
done
