#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A directory link another user planted: in a sticky world-writable
# directory, uid 65534 makes `evil -> VICTIM` (a directory of root's).
# Root then names paths through it: `merge -o PUB/evil/out.data`,
# `record -d PUB/evil/rec`, `--control fifo:PUB/evil/ctl`. Each is refused
# in one line naming the link, whatever fs.protected_symlinks says (it is
# turned off for the test and restored), and nothing appears in VICTIM.
# Root's own link in the same directory is still followed.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir attackpath
old_ps=$(sysctl -n fs.protected_symlinks 2>/dev/null)
cleanup() {
	[ -n "$old_ps" ] && sysctl -qw fs.protected_symlinks="$old_ps"
}
at_exit cleanup
cd "$tmp" || exit 1
chmod 755 "$tmp"
pub=$tmp/pub victim=$tmp/victim
mkdir "$pub" "$victim" && chmod 1777 "$pub" && chmod 700 "$victim"
mkfifo "$victim/ctl"
[ -n "$old_ps" ] && sysctl -qw fs.protected_symlinks=0

"$PREC" record -q -d rec -e cpu-clock -- true || fail "record"
nobody ln -s "$victim" "$pub/evil" || fail "plant the link"

one_line() { # $1 what, $2 stderr file
	[ "$(wc -l <"$2")" = 1 ] || fail "$1: want one line, got: $(cat "$2")"
	grep -q "evil: a symbolic link of another user" "$2" || fail "$1: message: $(cat "$2")"
}

"$PREC" merge rec -o "$pub/evil/out.data" 2>err
rc=$?
[ $rc != 0 ] || fail "merge -o through their link: exit 0"
one_line "merge -o" err
"$PREC" merge -f rec -o "$pub/evil/out.data" 2>err && fail "merge -f -o through their link: exit 0"
one_line "merge -f -o" err
echo "merge -o through another user's directory link: refused (exit $rc)"

"$PREC" record -q -d "$pub/evil/rec" -e cpu-clock -- true 2>err && fail "record -d through their link: exit 0"
one_line "record -d" err
"$PREC" record -q -f -d "$pub/evil/rec" -e cpu-clock -- true 2>err && fail "record -f -d through their link: exit 0"
one_line "record -f -d" err
echo "record -d through another user's directory link: refused"

"$PREC" record -q -d ctlrec --control "fifo:$pub/evil/ctl" -e cpu-clock -- true 2>err &&
	fail "--control through their link: exit 0"
one_line "--control" err
[ ! -e ctlrec ] || fail "--control through their link: a recording was made"
echo "--control fifo through another user's directory link: refused"

[ "$(ls -A "$victim")" = ctl ] || fail "the victim directory changed: $(ls -A "$victim")"

# Root's own link in the same shared directory is followed.
mkdir mine && ln -s "$tmp/mine" "$pub/mylink"
"$PREC" merge rec -o "$pub/mylink/out.data" || fail "merge -o through root's own link"
[ -s mine/out.data ] || fail "merge -o through root's own link: no file"
"$PREC" record -q -d "$pub/mylink/rec" -e cpu-clock -- true || fail "record -d through root's own link"
[ -f mine/rec/manifest ] || fail "record -d through root's own link: no manifest"
echo "root's own link in the shared directory: followed"
echo "PASS"
