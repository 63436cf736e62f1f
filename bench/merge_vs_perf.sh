#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge next to perf's own reading of a `perf record --threads`
# directory, on recordings of the same workload (-e cpu-clock -F 10000 -g -a,
# one sha256sum /dev/zero per CPU for SECS seconds): wall time and peak RSS
# (/usr/bin/time -f '%e %M') of
#   prec merge DIR -o FILE           (FILE on /var/tmp, deleted after)
#   perf report --stdio -i PERFDIR   (perf record --threads -B -a directory)
#   prec merge DIR | perf report --stdio -i -   (each side measured)
#   perf report --stdio -i FILE      (the merged file)
# interleaved, REPEAT runs each, median and min..max. Then prec merge peak RSS
# on synthetic 16-shard sets (mkshards) of SYN_SIZES, to show it stays flat;
# 4G is skipped with less than 12 GB free in /var/tmp. WORKLOAD=storm records
# -e raw_syscalls:sys_enter -m 512 -a over storm STORM_N instead.
# Usage: bench/merge_vs_perf.sh  (env: BUILD, PREC, REPEAT, SECS, SYN_SIZES,
#        PARTS="real syn", WORKLOAD=clock|storm, STORM_N)
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
REPEAT=${REPEAT:-5}
SECS=${SECS:-5}
SYN_SIZES=${SYN_SIZES:-"100M 1G 4G"}
PARTS=${PARTS:-"real syn"}
bench_require "$PREC" "$H/mkshards" /usr/bin/time
tmp=$(mktemp -d /var/tmp/prec-bench-mvp.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)
WORKLOAD=${WORKLOAD:-clock}
STORM_N=${STORM_N:-2000000}
case $WORKLOAD in
clock) EV=(-e cpu-clock -F 10000 -g) ;;
storm) EV=(-e raw_syscalls:sys_enter -m 512) ;;
*) echo "bench/merge_vs_perf.sh: WORKLOAD is clock or storm" >&2; exit 1 ;;
esac

busy() {
	local pids=() c
	if [ "$WORKLOAD" = storm ]; then
		"$H/storm" "$STORM_N" >/dev/null
		return
	fi
	for ((c = 0; c < ncpu; c++)); do
		timeout "$SECS" sha256sum /dev/zero >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# record RECORDER... : system-wide during busy(), stopped by SIGINT
record() {
	"$@" "${EV[@]}" -a 2>"$tmp/rec.err" &
	local pid=$!
	sleep 1.5
	busy
	kill -INT "$pid"
	wait "$pid"; local rc=$?
	[ $rc = 0 ] || [ $rc = 130 ] || echo "record: $1 exited $rc" >&2
}

# t NAME CMD... : append "wall_s rss_kib" of CMD (stdout discarded) to $tmp/NAME
t() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/t.err" ||
		echo "$name: failed: $(tail -1 "$tmp/t.err")" >&2
	tail -1 "$tmp/t" >>"$tmp/$name"
}

row() { # NAME LABEL
	local f=$tmp/$1
	printf '%-44s %7s %14s %9.1f %16s\n' "$2" \
		"$(awk '{ print $1 }' "$f" | median)" "$(awk '{ print $1 }' "$f" | range)" \
		"$(awk '{ print $2 / 1024 }' "$f" | median)" \
		"$(awk '{ printf "%.1f\n", $2 / 1024 }' "$f" | range)"
}

real_part() {
	local d=$tmp/prec.d p=$tmp/perf.d m=$tmp/merged.data rep
	record "$PREC" record -q -d "$d"
	record perf record -q -B --threads -o "$p"
	"$PREC" merge "$d" -o "$m" 2>/dev/null
	cat "$d"/* "$p"/* >/dev/null # warm: measure the readers, not the disk
	echo "recordings: ${EV[*]} -a, workload $WORKLOAD (storm $STORM_N or sha256sum x $ncpu for ${SECS}s):" \
		"prec $(du -sh "$d" | cut -f1) ($(ls "$d" | wc -l) files)," \
		"perf --threads $(du -sh "$p" | cut -f1) ($(ls "$p"/data* "$p"/data/* 2>/dev/null | wc -l) files)," \
		"merged $(du -sh "$m" | cut -f1)"
	for rep in $(seq "$REPEAT"); do
		t merge "$PREC" merge "$d" -o "$tmp/out.data" -f
		rm -f "$tmp/out.data"
		t perfdir perf report --stdio -i "$p"
		t pipe_merge sh -c "'$PREC' merge '$d' -o - | cat >'$tmp/pipe.data'"
		t pipe_report sh -c "cat '$tmp/pipe.data' | perf report --stdio -i -"
		rm -f "$tmp/pipe.data"
		t merged perf report --stdio -i "$m"
		/usr/bin/time -f '%e' -o "$tmp/pt" sh -c "'$PREC' merge '$d' -o - | perf report --stdio -i -" \
			>/dev/null 2>&1
		awk '{ print $1, 0 }' "$tmp/pt" >>"$tmp/pipe_wall"
	done
	printf '%-44s %7s %14s %9s %16s\n' command wall_s "min..max" RSS_MiB "min..max"
	row merge "prec merge DIR -o FILE"
	row perfdir "perf report --stdio -i PERFDIR (--threads)"
	row merged "perf report --stdio -i FILE (merged)"
	row pipe_merge "  prec merge DIR -o - (into cat)"
	row pipe_report "  perf report --stdio -i - (from cat)"
	row pipe_wall "prec merge DIR | perf report -i - (wall)"
	echo "($REPEAT runs each, interleaved; page cache warm)"
}

syn_part() {
	local s=$tmp/syn free_gb size rep
	free_gb=$(df -B1G --output=avail /var/tmp | tail -1 | tr -d ' ')
	printf '%-6s %6s %10s %7s %14s %9s %16s\n' size shards set_MB wall_s "min..max" RSS_MiB "min..max"
	for size in $SYN_SIZES; do
		if [ "$size" = 4G ] && [ "$free_gb" -lt 12 ]; then
			echo "$size: skipped, only ${free_gb} GB free in /var/tmp"
			continue
		fi
		rm -rf "$s" "$tmp/syn.$size"
		"$H/mkshards" "$s" --shards 16 --total-bytes "$size" --seed 7 >/dev/null
		for rep in $(seq "$REPEAT"); do
			t "syn.$size" "$PREC" merge "$s" -o "$tmp/syn.data" -f
			rm -f "$tmp/syn.data"
		done
		f=$tmp/syn.$size
		printf '%-6s %6s %10.0f %7s %14s %9.1f %16s\n' "$size" 16 \
			"$(du -sb "$s" | awk '{ print $1 / 1e6 }')" \
			"$(awk '{ print $1 }' "$f" | median)" "$(awk '{ print $1 }' "$f" | range)" \
			"$(awk '{ print $2 / 1024 }' "$f" | median)" \
			"$(awk '{ printf "%.1f\n", $2 / 1024 }' "$f" | range)"
		rm -rf "$s"
	done
	echo "(prec merge SET -o FILE on /var/tmp, FILE deleted after each run; $REPEAT runs; not warmed)"
}

for part in $PARTS; do
	"${part}_part"
	echo
done
