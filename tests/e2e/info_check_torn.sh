#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec info --check and torn tails: after the recorder died (manifest still
# says recording) a torn last chunk is expected and not a problem; in a
# finished recording the same damage is one, and --check exits 1.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir torn
cut_tail() { # shard: drop the last 10 bytes, inside the last chunk
	local size; size=$(stat -c %s "$1")
	truncate -s $((size - 10)) "$1"
}

"$PREC" record -q -d "$tmp/died" -a -e cpu-clock -F 2000 -- sleep 30 &
rec=$!
wait_manifest "$tmp/died"
# until cpu000's shard holds a chunk past its header (the cut must fall in
# a chunk), at most 20 s
for _ in $(seq 200); do
	[ "$(stat -c %s "$tmp/died/cpu000.shard")" -gt 4096 ] && break
	sleep 0.1
done
kill -9 $rec
wait $rec 2>/dev/null
cut_tail "$tmp/died/cpu000.shard"
"$PREC" info --check "$tmp/died" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "--check failed on a died recording's torn tail"; }
grep -q 'cpu000.shard: .*torn.*(recording did not finish)' "$tmp/out" || { cat "$tmp/out"; fail "torn tail not reported"; }

"$PREC" record -q -d "$tmp/done" -a -e cpu-clock -F 2000 -- sleep 0.5 || fail "record"
"$PREC" info --check "$tmp/done" >/dev/null 2>&1 || fail "--check fails on a whole recording"
cut_tail "$tmp/done/cpu000.shard"
"$PREC" info --check "$tmp/done" >"$tmp/out" 2>&1 && { cat "$tmp/out"; fail "--check passed a finished recording with a torn shard"; }
grep -q 'cpu000.shard' "$tmp/out" || { cat "$tmp/out"; fail "damaged shard not named"; }
echo PASS
