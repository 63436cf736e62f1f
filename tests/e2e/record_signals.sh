#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stopping prec record: SIGINT/SIGTERM/SIGHUP of a system-wide recording ->
# complete manifest, then prec dies of that signal (as perf); kill -9 -> the
# start manifest (state recording) and shards readable up to their last
# whole chunk; a workload killed by a signal -> prec dies of it too; SIGINT
# with a workload stops it too (SIGTERM, which prec dies of); -p ends when
# the target exits.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir signals

check_complete() { # dir
	"$H/mfdump" "$1" >"$tmp/mf" || fail "$1: manifest unreadable"
	grep -q '^state complete' "$tmp/mf" || fail "$1: manifest not complete"
	"$H/shardcount" "$1" >"$tmp/count" || { cat "$tmp/count"; fail "$1: corrupt shard"; }
	if ! "$PREC" info --check "$1" >"$tmp/info" 2>&1; then
		grep -q 'not built' "$tmp/info" || fail "$1: prec info --check: $(cat "$tmp/info")"
	fi
}

mkfifo "$tmp/ctl" "$tmp/ack"
for sig in INT TERM HUP; do
	d=$tmp/$sig
	"$PREC" record -d "$d" -a -e cpu-clock -F 1000 --control "fifo:$tmp/ctl,$tmp/ack" 2>"$tmp/err" &
	pid=$!
	wait_enabled "$tmp/ctl" "$tmp/ack" "SIG$sig"
	sleep 0.5
	kill -"$sig" $pid
	# as perf's: it dies of the signal that stopped it, once all is written
	wait_signaled $pid "$sig" "SIG$sig: record" "$tmp/err"
	cat "$tmp/err"
	grep -q '^\[ prec record: .*manifest in' "$tmp/err" || fail "SIG$sig: no summary"
	check_complete "$d"
	s=$(awk '/^total/ { sub("samples=", "", $4); print $4 }' "$tmp/count")
	[ "$s" -gt 0 ] || fail "SIG$sig: no samples"
done

# kill -9: nothing is closed, yet what is on disk stays readable.
d=$tmp/kill9
"$PREC" record -d "$d" -a -e cpu-clock -F 4000 2>/dev/null &
pid=$!
wait_manifest "$d"
# until a sample is in a shard (a drain pass, then its write), at most 20 s
for _ in $(seq 200); do
	"$H/shardcount" "$d" 2>/dev/null | awk '/^total/ { sub("samples=", "", $4); exit !($4 > 0) }' && break
	sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
"$H/mfdump" "$d" >"$tmp/mf" || fail "kill -9: manifest unreadable"
grep -q '^state recording' "$tmp/mf" || fail "kill -9: manifest should say recording"
"$H/shardcount" "$d" >"$tmp/count"
cat "$tmp/count"
# Every shard opens; a torn last chunk is allowed, nothing else.
awk '/^shard/ && $0 ~ /open=/ { bad = 1 }
     /^shard/ { e = substr($0, index($0, "end=") + 4); if (e != "ok" && e !~ /^torn /) bad = 1 }
     END { exit bad }' "$tmp/count" || fail "kill -9: a shard is unreadable"
s=$(awk '/^total/ { sub("samples=", "", $4); print $4 }' "$tmp/count")
[ "$s" -gt 0 ] || fail "kill -9: no samples reached the shards"

# The workload's death by signal is prec's, as perf's.
"$PREC" record -q -d "$tmp/wsig" -e cpu-clock -- sh -c 'kill -TERM $$' &
wait_signaled $! TERM "workload killed by SIGTERM: record"
check_complete "$tmp/wsig"

# SIGINT to prec alone with a workload: the workload is stopped too.
"$PREC" record -q -d "$tmp/wint" -e cpu-clock -- sleep 30 &
pid=$!
wait_manifest "$tmp/wint"
start=$(date +%s)
kill -INT $pid
# the workload got SIGTERM, and prec dies of it, as perf
wait_signaled $pid TERM "SIGINT with a workload: record"
[ $(($(date +%s) - start)) -lt 10 ] || fail "SIGINT with a workload took too long"
check_complete "$tmp/wint"

# -p: the recording ends when the target exits.
sleep 1 &
target=$!
timeout 20 "$PREC" record -q -d "$tmp/pid" -e cpu-clock -p $target
rc=$?
[ $rc = 0 ] || fail "-p: exit $rc"
check_complete "$tmp/pid"
grep -q "^id 1 [0-9]* cpu=[0-9]* tid=$target\$" "$tmp/mf" || fail "-p: no per-task ids"
echo "PASS"
