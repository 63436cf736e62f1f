#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge -o PATH, run by root, where another user (uid 65534) planted
# PATH in a sticky world-writable directory, writes only what root owns or
# creates:
# 1. A symlink to a block device (a loop device over a file of a known
#    pattern) is refused, with or without -f (-f replaces the link); a
#    block device named directly too. The device's bytes never change.
# 2. Their FIFO is refused, with a reader waiting (the reader gets nothing)
#    and without one (no hang); their character device is refused.
# 3. Their symlink to a root file: refused without -f; with -f the link is
#    replaced by root's regular file holding the merge, and the target
#    still says "precious". Also while they swap PATH between a symlink and
#    a file of theirs as fast as they can.
# 4. Root's own FIFO, /dev/null and -o /dev/stdout (a pipe) still work.
# 5. A new file, and -f over root's own file, still work; perf reads them
#    without a warning. No refusal leaves a temp file behind.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir attackout
loop= bg=
cleanup() {
	[ -n "$bg" ] && kill $bg 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop"
}
at_exit cleanup
cd "$tmp" || exit 1
chmod 755 "$tmp"
pub=$tmp/pub
mkdir "$pub" && chmod 1777 "$pub"

"$PREC" record -q -d rec -e cpu-clock -- true || fail "record"
"$PREC" merge rec -o ref.data 2>/dev/null || fail "merge to a new file"
perf report -i ref.data --stdio >/dev/null 2>perr || fail "perf report ref.data: $(cat perr)"
[ -s perr ] && fail "perf report ref.data warned: $(cat perr)"

# merge_refused WANT ARGS...: prec merge rec ARGS... must exit non-zero
# within 20 s with one stderr line matching WANT.
merge_refused() {
	local want=$1 rc
	shift
	timeout 20 "$PREC" merge rec "$@" 2>err
	rc=$?
	[ $rc = 124 ] && fail "merge $*: hung (killed after 20 s)"
	[ $rc = 0 ] && fail "merge $*: exit 0, want a refusal"
	[ "$(wc -l <err)" = 1 ] || fail "merge $*: $(wc -l <err) lines: $(cat err)"
	grep -q -- "$want" err || fail "merge $*: '$(cat err)' lacks '$want'"
	ls -a "$pub" | grep -q 'prec-' && fail "merge $*: left a temp file: $(ls -a "$pub")"
	return 0
}

# 1. A symlink to a block device.
head -c $((1 << 20)) /dev/zero | tr '\0' 'Z' >pattern
cp pattern loopfile
loop=$(losetup -f --show loopfile 2>/dev/null)
if [ -z "$loop" ]; then
	echo "block device: skipped (losetup failed)"
else
	nobody ln -s "$loop" "$pub/blk"
	merge_refused "pub/blk: a symbolic link: refused" -o "$pub/blk"
	cmp -s <(head -c $((1 << 20)) "$loop") pattern || fail "block device: written through a symlink"
	merge_refused "$loop: a block device: refused" -f -o "$loop"
	cmp -s <(head -c $((1 << 20)) "$loop") pattern || fail "block device: written when named"
	"$PREC" merge rec -f -o "$pub/blk" 2>err || fail "-f over a symlink to a block device: $(cat err)"
	[ -f "$pub/blk" ] && [ ! -L "$pub/blk" ] || fail "-f over a symlink to a block device: the link is still there"
	cmp -s "$pub/blk" ref.data || fail "-f over a symlink to a block device: the new file is not the merge"
	cmp -s <(head -c $((1 << 20)) "$loop") pattern || fail "block device: written with -f"
	losetup -d "$loop" && loop=
	cmp -s loopfile pattern || fail "block device: its backing file changed"
	echo "block device: refused through their symlink and by name; -f replaces the link; the device's 1 MiB unchanged"
fi

# 2. Their FIFO, with a reader of theirs waiting: it must read nothing.
nobody mkfifo "$pub/fifo"
nobody timeout 30 sh -c "cat '$pub/fifo' >'$pub/got'" &
bg=$!
merge_refused "pub/fifo: a FIFO of user .*(uid 65534): refused" -o "$pub/fifo"
merge_refused "pub/fifo: a FIFO of user .*(uid 65534): refused" -f -o "$pub/fifo"
nobody timeout 10 sh -c ": >'$pub/fifo'" # lets their reader end
wait $bg
bg=
[ -e "$pub/got" ] || fail "FIFO: their reader never ran"
[ -s "$pub/got" ] && fail "FIFO: their reader got $(wc -c <"$pub/got") bytes"
[ -p "$pub/fifo" ] || fail "FIFO: replaced"
# ... and without a reader: refused at once, no wait.
nobody mkfifo "$pub/fifo2"
merge_refused "pub/fifo2: a FIFO of user .*(uid 65534): refused" -o "$pub/fifo2"
# Their character device (made by root for them: /dev/zero's numbers).
mknod "$pub/chr" c 1 5 && chown 65534:65534 "$pub/chr"
merge_refused "pub/chr: a character device of user .*(uid 65534): refused" -o "$pub/chr"
echo "their FIFO (a reader waiting: 0 bytes read; no reader: no hang) and character device: refused"

