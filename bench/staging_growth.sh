#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a disk stall's staging growth costs the drainer: bench/staging_growth
# (an O_DIRECT shard writer fed at RATE MB/s) writes into an ext4 loop file
# that is frozen (fsfreeze) FREEZE seconds from 0.5 s on, so the staging
# grows behind the frozen write up to MAX MiB. Each line: the longest
# append, and the longest and total time of the appends that grew the
# staging (the drainer is away from its ring meanwhile), and the longest
# call of the drainer's sleep (where the staging shrinks back after the
# stall). The program runs SCHED_FIFO, as drainers do. With BEFORE=TREE
# (another checkout, built), the same program built against TREE's
# libprec.a runs too, the two taking turns, ROUNDS rounds. Builds nothing
# of this tree: run `make bench` first. Needs root (mount, fsfreeze).
# Usage: bench/staging_growth.sh [PARENT (default /var/tmp)]
#        (env: RATE (60), FREEZE (3), MAX (256), ROUNDS (3), BEFORE, BUILD)
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
RATE=${RATE:-60}
FREEZE=${FREEZE:-3}
MAX=${MAX:-256}
ROUNDS=${ROUNDS:-3}
bin=$PWD/$BUILD/bench/staging_growth
bench_require "$bin" "$(command -v fsfreeze)" "$(command -v mkfs.ext4)"
tmp=$(mktemp -d "${1:-/var/tmp}/prec-growth.XXXXXX") || exit 1
mnt=$tmp/mnt
cleanup() {
	fsfreeze -u "$mnt" 2>/dev/null
	umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 16G "$tmp/fs.img" && mkfs.ext4 -q -F "$tmp/fs.img" || exit 1
mkdir "$mnt" && mount -o loop "$tmp/fs.img" "$mnt" || exit 1
bins=(after "$bin")
if [ -n "${BEFORE:-}" ]; then
	# shellcheck disable=SC2046
	cc -O2 -std=gnu11 -D_GNU_SOURCE -pthread -I"$BEFORE/src" -Ibench bench/staging_growth.c \
		"$BEFORE/${BUILD}/libprec.a" $(pkg-config --libs liburing libelf liblz4 libzstd) -lm \
		-o "$tmp/before" || exit 1
	bins=(before "$tmp/before" after "$bin")
fi
# SCHED_FIFO 1, as prec's drainers run by default (drainer_place.c):
# what holds them is the writer's work, not the scheduler's choices
rt=
chrt -f 1 true 2>/dev/null && rt="chrt -f 1"
# on past the thaw until the staging has shrunk back (direct_write.c,
# SHRINK_HOLD_NS: 5 s of an extent unused)
secs=$(awk -v f="$FREEZE" 'BEGIN { print f + 6.5 }')
echo "staging growth: ${RATE} MB/s into O_DIRECT shards, frozen ${FREEZE} s at 0.5 s, staging 4 MiB up to ${MAX} MiB, $(uname -r)"
for r in $(seq "$ROUNDS"); do
	for ((i = 0; i < ${#bins[@]}; i += 2)); do
		$rt "${bins[i + 1]}" -d "$mnt" -r "$RATE" -t "$secs" -m "$MAX" >"$tmp/out" 2>&1 &
		p=$!
		sleep 0.5
		fsfreeze -f "$mnt"
		sleep "$FREEZE"
		fsfreeze -u "$mnt"
		wait $p || { cat "$tmp/out"; exit 1; }
		printf 'round %d %-6s %s\n' "$r" "${bins[i]}" "$(cat "$tmp/out")"
	done
done
