#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Test helper: edit fields of a recording's manifest in place and make its
# checksum right again, so that a reader meets the edited values and not a
# bad checksum (docs/manifest-format.md has the layout).
# Usage: mfedit.py MANIFEST EDIT...
#   state=N                   SESSION state
#   shard.I.FIELD=N           SHARDS element I: cpu chunks records bytes raw
#                             lost lost_samples first last
#   word.OFF=N                the u32 at byte OFF of the file
#   bidpath.I=TEXT            BUILDIDS element I's path (any length: the
#                             section and the file grow or shrink)
#   shardname.I=TEXT          SHARDS element I's name (as bidpath)
import struct
import sys

CRC_TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    CRC_TABLE.append(c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def section(b, tag):
    off = struct.unpack_from('<I', b, 12)[0]
    total = struct.unpack_from('<Q', b, 16)[0]
    while off + 16 <= total:
        t, _, length = struct.unpack_from('<IIQ', b, off)
        if t == tag:
            return off + 16
        off += 16 + ((length + 7) & ~7)
    sys.exit('mfedit: no section %d' % tag)


def shard(b, index):
    off = section(b, 8)
    count = struct.unpack_from('<I', b, off)[0]
    if index >= count:
        sys.exit('mfedit: %d shards' % count)
    off += 8
    for _ in range(index):
        slen = struct.unpack_from('<I', b, off + 72)[0]
        off += 76 + (0 if slen == 0xFFFFFFFF else slen)
        off = (off + 7) & ~7
    return off


FIELDS = {'cpu': (0, '<i'), 'chunks': (8, '<Q'), 'records': (16, '<Q'),
          'bytes': (24, '<Q'), 'raw': (32, '<Q'), 'lost': (40, '<Q'),
          'lost_samples': (48, '<Q'), 'first': (56, '<Q'), 'last': (64, '<Q')}


def string_end(b, off):
    slen = struct.unpack_from('<I', b, off)[0]
    end = off + 4 + (0 if slen == 0xFFFFFFFF else slen)
    return off + ((end - off + 7) & ~7)


def buildid(b, index):
    off = section(b, 9)
    count = struct.unpack_from('<I', b, off)[0]
    if index >= count:
        sys.exit('mfedit: %d build-ids' % count)
    off += 8
    for i in range(index + 1):
        off += 32
        if i == index:
            return off, string_end(b, off)
        off = string_end(b, off)


# The string at start, up to end, replaced by text; its section's length
# and the file's follow.
def set_string(b, tag, where, text):
    start, end = where
    s = struct.pack('<I', len(text)) + text
    s += bytes(-len(s) % 8)
    grow = len(s) - (end - start)
    sec = section(b, tag) - 16
    struct.pack_into('<Q', b, sec + 8, struct.unpack_from('<Q', b, sec + 8)[0] + grow)
    struct.pack_into('<Q', b, 16, struct.unpack_from('<Q', b, 16)[0] + grow)
    b[start:end] = s


def fix_checksum(b):
    total = struct.unpack_from('<Q', b, 16)[0]
    struct.pack_into('<I', b, 28, 0)
    struct.pack_into('<I', b, 28, crc32c(bytes(b[:min(total, len(b))])))


def main():
    path = sys.argv[1]
    with open(path, 'rb') as f:
        b = bytearray(f.read())
    for edit in sys.argv[2:]:
        key, value = edit.split('=', 1)
        k = key.split('.')
        if k[0] == 'bidpath' and len(k) == 2:
            set_string(b, 9, buildid(b, int(k[1])), value.encode('utf-8', 'surrogateescape'))
            continue
        if k[0] == 'shardname' and len(k) == 2:
            at = shard(b, int(k[1])) + 72
            set_string(b, 8, (at, string_end(b, at)), value.encode('utf-8', 'surrogateescape'))
            continue
        v = int(value, 0)
        if k[0] == 'state':
            struct.pack_into('<I', b, section(b, 1), v)
        elif k[0] == 'shard' and len(k) == 3 and k[2] in FIELDS:
            off, fmt = FIELDS[k[2]]
            struct.pack_into(fmt, b, shard(b, int(k[1])) + off, v)
        elif k[0] == 'word' and len(k) == 2:
            struct.pack_into('<I', b, int(k[1], 0), v)
        else:
            sys.exit('mfedit: bad edit ' + edit)
    fix_checksum(b)
    with open(path, 'wb') as f:
        f.write(b)


if __name__ == '__main__':
    main()
