#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge --follow: a recording merged while it runs.
# 1. A workload making N getppid() calls in bursts over a few seconds,
#    recorded in the background: `prec merge --follow d | perf script -i -`
#    prints its first lines while the recorder still runs, ends (exit 0) on
#    its own once the recording does, and prints exactly what
#    `prec merge d | perf script -i -` prints afterwards, with the N samples
#    of the workload, nothing on stderr. Raw O_DIRECT shards, lz4 ones
#    written through the page cache, and with --markers (the workload
#    marks each half of a burst: 2 markers a burst in the side band).
# 2. --follow on the finished recording is the plain pipe merge, byte for
#    byte.
# 3. --follow into a regular file is refused with one line (perf's file
#    format is finished only at the end), the file left alone.
# 4. A recorder killed by SIGKILL while followed: --follow says so in one
#    line and ends with what it wrote (the 1000 samples made before); then
#    --follow of that recording says it died, in one line, and exits 1
#    instead of waiting forever.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
BURSTS=8
PER=5000
N=$((BURSTS * PER))
e2e_tmpdir follow
rpid=
mpid=
at_exit 'rm -f "$tmp/hold"; [ -z "$rpid" ] || kill -9 "$rpid" 2>/dev/null; [ -z "$mpid" ] || kill "$mpid" 2>/dev/null; wait 2>/dev/null'

# record DIR OPTIONS...: the bursts (getppid is syscall 110), in the
# background; rpid is the recorder's.
record() {
	local dir=$1
	shift
	"$PREC" record -q -d "$dir" "$@" -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- sh -c "for i in \$(seq $BURSTS); do '$H/storm' $PER 2; sleep 0.5; done" \
		2>"$tmp/rec.err" &
	rpid=$!
	wait_manifest "$dir" 10
}

# ends_soon PID: PID has ended, or does within 10 s.
ends_soon() {
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

run() { # name, record options...
	local name=$1 dir=$tmp/$1 first='' i got plain
	shift
	record "$dir" "$@"
	"$PREC" merge --follow "$dir" 2>"$tmp/follow.err" |
		perf script -i - >"$tmp/follow.txt" 2>"$tmp/follow.perr" &
	mpid=$!
	for ((i = 0; i < 1000; i++)); do
		if [ -s "$tmp/follow.txt" ]; then
			kill -0 "$rpid" 2>/dev/null && ! complete "$dir" && first=live
			break
		fi
		sleep 0.02
	done
	[ "$first" = live ] || fail "$name: no line from perf script while the recorder ran"
	echo "$name: first lines while recording: $(wc -l <"$tmp/follow.txt")"
	wait "$rpid" || fail_rc "$tmp/rec.err" "$name: record"
	rpid=
	# The pipeline ends by itself once the final manifest is there.
	ends_soon "$mpid" || fail "$name: merge --follow still runs 10 s after the recording ended"
	wait "$mpid"
	mpid=
	grep -v ' -> stdout (pipe format)$' "$tmp/follow.err" | grep . &&
		fail "$name: merge --follow wrote on stderr"
	[ -s "$tmp/follow.perr" ] && { cat "$tmp/follow.perr"; fail "$name: perf script wrote on stderr"; }
	"$PREC" merge "$dir" 2>/dev/null | perf script -i - >"$tmp/plain.txt" 2>/dev/null ||
		fail "$name: plain merge | perf script"
	got=$(grep ' storm ' "$tmp/follow.txt" | grep -c 'sys_enter: NR 110 ')
	plain=$(grep ' storm ' "$tmp/plain.txt" | grep -c 'sys_enter: NR 110 ')
	[ "$plain" = "$N" ] || fail "$name: the plain merge has $plain storm samples, want $N"
	cmp -s "$tmp/follow.txt" "$tmp/plain.txt" || {
		diff "$tmp/follow.txt" "$tmp/plain.txt" | head
		fail "$name: perf script of merge --follow differs from that of the plain merge"
	}
	echo "$name: $got storm samples followed, perf script output = the plain merge's"
}

run raw
run lz4 -z --no-direct-io
run markers --markers
marks=$(grep -c 'ftrace:print: .*phase' "$tmp/follow.txt")
[ "$marks" = $((2 * BURSTS)) ] || fail "markers: $marks markers followed, want $((2 * BURSTS))"

# 2. A finished recording: the plain pipe merge.
d=$tmp/raw
"$PREC" merge --follow "$d" 2>/dev/null | cat >"$tmp/f.pipe" || fail "merge --follow of a finished recording"
"$PREC" merge "$d" 2>/dev/null | cat >"$tmp/p.pipe" || fail "plain merge"
cmp -s "$tmp/f.pipe" "$tmp/p.pipe" || fail "--follow on a finished recording differs from the plain pipe merge"
echo "finished: --follow = the plain pipe merge, byte for byte"

# 3. A regular file: refused.
"$PREC" merge --follow "$d" -o "$tmp/out.data" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] || fail "--follow -o FILE exited $rc, want 2"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'regular file' "$tmp/err" ||
	{ cat "$tmp/err"; fail "--follow -o FILE: want one line about the regular file"; }
ls "$tmp"/out.data* >/dev/null 2>&1 && fail "--follow -o FILE left a file"
echo "-o FILE: $(cat "$tmp/err")"

# 4. A recorder that died: one line, exit 1, no wait.
touch "$tmp/hold"
"$PREC" record -q -d "$tmp/dead" -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- sh -c "'$H/storm' 1000; while [ -e '$tmp/hold' ]; do sleep 0.05; done" 2>/dev/null &
rpid=$!
wait_manifest "$tmp/dead" 10
"$PREC" merge --follow "$tmp/dead" 2>"$tmp/gone.err" | perf script -i - >"$tmp/gone.txt" 2>/dev/null &
mpid=$!
for ((i = 0; i < 200; i++)); do # most of the storm followed (perf buffers the rest)
	[ "$(grep -c 'NR 110 ' "$tmp/gone.txt")" -ge 900 ] && break
	sleep 0.05
done
kill -9 "$rpid"
wait "$rpid" 2>/dev/null
rpid=
rm -f "$tmp/hold"
# Followed when it died: said in one line, what it wrote merged, exit 1.
ends_soon "$mpid" || fail "merge --follow still waits 10 s after its recorder died"
wait "$mpid"
mpid=
grep -q 'the recorder is gone' "$tmp/gone.err" || { cat "$tmp/gone.err"; fail "merge --follow: no line saying the recorder died"; }
n=$(grep ' storm ' "$tmp/gone.txt" | grep -c 'sys_enter: NR 110 ')
[ "$n" = 1000 ] || fail "merge --follow of a recorder that died: $n storm samples, want 1000"
echo "died while followed: $(grep 'gone' "$tmp/gone.err"), $n samples"
timeout 10 "$PREC" merge --follow "$tmp/dead" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 124 ] && fail "--follow waited on a dead recording"
[ "$rc" = 1 ] || { cat "$tmp/err"; fail "--follow on a dead recording exited $rc, want 1"; }
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'died' "$tmp/err" ||
	{ cat "$tmp/err"; fail "--follow on a dead recording: want one line saying it died"; }
echo "dead: $(cat "$tmp/err")"
echo "PASS: merge --follow prints while recording, ends with the plain merge's output and count"
