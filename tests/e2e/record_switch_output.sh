#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output: a recording cut into epochs DIR/epoch.NNNNNN, each a
# recording of its own. A storm of exactly N getppid() calls is recorded
# while SIGUSR2 (then the control command 'switch') cuts it several times:
# every epoch's merge reads clean in perf script, its samples named by its
# own side band, and over all epochs perf counts exactly N (nothing lost or
# counted twice at a cut); with a ring too small, kept + lost is N (and
# the few task records an overflow took with the samples). SIZE
# and TIME cut too; --switch-max-files N
# leaves the newest N; bad values and --overwrite are refused in one line.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir switchout
rec="" kicker="" follower=""
cleanup() {
	[ -n "$follower" ] && kill "$follower" 2>/dev/null
	[ -n "$kicker" ] && kill "$kicker" 2>/dev/null
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
}
at_exit cleanup
# A ring that holds the whole storm: the count must not depend on how a
# loaded machine schedules the drainers.
EV=(-m 64M -e raw_syscalls:sys_enter --filter 'id == 110')

# check_epochs DIR N MIN: DIR holds epoch.000001..K (K >= MIN), each
# complete with no loss, each merge read by perf script with nothing on
# stderr; the samples perf names as the storm's (in a later epoch, named by
# that epoch's own side band) add up to exactly N. (A command run through
# sh has the shell's own getppid() besides.)
check_epochs() {
	local dir=$1 n=$2 min=$3 k=0 sum=0 e got
	for e in "$dir"/epoch.*; do
		k=$((k + 1))
		[ "$e" = "$(printf '%s/epoch.%06d' "$dir" $k)" ] || fail "epoch $k is named $e"
		"$H/mfdump" "$e" >"$tmp/mf" || fail "$e: manifest unreadable"
		grep -q '^state complete' "$tmp/mf" || fail "$e: manifest not complete"
		awk '/^shard/ && ($7 != "lost=0" || $8 != "lost_samples=0") { bad = 1 } END { exit bad }' \
			"$tmp/mf" || fail "$e: shard totals report losses: $(grep '^shard' "$tmp/mf")"
		"$PREC" merge "$e" 2>"$tmp/merr" | perf script -i - >"$tmp/script" 2>"$tmp/perr" ||
			fail "$e: prec merge | perf script failed: $(cat "$tmp/merr" "$tmp/perr")"
		[ -s "$tmp/perr" ] && fail "$e: perf script says: $(head -3 "$tmp/perr")"
		got=$(awk '$1 == "storm" && /raw_syscalls:sys_enter:/' "$tmp/script" | wc -l)
		echo "$e: $got samples of the storm"
		sum=$((sum + got))
	done
	[ "$k" -ge "$min" ] || fail "$dir: $k epochs, want at least $min"
	[ "$sum" = "$n" ] || fail "$dir: $sum samples over $k epochs, want exactly $n"
	echo "$dir: $k epochs, $sum samples"
}

# ---- SIGUSR2 (the default mode) during a storm ----
N=${STORM_N:-1000000}
"$PREC" record -d "$tmp/sig" --switch-output "${EV[@]}" -- "$H/storm" "$N" 2>"$tmp/err" & rec=$!
# SIGUSR2 kills a process that has not blocked it yet: the start manifest
# is written after that.
wait_manifest "$tmp/sig/epoch.000001" 10
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.25; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/err" "record --switch-output"
rec=
wait "$kicker" 2>/dev/null
kicker=
cat "$tmp/err"
grep -q ', 0 lost,' "$tmp/err" || fail "summary reports losses"
grep -q '^\[ prec record: [0-9]* epochs, the last in ' "$tmp/err" || fail "no epochs line in the summary"
check_epochs "$tmp/sig" "$N" 3
# The directory itself is no recording: merge says where the recordings are.
"$PREC" merge "$tmp/sig" >/dev/null 2>"$tmp/err" && fail "prec merge of the epochs' directory succeeded"
grep -q 'a --switch-output recording, whose epochs (epoch.NNNNNN in it) are each a recording' "$tmp/err" ||
	fail "prec merge of the epochs' directory: $(cat "$tmp/err")"

# ---- the control command 'switch', acked once the new epoch is written to ----
mkfifo "$tmp/ctl" "$tmp/ack"
"$PREC" record -d "$tmp/ctl.d" --switch-output --control "fifo:$tmp/ctl,$tmp/ack" "${EV[@]}" \
	-- sh -c "\"$H/storm\" 30000; sleep 0.3; \"$H/storm\" 40000; sleep 0.3; \"$H/storm\" 50000; sleep 0.3" \
	2>"$tmp/err" & rec=$!
