#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the hand-made seeds of fuzz_buildid (minimal ELF32/ELF64 files of
# either byte order, notes in segments or sections, and the edge cases of
# the caps) into the directory given. Each seed is fuzz_buildid's control
# byte followed by the file. Real ELF seeds are cut from system files by hand.
import os
import struct
import sys

PT_NOTE, SHT_NOTE, NT_GNU_BUILD_ID = 4, 7, 3
SHA1 = bytes(range(0xa0, 0xb4))
MD5 = bytes(range(0x10, 0x20))


def note(name, ntype, desc, align=4, o="<"):
    pad = lambda b: b + b"\0" * (-len(b) % align)
    n = name + b"\0" if name else b""
    return pad(struct.pack(o + "III", len(n), len(desc), ntype) + n) + pad(desc)


def build_id(desc=SHA1, align=4, o="<"):
    return note(b"GNU", NT_GNU_BUILD_ID, desc, align, o)


def elf(is64, msb, segs=(), sects=(), etype=2, shift=0, phnum=None, phent=None):
    """segs/sects: lists of (note block bytes or (offset, size), align).
    Blocks follow the tables; shift moves them by that many bytes."""
    o = ">" if msb else "<"
    eh, ph, sh = (64, 56, 64) if is64 else (52, 32, 40)
    phoff = eh if segs else 0
    shoff = eh + ph * len(segs) if sects else 0
    data_at = eh + ph * len(segs) + sh * len(sects) + shift
    blocks, tab_p, tab_s = b"", b"", b""
    for i, (blk, align) in enumerate(list(segs) + list(sects)):
        if isinstance(blk, tuple):
            off, size = blk
        else:
            off, size = data_at + len(blocks), len(blk)
            blocks += blk
        if i < len(segs):
            tab_p += (struct.pack(o + "IIQQQQQQ", PT_NOTE, 4, off, 0, 0, size, size, align)
                      if is64 else
                      struct.pack(o + "IIIIIIII", PT_NOTE, off, 0, 0, size, size, 4, align))
        else:
            tab_s += (struct.pack(o + "IIQQQQIIQQ", 1, SHT_NOTE, 2, 0, off, size, 0, 0, align, 0)
                      if is64 else
                      struct.pack(o + "IIIIIIIIII", 1, SHT_NOTE, 2, 0, off, size, 0, 0, align, 0))
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if msb else 1, 1]) + b"\0" * 9
    nph = len(segs) if phnum is None else phnum
    eph = ph if phent is None else phent
    if is64:
        hdr = ident + struct.pack(o + "HHIQQQIHHHHHH", etype, 62, 1, 0, phoff, shoff, 0,
                                  eh, eph, nph, sh, len(sects), 0)
    else:
        hdr = ident + struct.pack(o + "HHIIIIIHHHHHH", etype, 3, 1, 0, phoff, shoff, 0,
                                  eh, eph, nph, sh, len(sects), 0)
    return hdr + tab_p + tab_s + b"\0" * shift + blocks


def main(out):
    abi = note(b"GNU", 1, struct.pack("<IIII", 0, 3, 2, 0))
    prop8 = note(b"GNU", 5, b"\x02\0\0\xc0\x04\0\0\0\x01\0\0\0", align=8)
    other = note(b"Go", 4, b"buildid-of-another-kind")
    seeds = {
        "elf64-le-phdr-sha1": (0, elf(True, False, [(build_id(), 4)])),
        "elf64-be-phdr-sha1": (0, elf(True, True, [(build_id(o=">"), 4)])),
        "elf32-le-phdr-md5": (0, elf(False, False, [(build_id(MD5), 4)])),
        "elf32-be-phdr-sha1": (0, elf(False, True, [(build_id(o=">"), 4)])),
        "elf64-le-shdr-only": (0, elf(True, False, sects=[(build_id(), 4)], etype=1)),
        "elf32-be-shdr-only": (0, elf(False, True, sects=[(build_id(MD5, o=">"), 4)],
                                      etype=1)),
        # gnu property (8-aligned) then the build-id, in one block of
        # alignment 8 at an offset that is not
        "elf64-le-align8": (0, elf(True, False, [(prop8 + build_id(align=8), 8)], shift=4)),
        "elf64-le-two-segs": (0, elf(True, False, [(abi + other, 4), (build_id(), 4)])),
        "elf64-le-segs-and-sects": (0, elf(True, False, [(abi, 4)],
                                           [(other, 4), (build_id(b"\x42" * 8), 4)])),
        "edge-toolong": (0, elf(True, False, [(build_id(bytes(range(32))), 4)])),
        "edge-desc0": (0, elf(False, False, [(build_id(b""), 4)])),
        "edge-17-blocks": (0, elf(True, False, [(abi, 4)] * 16 + [(build_id(), 4)])),
        "edge-table-cap": (0, elf(True, False, [(build_id(), 4)], [(build_id(MD5), 4)],
                                  phnum=1200)),
        "edge-phnum0": (0, elf(True, False, [(build_id(), 4)], [(build_id(MD5), 4)],
                               phnum=0)),
        "edge-phent-small": (0, elf(False, False, [(build_id(), 4)], phent=31)),
        "edge-block-past-eof": (0, elf(True, False, [((1 << 20, 4096), 4)])),
        "edge-note-past-cap": (0, elf(True, False, [(note(b"GNU", 1, b"") +
                                                     struct.pack("<III", 4, 0x10000, 3) +
                                                     b"GNU\0" + SHA1, 4)])),
        # sizes past the content: a sparse file of 1 TiB, then one whose
        # last offset is INT64_MAX, with blocks out there
        "sparse-1t-block-far": (1, elf(True, False, [((1 << 39, 1 << 30), 4),
                                                     (build_id(), 4)])),
        "sparse-max-block-at-end": (2, elf(True, True, [(((1 << 63) - 16, 1 << 16), 4),
                                                        (build_id(o=">"), 4)])),
        "edge-cut-note": (0, elf(False, False, [(build_id(), 4)])[:-12]),
        "sparse-4k-cut-note": (3, elf(False, False, [(build_id(), 4)])[:-12]),
        # the content again at 60 KiB: the segment points into the copy
        "copy-60k": (4, elf(True, False, [((60 * 1024 + 184, 36), 4)],
                            sects=[(build_id(), 4)])),
        # ident made by the harness
        "ident-fix-elf32-msb": (0x08 | 0x20, b"JUNK" + elf(False, True,
                                                           [(build_id(o=">"), 4)])[4:]),
    }
    for name, (ctl, body) in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([ctl]) + body)


if __name__ == "__main__":
    main(sys.argv[1])
