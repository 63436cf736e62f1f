#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge on a synthetic directory (mkshards): perf script must see every
# sample, in file and pipe format, with clean stderr; --cpu, --time, -f,
# corrupt shards with and without --salvage, and bad command lines.
set -u
MK=${PREC_BUILD:-build}/tests/helpers/mkshards
[ -x "$MK" ] || { echo "no mkshards helper: skip"; exit 77; }
command -v perf >/dev/null || { echo "no perf: skip"; exit 77; }
: "${PREC:?PREC must point at the prec binary}"

T=$(mktemp -d /tmp/prec-e2e-perfdata-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

SHARDS=3 PER=4000 TOTAL=$((3 * 4000))
"$MK" "$T/d" --shards $SHARDS --records-per-shard $PER --seed 7 >/dev/null ||
	fail "mkshards"

# Samples perf script prints (-G: one line per sample, no call chains).
count() { perf script -G "$@" 2>"$T/perf.err" | wc -l; }
clean() { [ ! -s "$T/perf.err" ] || { cat "$T/perf.err"; fail "perf stderr: $1"; }; }
# Bytes 8..15 of a perf.data: 104 = file format, 16 = pipe format.
hdrsize() { od -An -tu8 -j8 -N8 "$1" | tr -d ' '; }

# File format via -o.
"$PREC" merge "$T/d" -o "$T/f.data" 2>"$T/merge.err" || fail "merge -o"
grep -q "records ($TOTAL samples)" "$T/merge.err" ||
	{ cat "$T/merge.err"; fail "merge report line"; }
grep -q "warning" "$T/merge.err" && { cat "$T/merge.err"; fail "warning on a clean set"; }
[ "$(hdrsize "$T/f.data")" = 104 ] || fail "-o file is not file format"
n=$(count -i "$T/f.data"); clean "file"
[ "$n" = $TOTAL ] || fail "file format: $n samples, want $TOTAL"

# File format via a stdout redirect, pipe format via a pipe.
"$PREC" merge "$T/d" >"$T/r.data" 2>/dev/null || fail "merge > file"
[ "$(hdrsize "$T/r.data")" = 104 ] || fail "redirected stdout is not file format"
cmp -s "$T/f.data" "$T/r.data" || fail "-o and > outputs differ"
n=$("$PREC" merge "$T/d" 2>/dev/null | perf script -G -i - 2>"$T/perf.err" | wc -l)
clean "pipe"
[ "$n" = $TOTAL ] || fail "pipe format: $n samples, want $TOTAL"
"$PREC" merge "$T/d" 2>/dev/null | cat >"$T/p.data"
[ "$(hdrsize "$T/p.data")" = 16 ] || fail "piped output is not pipe format"
n=$(count -i "$T/p.data"); clean "pipe file"
[ "$n" = $TOTAL ] || fail "pipe format in a file: $n samples"

# -o refuses to overwrite without -f.
"$PREC" merge "$T/d" -o "$T/f.data" 2>/dev/null && fail "overwrote without -f"
n=$(count -i "$T/f.data"); [ "$n" = $TOTAL ] || fail "refused overwrite damaged the file"
"$PREC" merge "$T/d" -o "$T/f.data" -f 2>/dev/null || fail "-f"

# --cpu keeps one shard; --time keeps an exact window (ns times from perf).
n=$("$PREC" merge "$T/d" --cpu 1 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = $PER ] || fail "--cpu 1: $n samples, want $PER"
perf script -G --ns -F time -i "$T/f.data" 2>/dev/null | tr -d ' :' >"$T/times"
t0=$(sed -n 1000p "$T/times"); t1=$(sed -n 9000p "$T/times")
want=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b' "$T/times" | wc -l)
n=$("$PREC" merge "$T/d" --time "$t0,$t1" 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = "$want" ] || fail "--time $t0,$t1: $n samples, want $want"
n=$("$PREC" merge "$T/d" --time ",$t0" 2>/dev/null | perf script -G -i - 2>/dev/null | wc -l)
[ "$n" = 1000 ] || fail "--time ,$t0: $n samples, want 1000"

# Shards whose records come up to 50 ms late, beyond the 10 ms their chunk
# watermarks allow: every sample still comes out, exit 0, and the merge
# warns, with a count, that perf may report out of order events (with this
# many records some cross perf's rounds, and it does).
"$MK" "$T/late" --shards 2 --records-per-shard 20000 --max-skew 50000000 --seed 1 >/dev/null ||
	fail "mkshards late"
"$PREC" merge "$T/late" -o "$T/late.data" 2>"$T/merge.err" || fail "merge of late records"
grep -Eq "warning: merge .*: [1-9][0-9]* records went out after a later one .*out of order" \
	"$T/merge.err" || { cat "$T/merge.err"; fail "no warning for records out of order"; }
n=$(count -i "$T/late.data")
[ "$n" = 40000 ] || fail "late records: $n samples, want 40000"
grep -q "out of order" "$T/perf.err" || fail "perf saw no out of order events: the set is not late"

# Bad command lines exit 2.
for args in "" "--time x,y" "--time 5" "--time 3,2" "--cpu a" "--cpu 3-1" "--bogus" "$T/d $T/d"; do
	# shellcheck disable=SC2086
	"$PREC" merge $args >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || fail "'prec merge $args' exit $rc, want 2"
done
"$PREC" merge "$T/nodir" -o "$T/x.data" 2>"$T/merge.err" && fail "missing dir"
grep -q "$T/nodir" "$T/merge.err" || fail "error does not name the directory"
[ ! -e "$T/x.data" ] || fail "output created for a missing directory"

# A corrupt chunk: exit 1 without --salvage (output still readable), 0 with.
size=$(stat -c %s "$T/d/cpu001.shard")
printf '\xff\xff\xff\xff' | dd of="$T/d/cpu001.shard" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$PREC" merge "$T/d" -o "$T/c.data" 2>"$T/merge.err" && fail "corrupt shard merged with exit 0"
grep -q "corrupt" "$T/merge.err" || { cat "$T/merge.err"; fail "no corrupt message"; }
count -i "$T/c.data" >/dev/null; clean "corrupt, no salvage"
"$PREC" merge "$T/d" --salvage -o "$T/s.data" 2>"$T/merge.err" || fail "--salvage exit"
grep -q "1 corrupt chunk" "$T/merge.err" || { cat "$T/merge.err"; fail "salvage report"; }
n=$(count -i "$T/s.data"); clean "salvage"
[ "$n" -ge $((2 * PER)) ] && [ "$n" -lt $TOTAL ] || fail "salvage: $n samples"

# 96 shards: merged in time slices (PREC_MERGE_SLICE_MIN_SHARDS), which
# perf must read as it reads the tree's output: every sample, no warning,
# times in order, in file and pipe format.
"$MK" "$T/w" --shards 96 --records-per-shard 500 --seed 11 --comm-every 13 >/dev/null ||
	fail "mkshards 96"
want=$((96 * 500 - 96 * (500 / 13)))
"$PREC" merge "$T/w" -o "$T/w.data" 2>"$T/merge.err" || { cat "$T/merge.err"; fail "merge 96"; }
grep -q "($want samples)" "$T/merge.err" || { cat "$T/merge.err"; fail "96 shards: report line"; }
perf script -G --ns -F time -i "$T/w.data" 2>"$T/perf.err" | tr -d ' :' >"$T/wtimes"
clean "96 shards, file"
[ "$(wc -l <"$T/wtimes")" = $want ] || fail "96 shards: $(wc -l <"$T/wtimes") samples, want $want"
sort -c -g "$T/wtimes" || fail "96 shards: times out of order"
n=$("$PREC" merge "$T/w" 2>/dev/null | perf script -G -i - 2>"$T/perf.err" | wc -l)
clean "96 shards, pipe"
[ "$n" = $want ] || fail "96 shards, pipe format: $n samples, want $want"
echo "ok"
