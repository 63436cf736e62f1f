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
#   CPU record of a snapshot after its tail and before the next, no FORK;
# - prec info --check is clean (the shard's totals are its records).
# Then a workload whose shell forks a child on another CPU: its FORK
# survives, its exec's COMM and MMAP2 do not; perf names the child all the
# same (the tail names a process forked in the snapshot after its FORK).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3 "no python3 (shard reader)"
e2e_tmpdir ftail
rec= spin=
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$spin" ] && kill "$spin" 2>/dev/null
}
at_exit cleanup

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
# The start manifest comes before the side band is read and the events
# enabled (0.4-0.9 s before on a loaded machine): control commands are read
# only after, so a ping's ack says the start is over and the spinner is late.
echo ping >"$tmp/ctl"; read -r -t 20 a <"$tmp/ack" || fail "no ack for ping"
sleep 0.2
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
	fail_rc "$tmp/reperr" "perf report"
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
awk '{ print $1 }' "$tmp/tail" | sort -nc || fail "tail.shard: times go back"
[ "$(awk '$2 == 7' "$tmp/tail" | wc -l)" = 0 ] || fail "tail.shard: FORK records"
# Each tail 1 ns before its snapshot's oldest record: a snapshot chunk
# (cpuNNN.flight.shard) starts
# 1 ns after exactly two tail times (the control snapshot's, the stop's;
# the other times are processes named again after a FORK or exec the
# snapshot holds); the first is the shard's first; the control snapshot's
# chunks start after it and end before the second, the stop's start after
# the second.
for s in "$tmp"/rec/cpu*.flight.shard; do chunk_times "$s"; done >"$tmp/cchunks"
python3 - "$tmp/cchunks" "$tmp/tail" >"$tmp/bases" <<'EOF'
import sys
first = {int(l.split()[0]) - 1 for l in open(sys.argv[1])}
seen = []
for l in open(sys.argv[2]):
    t = int(l.split()[0])
    if t in first and t not in seen:
        seen.append(t)
print('\n'.join(map(str, seen)))
EOF
[ "$(wc -l <"$tmp/bases")" = 2 ] ||
	fail "tail.shard: $(wc -l <"$tmp/bases") tails just before a snapshot, want 2 (control, stop)"
t1=$(sed -n 1p "$tmp/bases") t2=$(sed -n 2p "$tmp/bases")
[ "$(head -1 "$tmp/tail" | awk '{ print $1 }')" = "$t1" ] || fail "tail.shard does not start with the first tail"
awk -v a="$t1" -v b="$t2" '
	$1 <= a { print "a CPU chunk from " $1 " before the first tail " a; bad = 1 }
	$1 <= b && $2 > b { print "a CPU chunk across the second tail " b ": " $1 ".." $2; bad = 1 }
	END { exit bad }' "$tmp/cchunks" || fail "tail times are not the snapshots' oldest records less 1 ns"
awk -v t="$t1" -v p="$pid" '$1 == t && $2 == 3 && $3 == p && $4 == p && $5 == "callchain"' "$tmp/tail" |
	grep -q . || fail "first tail: no COMM callchain for pid $pid"
awk -v t="$t1" -v p="$pid" '$1 == t && $2 == 10 && $3 == p && $5 ~ /\/callchain$/' "$tmp/tail" |
	grep -q . || fail "first tail: no MMAP2 of the callchain binary for pid $pid"
# The merge puts them there too: prec dump's first record after the first
# tail's is at t1 + 1.
"$PREC" dump "$tmp/rec" >"$tmp/dump" 2>"$tmp/derr" || fail "prec dump"
[ -s "$tmp/derr" ] && { cat "$tmp/derr"; fail "prec dump warned"; }
awk -v t="$t1" '{ split($1, x, "."); ns = x[1] * 1e9 + x[2] } ns > t { print $0; exit }' "$tmp/dump" >"$tmp/after"
sec=$((t1 / 1000000000)) nsec=$((t1 % 1000000000))
first=$(printf '%d.%09d' $sec $((nsec + 1)))
grep -q "^$first " "$tmp/after" || fail "merge: the record after the first tail is $(cat "$tmp/after"), not at $first"
echo "pid $pid named by the tail at $t1 and $t2 ($(wc -l <"$tmp/tail") tail records)"

# A workload's child (its descendants are named too), forked by the shell
# on CPU 1 and spinning on CPU 0: the FORK survives in CPU 1's quiet ring,
# the exec's COMM and MMAP2 are overwritten in CPU 0's. perf starts the
# child afresh from its parent at that FORK, so the tail must name the
# child after it, not at the snapshot's oldest record.
"$PREC" record --overwrite -m 64K -F 4000 -e cpu-clock \
	--control "fifo:$tmp/ctl,$tmp/ack" -d "$tmp/wl" -- \
	taskset -c 1 sh -c "sleep 0.3; taskset -c 0 $H/callchain 1500 & wait" 2>"$tmp/werr" & rec=$!
for _ in $(seq 200); do [ -e "$tmp/wl/manifest" ] && break; sleep 0.05; done
sleep 1.2
echo snapshot >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "workload: no ack for snapshot"
wait $rec; rc=$?
rec=
[ $rc = 0 ] || { cat "$tmp/werr"; fail "workload: record exited $rc"; }
"$PREC" dump "$tmp/wl" >"$tmp/wdump" 2>&1 || fail "workload: prec dump"
fork=$(awk '$2 != "sb" && $4 == "FORK" && $6 != 0 { print $1, $6 }' "$tmp/wdump" | tail -1)
echo "workload: child FORK at $fork"
"$PREC" merge "$tmp/wl" -o "$tmp/w.data" 2>"$tmp/merr" || { cat "$tmp/merr"; fail "workload: merge"; }
grep -q "went out after a later one" "$tmp/merr" && fail "workload: prec merge: records out of time order"
perf report -i "$tmp/w.data" --stdio --sort comm,dso,sym >"$tmp/wrep" 2>"$tmp/reperr" ||
	fail_rc "$tmp/reperr" "workload: perf report"
grep -E "^ +[0-9.]+% +callchain +callchain +\[\.\] callchain_inner" "$tmp/wrep" ||
	{ grep -E "^ +[0-9]" "$tmp/wrep" | head -5; fail "workload: perf report does not name the child callchain / callchain_inner"; }
awk '/^ +[0-9.]+%/ && $2 != "callchain" && $3 == "[unknown]" { sum += $1 } END { exit sum >= 1 }' "$tmp/wrep" ||
	{ grep -E "^ +[0-9]" "$tmp/wrep" | head -5; fail "workload: samples left unnamed"; }
echo "PASS: late -a process named by the tails; workload child named after its FORK"
