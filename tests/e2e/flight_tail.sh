#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tail synthesis on the real kernel: prec record -a --overwrite with 64 KiB
# rings and cpu-clock at 4000 Hz (a ring holds ~0.3 s), and a process
# started 0.5 s in that spins in callchain_inner for 3 s. At the control
# snapshot (1.5 s after it started) its exec's COMM and MMAP2 are long
# gone from a ring the tracking event shares with the samples; the tail
# written after the snapshot names it all the same:
# - perf report --sort comm,dso,sym of the merge shows callchain /
#   callchain / callchain_inner, and no out-of-order warning; perf script's
#   times never go back, prec merge warns of no inversion;
# - tail.shard (listed in the manifest, cpu -2) holds a COMM and the
#   binary's MMAP2 for that pid at the time of the snapshot's oldest record
#   less 1 ns, one tail per snapshot (control, stop), times growing, every
#   CPU record of a snapshot after its tail and before the next;
# - prec info --check is clean (the shard's totals are its records).
set -u
H=$PREC_BUILD/tests/helpers
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v perf >/dev/null || { echo "skip: no perf"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3 (shard reader)"; exit 77; }
tmp=$(mktemp -d /tmp/prec-ftail.XXXXXX)
rec= spin=
trap '[ -n "$rec" ] && kill "$rec" 2>/dev/null; [ -n "$spin" ] && kill "$spin" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Records of a side-band shard, one line each:
# "time type pid tid name" (name: COMM's comm, MMAP2's file), chunk by
# chunk, the time from the sample_id trailer (tid, time, cpu, id).
records() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 64
while off + 64 <= len(b):
    magic, typ, codec, hs, plen = struct.unpack_from('<IBBHI', b, off)
    if magic != 0x4b484350 or codec != 0:
        sys.exit('chunk at %d: magic %#x codec %d' % (off, magic, codec))
    p, end = off + hs, off + hs + plen
    while p < end:
        rtype, misc, size = struct.unpack_from('<IHH', b, p)
        t = struct.unpack_from('<Q', b, p + size - 24)[0]
        pid, tid = struct.unpack_from('<II', b, p + 8)
        name = '-'
        if rtype == 3:
            name = b[p + 16:p + size - 32].split(b'\0')[0].decode()
        elif rtype == 10:
            name = b[p + 72:p + size - 32].split(b'\0')[0].decode()
        print(t, rtype, pid, tid, name)
        p += size
    off += 64 + plen
EOF
}

# Chunks of a CPU shard: "first_time last_time".
chunk_times() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 64
while off + 64 <= len(b):
    magic, typ, codec, hs, plen, rlen, recs, seq, first, last = struct.unpack_from('<IBBHIIIIQQ', b, off)
    if magic != 0x4b484350:
        sys.exit('bad chunk magic at %d' % off)
    print(first, last)
    off += 64 + plen
EOF
}

mkfifo "$tmp/ctl" "$tmp/ack"
"$PREC" record -a --overwrite -m 64K -F 4000 -e cpu-clock \
	--control "fifo:$tmp/ctl,$tmp/ack" -d "$tmp/rec" 2>"$tmp/err" & rec=$!
for _ in $(seq 200); do [ -e "$tmp/rec/manifest" ] && break; sleep 0.05; done
[ -e "$tmp/rec/manifest" ] || { cat "$tmp/err"; fail "no recording started"; }
sleep 0.5
"$H/callchain" 3000 & spin=$!
sleep 1.5
echo snapshot >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "no ack for snapshot"
sleep 0.3
echo stop >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "no ack for stop"
wait $rec; rc=$?
rec=
[ $rc = 0 ] || { cat "$tmp/err"; fail "record exited $rc"; }
kill $spin 2>/dev/null; wait $spin 2>/dev/null; pid=$spin; spin=
cat "$tmp/err"

# perf is the judge: the late process named, with its binary and symbol.
"$PREC" merge "$tmp/rec" -o "$tmp/m.data" 2>"$tmp/merr" || { cat "$tmp/merr"; fail "merge"; }
cat "$tmp/merr"
grep -q "went out after a later one" "$tmp/merr" && fail "prec merge: records out of time order"
perf report -i "$tmp/m.data" --stdio --sort comm,dso,sym >"$tmp/rep" 2>"$tmp/reperr" ||
	{ cat "$tmp/reperr"; fail "perf report exited $?"; }
