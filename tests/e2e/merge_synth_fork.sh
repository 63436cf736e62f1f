#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A task that existed before the recording has its own maps in perf's
# reading of prec's file, as in perf record's own: perf marks every FORK it
# synthesizes from /proc with PERF_RECORD_MISC_FORK_EXEC, which tells its
# reader not to copy the parent's maps into the child (as it does on a
# kernel FORK: the synthesized MMAP2s that follow are the child's whole
# map). prec's side band had misc 0, and perf report --mmaps gave a child
# started by bash before the recording its parent's maps too
# (/usr/bin/bash, bash's libc) beside its own, where a sample could
# resolve. Here: bash runs sleep (a fork, then an exec), both older than
# the recordings; perf record -a and prec record -a (file and pipe), then
# the sleep's maps in perf report --mmaps, which must be perf's.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir synthfork

# bash stays the parent: the ':' after sleep keeps it from exec'ing sleep
bash -c 'sleep 60; :' &
parent=$!
at_exit "{ pkill -P $parent -x sleep; kill $parent; wait $parent; } 2>/dev/null"
child=
for _ in $(seq 100); do
	child=$(pgrep -P "$parent" -x sleep) && break
	sleep 0.05
done
[ -n "$child" ] || fail "no sleep under bash $parent"

# maps FILE-OR-DASH: the sleep's maps in perf report --mmaps, sorted
maps() {
	perf report --mmaps -i "$1" 2>/dev/null |
		awk -v tid="$child" '/\|/ { on = ($2 == tid); next } on { $1 = $1; print }' | sort
}

opts=(-a -e cpu-clock -c 10000000 -- sleep 0.2)
perf record -q -o "$tmp/p.data" "${opts[@]}" >/dev/null 2>"$tmp/p.err" ||
	fail_rc "$tmp/p.err" "perf record -a"
"$PREC" record -q -d "$tmp/q" "${opts[@]}" >/dev/null 2>"$tmp/q.err" ||
	fail_rc "$tmp/q.err" "prec record -a"
"$PREC" merge -q "$tmp/q" -o "$tmp/q.data" || fail "prec merge"
maps "$tmp/p.data" >"$tmp/p.maps"
grep -q ' /usr/bin/sleep$' "$tmp/p.maps" ||
	fail "perf's own file has no /usr/bin/sleep map for sleep $child: $(cat "$tmp/p.maps")"
grep -q '/bash$' "$tmp/p.maps" && fail "perf's own file gives sleep $child bash's map"
maps "$tmp/q.data" >"$tmp/q.maps"
diff -u "$tmp/p.maps" "$tmp/q.maps" >"$tmp/d" ||
	fail "perf report --mmaps: sleep $child's maps differ (- perf, + prec): $(cat "$tmp/d")"
"$PREC" merge -q "$tmp/q" | maps - >"$tmp/qp.maps"
diff -u "$tmp/p.maps" "$tmp/qp.maps" >"$tmp/d" ||
	fail "perf report --mmaps of prec's pipe: sleep $child's maps differ (- perf, + prec): $(cat "$tmp/d")"
echo "PASS: sleep $child under bash $parent: its $(wc -l <"$tmp/q.maps") maps as perf's, file and pipe"
