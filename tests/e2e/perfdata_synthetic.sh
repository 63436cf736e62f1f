#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge on a synthetic directory (mkshards): perf script must see every
# sample, in file and pipe format, with clean stderr; --cpu, --time, -f,
# corrupt shards with and without --salvage, and bad command lines.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
MK=$H/mkshards
[ -x "$MK" ] || skip "no mkshards helper"
need_cmd perf
e2e_tmpdir e2e-perfdata

SHARDS=3 PER=4000 TOTAL=$((3 * 4000))
"$MK" "$tmp/d" --shards $SHARDS --records-per-shard $PER --seed 7 >/dev/null ||
	fail "mkshards"

# Samples perf script prints (-G: one line per sample, no call chains).
count() { perf script -G "$@" 2>"$tmp/perf.err" | wc -l; }
clean() { [ ! -s "$tmp/perf.err" ] || { cat "$tmp/perf.err"; fail "perf stderr: $1"; }; }
# Bytes 8..15 of a perf.data: 104 = file format, 16 = pipe format.
hdrsize() { od -An -tu8 -j8 -N8 "$1" | tr -d ' '; }

# File format via -o.
"$PREC" merge "$tmp/d" -o "$tmp/f.data" 2>"$tmp/merge.err" || fail "merge -o"
grep -q "records ($TOTAL samples)" "$tmp/merge.err" ||
	{ cat "$tmp/merge.err"; fail "merge report line"; }
grep -q "warning" "$tmp/merge.err" && { cat "$tmp/merge.err"; fail "warning on a clean set"; }
[ "$(hdrsize "$tmp/f.data")" = 104 ] || fail "-o file is not file format"
n=$(count -i "$tmp/f.data"); clean "file"
[ "$n" = $TOTAL ] || fail "file format: $n samples, want $TOTAL"

# File format via a stdout redirect, pipe format via a pipe.
"$PREC" merge "$tmp/d" >"$tmp/r.data" 2>/dev/null || fail "merge > file"
[ "$(hdrsize "$tmp/r.data")" = 104 ] || fail "redirected stdout is not file format"
cmp -s "$tmp/f.data" "$tmp/r.data" || fail "-o and > outputs differ"
n=$("$PREC" merge "$tmp/d" 2>/dev/null | perf script -G -i - 2>"$tmp/perf.err" | wc -l)
clean "pipe"
[ "$n" = $TOTAL ] || fail "pipe format: $n samples, want $TOTAL"
"$PREC" merge "$tmp/d" 2>/dev/null | cat >"$tmp/p.data"
[ "$(hdrsize "$tmp/p.data")" = 16 ] || fail "piped output is not pipe format"
n=$(count -i "$tmp/p.data"); clean "pipe file"
[ "$n" = $TOTAL ] || fail "pipe format in a file: $n samples"

# -o refuses to overwrite without -f.
"$PREC" merge "$tmp/d" -o "$tmp/f.data" 2>/dev/null && fail "overwrote without -f"
n=$(count -i "$tmp/f.data"); [ "$n" = $TOTAL ] || fail "refused overwrite damaged the file"
"$PREC" merge "$tmp/d" -o "$tmp/f.data" -f 2>/dev/null || fail "-f"

# --cpu keeps one shard; --time keeps an exact window (ns times from perf).
n=$("$PREC" merge "$tmp/d" --cpu 1 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = $PER ] || fail "--cpu 1: $n samples, want $PER"
perf script -G --ns -F time -i "$tmp/f.data" 2>/dev/null | tr -d ' :' >"$tmp/times"
t0=$(sed -n 1000p "$tmp/times"); t1=$(sed -n 9000p "$tmp/times")
want=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b' "$tmp/times" | wc -l)
n=$("$PREC" merge "$tmp/d" --time "$t0,$t1" 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = "$want" ] || fail "--time $t0,$t1: $n samples, want $want"
n=$("$PREC" merge "$tmp/d" --time ",$t0" 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = 1000 ] || fail "--time ,$t0: $n samples, want 1000"