# 3. Their symlink to a root file.
echo precious >victim
chmod 644 victim
nobody ln -s "$tmp/victim" "$pub/link"
merge_refused "pub/link: a symbolic link: refused" -o "$pub/link"
[ "$(cat victim)" = precious ] || fail "symlink: the target was written without -f"
"$PREC" merge rec -f -o "$pub/link" 2>err || fail "-f over their symlink: $(cat err)"
[ "$(cat victim)" = precious ] || fail "-f over their symlink: the target was replaced"
[ -f "$pub/link" ] && [ ! -L "$pub/link" ] || fail "-f over their symlink: the link is still there"
[ "$(stat -c %u "$pub/link")" = 0 ] || fail "-f over their symlink: the new file is not root's"
cmp -s "$pub/link" ref.data || fail "-f over their symlink: the new file is not the merge"
# They swap the name between their symlink to victim and a file of theirs
# while root merges with -f (sticky: once root's file is there, it stays).
rm -f "$pub/link"
nobody sh -c "while [ ! -e '$tmp/stop' ]; do ln -sfn '$tmp/victim' '$pub/s' && mv -Tf '$pub/s' '$pub/swap'
	echo theirs >'$pub/r' && mv -Tf '$pub/r' '$pub/swap'; done" 2>/dev/null &
bg=$!
for i in $(seq 20); do
	until [ -e "$pub/swap" ] || [ -L "$pub/swap" ]; do sleep 0.001; done
	"$PREC" merge rec -f -o "$pub/swap" 2>err || fail "swapped name, run $i: $(cat err)"
	[ "$(cat victim)" = precious ] || fail "swapped name, run $i: the target was replaced"
	[ -f "$pub/swap" ] && [ ! -L "$pub/swap" ] && [ "$(stat -c %u "$pub/swap")" = 0 ] ||
		fail "swapped name, run $i: $pub/swap is not root's regular file"
	rm -f "$pub/swap"
done
touch stop
wait $bg
bg=
rm -f "$pub/s" "$pub/r" "$pub/swap"
echo "their symlink to a root file: refused; -f replaces the link (20 runs against a swapper too), the target still says precious"

# 4. Root's own FIFO, /dev/null, /dev/stdout into a pipe.
mkfifo "$pub/ours"
timeout 30 cat "$pub/ours" >ours.data &
bg=$!
timeout 30 "$PREC" merge rec -o "$pub/ours" 2>err || fail "our FIFO: $(cat err)"
wait $bg
bg=
perf report -i - --stdio <ours.data >/dev/null 2>perr || fail "our FIFO: perf report: $(cat perr)"
[ -s perr ] && fail "our FIFO: perf report warned: $(cat perr)"
"$PREC" merge rec -o /dev/null 2>err || fail "-o /dev/null: $(cat err)"
"$PREC" merge rec -o /dev/stdout 2>err | cat >piped.data
[ "${PIPESTATUS[0]}" = 0 ] || fail "-o /dev/stdout: $(cat err)"
perf report -i - --stdio <piped.data >/dev/null 2>perr || fail "-o /dev/stdout: perf report: $(cat perr)"
[ -s perr ] && fail "-o /dev/stdout: perf report warned: $(cat perr)"
echo "our FIFO, /dev/null, /dev/stdout into a pipe: written"

# 5. A new file; -f over our own file.
"$PREC" merge rec -o "$pub/new.data" 2>err || fail "new file: $(cat err)"
cmp -s "$pub/new.data" ref.data || fail "new file: not the merge"
echo old >"$pub/own.data"
merge_refused "own.data: output exists (use -f to overwrite)" -o "$pub/own.data"
"$PREC" merge rec -f -o "$pub/own.data" 2>err || fail "-f over our file: $(cat err)"
for f in "$pub/new.data" "$pub/own.data"; do
	perf report -i "$f" --stdio >/dev/null 2>perr || fail "$f: perf report: $(cat perr)"
	[ -s perr ] && fail "$f: perf report warned: $(cat perr)"
done
ls -a "$pub" | grep -q 'prec-' && fail "a temp file was left: $(ls -a "$pub")"
echo "new file and -f over our own: written, perf reads them"
