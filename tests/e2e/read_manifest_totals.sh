#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shard totals no shard file can hold (2^64-1 chunks, bytes, raw bytes or
# records; a first time after the last) under a valid checksum: every
# reader refuses the manifest in one line naming it and the field, exit 1,
# as info --check already called them problems; before, merge and dump
# took them (a merge took 2^64-1 chunks for a shard cut short, and the
# times for its window and SAMPLE_TIME). The loss counts are the kernel's,
# with no bound from the format: 2^64-1 records lost is read, and info's
# total of them stops there rather than wrap.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3
e2e_tmpdir mtotals
cd "$tmp" || exit 1

# shellcheck disable=SC2016 # the workload's own shell expands it
"$PREC" record -q -d rec -e cpu-clock -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' ||
	fail "record"
max=0xffffffffffffffff

# refused NAME WHY EDIT...: each reader of a copy edited so exits 1 with
# its one line saying WHY
refused() {
	local d=$1 why=$2 c
	shift 2
	cp -a rec "$d" || fail "copy"
	python3 "$PREC_TOP/tests/lib/mfedit.py" "$d/manifest" "$@" || fail "edit $*"
	for c in merge pipe dump info check archive; do
		case $c in
		merge) "$PREC" merge "$d" -o "$d.data" 2>"$c.err" >/dev/null ;;
		pipe) "$PREC" merge "$d" 2>"$c.err" | cat >/dev/null; [ "${PIPESTATUS[0]}" = 0 ] ;;
		dump) "$PREC" dump "$d" 2>"$c.err" >/dev/null ;;
		info) "$PREC" info "$d" 2>"$c.err" >/dev/null ;;
		check) "$PREC" info --check "$d" 2>"$c.err" >/dev/null ;;
		archive) "$PREC" archive "$d" -o "$d.tar" 2>"$c.err" >/dev/null ;;
		esac && fail "$c, $*: exit 0: $(cat "$c.err")"
		[ "$(wc -l <"$c.err")" = 1 ] || fail "$c, $*: not one line: $(cat "$c.err")"
		case $c in
		merge | pipe) grep -qxF "prec: error: merge $d: cannot read manifest: shard totals: $why" "$c.err" ;;
		archive) grep -qxF "prec: error: archive $d: cannot read manifest: shard totals: $why" "$c.err" ;;
		*) grep -qxF "prec: error: $d/manifest: cannot read: shard totals: $why" "$c.err" ;;
		esac || fail "$c, $*: not 'shard totals: $why': $(cat "$c.err")"
	done
	if [ -e "$d.data" ] || [ -e "$d.tar" ]; then fail "$*: an output was left"; fi
	echo "$*: refused by all: $why"
}

refused chunks "chunks more than a shard file can hold" shard.0.chunks=$max
refused bytes "bytes more than its chunks can hold" shard.0.bytes=$max
refused raw "raw bytes more than its chunks can hold" shard.0.raw=$max
refused records "records more than its raw bytes can hold" shard.1.records=$max
refused times "first time after the last" shard.0.first=$max

cp -a rec lost || fail "copy"
python3 "$PREC_TOP/tests/lib/mfedit.py" lost/manifest shard.0.lost=$max shard.0.lost_samples=$max \
	shard.1.lost=2 || fail "edit lost"
"$PREC" merge lost -o lost.data 2>lost.err || fail_rc lost.err "merge, 2^64-1 lost"
"$PREC" dump lost >/dev/null 2>lost.err || fail_rc lost.err "dump, 2^64-1 lost"
# info's total row: 2^64-1 + 2 lost stops at 2^64-1 (it wrapped to 1)
"$PREC" info lost >lost.info 2>lost.err || fail_rc lost.err "info, 2^64-1 lost"
total=$(awk '$1 == "total" { print $NF }' lost.info)
[ "$total" = 18446744073709551615 ] || fail "info: total lost $total, want 2^64-1: $(grep -A9 '^shards' lost.info)"
echo "2^64-1 + 2 lost: info's total says $total"
echo "PASS"
