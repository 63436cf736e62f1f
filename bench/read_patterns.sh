#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the cost of reading n interleaved streams grows with n, for the ways a
# merge could read them (bench/read_patterns.c says what each mode does):
# one file of SIZE cut into 1, 16, 64, 256 streams, warm in the page cache,
# every mode and burst alternated within each round, medians of the rounds,
# and the fit of bench/merge.sh (t = a + b log2(n) through every count but
# the largest, which is compared with its prediction), then where this
# machine's caches end (bench/cache_knee). Run `make bench`.
# Usage: bench/read_patterns.sh [dir (default /var/tmp)] [rounds (default 3)]
#        [size (default 1G)] [shard counts] [bursts (default "1 16")]
#        [chunk KiB (default 64, the writers' chunk; e.g. "16 32 64")]
#        [modes (default "pread mmap mmap-lazy uring")]
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
dir=${1:-/var/tmp}
runs=${2:-3}
size=${3:-1G}
counts=${4:-"1 16 64 256"}
bursts=${5:-"1 16"}
chunks=${6:-64}
modes=${7:-"pread mmap mmap-lazy uring"}
rp=$BUILD/bench/read_patterns
for b in "$rp" "$BUILD/bench/cache_knee"; do
	[ -x "$b" ] || { echo "read_patterns.sh: $b missing: run 'make bench' first" >&2; exit 1; }
done
file="$dir/prec-bench-patterns.$$"
trap 'rm -f "$file"' EXIT
head -c "$size" /dev/urandom >"$file"
cat "$file" >/dev/null
declare -A secs=()
for _ in $(seq "$runs"); do
	for n in $counts; do
		for mode in $modes; do
			for b in $bursts; do
				for c in $chunks; do
					secs[$mode,$b,$c,$n]+="$("$rp" "$file" "$n" "$mode" "$b" "$c" |
						awk '{ for (i = 1; i < NF; i++) if ($i == "seconds") print $(i + 1) }') "
				done
			done
		done
	done
done
bytes=$(stat -c %s "$file")
printf '%-10s %6s %6s' mode burst chunk
for n in $counts; do printf ' %9s' "n=$n"; done
printf '   (seconds per GB, medians of %s)\n' "$runs"
for mode in $modes; do
	for b in $bursts; do
		for c in $chunks; do
			pairs=""
			printf '%-10s %6s %5sK' "$mode" "$b" "$c"
			for n in $counts; do
				s=$(echo "${secs[$mode,$b,$c,$n]}" | tr ' ' '\n' | grep . | median)
				pairs+=" $n:$(awk -v s="$s" -v b="$bytes" 'BEGIN { printf "%.4f", s / b * 1e9 }')"
				printf ' %9.3f' "$(awk -v s="$s" -v b="$bytes" 'BEGIN { print s / b * 1e9 }')"
			done
			echo
			fit "  $mode, burst $b, chunk ${c}K" "$pairs"
		done
	done
done
# Where this machine's caches end, for reading the figures above: n shards'
# chunk buffers take n/8 MiB (bench/cache_knee.c).
echo
"$BUILD/bench/cache_knee" 64
