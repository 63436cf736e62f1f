#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stop's build-id step against the number of distinct files: mapmany
# maps N copies of true (N inodes: N build-id reads, each by a worker
# process over its socket), and prec record -v says when the close reached
# "totals and build-ids" and when the drainers were done; the difference
# is the build-id step (the files the 100 ms reads did not reach while the
# workload ran, almost all of them: it maps them in milliseconds). Median
# of RUNS runs. PREC=... compares another build.
# Usage: bench/buildid_files.sh [N...] ; needs root. env BUILD, PREC, RUNS.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_require "$PREC" "$H/mapmany"
tmp=$(mktemp -d /tmp/prec-bidfiles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- 1000 4000
for n in "$@"; do
	rm -rf "$tmp/d"
	mkdir "$tmp/d"
	for i in $(seq 0 $((n - 1))); do cp /bin/true "$tmp/d/$(printf 'c%06d' "$i")"; done
	for r in $(seq "${RUNS:-5}"); do
		rm -rf "$tmp/out"
		"$PREC" record -v -d "$tmp/out" -m 16M -e cpu-clock -- "$H/mapmany" - "$tmp/d" "$n" \
			>/dev/null 2>"$tmp/log"
		awk '
			/close: drainers done/ { d = substr($(NF - 1), 2) }
			/close: totals and build-ids/ { b = substr($(NF - 1), 2) }
			END { printf "%.1f\n", b - d }' "$tmp/log"
	done | sort -n | awk -v n="$n" '{ v[NR] = $1 } END { printf "N=%-6d files: build-id step %8.1f ms (median of %d)\n", n, v[int((NR + 1) / 2)], NR }'
done
