#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest side of bench/vm.sh: prec and perf alternated, RUNS rounds of
# (a) a storm of N getppid() calls on every CPU at once into the default
# ring (kept, counted lost, exact total, recorder CPU, SIGINT to exit) and
# (b) record -a -- sleep 1 (default cpu-clock; wall time start to exit,
# recorder CPU). prec runs with -v: its close laps are printed too.
# Prints "B ..." lines. Usage: bench.sh [N] [RUNS]
. /guest_lib.sh
N=${1:-10000}
RUNS=${2:-3}
STORM="-e raw_syscalls:sys_enter --filter id==110"
echo "bench: $NCPU CPUs, kernel $(uname -r), storm $N per CPU, $RUNS runs, booted in $(cut -d' ' -f1 /proc/uptime) s"
laps() { sed -n 's/.*close: \(.*\) at +\([0-9.]*\) ms.*/B lap '"$1"' \2 \1/p' "$ERR"; }
r=1
while [ $r -le "$RUNS" ]; do
	for tool in prec perf; do
		v=
		[ $tool = prec ] && v=-v
		rec_storm $tool storm "$N" $v $STORM || echo "B error storm $tool exit $RC"
		stats "$OUT/storm.data"
		lost=$LOST
		[ $tool = prec ] && lost=$(sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$ERR")
		# The total: the storm's calls and the launching shell's one.
		echo "B storm $tool run=$r kept=$KEPT lost=$lost total=$((N * NCPU + 1)) cpu_s=$CPU close_ms=$CLOSE stop_ms=$STOP"
		[ $tool = prec ] && laps storm
		rm -rf "$OUT/storm" "$OUT/storm.data"
		rec $tool sleep -a $v -- sleep 1 || echo "B error sleep $tool exit $RC"
		stats "$OUT/sleep.data"
		# prec's merge of every CPU's shard, read by perf script and
		# perf report: nothing on stderr (clean), else its line count.
		script=-
		if [ $tool = prec ]; then
			script="clean"
			script_clean "$OUT/sleep.data" report ||
				script="stderr:$(wc -l </tmp/script.err)"
			# prec merge's own summary line aside
			m=$(grep -vc '^prec: merge ' "$OUT/sleep.merge.err")
			[ "$m" = 0 ] || script="merge-stderr:$m"
			script="$script/shards:$(ls "$OUT/sleep" | grep -c '\.shard$')"
		fi
		echo "B sleep $tool run=$r kept=$KEPT wall_ms=$WALL cpu_s=$CPU close_ms=$CLOSE script=$script"
		[ $tool = prec ] && laps sleep
		rm -rf "$OUT/sleep" "$OUT/sleep.data"
	done
	r=$((r + 1))
done
echo "bench: done at $(cut -d' ' -f1 /proc/uptime) s"
