#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec against perf on many CPUs: boots Debian's 6.1 cloud kernel under
# qemu (TCG, tests/vm/lib.sh) once per vCPU count, runs tests/vm/bench.sh in
# the guest (prec and perf alternated, RUNS rounds in the same boot) and
# prints one row per count and tool, medians of the runs:
#   storm: BENCH_N getppid() calls on every vCPU at once, default ring,
#          -e raw_syscalls:sys_enter --filter 'id == 110' -a: kept %, kept +
#          counted lost against the exact total, recorder CPU s, SIGINT to
#          exit ms, prec's "manifest in" ms;
#   sleep: record -a -- sleep 1 (default event): wall ms, recorder CPU s,
#          prec's "manifest in" ms.
# Timings are the emulator's: compare prec with perf within a row, not
# across counts or with a real machine. The guests' consoles are kept in
# $VM_CACHE/bench-N.log, prec's close laps (-v) are printed under the table.
# Usage: bench/vm.sh [NCPU...]   (default 8 16 32 64; env: BENCH_N, RUNS, BUILD,
# VM_REUSE=1 to print the table from the consoles of the last run)
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/vm/lib.sh
BENCH_N=${BENCH_N:-10000}
RUNS=${RUNS:-3}
counts=("$@")
[ ${#counts[@]} = 0 ] && counts=(8 16 32 64)

vm_deps && vm_kernel || exit 1
make -s -j2 "$VM_BUILD/prec" >/dev/null 2>&1 || true
for f in prec tests/helpers/storm tests/helpers/pingpong tests/helpers/mfdump tests/helpers/shardcount tests/helpers/xcpu; do
	[ -x "$VM_BUILD/$f" ] || { vm_log "$VM_BUILD/$f missing (make unit builds it)"; exit 1; }
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
# field LOG KIND TOOL KEY: the values of KEY= on the B KIND TOOL lines
field() { awk -v k="$2" -v t="$3" -v f="$4=" '$1 == "B" && $2 == k && $3 == t {
	for (i = 4; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1) }' "$1"; }

rows=()
for n in "${counts[@]}"; do
	log=$VM_CACHE/bench-$n.log
	# VM_REUSE=1: the table from the consoles of an earlier run
	if [ -n "${VM_REUSE:-}" ] && grep -q '^bench: done' "$log.txt" 2>/dev/null; then
		:
	else
		initrd=$VM_CACHE/bench-$$.cpio
		vm_initramfs "$initrd" tests/vm/bench.sh "$BENCH_N $RUNS" || exit 1
		vm_log "booting with $n vCPUs, console: $log"
		vm_boot "$n" "$initrd" "$log" $((900 + 60 * n))
		rm -f "$initrd"
		tr -d '\r' <"$log" | sed 's/.*\(bench: \)/\1/' >"$log.txt"
		grep -q '^bench: done' "$log.txt" || vm_log "$n vCPUs: the guest did not finish (see $log)"
	fi
	grep -h '^bench: \|^B error' "$log.txt" >&2
	for tool in prec perf; do
		total=$(field "$log.txt" storm $tool total | head -1)
		kept=$(field "$log.txt" storm $tool kept | median)
		pct=$(awk -v k="$kept" -v t="$total" 'BEGIN { if (t > 0) printf "%.1f", 100 * k / t; else print "-" }')
		acc=$(awk -v t="$total" '$1 == "B" && $2 == "storm" && $3 == "'$tool'" {
			for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "%s ", (v["kept"] + v["lost"] == t) ? "=" : (v["kept"] + v["lost"] - t) }' "$log.txt")
		rows+=("$(printf '| %s | %s | %s%% | %s | %s | %s | %s | %s | %s | %s | %s |' "$n" "$tool" "$pct" \
			"$(field "$log.txt" storm $tool lost | median)" "$acc" \
			"$(field "$log.txt" storm $tool cpu_s | median)" \
			"$(field "$log.txt" storm $tool stop_ms | median)" \
			"$(field "$log.txt" storm $tool close_ms | median)" \
			"$(field "$log.txt" sleep $tool wall_ms | median)" \
			"$(field "$log.txt" sleep $tool cpu_s | median)" \
			"$(field "$log.txt" sleep $tool close_ms | median)")")
	done
done

echo "storm: $BENCH_N getppid() per vCPU, default ring; sleep: record -a -- sleep 1; medians of $RUNS"
echo "(kept+lost: '=' when kept + counted lost is the exact total, else the difference, per run)"
echo
echo "| vCPUs | tool | storm kept | storm lost | kept+lost | storm rec CPU s | storm SIGINT->exit ms | storm manifest ms | sleep wall ms | sleep rec CPU s | sleep manifest ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "prec's merge of the sleep recordings read by perf script and perf report (clean: nothing on stderr; per run):"
for n in "${counts[@]}"; do
	echo "$n vCPUs: $(field "$VM_CACHE/bench-$n.log.txt" sleep prec script | tr '\n' ' ')"
done
echo
echo "prec's close laps (-v: ms from the stop), medians:"
for n in "${counts[@]}"; do
	# "B lap KIND MS WHAT...": one line per lap, in the order they come
	awk '$1 == "B" && $2 == "lap" { k = $3 ":"; for (i = 5; i <= NF; i++) k = k " " $i; print k "\t" $4 }' \
		"$VM_CACHE/bench-$n.log.txt" >"$VM_CACHE/laps.tsv"
	cut -f1 "$VM_CACHE/laps.tsv" | awk '!seen[$0]++' | while IFS= read -r k; do
		echo "$n $k $(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$VM_CACHE/laps.tsv" | median) ms"
	done
done
