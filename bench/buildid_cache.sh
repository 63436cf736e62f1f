#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stop time with perf's build-id cache filled at the end: `prec record
# -a -v` of a `make -j2` of 16 small C files, the last close lap (from the
# stop to the end of the fill; "drainers joined" on a build without it),
# RUNS runs each: warm (a HOME whose cache one run filled before) and cold
# (a fresh HOME each run). PREC=... measures another build.
# Usage: bench/buildid_cache.sh [RUNS] ; needs root, cc, make. env BUILD, PREC.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_require "$PREC"
runs=${1:-5}
tmp=$(mktemp -d /tmp/prec-bidcache.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
for i in $(seq 16); do
	printf '#include <stdio.h>\nint f%d(int x) { char b[64]; return snprintf(b, sizeof(b), "%%d", x * %d); }\n' \
		"$i" "$i" >"$tmp/src/f$i.c"
done
# shellcheck disable=SC2016 # make's $(...), not the shell's
printf 'OBJS := $(patsubst %%.c,%%.o,$(wildcard *.c))\nall: $(OBJS)\n%%.o: %%.c\n\tcc -O2 -g -c $< -o $@\n' \
	>"$tmp/src/Makefile"
cd "$tmp/src"
# one: the last close lap of one recording with HOME=$1
one() {
	HOME=$1 "$PREC" record -v -a -d "$tmp/rec" -f -- make -s -j2 2>&1 >/dev/null |
		awk '/close:/ { t = substr($NF == "ms" ? $(NF - 1) : $NF, 2) } END { print t }'
	rm -f ./*.o
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mkdir "$tmp/warm"
one "$tmp/warm" >/dev/null
for mode in warm cold; do
	for _ in $(seq "$runs"); do
		if [ $mode = cold ]; then
			rm -rf "$tmp/cold"
			mkdir "$tmp/cold"
		fi
		one "$tmp/$mode"
	done >"$tmp/$mode.ms"
	printf '%s: %s ms median of %s (%s)\n' $mode "$(median <"$tmp/$mode.ms")" "$runs" \
		"$(tr '\n' ' ' <"$tmp/$mode.ms")"
done
