#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record -t of a thread that is not its process's leader (pidfd_open
# refuses those without PIDFD_THREAD): tests/helpers/spinthread's second
# thread spins for 1.5 s and exits, its leader sleeps 4 s more. prec must
# record it, every merged sample (perf script -F tid) must be that thread's,
# there must be many, and the recording must end by itself once the thread
# is gone, with the process still alive, exit 0 and a complete manifest.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir thread
app= rec=
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$app" ] && kill "$app" 2>/dev/null
}
at_exit cleanup

"$H/spinthread" 1500 4000 >"$tmp/tid" & app=$!
for _ in $(seq 100); do [ -s "$tmp/tid" ] && break; sleep 0.01; done
tid=$(cat "$tmp/tid")
[ -n "$tid" ] && [ "$tid" != "$app" ] || fail "no worker thread tid (got '$tid', leader $app)"
[ -d "/proc/$app/task/$tid" ] || fail "thread $tid is not in process $app"

start=$(date +%s.%N)
"$PREC" record -d "$tmp/t" -e cpu-clock -t "$tid" 2>"$tmp/err" & rec=$!
# The thread exits ~1.5 s after it started; the leader lives 4 s longer.
for _ in $(seq 300); do kill -0 $rec 2>/dev/null || break; sleep 0.01; done
kill -0 $rec 2>/dev/null && fail "prec record -t $tid still running 3 s in (thread gone: $([ -d /proc/$app/task/$tid ] || echo yes))"
wait $rec; rc=$?; rec=
cat "$tmp/err"
[ $rc = 0 ] || fail "prec record -t $tid exited $rc"
kill -0 $app 2>/dev/null || fail "the process exited first: the stop was not the thread's exit"
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
"$PREC" info "$tmp/t" | grep -q '^state: *complete' || fail "manifest not complete"

"$PREC" merge "$tmp/t" -o "$tmp/t.data" 2>"$tmp/merr" || { cat "$tmp/merr"; fail "merge"; }
perf script -i "$tmp/t.data" -F tid >"$tmp/script" 2>"$tmp/serr" || fail_rc "$tmp/serr" "perf script"
sort "$tmp/script" | uniq -c >"$tmp/tids"
cat "$tmp/tids"
[ -s "$tmp/serr" ] && { cat "$tmp/serr"; fail "perf script printed warnings"; }
[ "$(wc -l <"$tmp/tids")" = 1 ] || fail "samples of other threads than $tid"
read -r n t <"$tmp/tids"
[ "$t" = "$tid" ] || fail "samples are of tid $t, want $tid"
# 4000 Hz for ~1.5 s of a busy thread: hundreds at the least.
[ "$n" -ge 500 ] || fail "only $n samples of the spinning thread"
echo "PASS: record -t $tid (not the leader $app): $n samples, all its own; stopped by itself after $secs s"
