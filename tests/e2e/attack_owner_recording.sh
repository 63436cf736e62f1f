#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A recording another user put in place of root's: root records into uid
# 65534's directory; they move root's recording aside and write one of
# their own under its name (the tests' writer, mkshards). Root's merge,
# merge --follow, info, dump and archive of it are each refused in one
# line naming its owner, and write nothing; with -f each reads it. A
# recording directory of root's that root left writable to all, whose
# manifest they replaced with theirs, is refused for its mode; their
# recording copied by root with its owners kept (cp -p) for its
# manifest's owner. Root's own recording in their directory is still read
# without -f.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip "no user 65534"
[ -x "$H/mkshards" ] || skip "no $H/mkshards (make unit)"
e2e_tmpdir ownrec
cd "$tmp" || exit 1
chmod 755 "$tmp"
home=$tmp/home
mkdir "$home" && chown 65534:65534 "$home" && chmod 755 "$home"

"$PREC" record -q -d "$home/rec" -e cpu-clock -- true || fail "record"
nobody mv "$home/rec" "$home/rec.root" || fail "move root's recording aside"
nobody "$H/mkshards" "$home/rec" --shards 1 --records-per-shard 10 --seed 1 >/dev/null ||
	fail "their recording"

# refused WHAT CMD...: CMD exits non-zero within 20 s with one stderr line
# saying whose the recording is; no output file appears.
refused() {
	local what=$1 rc
	shift
	timeout 20 "$@" >out 2>err
	rc=$?
	[ $rc = 124 ] && fail "$what: hung"
	[ $rc = 0 ] && fail "$what: exit 0, want a refusal"
	[ "$(wc -l <err)" = 1 ] || fail "$what: want one line, got: $(cat err)"
	grep -q "$want" err || fail "$what: message: $(cat err)"
	[ -s out ] && fail "$what: wrote to stdout: $(head -c 200 out)"
	[ -e out.data ] || [ -e out.tar ] && fail "$what: made an output"
	echo "$what: refused ($(cat err))"
}

want="its directory belongs to nobody (uid 65534).*-f"
refused "merge" "$PREC" merge "$home/rec" -o out.data
refused "merge --follow" "$PREC" merge --follow "$home/rec" -o out.data
refused "info" "$PREC" info "$home/rec"
refused "info --json" "$PREC" info --json "$home/rec"
refused "dump" "$PREC" dump "$home/rec"
refused "archive" "$PREC" archive "$home/rec" -o out.tar

"$PREC" merge -f "$home/rec" -o forced.data 2>err || fail_rc err "merge -f"
[ -s forced.data ] || fail "merge -f: no perf.data"
"$PREC" info -f "$home/rec" >/dev/null 2>err || fail_rc err "info -f"
"$PREC" dump -f "$home/rec" >dump.out 2>err || fail_rc err "dump -f"
[ -s dump.out ] || fail "dump -f: nothing printed"
echo "with -f: merge, info and dump read it"

# Root's directory, left writable to all, with their manifest in it.
"$PREC" record -q -d shared -e cpu-clock -- true || fail "record shared"
chmod 777 shared
nobody cp "$home/rec/manifest" shared/manifest.new && nobody mv -f shared/manifest.new shared/manifest ||
	fail "replace the manifest"
want="its directory may be written by other users (mode 0777).*-f"
refused "info of root's directory writable to all" "$PREC" info shared
refused "merge of root's directory writable to all" "$PREC" merge shared -o out.data
# Their recording copied by root, owners kept, into a directory of root's.
mkdir copy && cp -p "$home"/rec/* copy/ || fail "copy"
want="its manifest belongs to nobody (uid 65534).*-f"
refused "info of a copy of theirs" "$PREC" info copy
refused "dump of a copy of theirs" "$PREC" dump copy

"$PREC" merge "$home/rec.root" -o root.data 2>err || fail_rc err "merge of root's recording in their directory"
"$PREC" info "$home/rec.root" >/dev/null 2>err || fail_rc err "info of root's recording in their directory"
echo "root's own recording in their directory: read"
echo "PASS"
