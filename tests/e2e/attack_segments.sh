#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A planted segment number: uid 65534 puts a 1-byte file
# cpu000.shard.4294967295 (the last number a segment file can have) in a
# --max-disk recording of theirs, and files numbered 1 to 9 with gaps
# that hold data but no chunk where the shard goes on. Root reads it with
# -f (the recording is theirs): merge, dump, info --check and info
# --timeline each end within 20 s (a search that wraps its counter spins
# for ever) and give what they give for the recording without the planted
# files: the same perf.data, the same dump, the same check.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
getent passwd 65534 >/dev/null || skip "no user 65534"
e2e_tmpdir segattack
cd "$tmp" || exit 1
chmod 755 "$tmp"

"$PREC" record -q -d rec -a -C 0 --max-disk $(($(nproc) * 16))M -e cpu-clock -- sleep 0.3 ||
	fail "record --max-disk"
# Theirs: a copy of root's, given to them.
cp -a rec theirs && chown -R 65534:65534 theirs || fail "copy"
nobody sh -c 'printf x >theirs/cpu000.shard.4294967295' || fail "plant the last number"
for n in 1 2 5 6 9; do
	nobody sh -c "printf x >theirs/cpu000.shard.$n" || fail "plant $n"
done

# bounded NAME CMD...: CMD ends within 20 s; its stdout in NAME.out.
bounded() {
	local name=$1 rc
	shift
	timeout 20 "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc = 124 ] && fail "$name: still running after 20 s (the segment search spins)"
	echo "$name: ended (exit $rc)"
	return $rc
}

"$PREC" merge rec -o ref.data 2>/dev/null || fail "merge of root's recording"
bounded merge "$PREC" merge -f theirs -o their.data || fail_rc merge.err "merge -f theirs"
cmp -s ref.data their.data || fail "merge: the planted files changed the perf.data"
"$PREC" dump rec >ref.dump 2>/dev/null || fail "dump of root's recording"
bounded dump "$PREC" dump -f theirs || fail_rc dump.err "dump -f theirs"
cmp -s ref.dump dump.out || fail "dump: the planted files changed the records"
"$PREC" info --check rec >ref.check 2>&1 || fail "info --check of root's recording"
bounded check "$PREC" info -f --check theirs || fail_rc check.err "info -f --check theirs"
[ "$(grep -c . check.out)" -gt 0 ] || fail "info --check: no output"
diff <(sed 's/theirs/rec/g' check.out) ref.check >/dev/null ||
	fail "info --check differs: $(diff <(sed 's/theirs/rec/g' check.out) ref.check)"
bounded timeline "$PREC" info -f --timeline theirs || fail_rc timeline.err "info -f --timeline theirs"
echo "PASS"
