#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --tail-synthesize on the perf clock (-k perf, what intel_pt and arm_spe
# select). Where prec cannot read that clock (a KVM or container guest:
# cap_user_time_zero 0) every epoch starts at time 0; the tail, stamped
# before the epoch's first record, went nowhere then (time 0 was taken for
# "no records"): no tail at all, alone or with --switch-output, where perf
# writes one per file. And a cut told its new epoch by its start time, so
# the tail stayed bound to the old epoch's writer, freed by the cut.
# Here: a command recorded -k perf, cut twice by its own SIGUSR2; each
# epoch's tail.shard holds records, the last one's names the command, gone
# but not yet reaped (its COMM, no maps, as perf's last file); perf script
# reads every epoch without a word on stderr. Without --switch-output: the
# tail holds records and names the command (its COMM).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir tailpclk
cd "$tmp" || fail "cd $tmp"

# tail_records DIR: the records of DIR's tail.shard, as its manifest says
tail_records() {
	"$H/mfdump" "$1" | awk '$1 == "shard" && $2 == "tail.shard" {
		for (i = 3; i <= NF; i++) if ($i ~ /^records=/) { sub("records=", "", $i); print $i } }'
}
# sh_tail FILE: the COMMs (no exec's) and MMAP2s of the command, "NCOMM NMMAP2"
sh_tail() {
	perf script -i "$1" --show-task-events --show-mmap-events 2>"$1.err" | grep -v ' cpu-clock:' |
		awk -v pid="$2" '$0 ~ "PERF_RECORD_COMM: sh:" pid "/" { c++ }
		     $0 ~ "PERF_RECORD_MMAP2 " pid "/" { m++ }
		     END { print c + 0, m + 0 }'
	[ -s "$1.err" ] && fail "perf script $1 says: $(head -3 "$1.err")"
	return 0
}

# shellcheck disable=SC2016 # $$ and $PPID are the inner shell's
"$PREC" record -q -k perf --tail-synthesize --switch-output -e cpu-clock -d sw -- \
	sh -c 'echo $$ >pid; sleep 0.3; kill -USR2 $PPID; sleep 0.3; kill -USR2 $PPID; sleep 0.3' 2>err ||
	fail_rc err "prec record -k perf --tail-synthesize --switch-output"
start=$("$H/mfdump" sw/epoch.000001 | awk '$1 == "clockid" { print $4 }')
echo "epoch 1 starts at $start ($([ "$start" = 0 ] && echo "the perf clock unread: the case" ||
	echo "the perf clock read here"))"
pid=$(cat pid)
n=0
for e in sw/epoch.*; do
	n=$((n + 1))
	r=$(tail_records "$e")
	[ "${r:-0}" -gt 0 ] || fail "$e: tail.shard holds ${r:-no} records, want its tail"
	"$PREC" merge -q "$e" -o "$e.data" 2>merr || fail_rc merr "prec merge $e"
	got=$(sh_tail "$e.data" "$pid") || exit 1
	echo "$e: tail of $r records; the command's COMMs, MMAP2s: $got"
done
[ "$n" = 3 ] || fail "$n epochs, want 3"
[ "$got" = "1 0" ] || fail "the last epoch names the command with $got (COMMs, MMAP2s), want 1 0"

# shellcheck disable=SC2016
"$PREC" record -q -k perf --tail-synthesize -e cpu-clock -d one -- \
	sh -c 'echo $$ >pid; sleep 0.3' 2>err || fail_rc err "prec record -k perf --tail-synthesize"
r=$(tail_records one)
[ "${r:-0}" -gt 0 ] || fail "one: tail.shard holds ${r:-no} records, want its tail"
"$PREC" merge -q one -o one.data 2>merr || fail_rc merr "prec merge one"
got=$(sh_tail one.data "$(cat pid)") || exit 1
# its MMAP2s are its exec's; its one COMM (not exec's) the tail's
[ "${got% *}" = 1 ] || fail "one: the command has $got (COMMs, MMAP2s), want the tail's COMM"
echo "PASS: -k perf --tail-synthesize: a tail in each of 3 epochs and alone, naming the command"
