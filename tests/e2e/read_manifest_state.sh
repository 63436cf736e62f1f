#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A manifest state prec never writes (0, 99; docs/manifest-format.md:
# "other values: treat as not complete") under a valid checksum: merge (to
# a file and to a pipe), dump, info and archive each say so in the same
# one line naming DIR/manifest and the state, and read the recording as
# one that did not finish, the worst case: a torn end is the end, not
# damage (exit 0). info --check counts it as a problem (exit 1): it cannot
# vouch for the totals. Before, merge, dump and archive said nothing and
# info --check said "ok".
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3
e2e_tmpdir mstate
cd "$tmp" || exit 1

# shellcheck disable=SC2016 # the workload's own shell expands it
"$PREC" record -q -d rec -e cpu-clock -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' ||
	fail "record"

# said WHAT FILE ST: FILE (a command's stderr) holds the line, once
said() {
	local want="prec: warning: d$3/manifest: unknown state $3: read as a recording that did not finish"
	[ "$(grep -cxF "$want" "$2")" = 1 ] || fail "$1, state $3: not the one line '$want': $(cat "$2")"
}

for st in 0 99; do
	cp -a rec "d$st" || fail "copy"
	python3 "$PREC_TOP/tests/lib/mfedit.py" "d$st/manifest" "state=$st" || fail "edit state $st"
	"$PREC" merge "d$st" -o "$st.data" 2>merge.err || fail_rc merge.err "merge, state $st"
	said merge merge.err "$st"
	"$PREC" merge "d$st" 2>pipe.err | cat >/dev/null
	[ "${PIPESTATUS[0]}" = 0 ] || fail "merge to a pipe, state $st: exit ${PIPESTATUS[0]}: $(cat pipe.err)"
	said "merge to a pipe" pipe.err "$st"
	"$PREC" dump "d$st" >/dev/null 2>dump.err || fail_rc dump.err "dump, state $st"
	said dump dump.err "$st"
	"$PREC" info "d$st" >info.out 2>info.err || fail_rc info.err "info, state $st"
	said info info.err "$st"
	grep -qxF "state:       unknown ($st): read as a recording that did not finish" info.out ||
		fail "info, state $st: $(grep '^state' info.out)"
	"$PREC" archive "d$st" -o "$st.tar" 2>archive.err || fail_rc archive.err "archive, state $st"
	said archive archive.err "$st"
	"$PREC" info --check "d$st" >check.out 2>check.err && fail "info --check, state $st: exit 0: $(cat check.out)"
	grep -qxF "check: manifest state $st unknown: shard totals not compared" check.out ||
		fail "info --check, state $st: no problem said: $(grep '^check' check.out)"
	grep -q "^check: .*: 1 problems$" check.out || fail "info --check, state $st: $(grep '^check' check.out)"

	# the worst case: a torn end is where the recorder died
	# in the CPU shard with the most data: the other may hold no chunk
	big=$(find "d$st" -name 'cpu*.shard' -printf '%s %f\n' | sort -rn | awk 'NR == 1 { print $2 }')
	size=$(stat -c %s "d$st/$big")
	truncate -s $((size - 1)) "d$st/$big" || fail "truncate"
	"$PREC" merge "d$st" -o "$st.torn.data" 2>torn.err || fail_rc torn.err "merge of a torn end, state $st"
	grep -q "^prec: warning: shard $big: torn chunk at offset 0x[0-9a-f]* ends the file" torn.err ||
		fail "merge of a torn end, state $st: $(cat torn.err)"
	grep -q "error:" torn.err && fail "merge of a torn end, state $st: $(cat torn.err)"
	echo "state $st: said by merge, dump, info, archive; a problem for info --check; a torn end taken"
done
echo "PASS"
