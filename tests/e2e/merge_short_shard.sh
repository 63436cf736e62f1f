#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A finished recording whose shard lost whole chunks, where no chunk is
# torn: the manifest counts each shard's chunks, and merge and dump say
# which shard ends short, with exit status 1 (0 with --salvage, the other
# shards merged in full). Two ways it happens:
# - a shard cut at a chunk's end (here: to its header alone);
# - under --max-disk, the first kept segment file of a CPU gone: the
#   shard's header points into it, and the whole CPU read as empty.
# Before, both merged with exit status 0 and no word.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd taskset
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir shortshard

# check NAME DIR SHARD: merge and dump of DIR fail in one error line naming
# SHARD's short end; --salvage merges the rest with status 0
check() {
	"$PREC" merge "$2" -o "$tmp/$1.data" 2>"$tmp/$1.err" && fail "$1: merge exit 0: $(cat "$tmp/$1.err")"
	grep -q "^prec: error: shard $3: ends after [0-9]* chunks, the manifest counts [0-9]*" "$tmp/$1.err" ||
		fail "$1: merge does not name $3's short end: $(cat "$tmp/$1.err")"
	[ "$(grep -c '^prec: error:' "$tmp/$1.err")" = 1 ] || fail "$1: merge errors: $(cat "$tmp/$1.err")"
	"$PREC" dump "$2" >/dev/null 2>"$tmp/$1.derr" && fail "$1: dump exit 0"
	grep -q "shard $3: ends after" "$tmp/$1.derr" || fail "$1: dump does not name $3: $(cat "$tmp/$1.derr")"
	"$PREC" merge --salvage "$2" -o "$tmp/$1.s.data" 2>"$tmp/$1.serr" ||
		fail_rc "$tmp/$1.serr" "$1: merge --salvage"
	echo "$1: $(grep -o "shard $3: ends after [0-9]* chunks, the manifest counts [0-9]*" "$tmp/$1.err")"
}

# 1. A shard cut to its header (a chunk boundary: nothing torn).
"$PREC" record -q -d "$tmp/r" -a -e cpu-clock -- sleep 0.3 2>"$tmp/r.err" || fail_rc "$tmp/r.err" "record"
"$PREC" merge "$tmp/r" -o "$tmp/whole.data" 2>"$tmp/whole.err" || fail_rc "$tmp/whole.err" "merge of the whole recording"
truncate -s 64 "$tmp/r/cpu000.shard" || fail "truncate"
check cut "$tmp/r" cpu000.shard

# 2. --max-disk: a storm on each CPU past the budget, then the first kept
# segment file of CPU 1 removed.
"$PREC" record -q -d "$tmp/m" -a --max-disk 10M -e raw_syscalls:sys_enter --filter 'id == 110' -- \
	sh -c 'for c in $(seq 0 $(($(nproc) - 1))); do taskset -c $c "$1" 600000 & done; wait' sh "$H/storm" \
	2>"$tmp/m.err" || fail_rc "$tmp/m.err" "record --max-disk"
segs=$("$PREC" info "$tmp/m" | awk '/^max disk:/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "segments,") { print $i; exit } }')
[ "${segs:-0}" -gt 0 ] || fail "--max-disk: nothing dropped: the storm did not pass the budget"
"$PREC" merge "$tmp/m" -o "$tmp/mwhole.data" 2>"$tmp/mwhole.err" || fail_rc "$tmp/mwhole.err" "merge of the whole --max-disk recording"
first=$(cd "$tmp/m" && ls cpu001.shard.* 2>/dev/null | sort -t. -k3 -n | head -1)
[ -n "$first" ] || fail "--max-disk: no segment files: $(ls "$tmp/m")"
rm "$tmp/m/$first"
check segment "$tmp/m" cpu001.shard
echo "PASS: a shard short of its manifest's chunks is an error in merge and dump"
