#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Flight-recorder snapshot latency: prec record -a --overwrite with a ring of
# 1 MiB, 16 MiB and 256 MiB per CPU, filled by a getppid() storm pinned to
# CPU 1 (raw_syscalls:sys_enter); then SIGUSR2, and the time until CPU 1's
# shard has grown by the snapshot, watched from outside (stat every 0.2 ms),
# next to prec's own figure (pause..resume..written and waited, from -v),
# and prec's figure for the tail synthesis that follows the snapshot (its
# chunks may sit in an O_DIRECT writer's staging, unseen from outside).
# env TASKS=N adds N sleeping processes: a busier /proc for the tail.
# Usage: bench/snapshot.sh [DIR] ; needs root. env BUILD (build dir).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DIR=${1:-/var/tmp}
make --no-print-directory BUILD="$BUILD" -j"$(nproc)" "$BUILD/prec" "$BUILD/tests/helpers/storm" >&2
PREC=$PWD/$BUILD/prec
STORM=$PWD/$BUILD/tests/helpers/storm
work=$(mktemp -d "$DIR/prec-snapbench.XXXXXX")
load= rec= sleepers=
trap '[ -n "$rec" ] && kill $rec 2>/dev/null; [ -n "$load" ] && kill $load 2>/dev/null; [ -n "$sleepers" ] && kill $sleepers 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq "${TASKS:-0}"); do sleep 1000 & sleepers="$sleepers $!"; done
echo "processes in /proc: $(ls /proc | grep -c '^[0-9]')"

now_ns() { date +%s%N; }

for ring in 1M 16M 256M; do
	out=$work/r$ring
	( while :; do taskset -c 1 "$STORM" 1000000; done ) & load=$!
	"$PREC" record -v -a --overwrite -m "$ring" -d "$out" \
		-e raw_syscalls:sys_enter --filter 'id == 110' 2>"$work/log.$ring" & rec=$!
	until [ -e "$out/manifest" ]; do sleep 0.05; done
	# Long enough for the storm (~100-150 MB/s of records) to fill the ring.
	case $ring in 256M) sleep 8;; *) sleep 2;; esac
	before=$(stat -c %s "$out/cpu001.shard")
	t0=$(now_ns)
	kill -USR2 $rec
	# Done when the shard stops growing for 20 ms after it started to.
	last=$before stable=0
	while :; do
		sz=$(stat -c %s "$out/cpu001.shard")
		if [ "$sz" != "$last" ]; then last=$sz; t1=$(now_ns); stable=0
		elif [ "$sz" != "$before" ]; then stable=$((stable + 1)); fi
		[ $stable -ge 100 ] && break
		sleep 0.0002
	done
	kill -INT $rec; wait $rec || true; rec=
	kill $load; wait $load 2>/dev/null || true; load=
	inproc=$(grep -m1 'snapshot 1:' "$work/log.$ring" | sed 's/.*snapshot 1: //')
	printf 'ring %-5s per CPU: SIGUSR2 -> %7.1f MiB on disk in %8.1f ms (outside view); prec: %s\n' \
		"$ring" "$(echo "($last - $before) / 1048576" | bc -l)" \
		"$(echo "($t1 - $t0) / 1000000" | bc -l)" "$inproc"
	intail=$(grep -m1 'tail 1:' "$work/log.$ring" | sed 's/.*tail 1: //')
	[ -z "$intail" ] || echo "           then its tail: $intail"
	rm -rf "$out"
done
