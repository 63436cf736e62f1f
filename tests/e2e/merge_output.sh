#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge -o FILE never leaves a truncated perf.data and never destroys
# the old FILE before the new one is whole: it writes FILE.prec-XXXXXX next
# to it and renames it into place at the end.
# 1. A merge onto a full tmpfs fails with one line and exit 1, leaves no
#    FILE and no temp file; with -f over an existing FILE, FILE keeps its
#    old bytes.
# 2. Without -f an existing FILE is refused, byte for byte untouched.
# 3. A good merge with -f replaces FILE; perf script reads exactly the
#    recorded samples.
# 4. -o a FIFO is written in place (pipe format) and the FIFO stays a FIFO;
#    like -o /dev/stdout (a pipe) and -o /dev/null, it needs no -f.
# 5. A missing directory, a directory, a symlink without -f: one line each.
# 6. A 255-byte name; -f over a symlink (to a regular file, or to nothing)
#    replaces the link, never its target.
# 7. A merge killed by SIGTERM or SIGHUP while it writes dies of that
#    signal and leaves neither FILE nor its temp file.
# 8. A reader that stops early (| head -c): the merge ends as cat would,
#    by SIGPIPE (status 141), with nothing on stderr.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=20000
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir mergeout
fs=$tmp/fs
cleanup() {
	mountpoint -q "$fs" && umount "$fs"
}
at_exit cleanup
mkdir "$fs"
mount -t tmpfs -o size=1m,mode=0755 prec-mergeout "$fs" || skip "cannot mount a tmpfs"

d=$tmp/rec
"$PREC" record -q -m 16M -d "$d" -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- "$H/storm" $N >/dev/null || fail "record"

# 1. The merged file (~3 MB) cannot fit in 1 MiB.
"$PREC" merge "$d" -o "$fs/flat.data" 2>"$tmp/err1"
rc=$?
cat "$tmp/err1"
[ $rc = 1 ] || fail "full disk: exit $rc, want 1"
[ "$(wc -l <"$tmp/err1")" = 1 ] || fail "full disk: want one line on stderr"
grep -q "flat.data.*No space left on device" "$tmp/err1" || fail "full disk: message does not name the file and ENOSPC"
[ -z "$(ls -A "$fs")" ] || fail "full disk: left $(ls -A "$fs")"
printf 'old perf.data\n' >"$fs/flat.data"
cp "$fs/flat.data" "$tmp/old"
"$PREC" merge "$d" -f -o "$fs/flat.data" 2>/dev/null && fail "full disk with -f: exit 0"
cmp -s "$fs/flat.data" "$tmp/old" || fail "full disk with -f: the old file was damaged"
[ "$(ls -A "$fs")" = flat.data ] || fail "full disk with -f: left $(ls -A "$fs")"

# 2. No -f: refused before anything is written.
cp "$tmp/old" "$tmp/flat.data"
"$PREC" merge "$d" -o "$tmp/flat.data" 2>"$tmp/err2"
rc=$?
[ $rc = 1 ] || fail "existing output: exit $rc, want 1"
grep -q "output exists (use -f to overwrite)" "$tmp/err2" || fail "existing output: $(cat "$tmp/err2")"
cmp -s "$tmp/flat.data" "$tmp/old" || fail "existing output: damaged without -f"
ls "$tmp" | grep -q prec- && fail "existing output: a temp file was left"

# 3. -f with room: replaced, and perf reads every sample.
"$PREC" merge "$d" -f -o "$tmp/flat.data" 2>/dev/null || fail "merge -f"
n=$(perf script -i "$tmp/flat.data" 2>"$tmp/perr" | grep -c 'NR 110')
[ "$n" = $N ] || fail "merge -f: perf script saw $n samples, want $N"
[ -s "$tmp/perr" ] && fail "perf script warned: $(cat "$tmp/perr")"
ls "$tmp" | grep -q 'flat.data.prec-' && fail "merge -f: a temp file was left"

