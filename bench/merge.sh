#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Merge iterator throughput and memory: synthetic sets (mkshards) of 100 MB
# and 1 GB with 1, 16, 64, 256 shards, raw and lz4, read warm from the page
# cache by bench/merge_iter (median of N runs), peak RSS from /usr/bin/time -v.
# MB/s counts raw (decoded) record bytes. Formats: raw, lz4 (today's 64 KiB
# chunks), old, oldlz4 (256 KiB chunks, as format 1.0's first writers made).
# Targets: >= 1 GB/s, RSS < 64 MiB whatever the size. Run `make bench` first.
# Usage: bench/merge.sh [dir (default /var/tmp)] [runs (default 3)] [sizes]
#        [shard counts] [formats (default "raw lz4")]
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
dir=${1:-/var/tmp}
runs=${2:-3}
sizes=${3:-"100M 1G"}
counts=${4:-"1 16 64 256"}
formats=${5:-"raw lz4"}
mk=$BUILD/tests/helpers/mkshards
it=$BUILD/bench/merge_iter
for b in "$mk" "$it"; do
	[ -x "$b" ] || { echo "merge.sh: $b missing: run 'make bench' first" >&2; exit 1; }
done
set_dir="$dir/prec-bench-merge.$$"
trap 'rm -rf "$set_dir"' EXIT
fmt_args() {
	case $1 in
	raw) ;;
	lz4) echo --lz4 ;;
	old) echo --chunk-bytes 256K ;;
	oldlz4) echo --chunk-bytes 256K --lz4 ;;
	*) echo "merge.sh: unknown format $1" >&2; exit 1 ;;
	esac
}
printf '%-6s %-6s %6s %10s %9s %9s %10s %8s %8s\n' size format shards records "MB/s" "Mrec/s" \
	"RSS MiB" forced inv
for size in $sizes; do
	for fmt in $formats; do
		args=$(fmt_args "$fmt")
		for n in $counts; do
			rm -rf "$set_dir"
			# shellcheck disable=SC2086 # args are words
			"$mk" "$set_dir" --shards "$n" --total-bytes "$size" --seed 7 $args >/dev/null
			cat "$set_dir"/* >/dev/null # warm: measure the merge, not the disk
			outs=()
			for _ in $(seq "$runs"); do outs+=("$("$it" "$set_dir")"); done
			med=$(printf '%s\n' "${outs[@]}" | sort -t' ' -k10,10n | sed -n "$(((runs + 1) / 2))p")
			rss=$(/usr/bin/time -v "$it" "$set_dir" 2>&1 >/dev/null |
				awk -F: '/Maximum resident/ { printf "%.1f", $2 / 1024 }')
			echo "$med" | awk -v size="$size" -v fmt="$fmt" -v n="$n" -v rss="$rss" '{
				for (i = 1; i < NF; i++) v[$i] = $(i + 1)
				printf "%-6s %-6s %6s %10s %9s %9s %10s %8s %8s\n", size, fmt, n, v["records"],
					v["MB/s"], v["Mrec/s"], rss, v["forced"], v["inversions"] }'
		done
	done
done
