#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Test helper of e2e/read_damage_sweep.sh: damages copies of real
# recordings in every way a reader meets (manifest fields under a right
# checksum, shard and chunk headers under a right checksum, lz4 payloads,
# truncations at and inside chunks, shards and segment files missing,
# planted, or a symlink, FIFO or directory in their place) and runs each
# reader on each: merge to a file and to a pipe, dump, info, info --check,
# info --timeline, archive. Each must end within its deadline, not die of
# a signal or a sanitizer, print only "prec: " lines, give a non-zero exit with an error
# line (info --check: or its last line counting problems) and an error
# line only with a non-zero exit (info without --check reads no shard of a
# finished recording), and leave the recording's bytes as they were. A
# --max-disk recording whose manifest starts a shard after its first record
# (its window past the shard's data) must not be read with exit 0 by the
# readers the window changes (merge, dump, archive, info --check).
# Prints one line per failure and a count; exit 1 if any. A sample of each
# kind of damage by default (a test's minute); DAMAGE_SWEEP=full tries
# every word and every chunk (minutes: by hand, under SANITIZE builds).
# Usage: damage_sweep.py PREC WORKDIR KIND=RECORDING... (KIND: plain, lz4,
# segments (--max-disk), window (--max-disk that dropped data), epochs (a
# --switch-output directory))
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfedit  # noqa: E402

PREC, WORK = sys.argv[1], sys.argv[2]
RECS = dict(a.split('=', 1) for a in sys.argv[3:])
CHUNK_MAGIC = 0x4B484350
DEADLINE = 20
FULL = os.environ.get('DAMAGE_SWEEP') == 'full'
failures = []
runs = 0


def digest(d):
    h = hashlib.sha256()
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        st = os.lstat(p)
        h.update(name.encode() + b'\0' + str(st.st_mode).encode())
        if os.path.islink(p):
            h.update(os.readlink(p).encode())
        elif os.path.isfile(p):
            with open(p, 'rb') as f:
                h.update(f.read())
    return h.hexdigest()


def readers(d):
    out = os.path.join(WORK, 'out')
    return [('merge', [PREC, 'merge', '-f', d, '-o', out + '.data'], True),
            ('pipe', [PREC, 'merge', d, '-o', '-'], True),
            ('dump', [PREC, 'dump', d], True),
            ('info', [PREC, 'info', d], False),
            ('check', [PREC, 'info', '--check', d], True),
            ('timeline', [PREC, 'info', '--timeline', d], True),
            ('archive', [PREC, 'archive', '-f', d, '-o', '/dev/null'], True)]


