#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Merge iterator throughput and memory: synthetic sets (mkshards) of 100 MB
# and 1 GB with 1, 16, 64, 256 shards, raw and lz4, read warm from the page
# cache by bench/merge_iter, peak RSS from /usr/bin/time -v. MB/s counts raw
# (decoded) record bytes; "merge MB/s" is the whole command, prec merge -o
# /dev/null (file format: the iterator, plus every record copied out), and
# "merge -z MB/s" the same with -z (every record zstd-compressed at level 1;
# its "out MB" the size written, against the raw bytes). Formats: raw, lz4 (today's 64 KiB chunks), old,
# oldlz4 (256 KiB chunks, as format 1.0's first writers made).
# The sets of one size and format are made first and then read in turn, one
# run of each per round: the speed of a shared VM drifts by a quarter within
# minutes, and shard counts measured minutes apart would carry that drift
# into the comparison. Each row is the median of the rounds. "floor MB/s"
# is bench/read_floor on the same set: the same shard reader, the shards'
# records taken in turn, no ordering, which is what reading n streams costs
# the memory system whatever merges them. The "fit" lines fit t = a + b
# log2(n) (seconds per GB) through every count but the largest and compare
# the largest with what the fit predicts: for the whole merge, the
# iterator, the floor, and the iterator's time above the floor (its
# ordering work).
# Every run is pinned to one CPU (BENCH_CPU, default the last; empty: not
# pinned): on the 2-vCPU VM measured, one vCPU ran the same merge 45%
# slower than the other (six alternated pairs in a row, later the other
# way round), so runs the scheduler put on either compared two machines.
# Each set is read again right before its runs: the VM's DAMON pages out
# page cache left idle for a minute.
# Targets: >= 1 GB/s, RSS < 64 MiB whatever the size, time at most
# logarithmic in the shard count. Run `make bench` first.
# Usage: bench/merge.sh [dir (default /var/tmp)] [rounds (default 3)] [sizes]
#        [shard counts] [formats (default "raw lz4")]
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
dir=${1:-/var/tmp}
runs=${2:-3}
sizes=${3:-"100M 1G"}
counts=${4:-"1 16 64 256"}
formats=${5:-"raw lz4"}
pin=()
cpu=${BENCH_CPU-$(($(nproc) - 1))}
if [ -n "$cpu" ] && command -v taskset >/dev/null; then pin=(taskset -c "$cpu"); fi
mk=$BUILD/tests/helpers/mkshards
it=$BUILD/bench/merge_iter
floor=$BUILD/bench/read_floor
prec=$BUILD/prec
for b in "$mk" "$it" "$floor" "$prec"; do
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
# field NAME LINE: the value after NAME in a merge_iter line
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# merge_secs DIR [OPTION...]: wall seconds of prec merge DIR -o /dev/null
merge_secs() {
	local t0=$EPOCHREALTIME
	"${pin[@]}" "$prec" merge "$@" -o /dev/null 2>"$set_dir/merge.err" ||
		echo "merge.sh: prec merge $1 failed: $(tail -1 "$set_dir/merge.err")" >&2
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}
printf '%-6s %-6s %6s %10s %9s %9s %10s %8s %8s %11s %14s %9s %11s\n' size format shards records "MB/s" \
	"Mrec/s" "RSS MiB" forced inv "merge MB/s" "merge -z MB/s" "-z out MB" "floor MB/s"
for size in $sizes; do
	for fmt in $formats; do
		args=$(fmt_args "$fmt")
		rm -rf "$set_dir"
		mkdir -p "$set_dir"
		for n in $counts; do
			# shellcheck disable=SC2086 # args are words
			"$mk" "$set_dir/$n" --shards "$n" --total-bytes "$size" --seed 7 $args >/dev/null
		done
		cat "$set_dir"/*/* >/dev/null # warm: measure the merge, not the disk
		declare -A outs=() whole=() zwhole=() floors=()
		for _ in $(seq "$runs"); do
			for n in $counts; do
				cat "$set_dir/$n"/* >/dev/null
				outs[$n]+="$("${pin[@]}" "$it" "$set_dir/$n")"$'\n'
				whole[$n]+="$(merge_secs "$set_dir/$n")"$'\n'
				zwhole[$n]+="$(merge_secs "$set_dir/$n" -z)"$'\n'
				floors[$n]+="$(field seconds "$("${pin[@]}" "$floor" "$set_dir/$n")")"$'\n'
			done
		done
		pairs="" floor_pairs="" net_pairs="" merge_pairs=""
		for n in $counts; do
			med=$(printf '%s' "${outs[$n]}" | sort -t' ' -k8,8n | sed -n "$(((runs + 1) / 2))p")
			rss=$(/usr/bin/time -v "$it" "$set_dir/$n" 2>&1 >/dev/null |
				awk -F: '/Maximum resident/ { printf "%.1f", $2 / 1024 }')
			pairs+=" $n:$(awk -v s="$(field seconds "$med")" -v b="$(field bytes "$med")" \
				'BEGIN { printf "%.4f", s / b * 1e9 }')"
			wsec=$(printf '%s' "${whole[$n]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
			fsec=$(printf '%s' "${floors[$n]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
			zsec=$(printf '%s' "${zwhole[$n]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
			zout=$("$prec" merge "$set_dir/$n" -z 2>/dev/null | wc -c)
			merge_pairs+=" $n:$(awk -v s="$wsec" -v b="$(field bytes "$med")" \
				'BEGIN { printf "%.4f", s / b * 1e9 }')"
			floor_pairs+=" $n:$(awk -v s="$fsec" -v b="$(field bytes "$med")" \
				'BEGIN { printf "%.4f", s / b * 1e9 }')"
			net_pairs+=" $n:$(awk -v s="$(field seconds "$med")" -v f="$fsec" -v b="$(field bytes "$med")" \
				'BEGIN { printf "%.4f", (s - f) / b * 1e9 }')"
			printf '%-6s %-6s %6s %10s %9s %9s %10s %8s %8s %11.0f %14.0f %9.1f %11.0f\n' "$size" "$fmt" "$n" \
				"$(field records "$med")" "$(field MB/s "$med")" "$(field Mrec/s "$med")" \
				"$rss" "$(field forced "$med")" "$(field inversions "$med")" \
				"$(awk -v s="$wsec" -v b="$(field bytes "$med")" 'BEGIN { print b / s / 1e6 }')" \
				"$(awk -v s="$zsec" -v b="$(field bytes "$med")" 'BEGIN { print b / s / 1e6 }')" \
				"$(awk -v o="$zout" 'BEGIN { print o / 1e6 }')" \
				"$(awk -v s="$fsec" -v b="$(field bytes "$med")" 'BEGIN { print b / s / 1e6 }')"
		done
		fit "prec merge" "$merge_pairs"
		fit iterator "$pairs"
		fit "read floor" "$floor_pairs"
		fit "iterator - floor" "$net_pairs"
		unset outs whole zwhole floors
	done
done
