#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec info --timeline: a storm pinned on cpu1 while cpu0 idles draws a
# denser cpu001 row than cpu000 (block characters counted), rows as wide as
# $COLUMNS; a ring forced to overflow (2 pages, fair-scheduled drainers)
# puts the loss marks under cpu001, with the manifest's lost count; a live
# recording draws too, and says so.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-300000}
need_root
need_tracepoint raw_syscalls/sys_enter
need_cmd taskset
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
e2e_tmpdir info-timeline
export LC_ALL=C.UTF-8
pid=
at_exit 'rm -f "$tmp/hold"; [ -z "$pid" ] || wait "$pid" 2>/dev/null'

# row FILE NAME: the timeline row of shard NAME (cpu001 ...), between its bars.
row() {
	awk -v n="$2" '$0 ~ "^" n "[ ]*[|]" { sub(/^[^|]*[|]/, ""); sub(/[|][^|]*$/, ""); print; exit }' "$1"
}
# cells TEXT: columns with a block character.
cells() {
	printf '%s' "$1" | grep -o '[▁▂▃▄▅▆▇█]' | wc -l
}
# width FILE NAME: the display width of NAME's row line.
width() {
	grep -m1 "^$2 *|" "$1" | tr -d '\n' | wc -m
}

"$PREC" record -q -d "$tmp/busy" -m 16M -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- taskset -c 1 "$H/storm" "$N" 2>"$tmp/err" || fail_rc "$tmp/err" "record (busy cpu1)"
COLUMNS=100 "$PREC" info --timeline "$tmp/busy" >"$tmp/t100" 2>"$tmp/err" || fail_rc "$tmp/err" "info --timeline"
cat "$tmp/t100"
c0=$(cells "$(row "$tmp/t100" cpu000)")
c1=$(cells "$(row "$tmp/t100" cpu001)")
full=$(row "$tmp/t100" cpu001 | grep -o '█' | wc -l)
[ "$c1" -gt 0 ] || fail "cpu001's row is empty"
[ "$c1" -gt "$c0" ] || fail "cpu001's row ($c1 columns drawn) is not denser than idle cpu000's ($c0)"
[ "$full" -gt 0 ] || fail "the busiest row has no full block (the scale's top)"
for w in 100 60; do
	[ "$w" = 100 ] || COLUMNS=$w "$PREC" info --timeline "$tmp/busy" >"$tmp/t$w" || fail "info --timeline at $w"
	for r in cpu000 cpu001; do
		got=$(width "$tmp/t$w" "$r")
		[ "$got" = "$w" ] || fail "COLUMNS=$w: row $r is $got columns wide"
	done
done
grep -q '^ *+-*+' "$tmp/t100" || fail "no time axis"
grep -q ' 0s ' "$tmp/t100" || fail "the time axis has no 0s label"
grep -q 'complete' "$tmp/t100" || fail "heading does not say complete"
grep -q '^ *lost|' "$tmp/t100" && fail "loss marks on a recording that lost nothing"

# A 2-page ring whose drainer is not SCHED_FIFO overflows under the storm.
lost=0
for try in 1 2 3; do
	rm -rf "$tmp/lossy"
	"$PREC" record -q -d "$tmp/lossy" -m 2 -r 0 -e raw_syscalls:sys_enter \
		-- taskset -c 1 "$H/storm" "$N" 2>"$tmp/err" || fail_rc "$tmp/err" "record (2-page ring)"
	lost=$("$H/mfdump" "$tmp/lossy" | awk '$2 == "cpu001.shard" { sub("lost=", "", $7); print $7 }')
	[ "${lost:-0}" -gt 0 ] && break
done
[ "${lost:-0}" -gt 0 ] || skip "a 2-page ring lost nothing in 3 tries"
COLUMNS=80 "$PREC" info --timeline "$tmp/lossy" >"$tmp/tl" || fail "info --timeline (lossy)"
cat "$tmp/tl"
after=$(awk '/^cpu001 *[|]/ { getline; print; exit }' "$tmp/tl")
case "$after" in
*lost\|*!*) ;;
*) fail "no loss marks under cpu001's row: '$after'" ;;
esac
n=$(printf '%s' "$after" | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
[ "$n" = "$lost" ] || fail "the loss row says $n lost, the manifest $lost"
[ "$(width "$tmp/tl" cpu001)" = 80 ] || fail "lossy: row not 80 wide"

# Live: the storm done, the recorder still running.
touch "$tmp/hold"
"$PREC" record -q -d "$tmp/live" -m 16M -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- sh -c "taskset -c 1 '$H/storm' $N; while [ -e '$tmp/hold' ]; do sleep 0.05; done" &
pid=$!
wait_manifest "$tmp/live" 10
for ((i = 0; i < 100; i++)); do
	COLUMNS=80 "$PREC" info --timeline "$tmp/live" >"$tmp/tlive" 2>"$tmp/err" || fail_rc "$tmp/err" "info --timeline (live)"
	[ "$(cells "$(row "$tmp/tlive" cpu001)")" -gt 0 ] && break
	sleep 0.1
done
cat "$tmp/tlive"
grep -q 'live' "$tmp/tlive" || fail "live recording: heading does not say live"
[ "$(cells "$(row "$tmp/tlive" cpu001)")" -gt 0 ] || fail "live recording: cpu001's row stays empty"
rm -f "$tmp/hold"
wait "$pid" || fail "live record exited $?"
pid=
echo "PASS: cpu001 $c1 columns drawn against idle cpu000's $c0; width follows COLUMNS; $lost lost marked under cpu001; live"
