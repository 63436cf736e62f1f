#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec archive of a recording it cannot read whole (a shard missing, a
# chunk whose checksum is wrong): the files only the unreadable samples
# hit are missing from the tar, a loss its user must hear of. The tar of
# what the rest hit is still written, each unreadable shard or chunk is
# named in one error line, a last error line counts them, and the exit
# status is 1, as merge's. --all reads no sample: exit 0. Before, it said
# "error:" about the shard and exited 0.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir archdmg
cd "$tmp" || exit 1

# shellcheck disable=SC2016 # the workload's own shell expands it
"$PREC" record -q -d rec -e cpu-clock -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' ||
	fail "record"
"$PREC" archive rec -o whole.tar 2>whole.err || fail_rc whole.err "archive of the whole recording"
grep -q "error:" whole.err && fail "archive of the whole recording: $(cat whole.err)"

# damaged NAME WHY: archive of NAME fails, names WHY, writes the tar
damaged() {
	"$PREC" archive "$1" -o "$1.tar" 2>"$1.err" && fail "$1: archive exit 0: $(cat "$1.err")"
	grep -qxF "prec: error: $2" "$1.err" || fail "$1: no line '$2': $(cat "$1.err")"
	grep -qxF "prec: error: archive $1: 1 corrupt chunk or shard (said above): the files only their samples hit are not in $1.tar" \
		"$1.err" || fail "$1: no last error line: $(cat "$1.err")"
	[ "$(grep -c '^prec: error:' "$1.err")" = 2 ] || fail "$1: errors: $(cat "$1.err")"
	tail -1 "$1.err" | grep -q "^prec: error: archive $1: " || fail "$1: the error is not the last line: $(cat "$1.err")"
	[ -s "$1.tar" ] || fail "$1: no tar written"
	"$PREC" archive --all "$1" -o "$1.all.tar" 2>"$1.all.err" || fail_rc "$1.all.err" "$1: archive --all"
	echo "$1: exit 1, $2"
}

cp -a rec gone || fail "copy"
rm gone/cpu001.shard
damaged gone "shard cpu001.shard: cannot open: No such file or directory"

cp -a rec flip || fail "copy"
# the first chunk's watermark (under the checksum, in a marker chunk too)
# in the CPU shard with the most data: the other may hold no chunk at all
big=$(find rec -name 'cpu*.shard' -printf '%s %f\n' | sort -rn | awk 'NR == 1 { print $2 }')
printf '\377' | dd of="flip/$big" bs=1 seek=$((64 + 40)) conv=notrunc 2>/dev/null || fail "flip"
damaged flip "shard $big: corrupt chunk at offset 0x40: bad checksum"
echo "PASS"
