#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output=SIZE cuts an epoch once it holds SIZE ring bytes, counted
# from the previous cut's move: what the drainers write into the new epoch
# while a cut is being made counts towards its SIZE (perf's file keeps what
# its pass wrote after the mark, and counts the next file from its switch),
# and the drainer whose chunk reaches the mark wakes the main loop (no
# 20 ms look). cpu-clock -c 20000 over a syscall storm on one CPU, ~2 MB/s,
# with --switch-output=64K: every epoch but the last holds at least 64K;
# what they hold past it adds up to less than the rate times the cuts' own
# durations (-v's "the cut took"): the part of each cut before its move,
# and a pass, come to 0.6-0.75 of that, where, with the bytes each cut
# took forgotten and the size looked at every 20 ms, it was 1.3-1.4 times
# that (a median epoch of 1.8-2.5 x SIZE; 1.3-1.7 x now). Normalized by the
# cuts' own times, as a loaded machine makes every cut slower.
# perf's count and median file for the same command line are printed.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir switchsize
SIZE=$((64 << 10))
CMD=(-m 64K -e cpu-clock -c 20000 -- taskset -c 0 "$H/storm" 3000000)

"$PREC" record -v -d "$tmp/r" --switch-output=64K "${CMD[@]}" 2>"$tmp/err" ||
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
# the ring bytes over the recording's time: the summary's MB over its MB/s
secs=$(sed -n 's/^\[ prec record: .* \([0-9.]*\) MB written (\([0-9.]*\) MB\/s).*/\1 \2/p' "$tmp/err" |
	awk '$2 > 0 { print $1 / $2 }')
[ -n "$secs" ] || fail "no summary line: $(tail -3 "$tmp/err")"
cut_ms=$(sed -n 's/.*epoch started; the cut took \([0-9.]*\) ms$/\1/p' "$tmp/err" | awk '{ s += $1 } END { print s + 0 }')
read -r over allowed < <(awk -v s=$SIZE -v t="$secs" -v c="$cut_ms" -v f="$tmp/sizes" '
	FILENAME == f { all += $1; next } { over += $1 - s }
	END { printf "%d %d\n", over, all / t * c / 1000 }' "$tmp/sizes" "$tmp/full")
echo "prec: $k epochs, median $median ring bytes for SIZE $SIZE; past SIZE $over bytes in all, the rate times the cuts' $cut_ms ms $allowed: $(tr '\n' ' ' <"$tmp/sizes")"
[ "$over" -lt "$allowed" ] ||
	fail "the epochs hold $over ring bytes past SIZE in all, not under $allowed (the rate times the cuts' durations)"

if command -v perf >/dev/null; then
	mkdir "$tmp/p"
	(cd "$tmp/p" && perf record -q --switch-output=64K -o p.data "${CMD[@]}" >/dev/null 2>&1)
	echo "perf: $(find "$tmp/p" -name 'p.data.*' | wc -l) files, median $(find "$tmp/p" -name 'p.data.*' -printf '%s\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') bytes (header and side band included)"
fi
