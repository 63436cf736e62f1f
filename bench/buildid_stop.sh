#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stop's build-id step against the number of paths: mapmany maps one
# ELF file under N hard links whose paths are ~3,800 bytes long, and prec
# record -v says when the close reached "totals and build-ids" and when
# the drainers were done; the difference is the build-id step (plus the
# shard totals, microseconds). PREC=... compares another build.
# Usage: bench/buildid_stop.sh [N...] ; needs root. env BUILD, PREC.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_require "$PREC" "$H/mapmany"
tmp=$(mktemp -d /tmp/prec-bidstop.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp /bin/true "$tmp/elf"
d=$tmp
comp=$(printf 'x%.0s' $(seq 250))
for i in $(seq 15); do d=$d/$comp$i; done
[ $# -gt 0 ] || set -- 2000 4000 8000
for n in "$@"; do
	rm -rf "$tmp/out" "$d"
	mkdir -p "$d"
	"$PREC" record -v -d "$tmp/out" -m 16M -e cpu-clock -- "$H/mapmany" "$tmp/elf" "$d" "$n" \
		>/dev/null 2>"$tmp/log"
	awk -v n="$n" '
		/close: drainers done/ { d = substr($(NF - 1), 2) }
		/close: totals and build-ids/ { b = substr($(NF - 1), 2) }
		END { printf "N=%-6d paths: build-id step %8.1f ms\n", n, b - d }' "$tmp/log"
done
