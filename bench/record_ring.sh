#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smallest zero-loss ring: prec record and perf record, system-wide, over a
# sweep of per-CPU ring sizes, on the syscall storm (-e raw_syscalls:sys_enter
# -a, storm STORM_N getppid calls), then over DWARF_SIZES under
# -e cpu-clock -F 10000 --call-graph dwarf -a with a busy loop per CPU
# (8 KiB stacks: the other way to fill a ring fast): lost, recorder CPU
# seconds (its own rusage), bytes written, smallest zero-loss ring.
# Recorders run system-wide with no command and get SIGINT once the workload
# ends (as bench/record.sh); perf gets -B: its build-id pass aborts on this
# machine (perf 6.1, kernel 6.18). Sizes and recorders are interleaved per
# repetition to spread the noise of a shared machine; medians of REPEAT.
# Recorders (RECORDERS): prec (defaults: SCHED_FIFO 1 drainers on their
# ring's CPU, as root), prec-fair (-r 0: the fair scheduler beside the
# ring's CPU, the default without CAP_SYS_NICE), prec-zc (--no-copy: writes
# straight from the ring), prec-buf (--no-direct-io: through the page cache), prec-rt (-r 10), perf, perf-rt (perf record
# -r 10). The "smallest zero-loss ring" ratio compares prec with perf and
# prec-rt with perf-rt.
# Usage: bench/record_ring.sh  (env: BUILD, PREC, REPEAT, STORM_N, SIZES,
#        DWARF_SIZES, DWARF_SECS, PARTS="ring dwarf", LOSTRECS, RECORDERS)
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
REPEAT=${REPEAT:-3}
STORM_N=${STORM_N:-2000000}
SIZES=${SIZES:-"4 8 16 32 64 128 256 512 1024"}
DWARF_SIZES=${DWARF_SIZES:-"32 64 128 256 512 1024"}
DWARF_SECS=${DWARF_SECS:-3}
PARTS=${PARTS:-"ring dwarf"}
LOSTRECS=${LOSTRECS:-0} # 1: also count PERF_RECORD_LOST records (perf report -D, slow)
RECORDERS=${RECORDERS:-"prec perf"}
bench_require "$PREC" "$H/storm" /usr/bin/time
tmp=$(mktemp -d /var/tmp/prec-bench-ring.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)

workload() {
	case $1 in
	storm) "$H/storm" "$STORM_N" >/dev/null ;;
	dwarf)
		local pids=()
		for ((c = 0; c < ncpu; c++)); do
			timeout "$DWARF_SECS" sha256sum /dev/zero >/dev/null &
			pids+=($!)
		done
		wait "${pids[@]}" ;;
	esac
}

events() {
	case $1 in
	storm) echo "-e raw_syscalls:sys_enter" ;;
	dwarf) echo "-e cpu-clock -F 10000 --call-graph dwarf" ;;
	esac
}

perf_lost_recs() { # PERF_RECORD_LOST records in the file
	perf report -D -i "$1" 2>/dev/null | grep -c PERF_RECORD_LOST
}

prec_lost() { # sum of the shards' lost counts from the manifest
	"$PREC" info --json "$1" | grep -o '"lost": [0-9]*' | awk '{ s += $2 } END { print s + 0 }'
}