def run(d, what, shards_only=False, must_fail=()):
    """The readers on d; shards_only: d's manifest is whole, so info,
    which reads no shard of a finished recording, is left out (but for
    DAMAGE_SWEEP=full); must_fail: the readers that must not exit 0 (the
    damage changes what they would read without a word)."""
    global runs
    before = digest(d)
    for name, cmd, strict in readers(d):
        if shards_only and name == 'info' and not FULL:
            continue
        runs += 1
        tag = '%s: %s' % (what, name)
        try:
            p = subprocess.run(cmd, stderr=subprocess.PIPE, timeout=DEADLINE,
                               stdout=subprocess.PIPE if name == 'check' else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            failures.append('%s: still running after %d s' % (tag, DEADLINE))
            continue
        err = p.stderr.decode('latin-1')
        lines = err.splitlines()
        said_error = any(line.startswith('prec: error: ') for line in lines)
        if name == 'check':
            # its report on stdout, the last line "check: ... ok" or "N problems"
            report = p.stdout.decode('latin-1').splitlines()[-1:] or ['']
            if not said_error and p.returncode != report[0].endswith(' problems'):
                failures.append('%s: exit %d, report %s' % (tag, p.returncode, report[0]))
            said_error = said_error or report[0].endswith(' problems')
        if p.returncode < 0 or p.returncode >= 128:
            failures.append('%s: died (exit %d): %s' % (tag, p.returncode, err[-800:]))
        elif 'Sanitizer' in err or 'runtime error:' in err:
            failures.append('%s: sanitizer: %s' % (tag, err[-800:]))
        elif any(not line.startswith('prec: ') for line in lines):
            failures.append('%s: a line not prec\'s: %s' % (tag, err[:400]))
        elif p.returncode and not said_error:
            failures.append('%s: exit %d without an error line: %s'
                            % (tag, p.returncode, err[:400]))
        elif strict and said_error and not p.returncode:
            failures.append('%s: an error line and exit 0: %s' % (tag, err[:400]))
        elif name in must_fail and not p.returncode:
            failures.append('%s: exit 0, the damage unsaid: %s' % (tag, err[:400]))
    if digest(d) != before:
        failures.append('%s: the recording changed' % what)


def fresh(src):
    d = os.path.join(WORK, 'd')
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(src, d, symlinks=True)
    return d


def chunks_of(path):
    """(offset, payload length) of each chunk of a shard's own file."""
    with open(path, 'rb') as f:
        data = f.read()
    off = struct.unpack_from('<I', data, 12)[0]
    if struct.unpack_from('<I', data, 20)[0] & 1:
        off = struct.unpack_from('<Q', data, 48)[0]
    out = []
    while off + 64 <= len(data) and struct.unpack_from('<I', data, off)[0] == CHUNK_MAGIC:
        plen = struct.unpack_from('<I', data, off + 8)[0]
        out.append((off, plen))
        off += 64 + plen
    return out


def rewrite_chunk(path, off, plen, edit):
    """edit(header, payload) on the chunk at off, its checksum made right."""
    with open(path, 'r+b') as f:
        f.seek(off)
        hdr = bytearray(f.read(64))
        pay = bytearray(f.read(plen))
        edit(hdr, pay)
        struct.pack_into('<I', hdr, 60, 0)
        struct.pack_into('<I', hdr, 60, mfedit.crc32c(bytes(hdr) + bytes(pay)))
        f.seek(off)
        f.write(hdr)
        f.write(pay)


def u32_edits(word):
    return sorted({0, 0xFFFFFFFF, (word + 1) & 0xFFFFFFFF, 0x80000000} - {word})


def manifest_cases(src):
    with open(src + '/manifest', 'rb') as f:
        base = f.read()
    total = struct.unpack_from('<Q', base, 16)[0]
    offs = set(range(8, 28, 4)) if FULL else {16, 20}  # header words
    off = struct.unpack_from('<I', base, 12)[0]
    while off + 16 <= total:                          # each section header
        tag, _, length = struct.unpack_from('<IIQ', base, off)
        offs |= {off, off + 8, off + 12, off + 16, off + 20} if FULL else {off + 8}
        if tag in (1, 8):                             # SESSION, SHARDS: every word
            offs |= set(range(off + 16, min(off + 16 + length, off + 16 + (160 if FULL else 96)),
                              4 if FULL else 16))
        elif tag in (2, 4, 5, 9):                     # strings' lengths, counts
            offs |= set(range(off + 16, min(off + 16 + length, off + 16 + (64 if FULL else 32)), 8))
        elif FULL:
            offs |= set(range(off + 16, off + 16 + length, 4))
        off += 16 + ((length + 7) & ~7)
    for o in sorted(offs):
        if o + 4 > total or o == 28:
            continue
        word = struct.unpack_from('<I', base, o)[0]
        for v in u32_edits(word) if FULL else [0 if word else 0xFFFFFFFF]:
            d = fresh(src)
            b = bytearray(base)
            struct.pack_into('<I', b, o, v)
            mfedit.fix_checksum(b)
            with open(d + '/manifest', 'wb') as f:
                f.write(b)
            run(d, '%s manifest +0x%x: %08x -> %08x' % (src, o, word, v))
    for cut in (0, 8, 31, 32, total // 2, total - 8):     # truncated (checksum not fixed)
        d = fresh(src)
        os.truncate(d + '/manifest', cut)
        run(d, '%s manifest cut at %d' % (src, cut))


def shard_cases(src, name):
    path = src + '/' + name
    size = os.path.getsize(path)
    chunks = chunks_of(path)
    cuts = {0, 1, 63, 64}
    for off, plen in chunks if FULL else chunks[:1] + chunks[-1:]:
        cuts |= {off + 1, off + 63, off + 64, off + 64 + plen // 2, off + 64 + plen}
    for c in sorted(cuts):
        if c < size:
            d = fresh(src)
            os.truncate(d + '/' + name, c)
            run(d, '%s/%s cut at %d' % (src, name, c), True)
    for o in range(8, 60, 4 if FULL else 12):         # shard header, checksum right
        with open(path, 'rb') as f:
            hdr = bytearray(f.read(64))
        word = struct.unpack_from('<I', hdr, o)[0]
        for v in (0, 0xFFFFFFFF):
            if v == word:
                continue
            d = fresh(src)
            h = bytearray(hdr)
            struct.pack_into('<I', h, o, v)
            struct.pack_into('<I', h, 60, mfedit.crc32c(bytes(h[:60])))
            with open(d + '/' + name, 'r+b') as f:
                f.write(h)
            run(d, '%s/%s shard header +%d -> %x' % (src, name, o, v), True)
    for off, plen in chunks if FULL else chunks[:1]:  # chunk headers, checksum right
        for o in range(4, 60, 4 if FULL else 8):
            def edit(hdr, pay, o=o):
                w = struct.unpack_from('<I', hdr, o)[0]
                struct.pack_into('<I', hdr, o, 0xFFFFFFFF if w == 0 else 0 if o != 8 else w + 1)
            d = fresh(src)
            rewrite_chunk(d + '/' + name, off, plen, edit)
            run(d, '%s/%s chunk 0x%x header +%d' % (src, name, off, o), True)
        for p in sorted({0, 1, 2, 7, 8, 16, plen // 3, plen // 2, plen - 1} if FULL else
                        {0, 7, plen // 2, plen - 1}):
            if p < 0 or p >= plen:
                continue
            def flip(hdr, pay, p=p):
                pay[p] ^= 0xFF
            d = fresh(src)
            rewrite_chunk(d + '/' + name, off, plen, flip)
            run(d, '%s/%s chunk 0x%x payload byte %d flipped' % (src, name, off, p), True)


def file_cases(src):
    names = sorted(n for n in os.listdir(src) if re.search(r'\.shard(\.\d+)?$', n))
    for n in names if FULL else names[:1] + names[-1:] if len(names) < 4 else names[-2:]:
        for how in ('missing', 'symlink', 'fifo', 'dir', 'empty'):
            d = fresh(src)
            p = d + '/' + n
            if how == 'symlink':
                os.rename(p, d + '/elsewhere')
                os.symlink('elsewhere', p)
            else:
                os.unlink(p)
                if how == 'fifo':
                    os.mkfifo(p)
                elif how == 'dir':
                    os.mkdir(p)
                elif how == 'empty':
                    open(p, 'wb').close()
            run(d, '%s/%s %s' % (src, n, how), True)
    d = fresh(src)
    os.unlink(d + '/manifest')
    os.symlink('/etc/passwd', d + '/manifest')
    run(d, '%s manifest a symlink' % src)
    d = fresh(src)
    shutil.copy(src + '/cpu000.shard', d + '/cpu000.shard.1')
    with open(d + '/cpu000.shard.4294967295', 'wb') as f:
        f.write(b'x')
    run(d, '%s planted segment files' % src, True)


def window_cases(src):
    """A --max-disk recording's CPU shard whose manifest first_time is
    moved to its last_time (first <= last still, checksum right): the
    window would start past the shard's data, which merge, dump, archive
    and info --check must say rather than read without it."""
    with open(src + '/manifest', 'rb') as f:
        base = f.read()
    count = struct.unpack_from('<I', base, mfedit.section(base, 8))[0]
    done = 0
    for i in range(count):
        off = mfedit.shard(base, i)
        cpu, = struct.unpack_from('<i', base, off)
        first, last = struct.unpack_from('<QQ', base, off + 56)
        if cpu < 0 or not first or last <= first or (done and not FULL):
            continue
        d = fresh(src)
        b = bytearray(base)
        struct.pack_into('<Q', b, off + 56, last)
        mfedit.fix_checksum(b)
        with open(d + '/manifest', 'wb') as f:
            f.write(b)
        run(d, '%s manifest shard %d first_time -> its last_time' % (src, i),
            must_fail=('merge', 'pipe', 'dump', 'archive', 'check'))
        done += 1
    if not done:
        failures.append('%s: no CPU shard with first_time < last_time' % src)


def segment_cases(src):
    segs = sorted(n for n in os.listdir(src) if re.search(r'\.shard\.\d+$', n))
    for n in segs if FULL else segs[:1] + segs[-1:]:
        size = os.path.getsize(src + '/' + n)
        fd = os.open(src + '/' + n, os.O_RDONLY)
        try:
            first = os.lseek(fd, 0, os.SEEK_DATA)
        except OSError:
            first = 0
        os.close(fd)
        for c in (first, first + 100, (first + size) // 2):
            if c < size:
                d = fresh(src)
                os.truncate(d + '/' + n, c)
                run(d, '%s/%s cut at %d' % (src, n, c), True)
        for c in (first + 8, (first + size) // 2, size - 1):
            if c < size:
                d = fresh(src)
                with open(d + '/' + n, 'r+b') as f:
                    f.seek(c)
                    b = f.read(1)
                    f.seek(c)
                    f.write(bytes([b[0] ^ 0xFF]))
                run(d, '%s/%s byte %d flipped' % (src, n, c), True)


def main():
    os.makedirs(WORK, exist_ok=True)
    for kind, src in RECS.items():
        if kind == 'epochs':
            # the top of a --switch-output recording is no recording; its
            # first epoch is one, as any other
            run(fresh(src), '%s (the epochs\' directory)' % src)
            src = os.path.join(src, sorted(os.listdir(src))[0])
        run(fresh(src), '%s undamaged' % src)
        if kind == 'window' and not FULL:
            window_cases(src)
            continue
        if FULL or kind == 'plain':
            manifest_cases(src)
        for n in ('cpu000.shard', 'cpu001.shard', 'sideband.shard') if FULL else \
                sorted(os.listdir(src), key=lambda n: -os.path.getsize(src + '/' + n)
                       if n.startswith('cpu') else 0)[:1]:
            if os.path.exists(src + '/' + n) and kind in ('plain', 'lz4'):
                shard_cases(src, n)
        if FULL or kind in ('plain', 'segments', 'epochs'):
            file_cases(src)
        if kind == 'segments':
            segment_cases(src)
        if kind == 'window':
            window_cases(src)
    for f in failures:
        print('FAIL: ' + f)
    print('%d runs, %d failures' % (runs, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