grep -i "out of order" "$tmp/rep" "$tmp/reperr" && fail "perf report: out of order events"
grep -E "^ +[0-9.]+% +callchain +callchain +\[\.\] callchain_inner" "$tmp/rep" ||
	{ grep -E ":$pid|callchain" "$tmp/rep" | head; fail "perf report does not name pid $pid's callchain / callchain_inner"; }
grep -E "^ +[0-9.]+% +:$pid " "$tmp/rep" && fail "perf report shows samples of pid $pid unnamed"
perf script -i "$tmp/m.data" -F time >"$tmp/times" 2>/dev/null || fail "perf script"
awk '{ t = $1 + 0; if (t < last) bad++; last = t } END { exit bad > 0 }' "$tmp/times" ||
	fail "perf script: time goes backwards"

# The tail records themselves.
"$PREC" info "$tmp/rec" --check >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "prec info --check"; }
"$PREC" info "$tmp/rec" --json | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(" ".join("%s:%d:%d" % (s["name"], s["cpu"], s["records"]) for s in m["shards"]))' >"$tmp/shards" ||
	fail "prec info --json"
grep -q "tail.shard:-2:[1-9]" "$tmp/shards" || fail "manifest: no tail.shard with records: $(cat "$tmp/shards")"
records "$tmp/rec/tail.shard" >"$tmp/tail" || fail "tail.shard unreadable"
awk '{ print $1 }' "$tmp/tail" | uniq >"$tmp/ttimes"
[ "$(wc -l <"$tmp/ttimes")" = 2 ] ||
	fail "tail.shard: $(wc -l <"$tmp/ttimes") tail times, want 2 (control snapshot, stop)"
sort -nc "$tmp/ttimes" || fail "tail.shard: times go back"
[ "$(awk '$2 == 7' "$tmp/tail" | wc -l)" = 0 ] || fail "tail.shard: FORK records"
t1=$(sed -n 1p "$tmp/ttimes") t2=$(sed -n 2p "$tmp/ttimes")
awk -v t="$t1" -v p="$pid" '$1 == t && $2 == 3 && $3 == p && $4 == p && $5 == "callchain"' "$tmp/tail" |
	grep -q . || fail "first tail: no COMM callchain for pid $pid"
awk -v t="$t1" -v p="$pid" '$1 == t && $2 == 10 && $3 == p && $5 ~ /\/callchain$/' "$tmp/tail" |
	grep -q . || fail "first tail: no MMAP2 of the callchain binary for pid $pid"
# Each tail 1 ns before its snapshot's oldest record: the CPU chunks of
# the control snapshot start at t1 + 1 or later and end before t2 + 1, the
# stop's start at t2 + 1 or later, and both t1 + 1 and t2 + 1 begin one.
for s in "$tmp"/rec/cpu*.shard; do chunk_times "$s"; done >"$tmp/cchunks"
awk -v a="$t1" -v b="$t2" '
	$1 <= a { print "a CPU chunk from " $1 " before the first tail " a; bad = 1 }
	$1 <= b && $2 > b { print "a CPU chunk across the second tail " b ": " $1 ".." $2; bad = 1 }
	$1 == a + 1 { s1 = 1 } $1 == b + 1 { s2 = 1 }
	END { if (!s1 || !s2) { print "no CPU chunk starts 1 ns after a tail"; bad = 1 }; exit bad }' \
	"$tmp/cchunks" || fail "tail times are not the snapshots' oldest records less 1 ns"
# The merge puts them there too: prec dump's first record after the first
# tail's is at t1 + 1.
"$PREC" dump "$tmp/rec" >"$tmp/dump" 2>"$tmp/derr" || fail "prec dump"
[ -s "$tmp/derr" ] && { cat "$tmp/derr"; fail "prec dump warned"; }
awk -v t="$t1" '{ split($1, x, "."); ns = x[1] * 1e9 + x[2] } ns > t { print $0; exit }' "$tmp/dump" >"$tmp/after"
sec=$((t1 / 1000000000)) nsec=$((t1 % 1000000000))
first=$(printf '%d.%09d' $sec $((nsec + 1)))
grep -q "^$first " "$tmp/after" || fail "merge: the record after the first tail is $(cat "$tmp/after"), not at $first"
echo "PASS: pid $pid named by the tail at $t1 and $t2 ($(wc -l <"$tmp/tail") tail records)"
