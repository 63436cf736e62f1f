#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec archive of a recording still being recorded: its build-id table (the
# list of files to archive) is written only when the recording stops, so
# the tar would hold none of the files its samples hit. It is refused in
# one line, exit 1, nothing written; before, archive wrote a tar of 0 files
# and exited 0. Once stopped, the same recording archives the files its
# samples hit (the storm's binary among them), exit 0.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir archive-live
cd "$tmp" || exit 1
pid=
# shellcheck disable=SC2016 # expanded when it runs
at_exit 'rm -f "$tmp/hold"; [ -z "$pid" ] || wait "$pid" 2>/dev/null'

touch hold
"$PREC" record -q -d rec -e cpu-clock \
	-- sh -c "'$H/storm' 3000000; while [ -e '$tmp/hold' ]; do sleep 0.05; done" 2>rec.err &
pid=$!
wait_manifest rec 10
complete rec && fail "the recording ended by itself"
"$PREC" archive rec -o live.tar 2>live.err && fail "archive of a live recording: exit 0: $(cat live.err)"
want="prec: error: archive rec: still being recorded: the files to archive are known when the recording stops (prec archive it then)"
[ "$(cat live.err)" = "$want" ] || fail "archive of a live recording: not '$want': $(cat live.err)"
[ -e live.tar ] && fail "archive of a live recording left live.tar"
ls live.tar.prec-* >/dev/null 2>&1 && fail "archive of a live recording left a temp file"
echo "live: $want"

rm -f hold
wait "$pid" || fail_rc rec.err "record"
pid=
"$PREC" archive rec -o done.tar 2>done.err || fail_rc done.err "archive once stopped"
tar tf done.tar | grep -q "storm/[0-9a-f]\{40\}/elf" ||
	fail "archive once stopped: no storm binary: $(tar tf done.tar)"
echo "stopped: $(tail -1 done.err)"
echo "PASS"
