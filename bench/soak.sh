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
# Figures go in bench/results/soak.md with this command.
# Usage: bench/soak.sh [PARENT]   (the recording goes in PARENT, default
# /var/tmp; env: SOAK_S, SOAK_EVERY, SOAK_DISK, SOAK_OPTS, SOAK_INFO, BUILD)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
bench_require "$PREC" "$H/storm"
parent=${1:-/var/tmp}
SOAK_S=${SOAK_S:-600}
SOAK_EVERY=${SOAK_EVERY:-30}
SOAK_DISK=${SOAK_DISK:-2G}
SOAK_INFO=${SOAK_INFO:-1}
budget=()
[ "$SOAK_DISK" != 0 ] && budget=(--max-disk "$SOAK_DISK")
tmp=$(mktemp -d "$parent/prec-soak.XXXXXX") || exit 1
trap 'touch "$tmp/stop"; kill $(jobs -p) 2>/dev/null; wait; rm -rf "$tmp"' EXIT
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

"$PREC" record -d "$tmp/rec" -a "${budget[@]}" ${SOAK_OPTS:-} \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- sh "$tmp/storm.sh" 2>"$tmp/err" &
rec=$!
echo "soak: $ncpu CPUs, $SOAK_S s storm, ${budget[*]:-no --max-disk}${SOAK_OPTS:+ $SOAK_OPTS}, $(uname -r), $parent ($(df -T "$parent" | awk 'NR == 2 { print $2 }'))"
printf '%6s %8s %4s %7s %6s %10s %12s %8s\n' t_s rss_mb fds threads cpu_% disk_mb records lost
ticks() { awk '{ print $14 + $15 }' "/proc/$rec/stat" 2>/dev/null || echo 0; }
t0=$(date +%s)
last=$(ticks)
while kill -0 "$rec" 2>/dev/null; do
	sleep "$SOAK_EVERY"
	t=$(($(date +%s) - t0))
	[ "$t" -ge "$SOAK_S" ] && touch "$tmp/stop"
	kill -0 "$rec" 2>/dev/null || break
	now=$(ticks)
	rss=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$rec/status")
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$rec/status")
	fds=$(ls "/proc/$rec/fd" | wc -l)
	disk=$(du -s -B1 "$tmp/rec" 2>/dev/null | awk '{ printf "%.0f", $1 / 1e6 }')
	recs= lost=
	[ "$SOAK_INFO" = 1 ] && read -r recs lost < <("$PREC" info "$tmp/rec" 2>/dev/null | awk '$1 == "total" { print $3, $7 }')
	printf '%6d %8s %4s %7s %6.1f %10s %12s %8s\n' "$t" "$rss" "$fds" "$thr" \
		"$(awk -v d=$((now - last)) -v hz="$hz" -v s="$SOAK_EVERY" 'BEGIN { print 100 * d / hz / s }')" \
		"$disk" "${recs:--}" "${lost:--}"
	last=$now
done
wait "$rec"
echo "prec record exit $?: $(grep 'prec record:' "$tmp/err")"
grep -v 'prec record:' "$tmp/err" | head -5
