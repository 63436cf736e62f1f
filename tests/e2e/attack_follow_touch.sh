#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# merge --follow of a recording whose owner (uid 65534; root reads it with
# -f) touches its manifest in a loop: the manifest, whose mtime changes
# all the time, is decoded again at most every 500 ms (docs/security.md),
# not on every 50 ms wait. Counted as the merge's opens of the manifest
# (strace) in 6 s of touching: at most 16 (the bound is 13; a decode on
# every wait would be 120), and none in 6 s without (but the first look).
# The merge still ends at the recording's end, and perf reads what it
# wrote.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
need_cmd perf
need_cmd strace
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir followtouch
cd "$tmp" || exit 1
chmod 755 "$tmp"
rec="" mg="" toucher=""
cleanup() {
	for p in $toucher $mg $rec; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
}
at_exit cleanup

"$PREC" record -q -d live -e cpu-clock -F 10 -- sleep 1000 &
rec=$!
wait_manifest live
# Theirs: the recorder goes on writing through its descriptors.
chown -R 65534:65534 live
"$PREC" merge -f --follow live -o - 2>err > >(cat >out.data) &
mg=$!
sleep 1
# opens SECONDS: the merge's opens of the manifest in that many seconds.
opens() {
	timeout "$1" strace -qq -f -e trace=openat -p $mg -o trace 2>/dev/null
	kill -0 $mg 2>/dev/null || fail "merge --follow ended early: $(cat err)"
	grep -c '"manifest"' trace
}
quiet=$(opens 6)
# setpriv itself (not the nobody function's subshell): $! is the loop
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'while :; do touch live/manifest; done' &
toucher=$!
busy=$(opens 6)
kill $toucher
wait $toucher 2>/dev/null
toucher=
echo "merge --follow opened the manifest $quiet times in 6 s, $busy times in 6 s with it touched"
# (1: its first look, which a loaded machine may delay into the window)
[ "$quiet" -le 1 ] || fail "the manifest was read $quiet times in 6 s while it did not change"
# the loop touched it (its mtime is new), and the merge saw it change
[ "$(($(date +%s) - $(stat -c %Y live/manifest)))" -le 10 ] || fail "the manifest was not touched"
[ "$busy" -ge 1 ] || fail "the touched manifest was never read again"
[ "$busy" -le 16 ] || fail "the touched manifest was read $busy times in 6 s (want <= 16)"
kill -INT $rec
# as perf's: prec sends its command SIGTERM on SIGINT and dies of the
# signal that ended the command
wait_signaled $rec TERM "record"
complete live || fail "the recording did not complete"
rec=
timeout 20 tail --pid=$mg -f /dev/null || fail "merge --follow did not end after the recording"
wait $mg || fail_rc err "merge --follow"
mg=
perf script -i out.data >/dev/null 2>perr || fail "perf script: $(cat perr)"
echo "PASS"
