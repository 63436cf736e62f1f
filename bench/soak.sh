#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Recording for hours, in minutes: a getppid() storm on every CPU for SOAK_S
# seconds (default 600) into `prec record -a --max-disk SOAK_DISK` (default
# 2G; 0 records without a budget; SOAK_OPTS adds options, e.g. -z), printing every SOAK_EVERY seconds
# (30) the recorder's RSS, open fds, threads and CPU share since the last
# line, the directory's size on disk against the budget, and the records and
# losses in the data still held (prec info on the live recording; the oldest
# data, and its losses, go as the budget demands). At the end prec's own
# summary line: its lost count covers the whole run. Everything should stay
# flat, lost at 0. SOAK_INFO=0 leaves prec info out of the rows (it reads
# every chunk header: minutes a look on tens of GB without a budget).
# The steady cost: each row has the MB the recorder wrote in its interval
# (its /proc io write_bytes: the drainers' and their io_uring workers') and
# the recorder's CPU ms per MB written; the end compares the first and the
# last SOAK_WINDOW seconds (300; a third of the run if it is shorter than
# two windows), which should be within 10%. bench/canary (a fixed copy
# and lz4 compression, in its own CPU ms) runs one pass a second
# throughout (about 1% of a CPU), and each row has its mean since the last row:
# where the host reports no steal time, a slower host shows only as the
# same work costing more, the recorder's and the canary's alike; the end
# compares the canary's first and last window too (run `make bench`). cpu_% is
# the share of the time since the last row (rows are SOAK_EVERY seconds
# apart plus what prec info takes).
# SOAK_STALL=S freezes the
# recording's file system for S seconds at SOAK_STALL_AT (20 s), so the
# O_DIRECT staging grows early: the recording then goes in an ext4 loop
# file made in PARENT (fsfreeze of PARENT itself could freeze the shell),
# its loop device opened with direct I/O (SOAK_LOOP_DIO=on; off leaves the
# backing file in the host's page cache: the "disk" is then memory until
# the cache has filled the RAM, about 200 s at this rate on 24 GiB, and the
# recorder's cost per MB changes there, which is the rig's, not prec's).
# Under --max-disk the staging holds at most half of a CPU's share of the
# budget, so a freeze longer than that holds loses, and says so (the
# default 2G holds 512 MiB a CPU with 2 CPUs: 4 s at 117 MB/s a CPU).
# SOAK_TWIN=S runs a fresh twin: a second recorder with the same options on
# the same storm, for S seconds (after 10 s to settle) early (from
# SOAK_STALL_AT + SOAK_STALL + 30 s) and again at the end, each compared
# with the long-running recorder's ms/MB over the same seconds. Both see
# the same machine, so a recorder dearer with its age shows as its ratio to
# the fresh one rising from the first twin to the last, whatever the
# host's speed did (the ratio is what to read, not either figure alone).
# Figures go in bench/results/soak.md with this command.
# Usage: bench/soak.sh [PARENT]   (the recording goes in PARENT, default
# /var/tmp; env: SOAK_S, SOAK_EVERY, SOAK_DISK, SOAK_OPTS, SOAK_INFO,
# SOAK_WINDOW, SOAK_STALL, SOAK_STALL_AT, SOAK_LOOP_DIO, SOAK_TWIN, BUILD)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
canary=$PWD/$BUILD/bench/canary
bench_require "$PREC" "$H/storm"
[ -x "$canary" ] || { echo "soak: missing $canary (make BUILD=$BUILD bench)" >&2; exit 1; }
parent=${1:-/var/tmp}
SOAK_S=${SOAK_S:-600}
SOAK_EVERY=${SOAK_EVERY:-30}
SOAK_DISK=${SOAK_DISK:-2G}
SOAK_INFO=${SOAK_INFO:-1}
SOAK_WINDOW=${SOAK_WINDOW:-300}
SOAK_STALL=${SOAK_STALL:-0}
SOAK_STALL_AT=${SOAK_STALL_AT:-20}
SOAK_LOOP_DIO=${SOAK_LOOP_DIO:-on}
SOAK_TWIN=${SOAK_TWIN:-0}
budget=()
[ "$SOAK_DISK" != 0 ] && budget=(--max-disk "$SOAK_DISK")
tmp=$(mktemp -d "$parent/prec-soak.XXXXXX") || exit 1
mnt=
loopdev=
cleanup() {
	touch "$tmp/stop"
	# shellcheck disable=SC2046
	kill $(jobs -p) 2>/dev/null
	wait
	if [ -n "$mnt" ]; then
		fsfreeze -u "$mnt" 2>/dev/null
		umount "$mnt"
	fi
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	rm -rf "$tmp"
}
trap cleanup EXIT
recdir=$tmp
if [ "$SOAK_STALL" != 0 ]; then
	bench_require "$(command -v fsfreeze)" "$(command -v mkfs.ext4)"
	truncate -s 64G "$tmp/fs.img" && mkfs.ext4 -q -F "$tmp/fs.img" || exit 1
	loopdev=$(losetup --find --show --direct-io="$SOAK_LOOP_DIO" "$tmp/fs.img") || exit 1
	mkdir "$tmp/mnt" && mount "$loopdev" "$tmp/mnt" || exit 1
	mnt=$tmp/mnt
	recdir=$mnt
