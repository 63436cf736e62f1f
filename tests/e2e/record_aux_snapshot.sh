#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record -S end to end without an AUX PMU: a fake intel_pt in a private
# mount namespace (tests/lib/fake_pmus.sh) and tests/preload/fakeaux.so in
# prec (LD_PRELOAD), which opens a dummy event in its place and fills its AUX
# area (anonymous memory) while the event is enabled, in overwrite mode,
# with 8-byte words holding their stream position. Through the recorder's
# own paths (read-only AUX area, signalfd, --control, the flight shards, the
# stop) and prec merge:
# 1. -S --aux-size 64K: two SIGUSR2, two snapshots and none at the exit:
#    two AUXTRACE records of 65536 bytes (the wrapped area, whole), idx 0,
#    cpu 0, tid -1, each a run of consecutive words, the second after the
#    first (the event on again in between); perf script -D prints the
#    snapshot word and both AUXTRACE lines, perf script says nothing. The
#    stand-in lets prec read the area only while the event is disabled (a
#    SIGSEGV otherwise): a copy without the disable fails here.
# 2. -Se0x2000 with --control: 'snapshot', then the stop's snapshot: two
#    AUXTRACE of 8192 bytes, runs of words, the exit's the later.
# 3. -C 1 (a CPU map without CPU 0), -Se: the exit's AUXTRACE has cpu 1
#    and idx 0, the ring's index as perf record numbers its mmaps (CPU 1's
#    place in the CPU map), which is the idx perf report -D shows for CPU
#    1's ids in the ID_INDEX: perf queues AUX data by that idx, from the
#    AUXTRACE records and from AUX samples' ids alike, and a queue fed by
#    two CPUs is an "auxtrace queue conflict". Before, prec wrote the CPU
#    number as idx (1), beside the ID_INDEX's 0.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
# shellcheck source=tests/lib/fake_pmus.sh
. "$PREC_TOP/tests/lib/fake_pmus.sh"
need_root
need_cmd perf
need_cmd unshare
need_cmd python3
so=$PREC_BUILD/tests/preload/fakeaux.so
[ -f "$so" ] || fail "$so missing (make unit builds it)"
e2e_tmpdir auxsnap
fake_pmus "$tmp/devices" || fail "cannot build the fake PMU tree"

