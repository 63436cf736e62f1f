#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The read side never trusts its input: real recordings (plain, lz4
# shards, --max-disk segment files, one whose --max-disk window dropped
# data, --switch-output epochs) damaged every
# way tests/lib/damage_sweep.py knows (manifest fields under a right
# checksum, shard and chunk headers, lz4 payloads, cuts at and inside
# chunks, shards and segment files missing or planted, a symlink, FIFO,
# directory or empty file in their place), each read by merge (to a file
# and to a pipe), dump, info, info --check, info --timeline and archive:
# none dies, spins or trips a sanitizer (run it in a SANITIZE build),
# every line is prec's, a failure says "error:" and exits non-zero and an
# error line never comes with exit 0, and the recording's bytes stay as
# they were; a manifest that starts the --max-disk window past a shard's
# data is not read with exit 0 by merge, dump, archive or info --check.
# A sample of each damage by default; DAMAGE_SWEEP=full bash
# tests/e2e/read_damage_sweep.sh tries them all (minutes).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3
need_cmd taskset
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir sweep
cd "$tmp" || exit 1

# shellcheck disable=SC2016 # the workload's own shell expands it
work='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
"$PREC" record -q -d plain -e cpu-clock -- sh -c "$work" || fail "record"
"$PREC" record -q -d lz4 -z -e cpu-clock -- sh -c "$work" || fail "record -z"
storm=(-C 0 -e raw_syscalls:sys_enter --filter 'id == 110' -- taskset -c 0 "$H/storm")
"$PREC" record -q -d segments --max-disk 16M "${storm[@]}" 30000 || fail "record --max-disk"
ls segments/cpu000.shard.1 >/dev/null || fail "--max-disk: no segment file: $(ls segments)"
"$PREC" record -q -d window --max-disk 5M "${storm[@]}" 400000 || fail "record --max-disk 5M"
"$PREC" info window | grep -q '^max disk: .*dropped [1-9][0-9]* segments' ||
	fail "--max-disk 5M: nothing dropped: $("$PREC" info window | grep -A1 '^max disk')"
"$PREC" record -q -d epochs --switch-output=100K "${storm[@]}" 20000 || fail "record --switch-output"
ls epochs/epoch.000001 >/dev/null || fail "--switch-output: no epoch: $(ls epochs)"

python3 "$PREC_TOP/tests/lib/damage_sweep.py" "$PREC" "$tmp/work" plain=plain lz4=lz4 \
	segments=segments window=window epochs=epochs >sweep.out
rc=$?
grep '^FAIL' sweep.out | head -20
tail -1 sweep.out
[ $rc = 0 ] || fail "$(grep -c '^FAIL' sweep.out) readers mishandled damage"
echo "PASS"
