#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A recording on the perf clock (-k perf, what an intel_pt or arm_spe event
# selects): no attr has use_clockid, the manifest says clockid -1, the
# merged file (file and pipe format) has neither CLOCKID nor CLOCK_DATA (as
# perf without -k), perf reads it without a warning, and its samples are in
# time order. On a machine whose software-event control page offers no TSC
# conversion (a KVM guest: cap_user_time_zero 0) the drainers' watermarks
# are all 0, and the merge orders by the rings' own order alone.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir perfclock

"$PREC" record -d "$tmp/out" -k perf -a -e cpu-clock -F 2000 -- \
	sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 0 ] || fail "record exited $rc"
grep -q ', 0 lost,' "$tmp/err" || fail "records lost"

"$H/mfdump" "$tmp/out" >"$tmp/mf" || fail "manifest unreadable"
grep -q '^clockid -1 ' "$tmp/mf" || fail "manifest clockid: $(grep clockid "$tmp/mf")"
"$PREC" info "$tmp/out" | grep -q '^clock: *perf clock' || fail "prec info clock line"

"$PREC" merge "$tmp/out" -o "$tmp/perf.data" 2>"$tmp/merge" || fail "merge"
cat "$tmp/merge"
grep -q "out of order" "$tmp/merge" && fail "merge reports records out of order"
perf report -i "$tmp/perf.data" --header-only >"$tmp/hdr" 2>&1 || fail "perf report --header-only"
grep -q 'use_clockid' "$tmp/hdr" && fail "an attr has use_clockid"
grep '^# missing features' "$tmp/hdr" | grep -q 'CLOCKID' || fail "CLOCKID written"
grep '^# missing features' "$tmp/hdr" | grep -q 'CLOCK_DATA' || fail "CLOCK_DATA written"
perf report -i "$tmp/perf.data" --stdio >"$tmp/rep" 2>&1 || fail "perf report"
grep -E '^(Warning|Error)|out of order|[0-9]+ unordered' "$tmp/rep" && fail "perf report complains"
perf script -i "$tmp/perf.data" -F time 2>"$tmp/script.err" >"$tmp/times" || fail "perf script"
[ -s "$tmp/script.err" ] && { cat "$tmp/script.err"; fail "perf script complains"; }
awk '{ t = $1 + 0; if (t < p) bad++; p = t; n++ }
     END { print n " samples, " bad + 0 " out of order"; exit !(n > 100 && bad == 0) }' \
	"$tmp/times" || fail "samples out of time order (or too few)"

# Pipe format: the same records in the same order.
"$PREC" merge "$tmp/out" -o - 2>/dev/null | perf script -i - -F time \
	2>"$tmp/pscript.err" >"$tmp/ptimes" || fail "pipe merge | perf script"
[ -s "$tmp/pscript.err" ] && { cat "$tmp/pscript.err"; fail "perf script (pipe) complains"; }
cmp -s "$tmp/times" "$tmp/ptimes" || fail "pipe and file order differ"
echo "PASS"
