#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A --max-disk shard's chunks go on in segment files (cpu000.shard.N, each
# holding its chunks at their shard offsets): a bad chunk in one is named
# by that file and the offset in it, by merge, dump and info --check, not
# by the shard's own file (which holds only the header then); so is the
# torn end of a recording that did not finish, and a symlink or FIFO in a
# segment file's place, with why. Before, every line said "shard
# cpu000.shard: ... at offset X", a file that has no byte at X (for a
# symlink: "Too many levels of symbolic links", a FIFO "Invalid argument").
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd taskset
need_cmd python3
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir segerr
cd "$tmp" || exit 1

# A storm on CPU 0: a few MiB, segments of 640 KiB, nothing dropped.
"$PREC" record -q -d rec -C 0 --max-disk 16M -e raw_syscalls:sys_enter --filter 'id == 110' -- \
	taskset -c 0 "$H/storm" 30000 2>rec.err || fail_rc rec.err "record --max-disk"

# The chunks of cpu000.shard, file by file: "FILE OFFSET PAYLOAD_LEN" per
# chunk, read from the shard header's first chunk on, as a reader goes.
chunks() {
	python3 - "$1" <<'EOF'
import os, struct, sys
d = sys.argv[1]
h = open(d + '/cpu000.shard', 'rb').read(64)
off = struct.unpack_from('<I', h, 12)[0]
if struct.unpack_from('<I', h, 20)[0] & 1:
    off = struct.unpack_from('<Q', h, 48)[0]
n = 0
while True:
    name = 'cpu000.shard' + ('.%d' % n if n else '')
    try:
        fd = os.open(d + '/' + name, os.O_RDONLY)
    except FileNotFoundError:
        if n > 64:
            break
        n += 1
        continue
    while True:
        hh = os.pread(fd, 64, off)
        if len(hh) < 64 or struct.unpack_from('<I', hh, 0)[0] != 0x4b484350:
            break
        plen = struct.unpack_from('<I', hh, 8)[0]
        print(name, off, plen)
        off += 64 + plen
    os.close(fd)
    n += 1
EOF
}
chunks rec >chunks.txt || fail "chunk walk"
# the second chunk of segment file 1 with a payload
read -r file off len < <(awk '$1 == "cpu000.shard.1" && $3 > 0' chunks.txt | sed -n 2p)
[ -n "${file:-}" ] || fail "no chunk in cpu000.shard.1: $(cut -d' ' -f1 chunks.txt | uniq -c)"
hex=$(printf '0x%x' "$off")

cp -a rec flip || fail "copy"
printf '\377' | dd of="flip/$file" bs=1 seek=$((off + 64 + len / 2)) conv=notrunc 2>/dev/null || fail "flip"
want="shard cpu000.shard: segment file $file: corrupt chunk at offset $hex: bad checksum"
"$PREC" merge flip -o flip.data 2>merge.err && fail "merge: exit 0: $(cat merge.err)"
grep -qxF "prec: error: $want" merge.err || fail "merge: not '$want': $(cat merge.err)"
"$PREC" dump flip >/dev/null 2>dump.err && fail "dump: exit 0: $(cat dump.err)"
grep -qxF "prec: error: $want" dump.err || fail "dump: not '$want': $(cat dump.err)"
"$PREC" info --check flip >check.out 2>&1 && fail "info --check: exit 0"
grep -qxF "shard cpu000.shard: segment file $file: offset $hex: bad checksum" check.out ||
	fail "info --check: $(grep '^shard' check.out)"
echo "bad chunk: $want"

# A torn end: the last segment file cut inside its last chunk, in a
# recording whose manifest says it did not finish (the recorder died).
read -r file off len < <(tail -1 chunks.txt)
[ "$file" != cpu000.shard ] || fail "the last chunk is in the shard's own file"
hex=$(printf '0x%x' "$off")
cp -a rec torn || fail "copy"
truncate -s $((off + 64 + len / 2)) "torn/$file" || fail "truncate"
python3 "$PREC_TOP/tests/lib/mfedit.py" torn/manifest state=1 || fail "state"
"$PREC" merge torn -o torn.data 2>torn.err || fail_rc torn.err "merge of the torn end"
want="shard cpu000.shard: segment file $file: torn chunk at offset $hex ends the file"
grep -qF "prec: warning: $want" torn.err || fail "torn: not '$want': $(cat torn.err)"
"$PREC" info --check torn >tcheck.out 2>&1 || fail "info --check of the torn end: $(cat tcheck.out)"
grep -qxF "shard cpu000.shard: segment file $file: offset $hex: torn payload (recording did not finish)" tcheck.out ||
	fail "info --check of the torn end: $(grep '^shard' tcheck.out)"
echo "torn end: $want"

# A symlink or a FIFO in a segment file's place (prec writes neither):
# refused as a shard would be, and named, where the reader goes on at the
# offset of its first chunk. Each reader under a deadline (a FIFO's open
# must not wait for a writer).
read -r file off len < <(awk '$1 == "cpu000.shard.1"' chunks.txt)
hex=$(printf '0x%x' "$off")
for kind in symlink fifo; do
	cp -a rec "$kind" || fail "copy"
	mv "$kind/cpu000.shard.1" "$kind/elsewhere" || fail "move"
	if [ $kind = symlink ]; then
		ln -s elsewhere "$kind/cpu000.shard.1" && why="is a symbolic link"
	else
		mkfifo "$kind/cpu000.shard.1" && why="not a regular file"
	fi || fail "$kind"
	where="shard cpu000.shard: segment file cpu000.shard.1"
	timeout 20 "$PREC" merge "$kind" -o "$kind.data" 2>"$kind.err" && fail "$kind: merge exit 0"
	grep -qxF "prec: error: $where: read at offset $hex: $why" "$kind.err" ||
		fail "$kind: merge: $(cat "$kind.err")"
	timeout 20 "$PREC" dump "$kind" >/dev/null 2>"$kind.err" && fail "$kind: dump exit 0"
	grep -qxF "prec: error: $where: read at offset $hex: $why" "$kind.err" ||
		fail "$kind: dump: $(cat "$kind.err")"
	timeout 20 "$PREC" info --check "$kind" >"$kind.out" 2>&1 && fail "$kind: info --check exit 0"
	grep -qxF "$where: offset $hex: $why" "$kind.out" || fail "$kind: info --check: $(grep '^shard' "$kind.out")"
	timeout 20 "$PREC" info --timeline "$kind" >/dev/null 2>"$kind.err" && fail "$kind: info --timeline exit 0"
	[ "$(cat "$kind.err")" = "prec: error: $where: offset $hex: $why" ] ||
		fail "$kind: info --timeline: $(cat "$kind.err")"
	echo "$kind: $where: $why"
done
echo "PASS"
