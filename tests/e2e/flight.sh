#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Flight recorder on the real kernel: prec record --overwrite with 8-page
# (32 KiB) backward rings while a getppid() storm pinned to CPU 1 floods
# raw_syscalls:sys_enter (with cpu-clock beside it). Snapshots come from
# SIGUSR2 (x3), the control fifo (x1) and the stop (x1): each in the file
# once taken (4 chunks when the control's is acked); CPU 1's flight
# shard (cpu001.flight.shard) must hold exactly 5 chunks, each at most one ring and nearly a full ring, each
# spanning a moment (not the whole 300 ms between triggers), in time order
# and disjoint; perf script reads the merged file without a warning (but
# the pauses' drops, as perf's lost-samples line) and
# shows every sample prec stored. The manifest's shard totals (records,
# lost) match the shards, the summary line and the merge, with and without
# SIGUSR2 snapshots.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
need_cmd perf
need_cmd python3 "no python3 (chunk lister)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
e2e_tmpdir flight
rec= load=
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$load" ] && kill "$load" 2>/dev/null
}
at_exit cleanup
RING=32768

# Chunks of one shard: "seq type payload_len records first_time last_time".
chunks() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off = 64
while off + 64 <= len(b):
    magic, typ, codec, hs, plen, rlen, recs, seq, first, last = struct.unpack_from('<IBBHIIIIQQ', b, off)
    if magic != 0x4b484350:
        sys.exit('bad chunk magic at %d' % off)
    print(seq, typ, rlen, recs, first, last)
    off += 64 + plen
EOF
}

# The manifest's totals are what the shards hold and what the merge emits:
# info --check clean; per CPU, its shards' records and lost counts (the
# drained side band's and the snapshots') equal the records prec dump (the
# merge) gives for that CPU and the LOST records' sum; the record summary line's records and lost are the manifest's, and
# the lost figure is perf script's. $1 recording, $2 prec record's stderr.
check_totals() {
	local d=$1 err=$2 cpu recs lost lsamp got sumrec sumlost rc n
	"$PREC" info "$d" --check >"$tmp/check" 2>&1; rc=$?
	[ $rc = 0 ] || { cat "$tmp/check"; fail "$d: prec info --check exited $rc"; }
	"$PREC" info "$d" --json | python3 -c '
import json, sys
m = json.load(sys.stdin)
for s in m["shards"]:
    print(s["cpu"], s["records"], s["lost"], s["lost_samples"])' >"$tmp/mf" ||
		fail "$d: prec info --json"
	n=$(awk '$1 >= 0' "$tmp/mf" | wc -l)
	[ "$n" = $((2 * $(nproc))) ] || fail "$d: $n CPU shards, want a drained and a flight shard per CPU"
	sumrec=0 sumlost=0
	while read -r cpu recs lost lsamp; do
		sumrec=$((sumrec + recs))
		sumlost=$((sumlost + (lost > lsamp ? lost : lsamp)))
	done <"$tmp/mf"
	awk '{ r[$1] += $2; l[$1] += $3 } END { for (c in r) print c, r[c], l[c] }' "$tmp/mf" |
	while read -r cpu recs lost; do
		[ "$cpu" -lt 0 ] && continue # side bands: not one CPU's
		# the shard's own lines (--cpu would keep the others' side band)
		"$PREC" dump "$d" | awk -v c="$cpu" '$2 == c' >"$tmp/dump" ||
			fail "$d: prec dump"
		got=$(wc -l <"$tmp/dump")
		[ "$got" = "$recs" ] || fail "$d: cpu$cpu: manifest says $recs records, the merge emits $got"
		got=$(awk '$4 == "LOST" { n += $6 } END { print n + 0 }' "$tmp/dump")
		[ "$got" = "$lost" ] || fail "$d: cpu$cpu: manifest says $lost lost, LOST records say $got"
	done || exit 1
	grep -q "prec record: .* $sumrec records, .* $sumlost lost," "$err" ||
		fail "$d: summary line is not the manifest's $sumrec records, $sumlost lost: $(grep 'prec record:' "$err")"
	"$PREC" merge "$d" -f -o "$tmp/tot.data" 2>/dev/null || fail "$d: merge"
	got=$(perf script -i "$tmp/tot.data" --show-lost-events 2>/dev/null |
		awk '/PERF_RECORD_LOST /{ n += $NF } END { print n + 0 }')
	[ "$got" = "$sumlost" ] || fail "$d: perf script shows $got lost records, prec record said $sumlost"
	echo "$d: totals ok ($sumrec records, $sumlost lost)"
}

# Without a snapshot before the stop's: a workload under --overwrite.
"$PREC" record -d "$tmp/ow0" --overwrite -e cpu-clock -- \
	sh -c 'for i in $(seq 30000); do :; done' 2>"$tmp/err0" ||
	fail_rc "$tmp/err0" "record --overwrite -- sh"
check_totals "$tmp/ow0" "$tmp/err0"

mkfifo "$tmp/ctl" "$tmp/ack"
( while :; do taskset -c 1 "$H/storm" 200000; done ) & load=$!
"$PREC" record -a --overwrite -m 8 --control "fifo:$tmp/ctl,$tmp/ack" -d "$tmp/fl" \
	-e raw_syscalls:sys_enter --filter 'id == 110' -e cpu-clock \
	2>"$tmp/err" & rec=$!