fi
ncpu=$(nproc)
hz=$(getconf CLK_TCK)

# The storm: each CPU's own loop of storm runs until $tmp/stop exists.
cat >"$tmp/storm.sh" <<EOF
c=0
while [ \$c -lt $ncpu ]; do
	taskset -c \$c sh -c 'while [ ! -e "\$1" ]; do "\$2" 2000000; done' sh "$tmp/stop" "$H/storm" &
	c=\$((c + 1))
done
wait
EOF

"$PREC" record -d "$recdir/rec" -a "${budget[@]}" ${SOAK_OPTS:-} \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- sh "$tmp/storm.sh" 2>"$tmp/err" &
rec=$!
echo "soak: $ncpu CPUs, $SOAK_S s storm, ${budget[*]:-no --max-disk}${SOAK_OPTS:+ $SOAK_OPTS}, $(uname -r), $parent ($(df -T "$parent" | awk 'NR == 2 { print $2 }'))${mnt:+, in an ext4 loop file (direct-io $SOAK_LOOP_DIO) frozen $SOAK_STALL s at $SOAK_STALL_AT s}"
printf '%6s %8s %4s %7s %6s %10s %12s %8s %8s %9s %9s\n' t_s rss_mb fds threads cpu_% disk_mb records lost mb_w cpu_ms/MB canary_ms
ticks() { awk '{ print $14 + $15 }' "/proc/${1:-$rec}/stat" 2>/dev/null || echo 0; }
wbytes() { awk '$1 == "write_bytes:" { print $2 }' "/proc/${1:-$rec}/io" 2>/dev/null || echo 0; }
# twin N: the fresh twin's SOAK_TWIN seconds, its ms/MB and the long-running
# recorder's over the same seconds, one line into $tmp/twins
twin() {
	local n=$1 tp at r0 w0 tw0 tt0 r1 w1 tw1 tt1
	"$PREC" record -q -d "$recdir/twin$n" -a "${budget[@]}" ${SOAK_OPTS:-} \
		-e raw_syscalls:sys_enter --filter 'id == 110' -- sleep $((SOAK_TWIN + 12)) \
		2>"$tmp/twin$n.err" &
	tp=$!
	sleep 10
	at=$(($(date +%s) - t0)) r0=$(ticks) w0=$(wbytes) tt0=$(ticks "$tp") tw0=$(wbytes "$tp")
	sleep "$SOAK_TWIN"
	r1=$(ticks) w1=$(wbytes) tt1=$(ticks "$tp") tw1=$(wbytes "$tp")
	wait "$tp"
	awk -v n="$n" -v t="$at" -v s="$SOAK_TWIN" -v hz="$hz" -v rc=$((r1 - r0)) -v rw=$((w1 - w0)) \
		-v tc=$((tt1 - tt0)) -v tw=$((tw1 - tw0)) 'BEGIN {
		rm = 1000 * rc / hz / (rw / 1e6); tm = 1000 * tc / hz / (tw / 1e6)
		printf "twin %d at %d s for %d s: long-running %.2f ms/MB (%.0f MB), fresh %.2f ms/MB (%.0f MB): ratio %.3f\n",
			n, t, s, rm, rw / 1e6, tm, tw / 1e6, rm / tm }' >>"$tmp/twins"
	grep -v 'prec record:' "$tmp/twin$n.err" | head -3 >>"$tmp/twins"
	rm -rf "$recdir/twin$n"
}
if [ -n "$mnt" ]; then
	(sleep "$SOAK_STALL_AT"; fsfreeze -f "$mnt" && sleep "$SOAK_STALL"; fsfreeze -u "$mnt") &