# run SCENARIO RECORDER PAGES -> "lost cpu_s bytes lost_recs" on stdout
run() {
	local sc=$1 rec=$2 pages=$3 out=$tmp/out cmd=() tpid rpid lost recs=-
	rm -rf "$out" "$tmp/err" "$tmp/time"
	case $rec in
	prec) cmd=("$PREC" record -q -d "$out" -m "$pages" -a) ;;
	prec-zc) cmd=("$PREC" record -q -d "$out" -m "$pages" -a --no-copy) ;;
	prec-fair) cmd=("$PREC" record -q -d "$out" -m "$pages" -a -r 0) ;;
	prec-buf) cmd=("$PREC" record -q -d "$out" -m "$pages" -a --no-direct-io) ;;
	prec-rt) cmd=("$PREC" record -q -d "$out" -m "$pages" -a -r 10) ;;
	perf) cmd=(perf record -q -B -o "$out" -m "$pages" -a) ;;
	perf-rt) cmd=(perf record -q -B -o "$out" -m "$pages" -a -r 10) ;;
	esac
	# shellcheck disable=SC2046
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" $(events "$sc") 2>"$tmp/err" &
	tpid=$!
	sleep 1.5
	rpid=$(pgrep -P $tpid | head -1)
	workload "$sc"
	kill -INT "$rpid"
	wait $tpid
	case $rec in
	prec*) lost=$(prec_lost "$out") ;;
	perf*) lost=$(perf_lost "$out"); [ "$sc" = dwarf ] || [ "$LOSTRECS" = 0 ] || recs=$(perf_lost_recs "$out") ;;
	esac
	echo "${lost:-?} $(awk 'END { print $1 + $2 }' "$tmp/time") $(du -sb "$out" | cut -f1) $recs"
}

col() { awk -v c="$2" '{ print $c }' "$1"; }

# sweep SCENARIO SIZES...: every recorder at every size, interleaved per
# repetition; the table, then each recorder's smallest zero-loss ring.
sweep() {
	local sc=$1 rep pages rec f
	shift
	for rep in $(seq "$REPEAT"); do
		for pages in "$@"; do
			for rec in $RECORDERS; do
				run "$sc" "$rec" "$pages" >>"$tmp/$sc.$rec.$pages"
			done
		done
	done
	printf '%-6s %8s %10s %20s %8s %8s %10s\n' pages rec lost_med "lost min..max" cpu_s MB lost_recs
	for pages in "$@"; do
		for rec in $RECORDERS; do
			f=$tmp/$sc.$rec.$pages
			printf '%-6s %8s %10s %20s %8.2f %8.1f %10s\n' "$pages" "$rec" \
				"$(col "$f" 1 | median)" "$(col "$f" 1 | range)" \
				"$(col "$f" 2 | median)" "$(col "$f" 3 | awk '{ print $1 / 1e6 }' | median)" \
				"$(col "$f" 4 | range)"
		done
	done
	rm -f "$tmp/smallest"
	for rec in $RECORDERS; do
		for pages in "$@"; do
			f=$tmp/$sc.$rec.$pages
			if awk '$1 != 0 { bad = 1 } END { exit bad }' "$f"; then
				echo "$rec: smallest ring with 0 lost in all $REPEAT runs: $pages pages" \
					"($((pages * 4)) KiB per CPU)"
				echo "$rec $pages" >>"$tmp/smallest"
				break
			fi
		done
	done
	[ -s "$tmp/smallest" ] && awk '{ p[$1] = $2 } END {
		if (p["prec"] && p["perf"]) printf "ratio perf/prec: %.2fx\n", p["perf"] / p["prec"]
		if (p["prec-rt"] && p["perf-rt"]) printf "ratio perf-rt/prec-rt: %.2fx\n", p["perf-rt"] / p["prec-rt"] }' "$tmp/smallest"
	echo "(a recorder missing above lost records at every size tried)"
}

ring_part() {
	echo "storm: -e raw_syscalls:sys_enter -a, storm $STORM_N; $REPEAT runs each, $ncpu CPUs"
	# shellcheck disable=SC2086
	sweep storm $SIZES
}

dwarf_part() {
	echo "dwarf: -e cpu-clock -F 10000 --call-graph dwarf -a," \
		"sha256sum /dev/zero x $ncpu for ${DWARF_SECS}s; $REPEAT runs each"
	# shellcheck disable=SC2086
	sweep dwarf $DWARF_SIZES
}

for part in $PARTS; do
	"${part}_part"
	echo
done