# The start manifest comes before the side band is read and synced and
# the events enabled: on a loaded machine that took over 0.3 s, the first
# SIGUSR2 was taken (at the loop's first look) with a few ms of the storm
# in the ring. Control commands are read only once the events are
# enabled: a ping's ack says they are; 0.3 s more fills the ring.
echo ping >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "no ack for ping"
sleep 0.3
# Signals do not queue: send the next SIGUSR2 only once the previous
# snapshot reached CPU 1's shard (the storm keeps that ring busy).
for _ in 1 2 3; do
	before=$(stat -c %s "$tmp/fl/cpu001.flight.shard")
	kill -USR2 $rec
	for _ in $(seq 100); do
		[ "$(stat -c %s "$tmp/fl/cpu001.flight.shard")" != "$before" ] && break
		sleep 0.05
	done
	sleep 0.3
done
echo snapshot >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "no ack for snapshot"
# Acked: the four snapshots are in the file, whole (an O_DIRECT writer
# held them in its staging until the stop: a recorder killed now lost them).
chunks "$tmp/fl/cpu001.flight.shard" >"$tmp/c1" || fail "cpu001.flight.shard unreadable at the ack"
[ "$(wc -l <"$tmp/c1")" = 4 ] ||
	fail "snapshot acked: cpu001.flight.shard holds $(wc -l <"$tmp/c1") chunks ($(stat -c %s "$tmp/fl/cpu001.flight.shard") bytes), want the 4 taken"
sleep 0.3
echo stop >"$tmp/ctl"; read -r -t 10 a <"$tmp/ack" || fail "no ack for stop"
wait $rec || fail_rc "$tmp/err" "record"
rec=
kill $load; load=
cat "$tmp/err"

check_totals "$tmp/fl" "$tmp/err"
chunks "$tmp/fl/cpu001.flight.shard" >"$tmp/c1" || fail "cpu001.flight.shard unreadable"
cat "$tmp/c1"
[ "$(wc -l <"$tmp/c1")" = 5 ] || fail "cpu1: $(wc -l <"$tmp/c1") chunks, want 5 (one per snapshot)"
awk -v ring=$RING '
	$3 > ring { print "chunk " $1 ": " $3 " bytes, more than one ring"; bad = 1 }
	$3 < ring - 4096 { print "chunk " $1 ": only " $3 " bytes of a flooded ring"; bad = 1 }
	$6 - $5 > 50000000 { print "chunk " $1 ": spans " ($6 - $5) " ns, not a ring'"'"'s worth"; bad = 1 }
	NR > 1 && $5 <= last { print "chunk " $1 ": overlaps or precedes the previous snapshot"; bad = 1 }
	{ last = $6 } END { exit bad }' "$tmp/c1" || fail "cpu1 snapshots are not the last ring's worth"
chunks "$tmp/fl/cpu000.flight.shard" >"$tmp/c0" || fail "cpu000.flight.shard unreadable"
awk -v ring=$RING '$3 > ring { bad = 1 } END { exit bad }' "$tmp/c0" || fail "cpu0: a chunk larger than the ring"

"$PREC" merge "$tmp/fl" -o "$tmp/fl.data" 2>"$tmp/merr" || { cat "$tmp/merr"; fail "merge"; }
perf script -i "$tmp/fl.data" >"$tmp/script" 2>"$tmp/serr" || fail "perf script exited $?"
want=$("$PREC" dump "$tmp/fl" | awk '$4 == "SAMPLE"' | wc -l)
# Its one warning may be the samples the pauses dropped (the flight
# events' LOST_SAMPLES records, as perf record --overwrite writes them):
# "Processed" counts the samples and those.
paused=$("$H/mfdump" "$tmp/fl" | awk '/^idlost/ { s += $4 } END { print s + 0 }')
other=$(grep -v -e '^Warning:$' -e '^$' -e "^Processed $((want + paused)) samples and lost [0-9. ]*%!$" "$tmp/serr")
[ -z "$other" ] || { cat "$tmp/serr"; fail "perf script printed warnings (the ids lost $paused samples)"; }
got=$(wc -l <"$tmp/script")
[ "$got" = "$want" ] || fail "perf script shows $got samples, prec stored $want"
# perf's order is the merged order: time never goes back.
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t < last) bad++; last = t } }
     END { exit bad > 0 }' "$tmp/script" || fail "perf script: time goes backwards"
grep -q 'sys_enter' "$tmp/script" || fail "no tracepoint samples"
grep -q 'cpu-clock' "$tmp/script" || fail "no cpu-clock samples"
# No AUX PMU here: one clear line naming it, exit 2, nothing created.
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
	"$PREC" record -d "$tmp/pt" -e intel_pt// -- true 2>"$tmp/pterr"; rc=$?
	[ $rc = 2 ] || fail "-e intel_pt// exited $rc, want 2"
	[ "$(wc -l <"$tmp/pterr")" = 1 ] || fail "-e intel_pt//: more than one line: $(cat "$tmp/pterr")"
	grep -q "PMU 'intel_pt' not found" "$tmp/pterr" || fail "-e intel_pt//: $(cat "$tmp/pterr")"
	[ -e "$tmp/pt" ] && fail "-e intel_pt// left a directory"
fi
echo "PASS: 5 snapshots of $RING-byte rings (SIGUSR2, control, stop), $got samples read by perf"
