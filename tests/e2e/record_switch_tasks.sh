#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output names every task in every epoch: a shell runs many
# short-lived children in a row (each exec'd, making exactly K getppid()
# calls, and gone within a millisecond or two) while 'switch' cuts the
# recording as fast as it acks, so children are born, exec'd and gone
# inside the cuts. In every epoch perf script shows no sample whose task
# the epoch leaves unnamed (comm ":PID") and none of a child under its
# parent's name; over all epochs the children's samples add up exactly.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir switchtasks
rec="" kicker=""
cleanup() {
	[ -n "$kicker" ] && kill "$kicker" 2>/dev/null
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
}
at_exit cleanup

KIDS=${KIDS:-600} K=100
mkfifo "$tmp/ctl" "$tmp/ack"
# shellcheck disable=SC2016 # $i, $0, $1 and $2 are the inner shell's
"$PREC" record -q -d "$tmp/d" --switch-output --control "fifo:$tmp/ctl,$tmp/ack" \
	-m 64M -e raw_syscalls:sys_enter --filter 'id == 110' -- \
	sh -c 'i=0; while [ $i -lt "$1" ]; do "$0" "$2"; i=$((i + 1)); done' "$H/storm" "$KIDS" "$K" \
	2>"$tmp/err" & rec=$!
wait_manifest "$tmp/d/epoch.000001" 10
# Cut after cut while the children come and go; the ack says the new
# epoch is written to. A cut asked as the recorder stops gets no ack.
(
	exec 3>"$tmp/ctl" 4<"$tmp/ack"
	while kill -0 "$rec" 2>/dev/null; do
		echo switch >&3 2>/dev/null || break
		read -r -t 5 _ <&4 || break
	done
) & kicker=$!
wait "$rec" || fail_rc "$tmp/err" "record --switch-output"
rec=
wait "$kicker" 2>/dev/null
kicker=

k=0 sum=0 bad=0
for e in "$tmp"/d/epoch.*; do
	k=$((k + 1))
	complete "$e" || fail "$e: not complete"
	"$PREC" merge "$e" 2>"$tmp/merr" | perf script -i - >"$tmp/script" 2>"$tmp/perr" ||
		fail "$e: prec merge | perf script failed: $(cat "$tmp/merr" "$tmp/perr")"
	[ -s "$tmp/perr" ] && fail "$e: perf script says: $(head -3 "$tmp/perr")"
	got=$(awk '$1 == "storm" && /raw_syscalls:sys_enter:/' "$tmp/script" | wc -l)
	sum=$((sum + got))
	# Every other sample is the shell's own (dash's getppid() at its
	# start): one, named sh, in the first epoch.
	awk '$1 != "storm" && /raw_syscalls:sys_enter:/ { print $1, $2 }' "$tmp/script" |
		sort | uniq -c >"$tmp/others"
	if [ -s "$tmp/others" ] && { [ "$k" != 1 ] || grep -qv ' sh ' "$tmp/others"; }; then
		echo "$e: samples not named storm (count, comm, pid):"
		cat "$tmp/others"
		bad=$((bad + 1))
	fi
done
echo "$k epochs, $sum samples of the children"
[ "$k" -ge 5 ] || fail "$k epochs: the cuts did not fall among the children"
[ "$bad" = 0 ] || fail "$bad of $k epochs have samples of tasks they do not name"
[ "$sum" = $((KIDS * K)) ] || fail "$sum samples named storm over $k epochs, want exactly $((KIDS * K))"
echo "PASS: $k epochs cut among $KIDS short-lived children: every sample named, $sum in all"
