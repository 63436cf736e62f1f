#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids of many distinct files mapped during a recording, all read by
# the recording's reader (record/buildid_reader.c): the workload runs N
# copies of true, each its own inode under its own path, then deletes them
# all before the stop, whose read finds none of them. Every path must be in
# the manifest with true's id. N = 300 makes the reader's file table grow
# (at 127 and 255 files) inside a batch: the batch's ids once went into the
# table the growth had freed (a heap use-after-free an ASan build stops at,
# and ids left unread), so this is also the e2e test .ci/run runs under
# AddressSanitizer.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd readelf
e2e_tmpdir bmany
N=${N:-300}
true_bin=$(type -P true) || skip "no true binary"
want=$(elf_id "$true_bin")
[ -n "$want" ] || skip "$true_bin has no build-id note"

# record TRY: the recording of the workload into $tmp/out.TRY; its stderr
# in $tmp/err.TRY.
record() {
	mkdir "$tmp/bin.$1" || fail "mkdir"
	for i in $(seq "$N"); do cp "$true_bin" "$tmp/bin.$1/t$i" || fail "cp"; done
	# shellcheck disable=SC2016 # expanded by the workload's shell
	"$PREC" record -d "$tmp/out.$1" -e cpu-clock -- sh -c '
		for i in $(seq "$1"); do "$2/t$i" || exit 1; done
		sleep 1.5
		rm -r "$2"' sh "$N" "$tmp/bin.$1" 2>"$tmp/err.$1" || fail_rc "$tmp/err.$1" "record"
	cat "$tmp/err.$1"
}

# A read that ran out of its deadline on a starved machine turns the reader
# off until the stop (said once): tried once more before it counts.
record 1
try=1
if grep -q 'a mapped file did not answer' "$tmp/err.1"; then
	try=2
	record 2
fi
"$H/mfdump" "$tmp/out.$try" >"$tmp/mf" || fail "manifest unreadable"
grep -q '^state complete' "$tmp/mf" || fail "the manifest is not complete"
got=$(awk -v d="$tmp/bin.$try/" -v id="$want" \
	'$1 == "buildid" && $2 == id && index($3, d) == 1 { n++ } END { print n + 0 }' "$tmp/mf")
[ "$got" = "$N" ] || {
	grep -c '^buildid' "$tmp/mf"
	fail "$got of the $N deleted copies of true have their build-id in the manifest"
}
echo "PASS: all $N distinct files have their build-id (try $try)"
