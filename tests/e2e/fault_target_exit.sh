#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Targets going away mid-recording. -p with two processes: the first exits,
# the recording goes on and holds exactly the N getppid samples the second
# makes later; it ends when the last target exits (exit 0, manifest
# complete). A CPU going offline during -a: the recording goes on with the
# other CPU to the end, the offline CPU's shard keeps what came before,
# and everything merges for perf. (The CPU part is skipped with a note
# where offlining is not permitted.)
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-50000}
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir target
cpu=/sys/devices/system/cpu/cpu1/online
cleanup() {
	[ -e "$cpu" ] && [ "$(cat "$cpu")" = 0 ] && echo 1 >"$cpu"
}
at_exit cleanup
field() { # file key: the value of key= on the "total" line
	awk -v k="$2=" '/^total/ { for (i = 1; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1"
}

# 1. -p A,B: A exits after 0.5 s; B makes N calls only at 1.5 s (exec
# keeps its pid, and the per-task events follow it through exec).
sleep 0.5 &
a=$!
sh -c "sleep 1.5; exec '$H/storm' $N" &
b=$!
sleep 0.1
start=$(date +%s)
# A ring that holds all of it: the count must not depend on scheduling.
timeout 30 "$PREC" record -d "$tmp/two" -m 16M -e raw_syscalls:sys_enter --filter 'id == 110' \
	-p "$a,$b" 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 0 ] || fail "-p A,B: exit $rc, want 0"
[ $(($(date +%s) - start)) -lt 10 ] || fail "-p A,B: did not end when the last target exited"
"$H/mfdump" "$tmp/two" >"$tmp/mf" || fail "-p A,B: manifest unreadable"
grep -q '^state complete' "$tmp/mf" || fail "-p A,B: manifest not complete"
"$H/shardcount" "$tmp/two" "$b" >"$tmp/count" || { cat "$tmp/count"; fail "-p A,B: corrupt shard"; }
cat "$tmp/count"
got=$(field "$tmp/count" pid_samples)
[ "$got" = "$N" ] || fail "-p A,B: $got samples of B (pid $b), want $N: the recording stopped with A?"
wait
echo "-p: went on after the first target exited, $N samples of the second, ended with it"

# 2. A CPU going offline during -a.
if [ ! -w "$cpu" ] || ! grep -q '^0-1$\|^0-[1-9]' /sys/devices/system/cpu/online; then
	echo "note: no CPU 1 to offline here, CPU offline case skipped"
	echo "PASS"
	exit 0
fi
d=$tmp/offline
# cpu-clock only samples a CPU that runs something: keep CPU 1 busy until
# it goes offline, so it has samples of its own to keep.
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!
mkfifo "$tmp/ctl" "$tmp/ack"
"$PREC" record -d "$d" -a -e cpu-clock -F 1000 --control "fifo:$tmp/ctl,$tmp/ack" 2>"$tmp/err" &
pid=$!
# The start manifest comes before the events are enabled (a loaded machine
# took over 0.5 s between them: CPU 1 went offline with no sample). The
# control channel is read only once they are: a ping's ack says so.
echo ping >"$tmp/ctl"
read -r -t 20 _ <"$tmp/ack" || fail "CPU offline: no ack for ping"
sleep 0.5
kill $busy
wait $busy 2>/dev/null
if ! echo 0 >"$cpu" 2>/dev/null; then
	kill -INT $pid
	wait_signaled $pid INT "record -a" "$tmp/err"
	echo "note: CPU 1 cannot be taken offline here, CPU offline case skipped"
	echo "PASS"
	exit 0
fi
sleep 0.7
echo 1 >"$cpu" || fail "cannot put CPU 1 back online"
sleep 0.5
ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
kill -INT $pid
wait_signaled $pid INT "CPU offline: record -a" "$tmp/err"
cat "$tmp/err"
# 1.7 s of recording at 1 kHz: a drainer spinning on the dead CPU's fd
# would burn a whole CPU.
[ "$ticks" -lt $(($(getconf CLK_TCK) / 2)) ] || fail "CPU offline: prec used $ticks ticks of CPU (a drainer spins?)"
"$H/mfdump" "$d" >"$tmp/mf" || fail "CPU offline: manifest unreadable"
grep -q '^state complete' "$tmp/mf" || fail "CPU offline: manifest not complete"
"$H/shardcount" "$d" >"$tmp/count" || { cat "$tmp/count"; fail "CPU offline: corrupt shard"; }
cat "$tmp/count"
"$PREC" merge "$d" -o "$tmp/off.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "CPU offline: merge"; }
perf script -i "$tmp/off.data" -F cpu,time >"$tmp/script" 2>"$tmp/script.err"
[ ! -s "$tmp/script.err" ] || { head "$tmp/script.err"; fail "CPU offline: perf script complained"; }
want=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/merge.err")
[ "$(grep -c . "$tmp/script")" = "$want" ] || fail "CPU offline: perf script reads $(grep -c . "$tmp/script") samples, merge wrote $want"
# CPU 0 went on to the end: its last sample is at least 1 s after CPU 1's
# last one before it went offline (0.7 s offline + 0.5 s after).
last0=$(awk '$1 == "[000]" { t = $2 + 0 } END { print t }' "$tmp/script")
last1=$(awk '$1 == "[001]" { t = $2 + 0 } END { print t }' "$tmp/script")
gap=$(awk -v a="$last0" -v b="$last1" 'BEGIN { printf "%.3f", a - b }')
echo "CPU 0 recorded $gap s past CPU 1's last sample"
awk -v g="$gap" 'BEGIN { exit !(g >= 1.0) }' || fail "CPU offline: CPU 0 stopped with CPU 1 (gap $gap s)"
n1=$(grep -c '^\[001\]' "$tmp/script")
[ "$n1" -gt 100 ] || fail "CPU offline: CPU 1's samples before it went offline are missing ($n1)"
echo "CPU offline: recording went on with CPU 0; CPU 1's $n1 earlier samples kept"
echo "PASS"
