#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A directory link in a directory another user owns: root works inside
# uid 65534's own directory (their home, a project tree; 0755, so no one
# else writes it), where they link `results -> VICTIM`, a root-only
# directory. Root then names outputs through it: `record -f -d
# results/profile` (VICTIM/profile is root's file), `merge -f -o
# results/hosts`, `archive -o results/new.tar`, `--control
# fifo:results/ctl`. Each is refused in one line naming the link and
# VICTIM does not change. A link root made, hard-linked by the user into
# their directory (fs.protected_hardlinks turned off for the test), is
# refused too; root's own link in their directory is still followed.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir ownlinks
old_ph=$(sysctl -n fs.protected_hardlinks 2>/dev/null)
cleanup() {
	[ -n "$old_ph" ] && sysctl -qw fs.protected_hardlinks="$old_ph"
}
at_exit cleanup
cd "$tmp" || exit 1
chmod 755 "$tmp"
home=$tmp/home victim=$tmp/victim
mkdir "$home" "$victim" rootdir && chown 65534:65534 "$home" && chmod 755 "$home" rootdir
chmod 700 "$victim"
echo precious >"$victim/profile"
echo precious >"$victim/hosts"
mkfifo "$victim/ctl"
snapshot() { (cd "$victim" && ls -lA --time-style=+%s.%N && cat profile hosts); }
before=$(snapshot)

"$PREC" record -q -d rec -e cpu-clock -- true || fail "record"
nobody ln -s "$victim" "$home/results" || fail "plant the link"
cd "$home" || exit 1

# refused WHAT LINK CMD...: CMD exits non-zero within 20 s, one stderr
# line naming LINK as another user's link.
refused() {
	local what=$1 link=$2 rc
	shift 2
	timeout 20 "$@" 2>"$tmp/err"
	rc=$?
	[ $rc = 124 ] && fail "$what: hung"
	[ $rc = 0 ] && fail "$what: exit 0, want a refusal (victim now: $(ls -A "$victim"))"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$what: want one line, got: $(cat "$tmp/err")"
	grep -q "$link: a symbolic link" "$tmp/err" || fail "$what: message: $(cat "$tmp/err")"
	[ "$(snapshot)" = "$before" ] || fail "$what: the victim directory changed: $(ls -la "$victim")"
	echo "$what: refused ($(cat "$tmp/err"))"
}

refused "record -f -d results/profile" results \
	"$PREC" record -q -f -d results/profile -e cpu-clock -- true
refused "record -d results/rec" results "$PREC" record -q -d results/rec -e cpu-clock -- true
refused "merge -f -o results/hosts" results "$PREC" merge -f "$tmp/rec" -o results/hosts
refused "archive -o results/new.tar" results "$PREC" archive "$tmp/rec" -o results/new.tar
refused "--control fifo:results/ctl" results \
	"$PREC" record -q -d "$tmp/ctlrec" --control fifo:results/ctl -e cpu-clock -- true
[ ! -e "$tmp/ctlrec" ] || fail "--control through their link: a recording was made"

# Root's link, given a second name in their directory: a hard link of a
# symbolic link, which fs.protected_hardlinks=1 would refuse them.
ln -s "$victim" "$tmp/rootdir/toroot"
if [ -n "$old_ph" ] && sysctl -qw fs.protected_hardlinks=0 &&
	nobody ln -P "$tmp/rootdir/toroot" "$home/hl" 2>/dev/null; then
	refused "merge -f -o hl/hosts (root's link, hard-linked in)" hl \
		"$PREC" merge -f "$tmp/rec" -o hl/hosts
else
	echo "a hard link of root's link: not tried (no fs.protected_hardlinks, or ln -P failed)"
fi

# Root's own link in their directory is followed.
mkdir "$tmp/mine" && ln -s "$tmp/mine" "$home/mylink"
"$PREC" merge "$tmp/rec" -o mylink/out.data 2>"$tmp/err" || fail_rc "$tmp/err" "merge -o through root's own link"
[ -s "$tmp/mine/out.data" ] || fail "merge -o through root's own link: no file"
"$PREC" record -q -d mylink/rec -e cpu-clock -- true 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record -d through root's own link"
[ -f "$tmp/mine/rec/manifest" ] || fail "record -d through root's own link: no manifest"
echo "root's own link in their directory: followed"
echo "PASS"
