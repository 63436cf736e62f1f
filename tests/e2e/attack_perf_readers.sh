#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's own readers on what prec merges from a recording someone else
# wrote (a manifest is only bytes: `prec merge -f`, a recording copied
# from elsewhere). perf 6.1 reads each HEADER_BUILD_ID entry's name into a
# PATH_MAX array on its stack, as many bytes as the entry says: a build-id
# table path of 10 KiB in a crafted manifest (tests/lib/mfedit.py
# bidpath) made perf script, perf report and perf buildid-list die with
# "stack smashing detected". The merged file (file and pipe format) must
# leave that entry out, keep the other one, and every perf reader must
# exit as it does on a sound file.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd perf
need_cmd python3
MK=$H/mkshards
[ -x "$MK" ] || skip "$MK not built"
e2e_tmpdir perfread "${TMPDIR:-/tmp}"

good=0123456789abcdef0123456789abcdef01234567
bad=89abcdef0123456789abcdef0123456789abcdef
"$MK" "$tmp/d" --shards 2 --records-per-shard 50 --buildid "$good:/usr/bin/true" \
	--buildid "$bad:/usr/bin/false" >/dev/null || fail "mkshards"
cp -a "$tmp/d" "$tmp/sound" || fail "copy"
long=/$(python3 -c "print('a' * 200 + ('/' + 'b' * 250) * 40)")
python3 "$PREC_TOP/tests/lib/mfedit.py" "$tmp/d/manifest" "bidpath.1=$long" || fail "mfedit"
"$PREC" info "$tmp/d" | grep -q "^  $bad /aaaa" || fail "info: the long path is not in the table"

# A perf reader's exit: fails the test on a signal (perf's abort) or a
# message of glibc's stack or heap checks.
perf_ok() {
	local what=$1 rc
	shift
	"$@" >"$tmp/perf.out" 2>"$tmp/perf.err"
	rc=$?
	if [ $rc -ge 128 ] || grep -q 'smashing\|malloc\|corrupted\|Segmentation' "$tmp/perf.err"; then
		tail -3 "$tmp/perf.err"
		fail "$what: perf exited $rc"
	fi
}

"$PREC" merge "$tmp/sound" -o "$tmp/sound.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
perf script -i "$tmp/sound.data" >"$tmp/sound.script" 2>&1 || fail "perf script of the sound copy"
"$PREC" merge "$tmp/d" -o "$tmp/file.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
perf_ok "perf script" perf script -i "$tmp/file.data"
cmp -s "$tmp/perf.out" "$tmp/sound.script" || fail "perf script differs from the sound copy's"
perf_ok "perf report" perf report --stdio -i "$tmp/file.data"
perf_ok "perf buildid-list" perf buildid-list -i "$tmp/file.data"
[ "$(cat "$tmp/perf.out")" = "$good /usr/bin/true" ] ||
	fail "perf buildid-list: $(head -c 300 "$tmp/perf.out")"

# -o - to a pipe: the pipe format, HEADER_BUILD_ID records
"$PREC" merge "$tmp/d" -o - 2>"$tmp/merge.err" | cat >"$tmp/pipe.data"
[ "${PIPESTATUS[0]}" = 0 ] || { cat "$tmp/merge.err"; fail "merge -o - exited ${PIPESTATUS[0]}"; }
head -c 8 "$tmp/pipe.data" | grep -q PERFILE2 || fail "merge -o -: no perf.data"
# shellcheck disable=SC2016
perf_ok "perf script (pipe)" sh -c 'cat "$1" | perf script -i -' sh "$tmp/pipe.data"
cmp -s "$tmp/perf.out" "$tmp/sound.script" || fail "perf script (pipe) differs from the sound file's"
LC_ALL=C grep -qa bbbbbbbbbbbbbbbb "$tmp/pipe.data" && fail "the long path is in the pipe"
echo "ok: a build-id path over perf's PATH_MAX is left out of the merged file; perf's readers run"
