#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shard writer throughput against the disk's ceiling: runs `dd conv=fdatasync`
# (1 GiB, median of N) and then the shard_write benchmark (io_uring writer vs
# a write() loop per write size). Builds nothing: run `make bench` first.
# Usage: bench/shard_write.sh [dir (default /var/tmp)] [runs (default 5)]
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
dir=${1:-/var/tmp}
runs=${2:-5}
bin=$BUILD/bench/shard_write
if [ ! -x "$bin" ]; then
	echo "shard_write.sh: $bin missing: run 'make bench' first" >&2
	exit 1
fi
f="$dir/prec-bench-dd.$$"
trap 'rm -f "$f"' EXIT
speeds=()
for _ in $(seq "$runs"); do
	rm -f "$f"
	sync
	# dd prints "... copied, S s, ..." on stderr; compute MB/s ourselves.
	secs=$(LC_ALL=C dd if=/dev/zero of="$f" bs=1M count=1024 conv=fdatasync 2>&1 |
		awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s," ) print $(i - 1) }')
	speeds+=("$(awk -v s="$secs" 'BEGIN { printf "%.0f", 1073741824 / s / 1e6 }')")
	rm -f "$f"
done
dd_med=$(printf '%s\n' "${speeds[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "dd bs=1M count=1024 conv=fdatasync: ${dd_med} MB/s (median of $runs: ${speeds[*]})"
out=$("$bin" -d "$dir" -n "$runs")
echo "$out"
echo "relative to dd:"
echo "$out" | awk -v dd="$dd_med" '$2 == "KiB" && $1 ~ /^[0-9]+$/ {
	printf "%-7s KiB  write() %5.1f%%  uring %5.1f%%  uring-copy %5.1f%%\n",
		$1, 100 * $3 / dd, 100 * $4 / dd, 100 * $5 / dd }'
