#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Flight recorder: every record the kernel produced is kept or counted
# lost, also when the drops of a snapshot's pause are never followed by a
# record (the kernel writes a pause's LOST record only before the next
# record: after the workload's last one, or after the disable, nothing
# reports them). A storm of exactly N getppid() calls runs under
# --overwrite with a ring that holds all of it, while 'snapshot' commands
# come back to back (300 at once), so the ring is paused most of the time and the storm
# ends in a pause: its samples in the merge plus the manifest's losses (the
# larger of lost and lost_samples per shard, as the summary line counts
# them) are exactly N, the summary line says the same, and perf script
# reads the merge.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3 "no python3 (manifest totals)"
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir flight_lost
rec=
cleanup() { [ -n "$rec" ] && kill "$rec" 2>/dev/null; }
at_exit cleanup
N=200000

for run in 1 2 3; do
	d=$tmp/r$run
	mkfifo "$d.ctl"
	# 32M: the whole storm fits, nothing is overwritten; every record not
	# kept was dropped during a pause.
	"$PREC" record -d "$d" --overwrite -m 32M --control "fifo:$d.ctl" \
		-e raw_syscalls:sys_enter --filter 'id == 110' -- "$H/storm" $N 2>"$d.err" & rec=$!
	wait_manifest "$d" 10
	# More than the storm lasts: each pauses the ring for a grace period
	# and the copy. The fifo holds them all (prec keeps it open).
	for _ in $(seq 300); do echo snapshot; done >"$d.ctl"
	wait "$rec" || fail_rc "$d.err" "record run $run"
	rec=
	"$PREC" info --check "$d" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "run $run: info --check"; }
	lost=$("$PREC" info --json "$d" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(sum(max(s["lost"], s["lost_samples"]) for s in m["shards"]))') || fail "run $run: info --json"
	"$PREC" merge "$d" 2>"$tmp/merr" | perf script -i - >"$tmp/script" 2>/dev/null ||
		fail "run $run: merge | perf script: $(cat "$tmp/merr")"
	got=$(awk '$1 == "storm" && /raw_syscalls:sys_enter:/' "$tmp/script" | wc -l)
	echo "run $run: $got samples kept, $lost lost"
	[ $((got + lost)) = $N ] || fail "run $run: $got samples + $lost lost = $((got + lost)), want $N"
	grep -q "prec record: .*, $lost lost," "$d.err" ||
		fail "run $run: summary line does not say $lost lost: $(grep 'prec record:' "$d.err")"
done
echo "PASS: kept + lost = $N in 3 runs of back-to-back snapshots"