wait_manifest "$tmp/ctl.d/epoch.000001" 10
# A follower of the first epoch ends once it is cut, with all of it.
( timeout 60 "$PREC" merge --follow "$tmp/ctl.d/epoch.000001" 2>/dev/null |
	perf script -i - 2>/dev/null | awk '$1 == "storm" && /raw_syscalls:sys_enter:/' | wc -l \
	>"$tmp/followed" ) & follower=$!
for i in 1 2; do
	sleep 0.25
	echo switch >"$tmp/ctl"
	read -r -t 10 a <"$tmp/ack" || fail "no ack for 'switch' $i"
	[ "$a" = ack ] || fail "ack for 'switch' was '$a'"
	[ -f "$tmp/ctl.d/epoch.00000$((i + 1))/manifest" ] || fail "'switch' $i acked before its epoch's manifest"
done
wait "$rec" || fail_rc "$tmp/err" "record --switch-output --control"
rec=
check_epochs "$tmp/ctl.d" 120000 3
wait "$follower" || fail "merge --follow of the first epoch: exit $?"
first=$("$PREC" merge "$tmp/ctl.d/epoch.000001" 2>/dev/null | perf script -i - 2>/dev/null |
	awk '$1 == "storm" && /raw_syscalls:sys_enter:/' | wc -l)
[ "$(cat "$tmp/followed")" = "$first" ] ||
	fail "merge --follow of the first epoch: $(cat "$tmp/followed") samples, its merge $first"

