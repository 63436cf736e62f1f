#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Resource faults while recording. Disk full: a busy system-wide recording
# into an 8 MiB tmpfs stops at once with one line naming the shard, the
# time and the MB safe on disk; the final manifest (room reserved at start)
# is complete and agrees with the shards; prec merge and perf script read
# every sample the shards hold. No room for the reserve: one line, exit 1,
# nothing left on disk.
# EMFILE: a hard fd limit prec may not raise gives one line, nothing on disk.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir diskfull
fs=$tmp/fs
cleanup() {
	[ -n "${storm:-}" ] && kill "$storm" 2>/dev/null
	mountpoint -q "$fs" && umount "$fs"
}
at_exit cleanup
mkdir "$fs"
mount -t tmpfs -o size=8m,mode=0755 prec-diskfull "$fs" || skip "cannot mount a tmpfs"

# 1. Disk full. The storm alone would take tens of seconds: prec must stop
# long before, on its own.
d=$fs/out
start=$(date +%s)
timeout 120 "$PREC" record -d "$d" -a -e cpu-clock -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- "$H/storm" 50000000 2>"$tmp/err"
rc=$?
secs=$(($(date +%s) - start))
cat "$tmp/err"
df -k "$fs" | tail -n 1
[ $rc = 1 ] || fail "disk full: exit $rc, want 1"
[ $secs -lt 20 ] || fail "disk full: prec took $secs s to stop (it ran the storm out)"
re='^prec: error: shard cpu[0-9]+: no space left on device: stopped at [0-9:.]+ \([0-9.]+ s in\), [0-9.]+ MB recorded'
[ "$(grep -Ec "$re" "$tmp/err")" = 1 ] || fail "disk full: want exactly one 'no space left ... stopped at' line"
grep -q 'drainer cpu[0-9]*: stopped' "$tmp/err" && fail "disk full: drainers report the stop themselves too"
grep -q 'use a bigger ring' "$tmp/err" && fail "disk full: ring-size advice after a disk-full stop"
mb=$(grep -Eo '[0-9.]+ MB recorded' "$tmp/err" | cut -d' ' -f1)
awk -v m="$mb" 'BEGIN { exit !(m >= 4 && m <= 8.4) }' || fail "disk full: $mb MB recorded on an 8 MiB disk"
"$H/mfdump" "$d" >"$tmp/mf" || fail "disk full: manifest unreadable"
grep -q '^state complete' "$tmp/mf" || fail "disk full: manifest not complete"
[ ! -e "$d/manifest.reserve" ] && [ ! -e "$d/manifest.tmp" ] || { ls -la "$d"; fail "disk full: reserve or temp file left"; }
# The writer cut each shard back to its last whole chunk: no torn tail.
"$H/shardcount" "$d" >"$tmp/count" || { cat "$tmp/count"; fail "disk full: a shard is corrupt"; }
cat "$tmp/count"
srec=$(awk '/^total/ { sub("records=", "", $3); print $3 }' "$tmp/count")
ssam=$(awk '/^total/ { sub("samples=", "", $4); print $4 }' "$tmp/count")
mrec=$(awk '/^shard/ { sub("records=", "", $5); s += $5 } END { print s }' "$tmp/mf")
[ "$mrec" = "$srec" ] || fail "disk full: manifest says $mrec records, shards hold $srec"
[ "$ssam" -gt 10000 ] || fail "disk full: only $ssam samples before the disk filled"
# Every sample on disk merges (output outside the full disk) and perf reads it.
"$PREC" merge "$d" -o "$tmp/perf.data" 2>"$tmp/merge.err" || { cat "$tmp/merge.err"; fail "disk full: merge"; }
cat "$tmp/merge.err"
grep -q 'did not finish' "$tmp/merge.err" && fail "disk full: merge thinks the recording is unfinished"
msam=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/merge.err")
[ "$msam" = "$ssam" ] || fail "disk full: merge wrote '$msam' samples, shards hold $ssam"
perf script -i "$tmp/perf.data" -F event >"$tmp/script" 2>"$tmp/script.err"
# A busy recording that filled the disk may also have lost records (the ring
# filled while the write stalled): then, and only then, perf's own loss
# warning is expected; anything else on stderr is an error.
lost=$(sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$tmp/err")
if [ "${lost:-0}" != 0 ]; then
	grep -Ev '^ *Warning:$|^Processed [0-9]+ (events|samples) and lost|^Check IO/CPU overload!$|^$' \
		"$tmp/script.err" >"$tmp/script.err2"
	mv "$tmp/script.err2" "$tmp/script.err"
fi
[ ! -s "$tmp/script.err" ] || { head "$tmp/script.err"; fail "disk full: perf script printed errors"; }
psam=$(grep -c . "$tmp/script")
[ "$psam" = "$ssam" ] || fail "disk full: perf script reads $psam samples, shards hold $ssam"
echo "disk full: stopped in $secs s, $mb MB, $ssam samples merged and read by perf"

# 2. Not even room for the manifest's reserve: refused at the start.
rm -rf "$d"
dd if=/dev/zero of="$fs/filler" bs=4k 2>/dev/null
rm -f "$fs/filler"
dd if=/dev/zero of="$fs/filler" bs=4k count=$(($(df -k --output=avail "$fs" | tail -n 1) / 4 - 24)) 2>/dev/null
df -k "$fs" | tail -n 1
timeout 60 "$PREC" record -d "$d" -a -e cpu-clock -- true 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 1 ] || fail "no room for the reserve: exit $rc, want 1"
grep -q "manifest.reserve: reserving [0-9]* KiB for the final manifest: No space left on device" "$tmp/err" ||
	fail "no room for the reserve: message"
[ "$(grep -c . "$tmp/err")" = 1 ] || fail "no room for the reserve: want one line"
[ ! -e "$d" ] || { ls -la "$d"; fail "no room for the reserve: a half-made recording is left"; }
rm -f "$fs/filler"
rm -rf "$d"

# 3. EMFILE: a hard fd limit prec may not raise (no CAP_SYS_RESOURCE).
if command -v setpriv >/dev/null && setpriv --bounding-set -sys_resource true 2>/dev/null; then
	(ulimit -n 16 && exec setpriv --bounding-set -sys_resource \
		"$PREC" record -d "$tmp/fds" -a -e cpu-clock,cs,faults -- true) 2>"$tmp/err"
	rc=$?
	cat "$tmp/err"
	[ $rc = 1 ] || fail "EMFILE: exit $rc, want 1"
	[ "$(grep -c . "$tmp/err")" = 1 ] || fail "EMFILE: want one line"
	grep -qF "RLIMIT_NOFILE is 16 and cannot be raised" "$tmp/err" || fail "EMFILE: message"
	[ ! -e "$tmp/fds" ] || fail "EMFILE: created the output directory"
	# The soft limit alone is raised, even at many events per CPU.
	(ulimit -Sn 20 && "$PREC" record -q -d "$tmp/fds2" -a \
		-e cpu-clock,cs,faults,migrations,minor-faults,major-faults,task-clock -- true) ||
		fail "EMFILE: soft limit 20 not raised"
	"$H/mfdump" "$tmp/fds2" | grep -q '^state complete' || fail "EMFILE: soft limit: manifest"
	echo "EMFILE: honest error when the limit is fixed, raised when it is not"
else
	echo "note: setpriv cannot drop CAP_SYS_RESOURCE here, EMFILE case skipped"
fi
echo "PASS"
