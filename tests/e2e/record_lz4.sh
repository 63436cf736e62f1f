#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record -z end to end: a real lz4 recording of the getppid storm holds
# exactly N samples in lz4 chunks and perf script decodes every one of its
# merge (fast and HC level 9); the same shard set stored raw and compressed
# merges to byte-identical perf.data; a damaged compressed payload makes
# prec merge name the shard and offset and exit 1, never crash.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-100000}
need_root
need_tracepoint raw_syscalls/sys_enter
need_cmd perf
need_cmd python3 "no python3 (reads chunk headers)"
e2e_tmpdir lz4

# chunks.py DIR: one line per chunk "shard offset type codec payload_len raw_len";
# chunks.py --damage SHARD OFFSET [--fix-crc]: flip payload bytes of that
# chunk; with --fix-crc also break its lz4 stream and make the checksum valid
# again, so that only the lz4 decoder can catch it.
cat >"$tmp/chunks.py" <<'EOF'
import os, struct, sys
HDR = struct.Struct('<IBBHIIIIQQQQII')
def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
def walk(path):
    with open(path, 'rb') as f:
        data = f.read()
    off = 64
    while off + 64 <= len(data):
        h = HDR.unpack_from(data, off)
        yield off, h
        off += 64 + h[4]
if sys.argv[1] == '--damage':
    path, off = sys.argv[2], int(sys.argv[3])
    with open(path, 'r+b') as f:
        f.seek(off)
        hdr = bytearray(f.read(64))
        plen = HDR.unpack_from(hdr)[4]
        pay = bytearray(f.read(plen))
        pay[plen // 2] ^= 0x5a
        pay[plen // 3] ^= 0xa5
        if '--fix-crc' in sys.argv:
            # A flipped literal may still decode to raw_len bytes; a run
            # of 0xff from the middle on is a literal or match length
            # that never ends: only a decoder that overreads accepts it.
            pay[plen // 2:] = b'\xff' * (plen - plen // 2)
            struct.pack_into('<I', hdr, 60, 0)
            struct.pack_into('<I', hdr, 60, crc32c(bytes(hdr) + bytes(pay)))
        f.seek(off)
        f.write(hdr + pay)
    sys.exit(0)
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    if name.endswith('.shard'):
        for off, h in walk(os.path.join(d, name)):
            print(name, off, h[1], h[2], h[4], h[5])
EOF

# 1. Real -z recordings: fast and HC level 9.
# The exact-count recordings use a ring that holds the whole workload (-m 16M):
# a count must not depend on how a loaded CI machine schedules the drainer
# (loss against ring size is bench/record_ring.sh's business).
storm_z() { # dir, extra record options...
	local d=$1; shift
	"$PREC" record -d "$d" -m 16M "$@" -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- "$H/storm" "$N" 2>"$tmp/rec.err" || fail_rc "$tmp/rec.err" "record $*"
	grep -q ', 0 lost,' "$tmp/rec.err" || { cat "$tmp/rec.err"; fail "record $*: losses"; }
	"$PREC" info --check "$d" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "info --check $*"; }
	grep -q 'records: ok$' "$tmp/info" || { cat "$tmp/info"; fail "info --check $*: not ok"; }
	python3 "$tmp/chunks.py" "$d" >"$tmp/chunks" || fail "reading chunk headers"
	# Every data chunk of the storm's size is lz4 and smaller than raw.
	awk '$3 == 1 && $6 >= 4096 && !($4 == 1 && $5 < $6) { bad++ }
	     $3 == 1 && $4 == 1 { z++ } END { exit bad || !z }' "$tmp/chunks" ||
		{ head "$tmp/chunks"; fail "record $*: data chunks not lz4"; }
	"$PREC" info --json "$d" >"$tmp/json" || fail "info --json"
	python3 - "$tmp/json" <<'EOF' || fail "record $*: manifest raw/stored bytes do not show compression"
import json, sys
m = json.load(open(sys.argv[1]))
raw = sum(s['raw_bytes'] for s in m['shards']); st = sum(s['bytes'] for s in m['shards'])
print('manifest: %d raw bytes stored in %d (%.2fx)' % (raw, st, raw / st))
sys.exit(0 if raw >= 2 * st else 1)
EOF
	"$PREC" info "$d" | grep -E '^  total .*[0-9]+\.[0-9]+x' >/dev/null ||
		{ "$PREC" info "$d"; fail "info shows no ratio"; }
	"$PREC" merge "$d" -o "$d.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "merge $*"; }
	perf script -i "$d.data" >"$tmp/script" 2>"$tmp/script.err"
	[ ! -s "$tmp/script.err" ] || { head "$tmp/script.err"; fail "perf script printed on stderr"; }
	got=$(grep -c 'raw_syscalls:sys_enter' "$tmp/script")
	nr=$(grep -c 'raw_syscalls:sys_enter: NR 110 ' "$tmp/script")
	[ "$got" = "$N" ] || fail "record $*: perf script shows $got samples, want $N"
	[ "$nr" = "$N" ] || fail "record $*: $nr samples decode as NR 110, want $N"
	echo "record $*: $N samples, lz4 chunks, perf script decodes all"
}
storm_z "$tmp/z" -z
storm_z "$tmp/z9" --compression-level=9
cp "$tmp/chunks" "$tmp/chunks.z9"

# 2. Same shards raw and compressed -> byte-identical perf.data.
"$H/reshard" "$tmp/z" "$tmp/z.raw" --raw || fail "reshard to raw"
"$H/reshard" "$tmp/z.raw" "$tmp/z.hc" --lz4 --level 12 || fail "reshard to lz4 HC 12"
"$H/reshard" "$tmp/z.hc" "$tmp/z.fast" --lz4 || fail "reshard to lz4 fast"
python3 "$tmp/chunks.py" "$tmp/z.raw" | awk '$4 != 0 { exit 1 }' || fail "reshard --raw left lz4 chunks"
for v in raw hc fast; do
	"$PREC" info --check "$tmp/z.$v" >"$tmp/info" 2>&1 || { cat "$tmp/info"; fail "info --check z.$v"; }
	"$PREC" merge "$tmp/z.$v" -o "$tmp/z.$v.data" 2>/dev/null || fail "merge z.$v"
	cmp "$tmp/z.data" "$tmp/z.$v.data" || fail "merge of z.$v differs from the -z recording's"
done
"$PREC" merge "$tmp/z.raw" 2>/dev/null | cmp - <("$PREC" merge "$tmp/z" 2>/dev/null) ||
	fail "pipe format: raw and lz4 shards merge differently"
for seed in 1 7; do
	"$H/mkshards" "$tmp/m$seed" --shards 3 --records-per-shard 20000 --seed $seed || fail mkshards
	"$H/mkshards" "$tmp/m$seed.lz4" --shards 3 --records-per-shard 20000 --seed $seed --lz4 ||
		fail "mkshards --lz4"
	"$PREC" merge "$tmp/m$seed" -o "$tmp/m$seed.data" 2>/dev/null || fail "merge m$seed"
	"$PREC" merge "$tmp/m$seed.lz4" -o "$tmp/m$seed.lz4.data" 2>/dev/null || fail "merge m$seed.lz4"
	cmp "$tmp/m$seed.data" "$tmp/m$seed.lz4.data" || fail "mkshards seed $seed: raw and lz4 merges differ"
done
echo "raw, lz4 fast and lz4 HC copies of one shard set merge to identical perf.data"

# 3. A damaged compressed payload, with a stale and with a valid checksum.
read -r shard off _ < <(awk '$3 == 1 && $4 == 1 { n++; if (n == 3) { print $1, $2; exit } }' "$tmp/chunks.z9")
[ -n "${off:-}" ] || fail "no third lz4 data chunk to damage"
for how in stale --fix-crc; do
	rm -rf "$tmp/bad" "$tmp/bad.data"
	cp -r "$tmp/z9" "$tmp/bad"
	python3 "$tmp/chunks.py" --damage "$tmp/bad/$shard" "$off" $how || fail "damaging"
	"$PREC" merge "$tmp/bad" -o "$tmp/bad.data" 2>"$tmp/bad.err"
	rc=$?
	cat "$tmp/bad.err"
	[ $rc = 1 ] || fail "merge of a damaged lz4 payload ($how) exited $rc, want 1"
	hex=$(printf '0x%x' "$off")
	grep -q "shard $shard: corrupt chunk at offset $hex" "$tmp/bad.err" ||
		fail "merge ($how) does not name shard $shard and offset $hex"
	if [ $how = --fix-crc ]; then
		grep -q 'bad lz4 payload' "$tmp/bad.err" || fail "the lz4 decoder did not catch it"
	fi
	"$PREC" info --check "$tmp/bad" >"$tmp/info" 2>&1
	[ $? = 1 ] || fail "info --check passed a damaged shard"
	grep -q "shard $shard: offset $hex" "$tmp/info" || { cat "$tmp/info"; fail "info --check ($how): wrong place"; }
done
echo "damaged lz4 payload: merge and info --check name $shard at offset $(printf '0x%x' "$off"), exit 1"

# 4. Levels as perf reads them (strtol's number, the rest ignored; none
# is -z alone; negative or above 22 is 22), with -d too: the shards then
# take lz4 HC 12 at most. Taken, and the recording merges.
for lvl in 13 -1 x 5x 22 99; do
	rm -rf "$tmp/lvl" "$tmp/lvl.data"
	"$PREC" record -q -d "$tmp/lvl" --compression-level="$lvl" -e cpu-clock -- true 2>"$tmp/opt.err" ||
		fail_rc "$tmp/opt.err" "--compression-level=$lvl with -d"
	"$PREC" merge -q "$tmp/lvl" -o "$tmp/lvl.data" 2>"$tmp/opt.err" || fail_rc "$tmp/opt.err" "merge of --compression-level=$lvl"
done
echo "PASS: -z and --compression-level 9 recordings exact, codecs merge identically, damage reported"
