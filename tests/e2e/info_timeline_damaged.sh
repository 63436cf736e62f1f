#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec info --timeline of a finished recording that cannot be read whole
# (a chunk whose checksum is wrong, a shard missing): no chunk is being
# written there, so each is damage, said in one error line naming the
# shard and the offset, the rows drawn up to it, exit 1. The same damage
# in a recording whose manifest says it did not finish is where a recorder
# was writing: the row ends there (a missing shard: a warning), exit 0.
# Before, both drew the shorter rows without a word and exited 0.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3
e2e_tmpdir tldmg
cd "$tmp" || exit 1

# shellcheck disable=SC2016 # the workload's own shell expands it
"$PREC" record -q -d rec -e cpu-clock -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' ||
	fail "record"
"$PREC" info --timeline rec >/dev/null 2>rec.err || fail_rc rec.err "timeline of the whole recording"
[ -s rec.err ] && fail "timeline of the whole recording: $(cat rec.err)"

cp -a rec flip || fail "copy"
# the first chunk's watermark (under the checksum, in a marker chunk too)
# in the CPU shard with the most data: the other may hold no chunk at all
big=$(find rec -name 'cpu*.shard' -printf '%s %f\n' | sort -rn | awk 'NR == 1 { print $2 }')
# flipped, each bit: a byte written as a constant (0xff) left the
# watermark as it was whenever its low byte was that already (1 in 256)
at=$((64 + 40))
byte=$(od -An -tu1 -j "$at" -N1 "rec/$big" | tr -d ' ')
[ -n "$byte" ] || fail "flip: rec/$big has no byte at $at"
# shellcheck disable=SC2059 # the format is the octal escape of the byte
printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="flip/$big" bs=1 seek="$at" conv=notrunc 2>/dev/null || fail "flip"
cmp -s "rec/$big" "flip/$big" && fail "flip: $big unchanged"
cp -a rec gone || fail "copy"
rm gone/cpu001.shard

# timeline DIR RC LINE: info --timeline DIR exits RC, its stderr is LINE
timeline() {
	"$PREC" info --timeline "$1" >"$1.out" 2>"$1.err"
	local rc=$?
	[ "$rc" = "$2" ] || fail "$1: exit $rc, not $2: $(cat "$1.err")"
	[ "$(cat "$1.err")" = "$3" ] || fail "$1: not '$3': $(cat "$1.err")"
	grep -q '^cpu000 ' "$1.out" || fail "$1: no rows drawn: $(cat "$1.out")"
	echo "$1: exit $rc, $3"
}
timeline flip 1 "prec: error: shard $big: offset 0x40: bad checksum: drawn up to it"
timeline gone 1 "prec: error: shard cpu001.shard: cannot read: No such file or directory"

for d in flip gone; do
	python3 "$PREC_TOP/tests/lib/mfedit.py" "$d/manifest" state=1 || fail "state"
done
timeline flip 0 ""
timeline gone 0 "prec: warning: shard cpu001.shard: cannot read: No such file or directory"
echo "PASS"
