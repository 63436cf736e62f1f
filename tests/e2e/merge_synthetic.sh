#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Synthetic shard set (mkshards): `prec info --check` passes, `prec dump`
# prints every record once in time order; one flipped byte makes --check fail
# naming shard and offset; dump and merge name it in one line, skip the rest
# of that shard only, keep every other record, and exit 1, or 0 with
# --salvage. A shard that cannot be opened is skipped the same way.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
MK=$H/mkshards
[ -x "$MK" ] || skip "$MK not built"
e2e_tmpdir merge-e2e "${TMPDIR:-/tmp}"
d=$tmp/set
shards=5 per=4000 total=$((5 * 4000 + 4))

"$MK" "$d" --shards $shards --records-per-shard $per --seed 42 || fail "mkshards"
"$PREC" info "$d" --check >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "check of a good set"; }
grep -q "^check: $((shards + 1)) shards, [0-9]* chunks, $total records: ok$" "$tmp/check" ||
	{ cat "$tmp/check"; fail "check summary"; }
"$PREC" info "$d" --json >"$tmp/json" || fail "info --json"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/json" || fail "json does not parse"
fi

"$PREC" dump "$d" >"$tmp/dump" || fail "dump"
n=$(wc -l <"$tmp/dump")
[ "$n" -eq $total ] || fail "dump printed $n lines, want $total"
[ "$(grep -c ' SAMPLE ip 0x' "$tmp/dump")" -eq $((shards * per)) ] || fail "sample lines"
head -n 4 "$tmp/dump" | grep -qv ' COMM comm task-' && fail "side band not first"
awk '{ if ($1 + 0 < last + 0) { print "backwards at line " NR; exit 1 } last = $1 }' "$tmp/dump" ||
	fail "dump not in time order"
n=$("$PREC" dump "$d" --cpu 1,3 | grep -c ' SAMPLE ')
[ "$n" -eq $((2 * per)) ] || fail "--cpu 1,3 gave $n samples"

# Damage the second chunk of cpu002.shard: it starts after the 64-byte shard
# header and the first chunk (64-byte header + payload_len at +8).
f=$d/cpu002.shard
len1=$(od -An -t u4 -j $((64 + 8)) -N 4 "$f" | tr -d ' ')
recs1=$(od -An -t u4 -j $((64 + 16)) -N 4 "$f" | tr -d ' ')
off=$((64 + 64 + len1))
hex=$(printf '0x%x' $off)
b=$(od -An -t u1 -j $((off + 64 + 20)) -N 1 "$f" | tr -d ' ')
printf "\\x$(printf %02x $((b ^ 0x10)))" | dd of="$f" bs=1 seek=$((off + 64 + 20)) conv=notrunc status=none

"$PREC" info "$d" --check >"$tmp/check" 2>&1 && fail "check passed a damaged set"
grep -q "^shard cpu002.shard: offset $hex: " "$tmp/check" || { cat "$tmp/check"; fail "check names shard and offset"; }
"$PREC" dump "$d" >"$tmp/dump" 2>"$tmp/err" && fail "dump passed a damaged set"
grep -q "shard cpu002.shard: corrupt chunk at offset $hex: " "$tmp/err" || { cat "$tmp/err"; fail "dump error"; }
[ "$(grep -c 'cpu002.shard' "$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "dump: one line for the chunk"; }
kept=$((total - per + recs1))
n=$(wc -l <"$tmp/dump")
[ "$n" -eq $kept ] || fail "dump kept $n records, want $kept"
"$PREC" dump "$d" --salvage >"$tmp/dump" 2>"$tmp/err" || fail "dump --salvage"
n=$(wc -l <"$tmp/dump")
[ "$n" -eq $kept ] || fail "salvage kept $n records, want $kept"
"$PREC" merge "$d" -o "$tmp/m.data" 2>"$tmp/err" && fail "merge passed a damaged set"
grep -q "merge $d: $kept records .*1 corrupt chunk or shard: the rest of it skipped" "$tmp/err" ||
	{ cat "$tmp/err"; fail "merge summary"; }
[ "$(wc -l <"$tmp/err")" = 2 ] || { cat "$tmp/err"; fail "merge: the chunk and the summary, two lines"; }
"$PREC" merge "$d" -o "$tmp/s.data" --salvage 2>"$tmp/err" || fail "merge --salvage: exit $?"
cmp -s "$tmp/m.data" "$tmp/s.data" || fail "merge with and without --salvage differ"
echo "ok: $total records, damaged chunk at $hex found, $kept kept"

# A shard of another recording: named in one line, left out, the rest merged.
"$MK" "$tmp/other" --shards 3 --records-per-shard 10 --seed 43 >/dev/null || fail "mkshards other"
cp "$tmp/other/cpu002.shard" "$d/cpu002.shard"
"$PREC" merge "$d" -o "$tmp/o.data" 2>"$tmp/err" && fail "merge took another recording's shard"
grep -q "shard cpu002.shard: .*another recording" "$tmp/err" || { cat "$tmp/err"; fail "foreign shard message"; }
grep -q "merge $d: $((total - per)) records .*1 corrupt chunk or shard" "$tmp/err" ||
	{ cat "$tmp/err"; fail "merge without the foreign shard"; }
echo "ok: a foreign shard is left out, $((total - per)) records merged"
