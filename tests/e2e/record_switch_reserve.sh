#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A --switch-output cut whose new epoch cannot reserve the room of its final
# manifest (manifest.reserve's posix_fallocate fails with ENOSPC, injected
# by tests/preload/failfalloc.so at the second reserve, the first cut's):
# the reserve is made after the drainers moved into the epoch, so the epoch
# holds records already and is kept, not removed (docs/reliability.md):
# one line names manifest.reserve and the error, one says the cut did not
# finish and the epoch is kept; the recording stops (exit 1) and closes it
# as any recording. Both epochs complete, merge, and perf script reads the
# storm's samples in each; no record lost or missing from the totals (the
# summary's records are the two epochs' own).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
so=$PREC_BUILD/tests/preload/failfalloc.so
[ -f "$so" ] || fail "$so missing (make unit builds it)"
e2e_tmpdir switchreserve

FAILFALLOC_NTH=2 LD_PRELOAD=$so "$PREC" record -d "$tmp/r" --switch-output=1M -m 64M \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- "$H/storm" 2000000 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 1 ] || fail "exit $rc, want 1 (a failed cut)"
grep -q "^prec: error: $tmp/r/epoch.000002/manifest.reserve: reserving [0-9]* KiB for the final manifest: No space left on device$" "$tmp/err" ||
	fail "no line naming epoch.000002/manifest.reserve and ENOSPC"
grep -q "^prec: error: $tmp/r/epoch.000002: the cut did not finish; the epoch is kept, as the drainers write into it already" "$tmp/err" ||
	fail "no line saying epoch.000002 is kept"
[ "$(cd "$tmp/r" && echo epoch.*)" = "epoch.000001 epoch.000002" ] ||
	fail "epochs left: $(cd "$tmp/r" && echo epoch.*)"
sum=0
for e in "$tmp"/r/epoch.*; do
	"$H/mfdump" "$e" >"$tmp/mf" || fail "$e: manifest unreadable"
	grep -q '^state complete' "$tmp/mf" || fail "$e: manifest not complete"
	"$PREC" merge "$e" 2>"$tmp/merr" | perf script -i - >"$tmp/script" 2>"$tmp/perr" ||
		fail "$e: prec merge | perf script: $(cat "$tmp/merr" "$tmp/perr")"
	[ -s "$tmp/perr" ] && fail "$e: perf script says: $(head -3 "$tmp/perr")"
	n=$(awk '$1 == "storm" && /raw_syscalls:sys_enter:/' "$tmp/script" | wc -l)
	echo "$e: $n samples of the storm"
	[ "$n" -gt 0 ] || fail "$e: no sample of the storm"
	recs=$("$PREC" info "$e" | awk '$1 == "total" { print $3 }')
	sum=$((sum + recs))
done
total=$(sed -n 's/^\[ prec record: [0-9]* shards, \([0-9]*\) records, .*/\1/p' "$tmp/err")
[ "$total" = "$sum" ] || fail "the summary says $total records, the epochs hold $sum"
grep -q ', 0 lost,' "$tmp/err" || fail "the summary reports losses"
