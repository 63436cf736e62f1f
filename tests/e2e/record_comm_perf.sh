#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tasks prec's side band names from /proc are named as perf names them:
# at most 15 bytes, as the kernel's own COMM records (TASK_COMM_LEN). /proc
# shows a workqueue worker with its description ("kworker/R-rcu_gp",
# "kworker/u8:3-events_unbound"); perf record -a cuts it to its first 15
# bytes, and perf report --tasks lists that on perf's file and, now, on
# prec's (before, prec's had the whole /proc name). Judged on the kernel
# threads whose /proc name is longer than 15 bytes and the same before and
# after both recordings (perf's own file is the judge of the rule).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir commperf

# long: "pid name" of each kernel thread (parent kthreadd) whose name in
# /proc is longer than 15 bytes
long() {
	local d c
	for d in /proc/[0-9]*; do
		[ "$(awk '/^PPid:/ { print $2 }' "$d/status" 2>/dev/null)" = 2 ] || continue
		c=$(cat "$d/comm" 2>/dev/null) || continue
		[ "${#c}" -gt 15 ] && echo "${d#/proc/} $c"
	done | sort
}

# tasks FILE: "pid comm" of perf report --tasks
tasks() {
	perf report --tasks -i "$1" 2>/dev/null | awk -F'|' '/^ *[0-9]/ { split($1, f, " "); c = $2; sub(/^ +/, "", c); print f[1], c }'
}

long >"$tmp/before"
perf record -q -o "$tmp/p.data" -a -e cpu-clock -- sleep 0.2 >/dev/null 2>"$tmp/p.err" ||
	fail_rc "$tmp/p.err" "perf record -a"
"$PREC" record -q -o "$tmp/q.data" -a -e cpu-clock -- sleep 0.2 >/dev/null 2>"$tmp/q.err" ||
	fail_rc "$tmp/q.err" "prec record -a"
long >"$tmp/after"
comm -12 "$tmp/before" "$tmp/after" >"$tmp/stable"
[ -s "$tmp/stable" ] || skip "no kernel thread named longer than 15 bytes in /proc through the run"
tasks "$tmp/p.data" >"$tmp/p.tasks"
tasks "$tmp/q.data" >"$tmp/q.tasks"
awk 'length($0) - length($1) - 1 > 15 { bad++ } END { exit bad > 0 }' "$tmp/p.tasks" ||
	fail "perf's own file names a task with more than 15 bytes: $(awk 'length($0) - length($1) - 1 > 15' "$tmp/p.tasks" | head -3)"
# Every name at most 15 bytes, in perf's own file (the rule) and in
# prec's; each long-named thread in prec's file, cut to 15 bytes (a
# worker's description may change meanwhile, so no name is compared).
for who in p q; do
	awk 'length($0) - length($1) - 1 > 15 { bad++ } END { exit bad > 0 }' "$tmp/$who.tasks" ||
		fail "$who: a task named with more than 15 bytes: $(awk 'length($0) - length($1) - 1 > 15' "$tmp/$who.tasks" | head -3)"
done
n=0
while read -r pid long; do
	q=$(awk -v p="$pid" '$1 == p { sub(/^[0-9]+ /, ""); print; exit }' "$tmp/q.tasks")
	[ -n "$q" ] || fail "prec's file has no task $pid ($long)"
	[ "${#q}" = 15 ] || fail "prec's file names $pid ($long) '$q', not its first 15 bytes"
	n=$((n + 1))
done <"$tmp/stable"
echo "PASS: $n kernel threads named in /proc with more than 15 bytes, cut to 15 in prec's file as in perf's"
