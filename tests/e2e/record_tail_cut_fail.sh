#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --tail-synthesize --switch-output, a cut that fails before it makes its
# epoch (the next epoch's directory cannot be made: a file holds its name,
# as a full disk fails the same mkdir): the cut writes the old epoch's
# tail, then fails, and the recording stops in that epoch. The stop writes
# no second tail there: the epoch has exactly one, perf's per-file tail (a
# spinner recorded with -p: its COMM, then one MMAP2 per executable map,
# as perf's first file of the same spinner has it). Before, the stop's
# tail came again in the same epoch: every COMM and MMAP2 twice.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
e2e_tmpdir tailcutfail
cd "$tmp" || fail "cd $tmp"
tr=$PREC_TOP/tests/lib/tail_records.py
spin="" rec=""
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$spin" ] && kill "$spin" 2>/dev/null
}
at_exit cleanup
bash -c 'while :; do :; done' & spin=$!
sleep 0.3

# perf: one switch, its first file's tail. perf takes SIGUSR2 only once
# its command runs: asked again until the first file is there.
mkdir p
perf record -q --tail-synthesize --switch-output -e cpu-clock -p "$spin" -o p/perf.data -- sleep 30 \
	>/dev/null 2>perr & rec=$!
for _ in $(seq 50); do
	sleep 0.3
	compgen -G 'p/perf.data.*' >/dev/null && break
	kill -USR2 "$rec"
done
sleep 0.3
kill -INT "$rec"
wait "$rec"
rec=
mapfile -t pf < <(ls p/perf.data.*)
[ "${#pf[@]}" -ge 2 ] || fail "perf wrote ${#pf[@]} files, want 2 or more"
python3 "$tr" "${pf[0]}" >p.tail
if ! grep -q '^COMM' p.tail || ! grep -q '^MMAP2' p.tail; then
	fail "perf's tail: $(cat p.tail) (the test shows nothing)"
fi

# prec: the first cut fails, epoch.000002 being a file
"$PREC" record -q -d d --tail-synthesize --switch-output -e cpu-clock -p "$spin" 2>err & rec=$!
wait_manifest d/epoch.000001 10
sleep 0.5
touch d/epoch.000002
kill -USR2 "$rec"
wait "$rec"
rc=$?
rec=
cat err
[ "$rc" = 1 ] || fail "exit $rc, want 1 (a failed cut)"
grep -q "d/epoch.000002: making the epoch: File exists" err || fail "no line saying the epoch was not made"
"$PREC" merge -q d/epoch.000001 -o d1.data 2>merr || fail_rc merr "prec merge d/epoch.000001"
t=$("$PREC" info d/epoch.000001 | awk '$1 == "tail.shard" { print $(NF - 1) }' | tr -d .)
python3 "$tr" d1.data "$t" >r.tail
cmp -s p.tail r.tail || fail "epoch.000001's tail differs from perf's:
$(diff p.tail r.tail)"
echo "epoch.000001: one tail, as perf's file: $(grep -c '^COMM' r.tail) COMM, $(grep -c '^MMAP2' r.tail) MMAP2"
# the shard itself holds that tail alone
n=$("$PREC" info d/epoch.000001 | awk '$1 == "tail.shard" { print $4 }')
[ "$n" = "$(wc -l <r.tail)" ] || fail "tail.shard holds $n records, the tail $(wc -l <r.tail)"
