#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `prec merge DIR -o FILE -f` where FILE is part of DIR (its manifest or a
# shard, named directly, through a symlink, through a hard link, or as the
# stdout merge appends to): refused in one line, exit 2, the recording
# byte for byte as it was. A new file inside DIR is fine.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
MK=$H/mkshards
[ -x "$MK" ] || skip "$MK not built"
e2e_tmpdir into "${TMPDIR:-/tmp}"
on_fail() { sed 's/^/    err: /' "$tmp/err"; }
d=$tmp/d

"$MK" "$d" --shards 2 --records-per-shard 200 --seed 3 >/dev/null || fail "mkshards"
cp -a "$d" "$tmp/orig"
ln -s "$d/manifest" "$tmp/mlink"
ln -s "$d" "$tmp/dlink"
ln "$d/cpu001.shard" "$tmp/hard"

# refused TARGET PART: merge -o TARGET -f is one line naming PART, exit 2
refused() {
	timeout -k 2 30 "$PREC" merge "$d" -o "$1" -f >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || fail "-o $1 -f: exit $rc, want 2"
	[ "$(cat "$tmp/err")" = "prec: error: merge $1: output is $d/$2 of the recording being read (never written, even with -f)" ] ||
		fail "-o $1 -f: not the one line wanted"
	diff -r "$d" "$tmp/orig" >/dev/null || fail "-o $1 -f: the recording changed"
}
refused "$d/manifest" manifest
refused "$d/cpu000.shard" cpu000.shard
refused "$d/sideband.shard" sideband.shard
refused "$d/./cpu001.shard" cpu001.shard
refused "$tmp/mlink" manifest
refused "$tmp/dlink/cpu000.shard" cpu000.shard
refused "$tmp/hard" cpu001.shard
# without -f as well (it would be "output exists" anyway, but the check
# comes first and says why)
"$PREC" merge "$d" -o "$d/manifest" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "-o manifest without -f: not exit 2"

# stdout appended to a shard
"$PREC" merge "$d" >>"$d/cpu000.shard" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || fail ">>cpu000.shard: exit $rc, want 2"
[ "$(cat "$tmp/err")" = "prec: error: merge stdout: output is $d/cpu000.shard of the recording being read (never written, even with -f)" ] ||
	fail ">>cpu000.shard: not the one line wanted"
diff -r "$d" "$tmp/orig" >/dev/null || fail ">>cpu000.shard: the recording changed"

# a new file in the directory is not part of the recording
"$PREC" merge "$d" -o "$d/perf.data" 2>"$tmp/err" || fail "-o DIR/perf.data"
[ -s "$d/perf.data" ] || fail "DIR/perf.data empty"
if command -v perf >/dev/null; then
	n=$(perf script -i "$d/perf.data" 2>/dev/null | wc -l)
	[ "$n" -ge 400 ] || fail "perf script read $n lines of DIR/perf.data"
fi
rm "$d/perf.data"
diff -r "$d" "$tmp/orig" >/dev/null || fail "the recording changed"
echo "ok: 8 ways of naming a file of the recording refused, DIR/perf.data written"
