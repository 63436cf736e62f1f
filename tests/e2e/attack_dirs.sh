#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The output directory against a local attacker (uid 65534, the swapper
# helper: it waits on inotify for what root does, then swaps a directory
# for a symlink to a victim with renameat2 RENAME_EXCHANGE).
# 1. -f refuses an output another user owns (in a sticky 1777 directory),
#    touching nothing.
# 2. -f's removal of the old recording, swapped mid-walk: a root-owned old
#    output holds a nobody-owned 0777 subdirectory with many files; on the
#    first delete in it the attacker swaps it for a symlink to a root-owned
#    victim directory with the same names. Every victim file survives.
# 3. An empty 0777 directory of ours is used and ends 0700.
# 4. The clean-up after a failed start (no room for the manifest's reserve)
#    in a world-writable parent: the attacker swaps the new directory for a
#    symlink to a victim as root opens it for removal. The victim survives,
#    the old recording is put back.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
e2e_tmpdir attack-dirs
fs=$tmp/fs
cleanup() {
	mountpoint -q "$fs" && umount "$fs"
}
at_exit cleanup
cd "$tmp" || exit 1
chmod 755 "$tmp"
mkdir bin && cp "$H/swapper" bin/ && chmod 755 bin bin/swapper
# Start the attacker in the background (its output in sw.out), wait until
# its inotify watch is set.
attack() {
	nobody bin/swapper -t 60 "$@" >sw.out 2>sw.err &
	sw=$!
	for _ in $(seq 200); do grep -q ready sw.out && return 0; sleep 0.05; done
	cat sw.err
	fail "swapper: not ready after 10 s"
}

# 1. An output owned by another user, in a sticky world-writable directory:
# refused even with -f, untouched (the walk that removes it never starts).
mkdir -m 1777 sticky && mkdir sticky/out && echo theirs >sticky/out/file
chown -R 65534:65534 sticky/out
"$PREC" record -q -f -d sticky/out -e cpu-clock -- true 2>err
rc=$?
cat err
[ $rc != 0 ] || fail "another user's output, -f: accepted"
grep -qx "prec: error: sticky/out: exists and belongs to another user, nobody (uid 65534); not replacing it" err ||
	fail "another user's output, -f: message: $(cat err)"
[ "$(cat sticky/out/file)" = theirs ] && [ "$(stat -c %u sticky/out)" = 65534 ] ||
	fail "another user's output, -f: touched"
[ -z "$(ls sticky | grep -v '^out$')" ] || fail "another user's output, -f: left $(ls sticky)"
echo "another user's output: refused by -f, untouched"

# 2. The walk itself, raced. N files in the attacker's subdirectory and as
# many of the same names in the victim.
N=1000
RUNS=10
swaps=0
for run in $(seq $RUNS); do
	rm -rf out out.old.* victim att
	mkdir victim && seq -f "victim/f%04g" 0 $((N - 1)) | xargs touch
	mkdir -m 755 out && mkdir -m 777 out/sub && mkdir out/sub/inner
	seq -f "out/sub/inner/f%04g" 0 $((N - 1)) | xargs touch
	chown -R 65534:65534 out/sub
	mkdir att && chown 65534:65534 att && nobody ln -s "$tmp/victim" att/lnk
	attack out/sub/inner delete -- out/sub/inner att/lnk
	"$PREC" record -f -d out -e cpu-clock -- true >rec.out 2>err
	rc=$?
	wait $sw
	cat err
	[ $rc = 0 ] || fail "walk race $run: record exit $rc"
	left=$(ls victim | wc -l)
	[ "$left" = $N ] || fail "walk race $run: root deleted $((N - left)) of the victim's $N files ($(cat sw.out | tail -n 1))"
	if grep -qx swapped sw.out; then
		swaps=$((swaps + 1))
		# The walk stayed in the directory it had opened, wherever it went.
		[ -d att/lnk ] && [ ! -L att/lnk ] && [ -z "$(ls -A att/lnk)" ] ||
			fail "walk race $run: the swapped-out subdirectory was not emptied by descriptor"
	fi
	ls -d out.old.* >/dev/null 2>&1 && fail "walk race $run: the old recording is left: $(ls -d out.old.*)"
	grep -q 'removing the replaced recording' err && fail "walk race $run: removal incomplete"
