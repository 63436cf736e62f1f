#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# record_types.py FILE: "TYPE COUNT" for each record type of a perf.data's
# data section (file or pipe format), ascending; a record shorter than its
# header ends the walk with the offset named.
import collections, struct, sys

d = open(sys.argv[1], 'rb').read()
if struct.unpack_from('<Q', d, 8)[0] == 16:
    off, end = 16, len(d)
else:
    off, size = struct.unpack_from('<QQ', d, 40)
    end = off + size
n = collections.Counter()
while off + 8 <= end:
    t, _, s = struct.unpack_from('<IHH', d, off)
    if s < 8:
        sys.exit('record of size %d at %#x' % (s, off))
    n[t] += 1
    off += s
for t in sorted(n):
    print(t, n[t])
