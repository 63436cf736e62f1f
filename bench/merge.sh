#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Merge iterator throughput and memory: synthetic sets (mkshards) of 100 MB
# and 1 GB with 1, 16, 64, 256 shards, raw and lz4, read warm from the page
# cache by bench/merge_iter, peak RSS from /usr/bin/time -v. MB/s counts raw
# (decoded) record bytes; "merge MB/s" is the whole command, prec merge -o
# /dev/null (file format: the iterator, plus every record copied out). Formats: raw, lz4 (today's 64 KiB chunks), old,
# oldlz4 (256 KiB chunks, as format 1.0's first writers made).
# The sets of one size and format are made first and then read in turn, one
# run of each per round: the speed of a shared VM drifts by a quarter within
# minutes, and shard counts measured minutes apart would carry that drift
# into the comparison. Each row is the median of the rounds; the "fit" line
# fits t = a + b log2(n) (seconds per GB) through every count but the
# largest and compares the largest with what the fit predicts.
# Targets: >= 1 GB/s, RSS < 64 MiB whatever the size, time at most
# logarithmic in the shard count. Run `make bench` first.
# Usage: bench/merge.sh [dir (default /var/tmp)] [rounds (default 3)] [sizes]
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
prec=$BUILD/prec
for b in "$mk" "$it" "$prec"; do
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
# fit "n:secs ...": least squares of secs = a + b log2(n) over all but the
# last pair, then the last against the prediction
fit() {
	echo "$1" | tr ' ' '\n' | awk -F: 'NF == 2 { n[++k] = $1; t[k] = $2 }
	END {
		if (k < 3) exit
		for (i = 1; i < k; i++) { x = log(n[i]) / log(2); sx += x; sy += t[i]; sxx += x * x; sxy += x * t[i] }
		m = k - 1; b = (m * sxy - sx * sy) / (m * sxx - sx * sx); a = (sy - b * sx) / m
		p = a + b * log(n[k]) / log(2)
		printf "fit t = %.3f + %.4f log2(n) s/GB through n < %d: predicts %.3f s/GB at %d, measured %.3f (%+.0f%%)\n",
			a, b, n[k], p, n[k], t[k], (t[k] / p - 1) * 100 }'
}
# merge_secs DIR: wall seconds of prec merge DIR -o /dev/null
merge_secs() {
	local t0=$EPOCHREALTIME
	"$prec" merge "$1" -o /dev/null 2>"$set_dir/merge.err" ||
		echo "merge.sh: prec merge $1 failed: $(tail -1 "$set_dir/merge.err")" >&2
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f\n", b - a }'
}
printf '%-6s %-6s %6s %10s %9s %9s %10s %8s %8s %11s\n' size format shards records "MB/s" "Mrec/s" \
	"RSS MiB" forced inv "merge MB/s"
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
		declare -A outs=() whole=()
		for _ in $(seq "$runs"); do
			for n in $counts; do
				outs[$n]+="$("$it" "$set_dir/$n")"$'\n'
				whole[$n]+="$(merge_secs "$set_dir/$n")"$'\n'
			done
		done
		pairs=""
		for n in $counts; do
			med=$(printf '%s' "${outs[$n]}" | sort -t' ' -k8,8n | sed -n "$(((runs + 1) / 2))p")
			rss=$(/usr/bin/time -v "$it" "$set_dir/$n" 2>&1 >/dev/null |
				awk -F: '/Maximum resident/ { printf "%.1f", $2 / 1024 }')
			pairs+=" $n:$(awk -v s="$(field seconds "$med")" -v b="$(field bytes "$med")" \
				'BEGIN { printf "%.4f", s / b * 1e9 }')"
			wsec=$(printf '%s' "${whole[$n]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
			printf '%-6s %-6s %6s %10s %9s %9s %10s %8s %8s %11.0f\n' "$size" "$fmt" "$n" \
				"$(field records "$med")" "$(field MB/s "$med")" "$(field Mrec/s "$med")" \
				"$rss" "$(field forced "$med")" "$(field inversions "$med")" \
				"$(awk -v s="$wsec" -v b="$(field bytes "$med")" 'BEGIN { print b / s / 1e6 }')"
		done
		fit "$pairs"
		unset outs whole
	done
done
