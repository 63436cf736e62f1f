#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The --max-disk window as every reader takes it (docs/format.md, "The
# window"). A finished recording's manifest whose shard first_time is after
# the shard's first record (a valid checksum, first <= last, so the
# manifest's own checks pass) would start the window past the data: merge
# and dump dropped every sample and exited 0, archive read no sample. Now
# each says so in one line naming the manifest, the shard and the two
# times, exit 1, no output left; info says so too (exit 1), and info
# --check calls it a problem, as it did. A killed --max-disk recording is read by archive as merge reads it
# (its window and carry.shard found in the directory): a damaged carry is
# one error line and exit 1 from both, where archive read no carry and
# said nothing (exit 0).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd taskset
need_cmd python3
need_cmd flock
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir mdwindow
cd "$tmp" || exit 1

storm_pid=
cleanup() {
	[ -n "$storm_pid" ] && kill "$storm_pid" 2>/dev/null
}
at_exit cleanup

rec() { # DIR CMD...: CMD on CPU 0 under a 5M --max-disk, its getppid calls
	local d=$1
	shift
	"$PREC" record -q -d "$d" -C 0 --max-disk 5M -e raw_syscalls:sys_enter \
		--filter 'id == 110' -- taskset -c 0 "$@"
}
# shard_field DIR NAME FIELD: the manifest's FIELD of shard NAME
shard_field() {
	"$PREC" info --json "$1" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["shards"]:
    if s["name"] == sys.argv[1]:
        print(s[sys.argv[2]])' "$2" "$3"
}
ns() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }

rec full "$H/storm" 400000 2>rec.err || fail_rc rec.err "record"
segs=$("$PREC" info --json full | python3 -c 'import json, sys; print(json.load(sys.stdin)["max_disk"]["dropped"]["segments"])')
[ "$segs" -gt 0 ] || fail "nothing dropped: the storm did not pass the budget"
"$PREC" merge full -o full.data 2>merge.err || fail_rc merge.err "merge, as recorded"
grep -q '(0 samples)' merge.err && fail "merge, as recorded: no sample: $(cat merge.err)"
first=$(shard_field full cpu000.shard first_time)
last=$(shard_field full cpu000.shard last_time)
idx=$(python3 - full <<'EOF'
import json, subprocess, sys, os
j = json.loads(subprocess.run([os.environ['PREC'], 'info', '--json', sys.argv[1]],
                              capture_output=True, check=True).stdout)
print([s['name'] for s in j['shards']].index('cpu000.shard'))
EOF
)
[ "$last" -gt "$first" ] || fail "cpu000.shard: first $first, last $last"

# cpu000.shard's first_time moved to its last record's time
cp -a full late || fail "copy"
python3 "$PREC_TOP/tests/lib/mfedit.py" late/manifest "shard.$idx.first=$last" || fail "mfedit"
why="manifest: shard cpu000.shard: first_time $(ns "$last") s is after its first record ($(ns "$first") s): the --max-disk window would drop it"
for c in merge pipe dump archive; do
	case $c in
	merge) "$PREC" merge late -o late.data 2>$c.err >/dev/null ;;
	pipe) "$PREC" merge late 2>$c.err | cat >/dev/null; [ "${PIPESTATUS[0]}" = 0 ] ;;
	dump) "$PREC" dump late 2>$c.err >/dev/null ;;
	archive) "$PREC" archive late -o late.tar 2>$c.err >/dev/null ;;
	esac && fail "$c: exit 0: $(cat $c.err)"
	[ "$(wc -l <$c.err)" = 1 ] || fail "$c: not one line: $(cat $c.err)"
	n=$c
	[ $c = pipe ] && n=merge
	grep -qxF "prec: error: $n late: $why" $c.err || fail "$c: not '$why': $(cat $c.err)"
done
if [ -e late.data ] || [ -e late.tar ]; then fail "an output was left"; fi
# info prints what it reads, and says it in merge's words, exit 1
"$PREC" info late >info.out 2>info.err && fail "info: exit 0"
[ "$(cat info.err)" = "prec: error: info late: $why" ] || fail "info: not '$why': $(cat info.err)"
grep -q '^shards:' info.out || fail "info: no shards printed"
"$PREC" info --check late >check.out 2>&1 && fail "info --check: exit 0"
grep -qxF "shard cpu000.shard: manifest says $last as first time, the shard has $first" check.out ||
	fail "info --check: $(grep '^shard' check.out)"
echo "first_time after the first record: $why"

# Killed in the middle, once a carry is written: storms until then.
# shellcheck disable=SC2016 # the workload's own shell expands it
"$PREC" record -q -d killed -C 0 --max-disk 5M -e raw_syscalls:sys_enter --filter 'id == 110' -- \
	taskset -c 0 sh -c 'while :; do "$0" 1000000; done' "$H/storm" 2>killed.err &
prec_pid=$!
for _ in $(seq 200); do
	[ -f killed/carry.shard ] && break
	sleep 0.05
done
storm_pid=$(pgrep -P "$prec_pid" -x sh) # (not prec-bid, its build-id reader)
kill -9 "$prec_pid"
wait "$prec_pid" 2>/dev/null
[ -n "$storm_pid" ] && kill "$storm_pid" 2>/dev/null
# the recorder's lock on its directory goes once the kernel has let go of
# its files (its io_uring's, a moment after the exit)
for _ in $(seq 100); do
	flock -n killed true && break
	sleep 0.05
done
[ -f killed/carry.shard ] || fail "no carry.shard in 10 s: $(ls killed)"
"$H/mfdump" killed | grep -q '^state recording' || fail "the killed recording's manifest: $("$H/mfdump" killed | head -3)"
"$PREC" merge killed -o killed.data 2>merge.err || fail_rc merge.err "merge, killed"
"$PREC" archive killed -o killed.tar 2>archive.err || fail_rc archive.err "archive, killed"

# carry.shard's first chunk with a byte of its payload flipped
cp -a killed carry || fail "copy"
off=$(python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(64), 12)[0])' carry/carry.shard)
printf '\377' | dd of=carry/carry.shard bs=1 seek=$((off + 64 + 10)) conv=notrunc 2>/dev/null || fail "flip"
want="shard carry.shard: corrupt chunk at offset $(printf '0x%x' "$off"): bad checksum"
"$PREC" merge carry -o carry.data 2>merge.err && fail "merge, bad carry: exit 0: $(cat merge.err)"
grep -qxF "prec: error: $want" merge.err || fail "merge, bad carry: not '$want': $(cat merge.err)"
"$PREC" archive carry -o carry.tar 2>archive.err && fail "archive, bad carry: exit 0: $(cat archive.err)"
grep -qxF "prec: error: $want" archive.err || fail "archive, bad carry: not '$want': $(cat archive.err)"
grep -qxF "prec: error: archive carry: 1 corrupt chunk or shard (said above): the files only their samples hit are not in carry.tar" archive.err ||
	fail "archive, bad carry: no summary: $(cat archive.err)"
echo "killed, a bad carry: $want (merge and archive)"
echo "PASS"