# snaps FILE: one line per AUXTRACE: offset size idx tid cpu first-word
# last-word run (1: consecutive words)
snaps() {
	python3 - "$1" <<'EOF'
import struct, sys
f = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', f, 40)
end = off + size
while off < end:
    typ, misc, sz = struct.unpack_from('<IHH', f, off)
    if typ == 71:
        asz, aoff, ref, idx, tid, cpu = struct.unpack_from('<QQQIiI', f, off + 8)
        w = struct.unpack_from('<%dQ' % (asz // 8), f, off + 48)
        run = int(all(w[i + 1] == w[i] + 8 for i in range(len(w) - 1)))
        print(aoff, asz, idx, tid, cpu, w[0], w[-1], run)
        off += asz
    off += sz
EOF
}

# record DIR ARGS...: prec record -a -C $on_cpu -e intel_pt// ARGS in the
# fake namespace with the stand-in, in the background ($rec), its control
# fifos DIR.ctl and DIR.ack; 0.3 s after its events are enabled
on_cpu=0
record() {
	local dir=$1
	shift
	mkfifo "$dir.ctl" "$dir.ack"
	unshare -m sh -c "$FAKE_PMUS_SH" "$tmp/devices" env LD_PRELOAD="$so" "$PREC" \
		record -q -a -C "$on_cpu" -d "$dir" -e intel_pt// --control "fifo:$dir.ctl,$dir.ack" \
		"$@" 2>"$dir.err" &
	rec=$!
	wait_enabled "$dir.ctl" "$dir.ack" "record $*"
	sleep 0.3
}

# 1. SIGUSR2
record "$tmp/r1" -S --aux-size 64K -- sleep 3
for _ in 1 2; do
	before=$(stat -c %s "$tmp/r1/cpu000.flight.shard")
	kill -USR2 $rec
	for _ in $(seq 100); do
		[ "$(stat -c %s "$tmp/r1/cpu000.flight.shard")" != "$before" ] && break
		sleep 0.05
	done
	sleep 0.3
done
wait $rec || fail_rc "$tmp/r1.err" "record -S"
"$PREC" merge "$tmp/r1" -o "$tmp/r1.data" 2>"$tmp/m1.err" || fail_rc "$tmp/m1.err" "merge"
snaps "$tmp/r1.data" >"$tmp/s1"
cat "$tmp/s1"
[ "$(wc -l <"$tmp/s1")" = 2 ] || fail "-S: $(wc -l <"$tmp/s1") AUXTRACE records, want 2 (two SIGUSR2, no e)"
awk '$2 != 65536 || $3 != 0 || $4 != -1 || $5 != 0 || $8 != 1 { exit 1 }' "$tmp/s1" ||
	fail "-S: an AUXTRACE not 64 KiB, idx 0, tid -1, cpu 0, one run of words"
awk 'NR == 1 { last = $7 } NR == 2 && $6 <= last { exit 1 }' "$tmp/s1" ||
	fail "-S: the second snapshot does not follow the first (the AUX event not on again?)"
perf script -D -i "$tmp/r1.data" >"$tmp/d1" 2>&1 || fail "perf script -D: $(tail -3 "$tmp/d1")"
grep -q 'Snapshot mode       1' "$tmp/d1" || fail "perf: no 'Snapshot mode 1' in AUXTRACE_INFO"
[ "$(grep -c 'PERF_RECORD_AUXTRACE size: 0x10000 .* idx: 0  tid: -1  cpu: 0' "$tmp/d1")" = 2 ] ||
	fail "perf script -D: want 2 AUXTRACE lines: $(grep 'PERF_RECORD_AUXTRACE ' "$tmp/d1")"
perf script --no-itrace -i "$tmp/r1.data" >/dev/null 2>"$tmp/p1.err"
[ ! -s "$tmp/p1.err" ] || fail "perf script: $(head -3 "$tmp/p1.err")"

# 2. --control and the exit
record "$tmp/r2" -Se0x2000 --aux-size 64K -- sleep 1.5
echo snapshot >"$tmp/r2.ctl"
read -r -t 10 _ <"$tmp/r2.ack" || fail "no ack for snapshot"
wait $rec || fail_rc "$tmp/r2.err" "record -Se"
"$PREC" merge "$tmp/r2" -o "$tmp/r2.data" 2>"$tmp/m2.err" || fail_rc "$tmp/m2.err" "merge"
snaps "$tmp/r2.data" >"$tmp/s2"
cat "$tmp/s2"
[ "$(wc -l <"$tmp/s2")" = 2 ] || fail "-Se: $(wc -l <"$tmp/s2") AUXTRACE records, want 2 (control, exit)"
awk '$2 != 8192 || $8 != 1 { exit 1 } NR == 2 && $6 <= last { exit 1 } { last = $7 }' "$tmp/s2" ||
	fail "-Se0x2000: not two 8 KiB runs of words, the exit's the later"

# 3. -C 1: the AUXTRACE's idx is CPU 1's ring, as the ID_INDEX's
[ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 0)" = 1 ] ||
	fail "CPU 1 is not online: -C 1 cannot be recorded"
on_cpu=1
record "$tmp/r3" -Se --aux-size 64K -- sleep 1
wait $rec || fail_rc "$tmp/r3.err" "record -C 1 -Se"
"$PREC" merge "$tmp/r3" -o "$tmp/r3.data" 2>"$tmp/m3.err" || fail_rc "$tmp/m3.err" "merge"
snaps "$tmp/r3.data" >"$tmp/s3"
cat "$tmp/s3"
[ "$(wc -l <"$tmp/s3")" = 1 ] || fail "-C 1 -Se: $(wc -l <"$tmp/s3") AUXTRACE records, want 1 (the exit's)"
perf script -D -i "$tmp/r3.data" >"$tmp/d3" 2>&1 || fail "perf script -D (-C 1): $(tail -3 "$tmp/d3")"
! grep -q 'auxtrace queue conflict' "$tmp/d3" || fail "perf: $(grep -m1 'auxtrace queue conflict' "$tmp/d3")"
# the ID_INDEX's idx of CPU 1's ids, one value
rings=$(sed -n 's/^ \.\.\. id: [0-9]*  idx: \([0-9]*\)  cpu: 1 .*/\1/p' "$tmp/d3" | sort -u)
[ "$rings" = 0 ] || fail "-C 1: the ID_INDEX gives CPU 1's ids idx '$rings', want 0 (perf's mmap index)"
read -r _ _ idx tid cpu _ <"$tmp/s3"
[ "$idx $tid $cpu" = "$rings -1 1" ] ||
	fail "-C 1: the AUXTRACE has idx $idx, tid $tid, cpu $cpu; want the ID_INDEX's idx of CPU 1 ($rings), -1, 1"
grep -q "PERF_RECORD_AUXTRACE size: 0x10000 .* idx: $rings  tid: -1  cpu: 1" "$tmp/d3" ||
	fail "perf script -D (-C 1): $(grep 'PERF_RECORD_AUXTRACE ' "$tmp/d3")"
perf script --no-itrace -i "$tmp/r3.data" >/dev/null 2>"$tmp/p3.err"
[ ! -s "$tmp/p3.err" ] || fail "perf script (-C 1): $(head -3 "$tmp/p3.err")"
echo "PASS: -S snapshots on SIGUSR2 (2 x 64 KiB), 'snapshot' and the exit (2 x 8 KiB), whole runs, read by perf; with -C 1 the AUXTRACE's idx is the ID_INDEX's ($rings)"
