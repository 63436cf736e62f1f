#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A manifest's counts, as someone else wrote them (merge -f, a copied
# recording): 100,000 tracepoints (16 MB of manifest, well under the
# readers' 256 MiB). The merge's tracing data grouped them by system with
# a scan of the earlier ones for each: 32,000 took 12 s, 100,000 about two
# minutes, a million hours (the format texts here are short ones). And
# 200,000 events (mkshards --events, 34 MB): the perf.data attrs, ids,
# EVENT_DESC and ID_INDEX each looked every event's position up with a
# walk of the events (64,000 took 22 s; 200,000 about four minutes).
# Each merge must end within 20 s; and with tracepoints of several
# systems interleaved (and ftrace's), perf script reads the tracing data
# of the merged file.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
need_tracepoint sched/sched_switch
e2e_tmpdir mcounts "${TMPDIR:-/var/tmp}"
cd "$tmp" || exit 1

"$PREC" record -q -d rec -e sched:sched_switch -- sleep 0.1 2>rec.err || fail_rc rec.err "record"

# tracepoints.py MANIFEST N [mix]: the TRACEPOINTS section replaced by N
# tracepoints, each its own system (or with mix, five systems and ftrace
# interleaved), the checksum made right.
cat >tracepoints.py <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
import mfedit
path, n, mix = sys.argv[2], int(sys.argv[3]), len(sys.argv) > 4
b = bytearray(open(path, 'rb').read())
off = mfedit.section(b, 6)
end = off + ((struct.unpack_from('<Q', b, off - 8)[0] + 7) & ~7)
def s(t):
    r = struct.pack('<I', len(t)) + t
    return r + bytes(-len(r) % 8)
def get(o):
    n = struct.unpack_from('<I', b, o)[0]
    return bytes(b[o + 4:o + 4 + n]), o + ((4 + n + 7) & ~7)
# the recorded tracepoint stays first; its format is every other's model
o = off + 8
first = o
_, o = get(o + 8)
_, o = get(o)
real, o = get(o)
body = [struct.pack('<II', n + 1, 0), bytes(b[first:o])]
for i in range(n):
    sysname = (b'ftrace' if i % 7 == 3 else b'sys%d' % (i % 5)) if mix else b'sys%d' % i
    # perf parses mix's formats (the recorded one's, renamed); the many
    # are only merged: a short one
    lines = real.split(b'\n') if mix else [b'', b'', b'format:', b'']
    lines[0], lines[1] = b'name: ev%d' % i, b'ID: %d' % (100000 + i)
    body.append(struct.pack('<Q', 100000 + i) + s(sysname) + s(b'ev%d' % i) + s(b'\n'.join(lines)))
body = b''.join(body)
struct.pack_into('<Q', b, off - 8, len(body))
struct.pack_into('<Q', b, 16, struct.unpack_from('<Q', b, 16)[0] + len(body) - (end - off))
b[off:end] = body
mfedit.fix_checksum(b)
open(path, 'wb').write(b)
EOF

cp -a rec many || fail "copy"
python3 tracepoints.py "$PREC_TOP/tests/lib" many/manifest 100000 || fail "tracepoints.py"
"$PREC" info many | grep -qx 'tracepoints: 100001' || fail "info: not 100000 tracepoints"
start=$(date +%s)
timeout 60 "$PREC" merge -q many -o many.data 2>merge.err
rc=$?
secs=$(($(date +%s) - start))
[ $rc = 0 ] || fail_rc merge.err "merge of 100000 tracepoints (exit $rc after $secs s)"
[ $secs -le 20 ] || fail "merge of 100000 tracepoints took $secs s"

"$H/mkshards" events --shards 1 --records-per-shard 10 --events 200000 >/dev/null ||
	fail "mkshards --events"
start=$(date +%s)
timeout 60 "$PREC" merge -q events -o events.data 2>merge.err
rc=$?
esecs=$(($(date +%s) - start))
[ $rc = 0 ] || fail_rc merge.err "merge of 200000 events (exit $rc after $esecs s)"
[ $esecs -le 20 ] || fail "merge of 200000 events took $esecs s"
[ "$(stat -c %s events.data)" -gt $((200000 * 136)) ] || fail "events.data lacks the attrs"

cp -a rec mix || fail "copy"
python3 tracepoints.py "$PREC_TOP/tests/lib" mix/manifest 40 mix || fail "tracepoints.py mix"
"$PREC" merge -q mix -o mix.data 2>merge.err || fail_rc merge.err "merge (mixed systems)"
perf script -i mix.data >script.out 2>script.err || { tail -3 script.err; fail "perf script of the mixed systems"; }
[ -s script.err ] && { tail -3 script.err; fail "perf script of the mixed systems: messages"; }
grep -q sched_switch script.out || fail "perf script: no sched_switch sample: $(head -3 script.out)"
echo "ok: 100000 tracepoints merged in $secs s, 200000 events in $esecs s; perf reads mixed systems"
