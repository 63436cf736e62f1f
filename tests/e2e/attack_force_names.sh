#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What -f may replace, and the name it moves things to.
# 1. merge -f -o and archive -f -o onto a file of the recording being read
#    other than the manifest and the shards the manifest lists: its
#    vdso.so, a segment file (cpu000.shard.N), carry.shard, tail.shard,
#    existing or not: refused in one line, the recording unchanged.
# 2. record -f moves the old recording aside under a name uid 65534
#    cannot guess: they plant DIR.old.1 ... DIR.old.64 in the sticky
#    directory, and root's record -f runs in a new PID namespace (where its
#    PID is among those); the recording is still replaced, their
#    directories left alone.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
need_cmd unshare
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir forcenames
cd "$tmp" || exit 1
chmod 755 "$tmp"

"$PREC" record -q -d rec -e cpu-clock -- true || fail "record"
[ -f rec/vdso.so ] || echo "no vdso.so in the recording: its name alone is tried"
cp -a rec keep
touch rec/cpu000.shard.3 keep/cpu000.shard.3
for out in vdso.so cpu000.shard.3 cpu000.shard.4 carry.shard tail.shard; do
	for cmd in merge archive; do
		timeout 20 "$PREC" "$cmd" -f rec -o "rec/$out" 2>err
		rc=$?
		[ $rc = 0 ] && fail "$cmd -f -o rec/$out: exit 0, want a refusal"
		[ "$(wc -l <err)" = 1 ] || fail "$cmd -f -o rec/$out: want one line: $(cat err)"
		grep -q "of the recording being read" err || fail "$cmd -f -o rec/$out: message: $(cat err)"
		diff -r rec keep >/dev/null || fail "$cmd -f -o rec/$out: the recording changed: $(diff -r rec keep)"
	done
done
echo "merge/archive -f -o onto the recording's own files: refused ($(cat err))"

pub=$tmp/pub
mkdir "$pub" && chmod 1777 "$pub"
"$PREC" record -q -d "$pub/rec" -e cpu-clock -- true || fail "record in pub"
ino=$(stat -c %i "$pub/rec")
nobody sh -c "for i in \$(seq 1 64); do mkdir '$pub/rec.old.'\$i; done" || fail "plant the names"
unshare -pf --kill-child "$PREC" record -q -f -d "$pub/rec" -e cpu-clock -- true 2>err ||
	fail_rc err "record -f with DIR.old.PID planted"
[ "$(stat -c %i "$pub/rec")" != "$ino" ] || fail "record -f: the old recording is still there"
[ -f "$pub/rec/manifest" ] || fail "record -f: no manifest"
n=$(find "$pub" -maxdepth 1 -name 'rec.old.*' -user 65534 | wc -l)
[ "$n" = 64 ] || fail "their directories: $n left of 64"
[ "$(find "$pub" -maxdepth 1 -name 'rec.old.*' | wc -l)" = 64 ] || fail "an aside directory was left: $(ls "$pub")"
echo "record -f with DIR.old.1..64 planted (PID namespace): replaced, theirs untouched"
echo "PASS"