fi
# the canary: one pass a second, each pass's CPU ms appended
: >"$tmp/canary"
(while [ ! -e "$tmp/stop" ]; do "$canary" 1 >>"$tmp/canary"; sleep 1; done) &
canary_lines=0
t0=$(date +%s)
: >"$tmp/twins"
if [ "$SOAK_TWIN" != 0 ]; then
	(sleep $((SOAK_STALL_AT + SOAK_STALL + 30)); twin 1
	 sleep $((t0 + SOAK_S - SOAK_TWIN - 30 - $(date +%s))) 2>/dev/null; twin 2) &
	twins=$!
fi
lastt=$(date +%s%N)
last=$(ticks)
lastw=$(wbytes)
: >"$tmp/rows"
while kill -0 "$rec" 2>/dev/null; do
	sleep "$SOAK_EVERY"
	t=$(($(date +%s) - t0))
	[ "$t" -ge "$SOAK_S" ] && touch "$tmp/stop"
	kill -0 "$rec" 2>/dev/null || break
	now=$(ticks)
	nowt=$(date +%s%N)
	w=$(wbytes)
	rss=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$rec/status")
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$rec/status")
	fds=$(ls "/proc/$rec/fd" | wc -l)
	disk=$(du -s -B1 "$recdir/rec" 2>/dev/null | awk '{ printf "%.0f", $1 / 1e6 }')
	recs= lost=
	[ "$SOAK_INFO" = 1 ] && read -r recs lost < <("$PREC" info "$recdir/rec" 2>/dev/null | awk '$1 == "total" { print $3, $7 }')
	mbw=$(awk -v b=$((w - lastw)) 'BEGIN { printf "%.1f", b / 1e6 }')
	cpums=$(awk -v d=$((now - last)) -v hz="$hz" 'BEGIN { printf "%.0f", 1000 * d / hz }')
	n=$(wc -l <"$tmp/canary")
	can=$(awk -v from="$canary_lines" 'NR > from { s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$tmp/canary")
	canary_lines=$n
	echo "$t $cpums $mbw $can" >>"$tmp/rows"
	printf '%6d %8s %4s %7s %6.1f %10s %12s %8s %8s %9s %9s\n' "$t" "$rss" "$fds" "$thr" \
		"$(awk -v d=$((now - last)) -v hz="$hz" -v s=$((nowt - lastt)) 'BEGIN { print 100 * d / hz / (s / 1e9) }')" \
		"$disk" "${recs:--}" "${lost:--}" "$mbw" \
		"$(awk -v c="$cpums" -v m="$mbw" 'BEGIN { if (m > 0) printf "%.2f", c / m; else print "-" }')" \
		"$can"
	last=$now
	lastt=$nowt
	lastw=$w
done
wait "$rec"
echo "prec record exit $?: $(grep 'prec record:' "$tmp/err")"
# the first and the last window's CPU per MB, the stall's rows included,
# and the canary's mean in each
awk -v win="$SOAK_WINDOW" -v s="$SOAK_S" '
	{ t[NR] = $1; c[NR] = $2; m[NR] = $3; k[NR] = NF > 3 ? $4 : -1 }
	END {
		if (s < 2 * win) win = int(s / 3)
		for (i = 1; i <= NR; i++) {
			if (t[i] <= win) { fc += c[i]; fm += m[i] }
			if (t[i] > s - win && t[i] <= s) { lc += c[i]; lm += m[i] }
			if (k[i] < 0)
				continue
			if (t[i] <= win) { fk += k[i]; fn++ }
			if (t[i] > s - win && t[i] <= s) { lk += k[i]; ln++ }
		}
		if (fm > 0 && lm > 0)
			printf "cpu ms/MB: first %d s %.2f, last %d s %.2f: %+.1f%%\n", win, fc / fm, win, lc / lm,
				100 * (lc / lm - fc / fm) / (fc / fm)
		if (fn > 0 && ln > 0 && fk > 0)
			printf "canary ms: first %d s %.1f, last %d s %.1f: %+.1f%%\n", win, fk / fn, win, lk / ln,
				100 * (lk / ln - fk / fn) / (fk / fn)
	}' "$tmp/rows"
[ "$SOAK_TWIN" != 0 ] && wait "$twins"
cat "$tmp/twins"
grep -v 'prec record:' "$tmp/err" | head -5