# 4. A FIFO stays a FIFO and gets the pipe format; it holds nothing -f
# would protect, and neither do /dev/stdout (a pipe here) and /dev/null.
mkfifo "$tmp/fifo"
perf script -i - <"$tmp/fifo" 2>/dev/null | grep -c 'NR 110' >"$tmp/nfifo" &
reader=$!
"$PREC" merge "$d" -o "$tmp/fifo" 2>"$tmp/err4" || fail "merge to a FIFO: $(cat "$tmp/err4")"
wait $reader
[ "$(cat "$tmp/nfifo")" = $N ] || fail "FIFO: perf script read $(cat "$tmp/nfifo") samples, want $N"
[ -p "$tmp/fifo" ] || fail "FIFO: replaced by a regular file"
n=$("$PREC" merge "$d" -o /dev/stdout 2>"$tmp/err4" | perf script -i - 2>/dev/null | grep -c 'NR 110')
[ "$n" = $N ] || fail "-o /dev/stdout into a pipe: perf script read $n samples, want $N: $(cat "$tmp/err4")"
"$PREC" merge "$d" -o /dev/null 2>"$tmp/err4" || fail "-o /dev/null: $(cat "$tmp/err4")"
# 5. Bad outputs: one line naming the output and the real cause, nothing left.
one_line() { # ARGS... : prec merge must fail with one stderr line matching $want
	"$PREC" merge "$d" "$@" 2>"$tmp/err5" && fail "merge $*: exit 0"
	[ "$(wc -l <"$tmp/err5")" = 1 ] || fail "merge $*: $(wc -l <"$tmp/err5") lines: $(cat "$tmp/err5")"
	grep -q "$want" "$tmp/err5" || fail "merge $*: '$(cat "$tmp/err5")' lacks '$want'"
}
want="no/such/dir/x.data: cannot create output: No such file or directory"
one_line -o "$tmp/no/such/dir/x.data"
mkdir "$tmp/adir"
want="adir: cannot open output: Is a directory"
one_line -f -o "$tmp/adir"
ln -s "$tmp/nowhere" "$tmp/dangling"
want="dangling: a symbolic link: refused (-f replaces the link, never its target)"
one_line -o "$tmp/dangling"
ls "$tmp" | grep -q 'prec-' && fail "bad outputs: a temp file was left"

# 6. A name as long as a name may be (255 bytes) still works, and -f over
# a symlink replaces the link with the merge: its target keeps its bytes.
long=$tmp/$(printf 'p%.0s' $(seq 255))
"$PREC" merge "$d" -o "$long" 2>/dev/null || fail "255-byte output name"
[ -s "$long" ] || fail "255-byte output name: nothing written"
ln -s "$long" "$tmp/link"
cp "$tmp/old" "$long"
"$PREC" merge "$d" -f -o "$tmp/link" 2>/dev/null || fail "merge -f to a symlink"
[ -f "$tmp/link" ] && [ ! -L "$tmp/link" ] || fail "symlink output: the link is still there"
cmp -s "$long" "$tmp/old" || fail "symlink output: its target was written"
n=$(perf script -i "$tmp/link" 2>/dev/null | grep -c 'NR 110')
[ "$n" = $N ] || fail "symlink output: the new file holds $n samples, want $N"
"$PREC" merge "$d" -f -o "$tmp/dangling" 2>/dev/null || fail "merge -f to a dangling symlink"
[ -f "$tmp/dangling" ] && [ ! -L "$tmp/dangling" ] && [ ! -e "$tmp/nowhere" ] ||
	fail "dangling symlink output: not replaced by a file, or its target created"
ls -a "$tmp" | grep -q 'prec-' && fail "long name / symlink: a temp file was left"

# 7. Killed mid-write (a 200 MB synthetic set: the merge writes for ~1 s).
"$H/mkshards" "$tmp/big" --shards 4 --total-bytes 200M --seed 5 >/dev/null || fail "mkshards"
for sig in TERM HUP; do
	"$PREC" merge "$tmp/big" -o "$tmp/killed.data" 2>/dev/null &
	pid=$!
	for _ in $(seq 3000); do
		compgen -G "$tmp/killed.data.prec-*" >/dev/null && break
		sleep 0.001
	done
	compgen -G "$tmp/killed.data.prec-*" >/dev/null || fail "SIG$sig: never saw the temp file"
	kill -"$sig" $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ $rc = "$want" ] || fail "SIG$sig: exit $rc, want $want (died of the signal)"
	ls -a "$tmp" | grep -q 'killed.data' && fail "SIG$sig: left $(ls -a "$tmp" | grep killed.data)"
done
# 8. The reader goes away (the 200 MB set is more than a pipe holds).
"$PREC" merge "$tmp/big" 2>"$tmp/pipe.err" | head -c 4096 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 141 ] || fail "merge | head -c: exit $rc, want 141 (SIGPIPE)"
[ -s "$tmp/pipe.err" ] && fail "merge | head -c said: $(head -2 "$tmp/pipe.err")"
echo "merge output: full disk leaves nothing and keeps the old file; $N samples via file, FIFO and a replaced symlink; bad outputs in one line; SIGTERM/SIGHUP mid-write leave nothing; a reader that stops early ends it by SIGPIPE, silently"
