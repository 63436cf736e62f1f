#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record -a -e cpu-clock -F 1000 -- sleep 1 with a busy loop pinned on
# every online CPU: one shard per online CPU plus the side band, every shard
# readable, each busy CPU's shard full of samples, ids per CPU in a complete
# manifest, and prec's exit status is the workload's.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir cpuclock
busy=()
cleanup() { [ ${#busy[@]} -gt 0 ] && kill "${busy[@]}" 2>/dev/null; }
at_exit cleanup

cpus=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	if (n == 1) print r[1]; else for (c = r[1]; c <= r[2]; c++) print c } }' \
	/sys/devices/system/cpu/online)
ncpu=$(echo "$cpus" | wc -l)
for c in $cpus; do
	taskset -c "$c" sh -c 'while :; do :; done' &
	busy+=($!)
done

"$PREC" record -d "$tmp/out" -a -e cpu-clock -F 1000 -- sleep 1 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 0 ] || fail "record exited $rc"
kill "${busy[@]}" 2>/dev/null; busy=()

# Files: cpuNNN.shard per online CPU, sideband.shard, manifest, vdso.so
# (the processes' [vdso] maps); nothing else.
for c in $cpus; do
	[ -f "$tmp/out/$(printf 'cpu%03d.shard' "$c")" ] || fail "no shard for cpu $c"
done
[ -f "$tmp/out/sideband.shard" ] || fail "no sideband.shard"
[ -f "$tmp/out/vdso.so" ] || fail "no vdso.so"
n=$(ls "$tmp/out" | wc -l)
[ "$n" = $((ncpu + 3)) ] || fail "$n files in the directory, want $((ncpu + 3))"
grep -q "^\[ prec record: $((ncpu + 1)) shards, .*, 0 lost, manifest in" "$tmp/err" ||
	fail "summary line"

"$H/shardcount" "$tmp/out" >"$tmp/count" || { cat "$tmp/count"; fail "a shard is corrupt"; }
cat "$tmp/count"
for c in $cpus; do
	s=$(awk -v n="$(printf 'cpu%03d.shard' "$c")" '$2 == n { sub("samples=", "", $6); print $6 }' "$tmp/count")
	# 1 s at 1000 Hz on a busy CPU: ~1000; allow a loaded machine.
	[ "${s:-0}" -ge 300 ] || fail "cpu $c: only ${s:-0} samples"
	[ "${s:-0}" -le 1500 ] || fail "cpu $c: ${s} samples at 1000 Hz in ~1 s"
done

"$H/mfdump" "$tmp/out" >"$tmp/mf" || fail "manifest unreadable"
grep -q '^state complete' "$tmp/mf" || fail "manifest not complete"
grep -q '^event 0 dummy ids='"$ncpu" "$tmp/mf" || fail "tracking event ids"
grep -q '^event 1 cpu-clock ids='"$ncpu" "$tmp/mf" || fail "cpu-clock ids"
for c in $cpus; do
	grep -q "^id 1 [0-9]* cpu=$c tid=-1\$" "$tmp/mf" || fail "no cpu-clock id for cpu $c"
done
[ "$(grep -c '^shard ' "$tmp/mf")" = $((ncpu + 1)) ] || fail "manifest shard count"

# Exit status of the workload is prec's.
"$PREC" record -q -d "$tmp/st" -a -e cpu-clock -- sh -c 'exit 7'
rc=$?
[ $rc = 7 ] || fail "workload exit 7, prec exited $rc"
echo "PASS"
