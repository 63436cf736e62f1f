#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output=SIZE cuts an epoch once it holds SIZE ring bytes, counted
# from the previous cut's move: what the drainers write into the new epoch
# while a cut is being made counts towards its SIZE (perf's file keeps what
# its pass wrote after the mark, and counts the next file from its switch),
# and the drainer whose chunk reaches the mark wakes the main loop (no
# 20 ms look). cpu-clock -c 20000 over a syscall storm on one CPU, ~2 MB/s,
# with --switch-output=64K: every epoch but the last holds at least 64K,
# and the median epoch under 1.75 x 64K (where the bytes of each cut were
# forgotten, and the size looked at every 20 ms, it was 2-2.5 x). perf's
# count and median file for the same command line are printed beside.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir switchsize
SIZE=$((64 << 10))
CMD=(-m 64K -e cpu-clock -c 20000 -- taskset -c 0 "$H/storm" 3000000)

"$PREC" record -q -d "$tmp/r" --switch-output=64K "${CMD[@]}" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record --switch-output=64K"
: >"$tmp/sizes"
for e in "$tmp"/r/epoch.*; do
	"$PREC" info "$e" | awk '$1 ~ /^cpu[0-9]+\.shard$/ { s += $6 } END { print s + 0 }' >>"$tmp/sizes"
done
k=$(wc -l <"$tmp/sizes")
[ "$k" -ge 10 ] || fail "$k epochs, want at least 10: $(tr '\n' ' ' <"$tmp/sizes")"
head -n $((k - 1)) "$tmp/sizes" >"$tmp/full"
small=$(awk -v s=$SIZE '$1 < s' "$tmp/full" | wc -l)
[ "$small" = 0 ] || fail "$small epochs (not the last) under $SIZE ring bytes: $(tr '\n' ' ' <"$tmp/sizes")"
median=$(sort -n "$tmp/full" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "prec: $k epochs, median $median ring bytes for SIZE $SIZE: $(tr '\n' ' ' <"$tmp/sizes")"
[ "$median" -lt $((SIZE * 7 / 4)) ] ||
	fail "median epoch $median ring bytes, not under 1.75 x $SIZE"

if command -v perf >/dev/null; then
	mkdir "$tmp/p"
	(cd "$tmp/p" && perf record -q --switch-output=64K -o p.data "${CMD[@]}" >/dev/null 2>&1)
	echo "perf: $(find "$tmp/p" -name 'p.data.*' | wc -l) files, median $(find "$tmp/p" -name 'p.data.*' -printf '%s\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') bytes (header and side band included)"
fi
