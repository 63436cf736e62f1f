#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record next to `perf record` and `perf record --threads`: same events,
# same ring size, same workload, system-wide. Scenarios:
#   storm: -e raw_syscalls:sys_enter -a, the storm helper making STORM_N
#          getppid() calls (a few seconds);
#   clock: -e cpu-clock -F 10000 -g -a, one sha256sum loop per CPU;
#   dwarf: the clock workload under -e cpu-clock -F 10000 --call-graph dwarf;
#   build: `make -j$(nproc)` of prec's own source from clean under -g with
#          each recorder's default event (a real workload; not in the
#          default SCENARIOS), with prec-ovw (prec --overwrite: the
#          kernel's sampling alone, nothing drained) as the floor;
#   NAME+hogs: NAME's workload with two busy loops beside it, a loaded
#          machine (e.g. storm+hogs, dwarf+hogs; not in the defaults);
#   stormio: the storm while dd writes DISK_MB (default 1500) MB to the
#          recording's file system and fsyncs (not in the default SCENARIOS):
#          what a disk busy with other writes costs each recorder. Its
#          slowdown and exit columns time the storm alone.
# Per run: records lost, recorder CPU seconds (its own rusage via
# /usr/bin/time, the workload runs outside it), workload slowdown against
# no recorder, time from the workload's exit to the recorder's exit (SIGINT
# sent at once), bytes written. REPEAT runs each (default 5), medians.
# perf-B is perf record -B (no build-id pass): perf 6.1 on this machine
# often aborts in that pass, and the "aborted" column counts those runs,
# whose figures are then those of an unfinished file. perf-dflt is perf
# record with its own default ring (no -m: 512 KiB per CPU as root with
# perf_event_mlock_kb 516), next to prec at its default when PAGES is 256:
# each tool as it comes (not in the default RECORDERS). prec-fair is prec
# record -r 0: drainers under the fair scheduler, beside their ring's CPU
# (prec's default before 2026-11-23, and its default without CAP_SYS_NICE).
# prec-buf is prec record --no-direct-io: shards written through the page
# cache (prec's default before 2026-11-24).
# prec-ovw is prec record --overwrite (nothing drained until the end).
# Usage: bench/record.sh   (env: PREC, BUILD, REPEAT, STORM_N, PAGES, SCENARIOS,
# RECORDERS, PREC_BEFORE), e.g. SCENARIOS=build RECORDERS="prec prec-ovw perf" bench/record.sh;
# RECORDERS="prec-before prec perf" PREC_BEFORE=OLD/build/prec: an older
# build interleaved with this one, run for run (before and after a change)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
REPEAT=${REPEAT:-5}
STORM_N=${STORM_N:-2000000}
PAGES=${PAGES:-256}
SCENARIOS=${SCENARIOS:-"storm clock dwarf"}
RECORDERS=${RECORDERS:-"prec perf perf-B perf-threads"}
bench_require "$PREC" "$H/storm" /usr/bin/time
tmp=$(mktemp -d /tmp/prec-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)
head -c 48M /dev/urandom >"$tmp/blob"
[[ " $SCENARIOS " == *" build"* ]] && build_src

# run SCENARIO RECORDER -> "lost cpu_s wall_s exit_ms bytes" on stdout
run() {
	local sc=$1 rec=$2 out=$tmp/out cmd=() tpid rpid t0 t1 t2 lost=0 cpu=0 abort=0
	rm -rf "$out" "$tmp/err" "$tmp/time"
	case $rec in
	none) t0=$(now); workload "$sc"; t1=$(now); workload_end
	      echo "0 0 $(echo "$t1 - $t0" | bc) 0 0 0"; return ;;
	prec) cmd=("$PREC" record -d "$out" -m "$PAGES" -a) ;;
	prec-before) cmd=("$PREC_BEFORE" record -d "$out" -m "$PAGES" -a) ;;
	prec-fair) cmd=("$PREC" record -r 0 -d "$out" -m "$PAGES" -a) ;;
	prec-buf) cmd=("$PREC" record --no-direct-io -d "$out" -m "$PAGES" -a) ;;
	prec-ovw) cmd=("$PREC" record --overwrite -d "$out" -m "$PAGES" -a) ;;
	perf) cmd=(perf record -q -o "$out" -m "$PAGES" -a) ;;
	perf-B) cmd=(perf record -q -B -o "$out" -m "$PAGES" -a) ;;
	perf-threads) cmd=(perf record -q --threads -o "$out" -m "$PAGES" -a) ;;
	perf-dflt) cmd=(perf record -q -o "$out" -a) ;;
	esac
	# shellcheck disable=SC2046
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" $(events "$sc") 2>"$tmp/err" &
	tpid=$!
	sleep 1.5
	rpid=$(pgrep -P $tpid | head -1)
	t0=$(now); workload "$sc"; t1=$(now)
	kill -INT "$rpid"
	wait $tpid
	t2=$(now)
	workload_end
	cpu=$(awk 'END { print $1 + $2 }' "$tmp/time")
	case $rec in
	prec*) lost=$(sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$tmp/err") ;;
	*) lost=$(perf_lost "$out") ;;
	esac
	# perf 6.1 here sometimes aborts in its build-id pass (stack smashing,
	# SIGABRT): its file is then unfinished; such runs are counted, not
	# hidden. (perf re-raises the SIGINT it stops on: signal 2 is normal.)
	grep -qE 'stack smashing|terminated by signal (6|11)$' "$tmp/err" "$tmp/time" && abort=1
	echo "${lost:-?} $cpu $(echo "$t1 - $t0" | bc) $(echo "($t2 - $t1) * 1000" | bc) $(du -sb "$out" | cut -f1) ${abort:-0}"
}

printf '%-10s %-13s %12s %16s %9s %9s %10s %10s %8s\n' scen recorder lost "lost min..max" cpu_s \
	slowdown exit_ms MB aborted
for sc in $SCENARIOS; do
	for _ in $(seq "$REPEAT"); do
		for rec in none $RECORDERS; do
			run "$sc" "$rec" >>"$tmp/$sc.$rec"
		done
	done
	base=$(awk '{ print $3 }' "$tmp/$sc.none" | median)
	for rec in $RECORDERS; do
		f=$tmp/$sc.$rec
		printf '%-10s %-13s %12s %16s %9.2f %8.2fx %10.0f %10.1f %8s\n' "$sc" "$rec" \
			"$(awk '{ print $1 }' "$f" | median)" \
			"$(awk '$1 != "?" { print $1 }' "$f" | range)" \
			"$(awk '{ print $2 }' "$f" | median)" \
			"$(awk -v b="$base" '{ print $3 / b }' "$f" | median)" \
			"$(awk '{ print $4 }' "$f" | median)" \
			"$(awk '{ print $5 / 1e6 }' "$f" | median)" \
			"$(awk '{ s += $6 } END { print s + 0 }' "$f")/$REPEAT"
	done
	printf '%-10s %-13s %12s %16s %9s %8.2fs %10s %10s\n' "$sc" "(no recorder)" - - - "$base" - -
done
echo "($REPEAT runs each, medians; ring $PAGES pages per CPU; $ncpu CPUs; storm $STORM_N calls)"