# Shards whose records come up to 50 ms late, beyond the 10 ms their chunk
# watermarks allow: every sample still comes out, exit 0, and the merge
# warns, with a count, that perf may report out of order events (with this
# many records some cross perf's rounds, and it does).
"$MK" "$tmp/late" --shards 2 --records-per-shard 20000 --max-skew 50000000 --seed 1 >/dev/null ||
	fail "mkshards late"
"$PREC" merge "$tmp/late" -o "$tmp/late.data" 2>"$tmp/merge.err" || fail "merge of late records"
grep -Eq "warning: merge .*: [1-9][0-9]* records went out after a later one .*out of order" \
	"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "no warning for records out of order"; }
n=$(count -i "$tmp/late.data")
[ "$n" = 40000 ] || fail "late records: $n samples, want 40000"
grep -q "out of order" "$tmp/perf.err" || fail "perf saw no out of order events: the set is not late"

# Bad command lines exit 2.
for args in "" "--time x,y" "--time 5" "--time 3,2" "--cpu a" "--cpu 3-1" "--bogus" "$tmp/d $tmp/d"; do
	# shellcheck disable=SC2086
	"$PREC" merge $args >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || fail "'prec merge $args' exit $rc, want 2"
done
"$PREC" merge "$tmp/nodir" -o "$tmp/x.data" 2>"$tmp/merge.err" && fail "missing dir"
grep -q "$tmp/nodir" "$tmp/merge.err" || fail "error does not name the directory"
[ ! -e "$tmp/x.data" ] || fail "output created for a missing directory"

# A corrupt chunk: exit 1 without --salvage (output still readable), 0 with.
size=$(stat -c %s "$tmp/d/cpu001.shard")
printf '\xff\xff\xff\xff' | dd of="$tmp/d/cpu001.shard" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$PREC" merge "$tmp/d" -o "$tmp/c.data" 2>"$tmp/merge.err" && fail "corrupt shard merged with exit 0"
grep -q "corrupt" "$tmp/merge.err" || { cat "$tmp/merge.err"; fail "no corrupt message"; }
count -i "$tmp/c.data" >/dev/null; clean "corrupt, no salvage"
"$PREC" merge "$tmp/d" --salvage -o "$tmp/s.data" 2>"$tmp/merge.err" || fail "--salvage exit"
grep -q "1 corrupt chunk" "$tmp/merge.err" || { cat "$tmp/merge.err"; fail "salvage report"; }
n=$(count -i "$tmp/s.data"); clean "salvage"
[ "$n" -ge $((2 * PER)) ] && [ "$n" -lt $TOTAL ] || fail "salvage: $n samples"

# 96 shards: merged in time slices (PREC_MERGE_SLICE_MIN_SHARDS), which
# perf must read as it reads the tree's output: every sample, no warning,
# times in order, in file and pipe format.
"$MK" "$tmp/w" --shards 96 --records-per-shard 500 --seed 11 --comm-every 13 >/dev/null ||
	fail "mkshards 96"
want=$((96 * 500 - 96 * (500 / 13)))
"$PREC" merge "$tmp/w" -o "$tmp/w.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge 96"; }
grep -q "($want samples)" "$tmp/merge.err" || { cat "$tmp/merge.err"; fail "96 shards: report line"; }
perf script -G --ns -F time -i "$tmp/w.data" 2>"$tmp/perf.err" | tr -d ' :' >"$tmp/wtimes"
clean "96 shards, file"
[ "$(wc -l <"$tmp/wtimes")" = $want ] || fail "96 shards: $(wc -l <"$tmp/wtimes") samples, want $want"
sort -c -g "$tmp/wtimes" || fail "96 shards: times out of order"
n=$("$PREC" merge "$tmp/w" 2>/dev/null | perf script -G -i - 2>"$tmp/perf.err" | wc -l)
clean "96 shards, pipe"
[ "$n" = $want ] || fail "96 shards, pipe format: $n samples, want $want"
echo "ok"
