#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The BPF_PROG_INFO (25) and BPF_BTF (26) features of a perf.data, file or
# pipe (its HEADER_FEATURE records), one line per entry:
#   prog ID <hex of the whole record: info_len, data_len, arrays, info, data>
#           (data's padding after each array zeroed: perf record leaves
#           there what its heap held)
#   btf ID <hex of size and bytes>
#   count FEAT N        (the feature's count, once per feature present)
# so that a test can compare one program's bytes between two files. A
# feature whose entries do not add up to its section is an error (exit 1).
#   bpf_feats.py FILE
import struct
import sys


# struct bpf_prog_info: each array's address, count and element size
# (a number: fixed; a string: the offset of its size field)
ARRAYS = [(24, 16, 1), (32, 20, 1), (56, 52, 4), (112, 104, 8), (120, 108, 4),
          (136, 144, "132"), (152, 148, "172"), (160, 168, "176"), (184, 180, 8)]


def unpadded(rec):
    info_len, data_len, arrays = struct.unpack_from("<IIQ", rec, 0)
    info = rec[16:16 + info_len]
    data = bytearray(data_len)
    for i, (addr, count, size) in enumerate(ARRAYS):
        if not arrays >> i & 1:
            continue
        if isinstance(size, str):
            size, = struct.unpack_from("<I", info, int(size))
        at, = struct.unpack_from("<Q", info, addr)
        n, = struct.unpack_from("<I", info, count)
        n *= size
        if at + n > data_len:
            raise ValueError(f"array {i} past data_len")
        data[at:at + n] = rec[16 + info_len + at:16 + info_len + at + n]
    return rec[:16 + info_len] + bytes(data)


def entries(feat, b):
    out = []
    if len(b) < 4:
        raise ValueError(f"feature {feat}: {len(b)} bytes, no count")
    n, = struct.unpack_from("<I", b, 0)
    out.append(f"count {feat} {n}")
    o = 4
    for _ in range(n):
        if feat == 25:
            info_len, data_len = struct.unpack_from("<II", b, o)
            end = o + 16 + info_len + data_len
            pid, = struct.unpack_from("<I", b, o + 16 + 4)
            out.append(f"prog {pid} {unpadded(b[o:end]).hex()}")
        else:
            bid, size = struct.unpack_from("<II", b, o)
            end = o + 8 + size
            out.append(f"btf {bid} {b[o + 4:end].hex()}")
        if end > len(b):
            raise ValueError(f"feature {feat}: an entry past the section")
        o = end
    if o != len(b):
        raise ValueError(f"feature {feat}: {len(b) - o} bytes after the entries")
    return out


def file_feats(f):
    data_off, data_size = struct.unpack_from("<QQ", f, 40)
    words = struct.unpack_from("<4Q", f, 72)
    bits = [i for i in range(256) if words[i // 64] >> (i % 64) & 1]
    pos = data_off + data_size
    for k, bit in enumerate(bits):
        off, size = struct.unpack_from("<QQ", f, pos + 16 * k)
        if bit in (25, 26):
            yield bit, f[off:off + size]


def pipe_feats(f):
    o = 16
    while o + 8 <= len(f):
        typ, _misc, size = struct.unpack_from("<IHH", f, o)
        if size < 8:
            break
        if typ == 80:
            feat, = struct.unpack_from("<Q", f, o + 8)
            if feat == 32:
                return  # the last feature (what may follow is not walked)
            if feat in (25, 26):
                yield feat, f[o + 16:o + size]
        o += size


def main():
    f = open(sys.argv[1], "rb").read()
    feats = pipe_feats(f) if struct.unpack_from("<Q", f, 8)[0] == 16 else file_feats(f)
    try:
        for feat, b in feats:
            print("\n".join(entries(feat, b)))
    except (ValueError, struct.error) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)


main()
