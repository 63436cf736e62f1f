#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill -9 at random moments (seeded; TEST_SEED to replay, KILL9_RUNS to
# change the 20 runs): a busy system-wide recording (cpu-clock at 4 kHz
# plus getppid bursts on raw_syscalls:sys_enter) is killed 50..1500 ms
# after launch. Then every shard must read up to its last whole chunk (a
# torn tail is the only damage allowed), prec merge must succeed with the
# one "did not finish" warning, its sample count must equal the shards',
# and perf script must read exactly those samples without a complaint.
# A kill before the start manifest leaves nothing to merge: prec merge must
# say so in one line and fail, never crash.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
RUNS=${KILL9_RUNS:-20}
need_root
need_tracepoint raw_syscalls/sys_enter
seed=${TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (TEST_SEED=$seed to replay)"
RANDOM=$seed
e2e_tmpdir kill9
storm=
cleanup() {
	[ -n "$storm" ] && kill "$storm" 2>/dev/null
}
at_exit cleanup
# After a FAIL line: which run of which seed, to replay it.
on_fail() { echo "  (seed $seed, run ${run:-?}, kill at ${ms:-?} ms)"; }

# Bursts of 5000 getppid calls, ~150k a second in all: busy, with a fork,
# exec and mmap every few ms for the tracking event, yet each run's merge
# and perf script stay around a second.
(while :; do "$H/storm" 5000; sleep 0.02; done) &
storm=$!

early=0 late=0 empty=0
for run in $(seq "$RUNS"); do
	d=$tmp/rec
	rm -rf "$d" "$tmp/out.data"
	ms=$((50 + RANDOM % 1451))
	# No -F: it would sample the tracepoint at 4 kHz too; cpu-clock's
	# default is 4 kHz, the tracepoint's period 1 (every call).
	"$PREC" record -q -d "$d" -a -e cpu-clock \
		-e raw_syscalls:sys_enter --filter 'id == 110' 2>"$tmp/rec.err" &
	pid=$!
	sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -9 $pid
	wait $pid 2>/dev/null
	[ -s "$tmp/rec.err" ] && { cat "$tmp/rec.err"; fail "prec record complained before the kill"; }
	if [ ! -e "$d/manifest" ]; then
		# Killed before the start manifest: the directory holds at most
		# empty shards; merge refuses in one line.
		early=$((early + 1))
		[ -d "$d" ] || { echo "run $run: killed at $ms ms, before the directory"; continue; }
		"$PREC" merge "$d" -o "$tmp/out.data" 2>"$tmp/merge.err"
		rc=$?
		[ $rc = 1 ] || { cat "$tmp/merge.err"; fail "merge of a manifest-less directory: exit $rc, want 1"; }
		[ "$(grep -c . "$tmp/merge.err")" = 1 ] || { cat "$tmp/merge.err"; fail "merge: want one line"; }
		echo "run $run: killed at $ms ms, before the start manifest: $(cat "$tmp/merge.err")"
		continue
	fi
	late=$((late + 1))
	"$H/mfdump" "$d" >"$tmp/mf" || fail "start manifest unreadable"
	grep -q '^state recording' "$tmp/mf" || fail "manifest should say recording"
	# Shard reader: every shard opens and ends ok or at a torn tail.
	"$H/shardcount" "$d" >"$tmp/count"
	awk '/^shard/ && $0 ~ /open=/ { bad = 1 }
	     /^shard/ { e = substr($0, index($0, "end=") + 4); if (e != "ok" && e !~ /^torn /) bad = 1 }
	     END { exit bad }' "$tmp/count" || { cat "$tmp/count"; fail "a shard is damaged beyond a torn tail"; }
	shards=$(awk '/^total/ { sub("shards=", "", $2); print $2 }' "$tmp/count")
	[ "$shards" = "$(grep -c '^shard ' "$tmp/mf")" ] || fail "$shards shard files, manifest lists $(grep -c '^shard ' "$tmp/mf")"
	torn=$(grep -c 'end=torn' "$tmp/count")
	ssam=$(awk '/^total/ { sub("samples=", "", $4); print $4 }' "$tmp/count")
	# prec merge: one warning that the recording did not finish, one per
	# torn shard, nothing else.
	"$PREC" merge "$d" -o "$tmp/out.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
	[ "$(grep -c 'recording did not finish (manifest says recording)' "$tmp/merge.err")" = 1 ] ||
		{ cat "$tmp/merge.err"; fail "merge: no 'did not finish' warning"; }
	warns=$(grep -c '^prec: warning' "$tmp/merge.err")
	errs=$(grep -c '^prec: error' "$tmp/merge.err")
	[ "$errs" = 0 ] && [ "$warns" -le $((1 + torn)) ] || { cat "$tmp/merge.err"; fail "merge: unexpected complaints"; }
	msam=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/merge.err")
	[ "$msam" = "$ssam" ] || { cat "$tmp/merge.err"; fail "merge wrote '$msam' samples, the shards hold $ssam"; }
	perf script -i "$tmp/out.data" -F event >"$tmp/script" 2>"$tmp/script.err"
	rc=$?
	# perf's note on PERF_RECORD_LOST (the ring overflowed under the
	# storm: recorded data, not damage) is the only message allowed.
	grep -Ev '^(Warning:|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|)$' \
		"$tmp/script.err" >"$tmp/script.err2"
	[ $rc = 0 ] && [ ! -s "$tmp/script.err2" ] || { head "$tmp/script.err"; fail "perf script: exit $rc or complaints"; }
	psam=$(grep -c . "$tmp/script")
	[ "$psam" = "$ssam" ] || fail "perf script reads $psam samples, the shards hold $ssam"
	[ "$ssam" -gt 0 ] || empty=$((empty + 1))
	echo "run $run: killed at $ms ms: $ssam samples, $torn torn tail(s), merged and read by perf"
done
echo "$late runs after the start manifest ($empty without samples yet), $early before it"
# At 50..1500 ms most kills land in the recording; if none did, nothing
# above was tested.
[ "$late" -ge $((RUNS / 2)) ] || fail "only $late of $RUNS runs got past the start manifest"
[ "$empty" -le $((late / 2)) ] || fail "$empty of $late recordings had no samples on disk"
echo "PASS"