# ---- a later epoch followed live: its side band is closed as the first's
# is, so merge --follow of epoch 2 prints while the recording runs ----
mkfifo "$tmp/ctl2" "$tmp/ack2"
"$PREC" record -q -d "$tmp/live" --switch-output --control "fifo:$tmp/ctl2,$tmp/ack2" "${EV[@]}" \
	-- sh -c "until [ -e \"$tmp/start\" ]; do sleep 0.05; done; \"$H/storm\" 30000
		until [ -e \"$tmp/go\" ]; do sleep 0.05; done" 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/live/epoch.000001" 10
echo switch >"$tmp/ctl2"
read -r -t 10 a <"$tmp/ack2" || fail "no ack for 'switch' (live follow)"
( timeout 60 "$PREC" merge --follow "$tmp/live/epoch.000002" 2>/dev/null |
	perf script -i - 2>/dev/null | awk '$1 == "storm" && /raw_syscalls:sys_enter:/' \
	>"$tmp/live.out" ) & follower=$!
: >"$tmp/start"
for _ in $(seq 600); do [ -s "$tmp/live.out" ] && break; sleep 0.05; done
[ -s "$tmp/live.out" ] || fail "merge --follow of epoch 2 printed nothing while the recording ran"
: >"$tmp/go"
wait "$rec" || fail_rc "$tmp/err" "record --switch-output (live follow)"
rec=
wait "$follower" || fail "merge --follow of epoch 2: exit $?"
follower=
[ "$(wc -l <"$tmp/live.out")" = 30000 ] ||
	fail "merge --follow of epoch 2: $(wc -l <"$tmp/live.out") samples, want 30000"

# ---- SIZE: every 2M drained ----
"$PREC" record -q -d "$tmp/size" --switch-output=2M "${EV[@]}" -- "$H/storm" 200000 ||
	fail "record --switch-output=2M: exit $?"
check_epochs "$tmp/size" 200000 2

# ---- TIME: every second, over a command that lasts longer ----
"$PREC" record -q -d "$tmp/time" --switch-output=1s "${EV[@]}" \
	-- sh -c "\"$H/storm\" 100000; sleep 2.5" || fail "record --switch-output=1s: exit $?"
check_epochs "$tmp/time" 100000 2

# ---- --switch-max-files 2: the newest two epochs are left ----
"$PREC" record -q -d "$tmp/max" --switch-output --switch-max-files 2 "${EV[@]}" \
	-- sh -c 'sleep 3' & rec=$!
wait_manifest "$tmp/max/epoch.000001" 10
for i in 1 2 3 4; do
	kill -USR2 "$rec"
	for _ in $(seq 100); do [ -f "$tmp/max/epoch.00000$((i + 1))/manifest" ] && break; sleep 0.02; done
done
wait "$rec" || fail "record --switch-max-files 2: exit $?"
rec=
left=$(cd "$tmp/max" && echo epoch.*)
[ "$left" = "epoch.000004 epoch.000005" ] || fail "--switch-max-files 2 left: $left"
for e in "$tmp"/max/epoch.*; do
	complete "$e" || fail "$e: not complete"
	"$PREC" merge "$e" 2>/dev/null | perf script -i - >/dev/null 2>"$tmp/perr" || fail "$e: merge | perf script"
	[ -s "$tmp/perr" ] && fail "$e: perf script says: $(head -3 "$tmp/perr")"
done

# ---- losses over cuts: a 4-page ring under the fair scheduler loses
# most of a storm while SIGUSR2 cuts it; the summary's lost count and the
# samples kept add up to N (a drop before a cut whose LOST record came
# after it was counted in both epochs: kept + lost went past N by a
# quarter), and so do the per-CPU loss lines ----
"$PREC" record -d "$tmp/lossy" --switch-output -r 0 -m 16K \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- "$H/storm" 1000000 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/lossy/epoch.000001" 10
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.02; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/err" "record --switch-output -m 16K"
rec=
wait "$kicker" 2>/dev/null
kicker=
lost=$(sed -n 's/^\[ prec record: .*, \([0-9]*\) lost, .*/\1/p' "$tmp/err")
if [ -z "$lost" ] || [ "$lost" = 0 ]; then fail "-m 16K: no losses in the summary: $(cat "$tmp/err")"; fi
kept=0 k=0
for e in "$tmp"/lossy/epoch.*; do
	n=$("$PREC" merge "$e" 2>/dev/null | perf script -i - 2>/dev/null |
		awk '$1 == "storm" && /raw_syscalls:sys_enter:/' | wc -l)
	kept=$((kept + n)) k=$((k + 1))
done
echo "-m 16K: $k epochs, $kept samples kept, $lost lost"
[ "$k" -ge 3 ] || fail "-m 16K: $k epochs, want at least 3"
# A loss count is of records of every kind: the storm's own task records
# in the rings (its exec's COMM, a few MMAP2s, its EXIT) may go with the
# samples an overflow drops.
if [ $((kept + lost)) -lt 1000000 ] || [ $((kept + lost)) -gt 1000016 ]; then
	fail "-m 16K: $kept kept + $lost lost = $((kept + lost)), want 1000000 (+ up to 16 task records)"
fi
# The per-CPU loss lines cover the whole recording, as the total does (they
# had the last epoch's alone): they add up to it, and more than one epoch lost.
cpus_lost=$(sed -n 's/.*cpu[0-9]*: \([0-9]*\) records LOST: .*/\1/p' "$tmp/err" | awk '{ s += $1 } END { print s + 0 }')
[ "$cpus_lost" = "$lost" ] ||
	fail "-m 16K: the per-CPU loss lines add up to $cpus_lost, the total says $lost: $(grep LOST "$tmp/err")"
lossy=0
for e in "$tmp"/lossy/epoch.*; do
	"$H/mfdump" "$e" | awk '/^shard/ && ($7 != "lost=0" || $8 != "lost_samples=0") { bad = 1 } END { exit !bad }' &&
		lossy=$((lossy + 1))
done
[ "$lossy" -ge 2 ] || fail "-m 16K: $lossy epochs with losses, want at least 2 to check the per-CPU lines"

# ---- a cut that cannot make its epoch (a file in the way): one line, the
# recording stops with exit 1, the epoch before is whole ----
"$PREC" record -d "$tmp/fail" --switch-output "${EV[@]}" -- sleep 5 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/fail/epoch.000001" 10
: >"$tmp/fail/epoch.000002"
kill -USR2 "$rec"
wait "$rec"
rc=$?
rec=
[ "$rc" = 1 ] || fail "a failed cut: exit $rc, want 1: $(cat "$tmp/err")"
grep -q 'epoch.000002: making the epoch: File exists' "$tmp/err" || fail "a failed cut: $(cat "$tmp/err")"
complete "$tmp/fail/epoch.000001" || fail "a failed cut: the epoch before is not complete"
"$PREC" merge "$tmp/fail/epoch.000001" 2>/dev/null | perf script -i - >/dev/null 2>"$tmp/perr" ||
	fail "a failed cut: the epoch before does not merge"
[ -s "$tmp/perr" ] && fail "a failed cut: perf script says: $(head -3 "$tmp/perr")"

# ---- refusals: one line naming the option, exit 2, nothing created ----
for args in "--switch-output=100" "--switch-output=fast" "--switch-output=0s" \
	"--switch-output --switch-max-files=-1" \
	"--switch-output --overwrite" "--switch-output -e cpu-clock/overwrite/" \
	"--switch-output --max-disk=1G"; do
	# shellcheck disable=SC2086
	"$PREC" record -d "$tmp/bad" $args -- true 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || fail "'$args': exit $rc, want 2: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "'$args': not one line: $(cat "$tmp/err")"
	grep -q -- '--switch-\|--overwrite\|--max-disk' "$tmp/err" || fail "'$args': the option is not named: $(cat "$tmp/err")"
	[ -e "$tmp/bad" ] && fail "'$args': $tmp/bad created"
done
echo "PASS: exact counts over epochs cut by SIGUSR2, 'switch', SIZE and TIME; kept + lost over lossy epochs; --switch-max-files; refusals"
