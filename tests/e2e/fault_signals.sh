#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Signals record_signals.sh does not cover: the workload killed by SIGKILL
# or crashing with SIGSEGV, Ctrl-C at a terminal (SIGINT to the whole
# process group: workload and prec), SIGHUP with a workload, SIGINT sent
# three times in a row, SIGTERM to a -p recording. Every case: prec dies of
# the documented signal once done, as perf (a shell's 128 + signal), with a
# complete manifest, shards that read to the end, and one summary line.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setsid
e2e_tmpdir fsig
check() { # name dir rc want
	cat "$tmp/err"
	[ "$3" = "$4" ] || fail "$1: exit $3, want $4"
	"$H/mfdump" "$2" >"$tmp/mf" || fail "$1: manifest unreadable"
	grep -q '^state complete' "$tmp/mf" || fail "$1: manifest not complete"
	"$H/shardcount" "$2" >"$tmp/count" || { cat "$tmp/count"; fail "$1: a shard does not read to its end"; }
	[ "$(grep -c '^\[ prec record: ' "$tmp/err")" = 1 ] || fail "$1: want one summary line"
	grep -q '^prec: error' "$tmp/err" && fail "$1: error messages on a clean stop"
	echo "$1: exit $3, manifest complete"
}

# The workload's own death is prec's, as perf's.
"$PREC" record -d "$tmp/kill" -e cpu-clock -- sh -c 'kill -KILL $$' 2>"$tmp/err"
check "workload SIGKILL" "$tmp/kill" $? 137
"$PREC" record -d "$tmp/segv" -e cpu-clock -- sh -c 'kill -SEGV $$' 2>"$tmp/err"
check "workload SIGSEGV" "$tmp/segv" $? 139

# Ctrl-C: the terminal sends SIGINT to the foreground process group.
setsid "$PREC" record -d "$tmp/ctrlc" -e cpu-clock -- sleep 30 2>"$tmp/err" &
pid=$!
wait_manifest "$tmp/ctrlc"
sleep 0.2
kill -INT -- -"$pid"
wait $pid
check "Ctrl-C (SIGINT to the process group)" "$tmp/ctrlc" $? 130

# SIGHUP to prec with a workload: the workload is stopped (SIGTERM) too,
# and prec dies of that SIGTERM.
"$PREC" record -d "$tmp/hup" -e cpu-clock -- sleep 30 2>"$tmp/err" &
pid=$!
wait_manifest "$tmp/hup"
kill -HUP $pid
wait $pid
check "SIGHUP with a workload" "$tmp/hup" $? 143

# Three SIGINTs in a row: still one clean stop.
"$PREC" record -d "$tmp/int3" -a -e cpu-clock -F 1000 2>"$tmp/err" &
pid=$!
wait_manifest "$tmp/int3"
sleep 0.3
kill -INT $pid; kill -INT $pid; kill -INT $pid
wait $pid
check "SIGINT x3" "$tmp/int3" $? 130

# SIGTERM to a -p recording whose target lives on.
sleep 30 &
target=$!
"$PREC" record -d "$tmp/pterm" -e cpu-clock -p $target 2>"$tmp/err" &
pid=$!
wait_manifest "$tmp/pterm"
kill -TERM $pid
wait $pid
check "SIGTERM with -p" "$tmp/pterm" $? 143
kill -0 $target 2>/dev/null || fail "SIGTERM with -p: the target was killed (it is not ours)"
kill $target
echo "PASS"
