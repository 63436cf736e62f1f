#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A FIFO, a directory, a device or a symlink in place of a shard or of the
# manifest: info, info --check, info --json, dump and merge refuse it and
# exit 1, never block (a FIFO's open() waits for a writer: they used to
# hang), and info names the file and the cause in one line ("not a regular
# file", "is a symbolic link"). A symlinked shard is refused as a symlinked
# manifest is (docs/reliability.md).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
MK=$H/mkshards
[ -x "$MK" ] || skip "$MK not built"
e2e_tmpdir special "${TMPDIR:-/tmp}"
on_fail() { sed 's/^/    out: /' "$tmp/out" | head -5; sed 's/^/    err: /' "$tmp/err"; }
d=$tmp/d

# run CMD...: under a timeout; $rc, stdout in $tmp/out, stderr in $tmp/err
run() {
	timeout -k 2 10 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then fail "$*: blocked (killed after 10 s)"; fi
}

# plant KIND PATH: put a KIND (fifo, dir, dev, link) at PATH, where a
# regular file was; the link points at a copy of that file.
plant() {
	mv "$2" "$tmp/real"
	case $1 in
	fifo) mkfifo "$2";;
	dir) mkdir "$2";;
	dev) mknod "$2" c 1 3 2>/dev/null || return 1;;
	link) ln -s "$tmp/real" "$2";;
	esac
}

"$MK" "$tmp/good" --shards 2 --records-per-shard 200 --seed 7 >/dev/null || fail "mkshards"
"$PREC" info "$tmp/good" --check >/dev/null || fail "check of the good set"
kinds=0
for kind in fifo dir dev link; do
	want="not a regular file"
	[ $kind = link ] && want="is a symbolic link"

	rm -rf "$d" "$tmp/real"
	cp -a "$tmp/good" "$d"
	if ! plant $kind "$d/cpu001.shard"; then
		echo "note: $kind: cannot be made here, skipped"
		continue
	fi
	kinds=$((kinds + 1))
	run "$PREC" info "$d" --check
	[ $rc = 1 ] || fail "$kind shard: info --check exit $rc"
	grep -qx "shard cpu001.shard: cannot open: $want" "$tmp/out" ||
		fail "$kind shard: info --check does not say '$want'"
	[ "$(grep -c "^shard cpu001.shard" "$tmp/out")" = 1 ] || fail "$kind shard: more than one line"
	run "$PREC" info "$d"
	[ $rc = 0 ] || fail "$kind shard: info (no --check) exit $rc"
	run "$PREC" dump "$d"
	[ $rc = 1 ] || fail "$kind shard: dump exit $rc"
	grep -q "cpu001.shard" "$tmp/err" || fail "$kind shard: dump does not name the shard"
	run "$PREC" merge "$d" -o "$tmp/out.data" -f
	[ $rc = 1 ] || fail "$kind shard: merge exit $rc"
	grep -q "cpu001.shard" "$tmp/err" || fail "$kind shard: merge does not name the shard"

	rm -rf "$d" "$tmp/real"
	cp -a "$tmp/good" "$d"
	plant $kind "$d/manifest"
	for cmd in "info" "info --check" "info --json" "dump"; do
		# shellcheck disable=SC2086
		run "$PREC" $cmd "$d"
		[ $rc = 1 ] || fail "$kind manifest: $cmd exit $rc"
		[ "$(cat "$tmp/err")" = "prec: error: $d/manifest: cannot read: $want" ] ||
			fail "$kind manifest: $cmd: not the one line wanted"
	done
	run "$PREC" merge "$d" -o "$tmp/out.data" -f
	[ $rc = 1 ] || fail "$kind manifest: merge exit $rc"
	[ "$(cat "$tmp/err")" = "prec: error: merge $d: cannot read manifest: $want" ] ||
		fail "$kind manifest: merge: not the one line wanted"
done
[ $kinds -ge 3 ] || fail "only $kinds kinds of file tried"
echo "ok: $kinds kinds of file in place of a shard and of the manifest refused, none blocked"