done
[ $swaps -ge $((RUNS / 2)) ] || fail "walk race: the swap landed mid-walk in only $swaps of $RUNS runs"
echo "walk race: swapped mid-walk in $swaps of $RUNS runs, no victim file deleted, old recording removed"

# 3. An empty directory of ours, open to everyone: used, closed to others.
mkdir -m 777 empty
(umask 000 && "$PREC" record -q -d empty -e cpu-clock -- true) || fail "empty 0777 directory: record"
[ "$(stat -c %a empty)" = 700 ] || fail "empty 0777 directory: left $(stat -c %a empty), want 700"
[ -f empty/manifest ] || fail "empty 0777 directory: no manifest"
echo "empty 0777 directory of ours: used, now 0700"

# 4. The clean-up after a failed start. A small file system with no room
# for the manifest's reserve: record stops before sampling and removes
# what it made (a bad event fails earlier, before the directory is made).
# The parent is world-writable (not sticky), so the attacker may swap
# names in it; the victim holds the names of a recording's files.
mkdir fs
mount -t tmpfs -o size=8m,mode=0755 prec-attack-dirs "$fs" || skip "cannot mount a tmpfs"
mkdir -m 777 fs/pub
dd if=/dev/zero of="$fs/filler" bs=4k count=$(($(df -k --output=avail "$fs" | tail -n 1) / 4 - 24)) 2>/dev/null
names="cpu000.shard cpu001.shard sideband.shard manifest manifest.tmp manifest.reserve"
landed=0 late=0 missed=0
for run in $(seq $RUNS); do
	rm -rf fs/pub/* victim4 && mkdir victim4
	for f in $names; do echo keep >"victim4/$f"; done
	mkdir -m 700 fs/pub/out && echo precious >fs/pub/out/file
	nobody ln -s "$tmp/victim4" fs/pub/lnk
	# mkdir of the new directory, prec's open of it, the clean-up's open.
	attack fs/pub create:out open:out open:out -- fs/pub/out fs/pub/lnk
	"$PREC" record -f -d fs/pub/out -a -e cpu-clock -- true 2>err
	rc=$?
	wait $sw
	cat err
	[ $rc = 1 ] || fail "failed start $run: exit $rc, want 1"
	# The reserve, or the side band before it, finds the disk full.
	grep -q 'fs/pub/out/.*: No space left on device' err || fail "failed start $run: did not fail on a full disk"
	gone=$(for f in $names; do [ "$(cat "victim4/$f" 2>/dev/null)" = keep ] || echo "$f"; done)
	[ -z "$gone" ] || fail "failed start $run: root deleted or changed the victim's" $gone "($(tail -n 1 sw.out))"
	ls -d fs/pub/out.old.* >/dev/null 2>&1 && fail "failed start $run: the old recording is left aside"
	# The attacker may lose the race outright: its exchange finds no
	# fs/pub/out between the clean-up's removal and the restore. Such a
	# run still checks the victim and the restore.
	if ! grep -qx swapped sw.out; then
		grep -q '^no swap: .*No such file or directory' sw.out ||
			fail "failed start $run: the attacker did not swap: $(cat sw.out)"
		[ "$(cat fs/pub/out/file 2>/dev/null)" = precious ] ||
			fail "failed start $run: the old recording is lost"
		missed=$((missed + 1))
		continue
	fi
	# The swap came while the new directory was there (it is now at lnk,
	# emptied) or after the old one was back (then the attacker moved that,
	# whole, to lnk: nothing prec could prevent in a directory they write).
	if [ "$(cat fs/pub/out/file 2>/dev/null)" = precious ] && [ ! -L fs/pub/out ]; then
		landed=$((landed + 1))
		[ -z "$(ls -A fs/pub/lnk)" ] || fail "failed start $run: the new directory was not emptied: $(ls fs/pub/lnk)"
	elif [ "$(cat fs/pub/lnk/file 2>/dev/null)" = precious ]; then
		late=$((late + 1))
	else
		ls -la fs/pub
		fail "failed start $run: the old recording is lost"
	fi
done
[ $landed -ge 1 ] || fail "failed start: the swap never came before the clean-up finished ($late late)"
echo "failed start: swapped during the clean-up in $landed of $RUNS runs ($late after it, $missed missed), victim intact, old recording restored"
echo "PASS"
