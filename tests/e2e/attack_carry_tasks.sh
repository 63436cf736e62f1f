#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A --max-disk recording of one command names that command's tasks only
# (issue 35, hole 5): while a process of nobody's runs (a copy of sleep
# named othersecret, in a directory of its own), root records a command (a
# shell and a getppid storm on each CPU) under a 12M budget, without -a.
# The storm passes the budget, so the carry (docs/format.md "The carry")
# is written: it holds the command's tasks (the shell's and the storms'
# COMM, and the sleep it waits in) and no other: not nobody's process, not pid 1. Neither the
# recording's files nor the merged perf.data hold nobody's comm or path.
# With -a the carry names every task, nobody's among them.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd taskset
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir attack-carry-tasks
N=${STORM_N:-300000}
other=
cleanup() {
	[ -n "$other" ] && kill "$other" 2>/dev/null
}
at_exit cleanup
mkdir "$tmp/pub" || fail "mkdir"
chmod 755 "$tmp" "$tmp/pub" || fail "chmod"
cp "$(command -v sleep)" "$tmp/pub/othersecret" || fail "copy sleep"
# setpriv itself (not e2e.sh's nobody, a function): $! is the process.
setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/pub/othersecret" 60 &
other=$!
pid1=$(cat /proc/1/comm)

# record ARGS...: the storm on each CPU, then a second and a half for the
# carry after the last drop, under the budget, into $tmp/r$nr. Each storm
# is pinned to its CPU: left to the scheduler, both could run on one CPU,
# or one after the other, and the other CPU's storm data, the oldest, be
# dropped; the merge's window starts where every CPU has data (the sleep's
# only, then), and no storm sample would be in it.
nr=0
record() {
	nr=$((nr + 1))
	# shellcheck disable=SC2016 # the workload's own $1 $2
	"$PREC" record -q -d "$tmp/r$nr" "$@" --max-disk 12M -e cpu-clock \
		-e raw_syscalls:sys_enter --filter 'id == 110' -- \
		sh -c 'for c in $(seq 0 $(($(nproc) - 1))); do taskset -c $c "$1" "$2" & done; wait; sleep 1.5' sh "$H/storm" "$N" \
		2>"$tmp/err$nr" || fail_rc "$tmp/err$nr" "record $*"
	[ -e "$tmp/r$nr/carry.shard" ] || fail "record $*: no carry written (nothing dropped?): $(ls "$tmp/r$nr")"
	"$PREC" dump "$tmp/r$nr" >"$tmp/dump$nr" 2>"$tmp/dump$nr.err" || fail_rc "$tmp/dump$nr.err" "dump"
	awk '$2 == "carry" && $4 == "COMM" { split($3, p, "/"); print p[1], $6 }' "$tmp/dump$nr" |
		sort -u >"$tmp/carry$nr"
	echo "record $*: the carry names $(wc -l <"$tmp/carry$nr") tasks: $(awk '{ print $2 }' "$tmp/carry$nr" | sort -u | head -8 | tr '\n' ' ')..."
}

record
[ -s "$tmp/carry1" ] || fail "the carry holds no COMM"
awk '{ print $2 }' "$tmp/carry1" | grep -qx storm || fail "the carry does not name the storms"
awk '$2 !~ /^(sh|storm|sleep|seq|nproc|taskset)$/' "$tmp/carry1" >"$tmp/strangers"
[ -s "$tmp/strangers" ] && fail "the carry of one command names $(wc -l <"$tmp/strangers") other tasks (pid comm): $(grep -e othersecret -e '^1 ' "$tmp/strangers" | tr '\n' ' ')$(head -6 "$tmp/strangers" | tr '\n' ' ')..."
awk -v p="$other" '$1 == p' "$tmp/carry1" | grep -q . && fail "the carry names nobody's process $other"
grep -rqa othersecret "$tmp/r1" && fail "the recording holds nobody's comm or path: $(grep -rla othersecret "$tmp/r1")"
"$PREC" merge "$tmp/r1" -o "$tmp/perf.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
grep -qa othersecret "$tmp/perf.data" && fail "the merged perf.data holds nobody's comm or path"
n=$(perf script -i "$tmp/perf.data" -F comm 2>/dev/null | awk '$1 == "storm"' | wc -l)
[ "$n" -gt 0 ] || fail "the merge has no storm samples"

# -a: every task, nobody's and pid 1 among them.
record -a
awk -v p="$other" '$1 == p && $2 == "othersecret"' "$tmp/carry2" | grep -q . ||
	fail "-a: the carry does not name nobody's process $other"
awk -v c="$pid1" '$1 == 1 && $2 == c' "$tmp/carry2" | grep -q . || fail "-a: the carry does not name pid 1 ($pid1)"
echo "PASS: the carry of one command names its $(wc -l <"$tmp/carry1") processes only; with -a, $(wc -l <"$tmp/carry2")"
