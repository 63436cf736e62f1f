#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record --max-disk, the disk flight recorder: a getppid storm on every
# CPU writes many times the budget; the directory's blocks, sampled every
# 50 ms, never pass the budget plus the slack docs/format.md gives; the
# oldest chunks were dropped (prec info says so), info --check is clean, and
# the merge starts where every CPU has data ("--max-disk window") and reads
# in perf script with nothing on stderr. A process started before the window
# (a spinning thread, started just before the storms, whose COMM and MMAP2
# are in chunks the budget dropped) keeps sampling in it: perf report gives
# its samples its own comm and the `spin` function of its own binary, through
# the carry shard. Each CPU shard was written in segment files (O_DIRECT):
# the oldest files are gone, the shard's own file is its header alone, the
# newest files stay, none is left empty (the budget's drops unlink files no
# drainer writes). Killed with -9 in the middle, the
# recording still merges from its window with the spinner resolved (the
# start manifest has the budget; the merge finds the window in the trimmed
# shards and the carry in the directory). prec dump of either prints the
# records the merge writes: for the killed one, line for line what perf
# script shows of the merge, the carry's records among them; prec info
# of the killed one gives that window and lists the carry. Bad values:
# one line naming the option, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd taskset
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir maxdisk
N=${STORM_N:-800000}
BUDGET=16M
budget=$((16 * 1024 * 1024))
# docs/format.md, "Trimmed shards": per CPU shard 8 KiB, the file system's
# extent blocks, a carry being written between two looks: 1 MiB covers it.
slack=$((1024 * 1024))

bad() { # value: one line naming the option, exit 2, nothing created
	"$PREC" record -d "$tmp/bad" -a --max-disk "$1" -- true >"$tmp/bad.out" 2>&1
	rc=$?
	[ $rc = 2 ] || fail "--max-disk '$1': exit $rc, want 2: $(cat "$tmp/bad.out")"
	[ "$(wc -l <"$tmp/bad.out")" = 1 ] || fail "--max-disk '$1': not one line: $(cat "$tmp/bad.out")"
	grep -q -- '--max-disk' "$tmp/bad.out" || fail "--max-disk '$1': option not named: $(cat "$tmp/bad.out")"
	[ ! -e "$tmp/bad" ] || fail "--max-disk '$1': a directory was made"
}
bad 0
bad garbage
bad 12Q
bad 64K # below what every CPU's staging and two segments need

spin_pid=
cleanup() {
	[ -n "$spin_pid" ] && kill "$spin_pid" 2>/dev/null
	[ -s "$tmp/k9.pids" ] && kill $(cat "$tmp/k9.pids") 2>/dev/null
}
at_exit cleanup

# What perf script shows of `prec merge DIR` (pipe format), one line a
# record: time, type, and for a SAMPLE its CPU and pid/tid, for a FORK or
# EXIT its pid/tid. dump_lines: the same of prec dump's lines.
script_lines() {
	"$PREC" merge "$1" 2>/dev/null | perf script -i - --ns -F time,cpu,pid,tid \
		--show-task-events --show-mmap-events --show-lost-events --show-bpf-events 2>/dev/null |
		awk '{
			t = ""; y = "SAMPLE"; c = ""
			for (i = 1; i <= NF; i++) {
				if (c == "" && $i ~ /^\[[0-9]+\]$/) c = substr($i, 2, length($i) - 2) + 0
				if (t == "" && $i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1)
				if ($i ~ /^PERF_RECORD_/) { y = $i; break }
			}
			if (y == "SAMPLE") { print t, y, c, $1; next }
			id = y; sub(/^[^(]*\(/, "", id); sub(/\).*$/, "", id); sub(/:/, "/", id)
			sub(/^PERF_RECORD_/, "", y); sub(/[:( ].*$/, "", y)
			print t, y, (y == "FORK" || y == "EXIT") ? "- " id : ""
		}'
}
dump_lines() {
	awk '{ print $1, $4, $4 == "SAMPLE" ? $2 " " $3 : $4 == "FORK" || $4 == "EXIT" ? "- " $3 : "" }' "$1"
}
# type_counts FILE: "TYPE N" of *_lines output, on one line.
type_counts() {
	awk '{ n[$2]++ } END { for (y in n) print y, n[y] }' "$1" | sort | tr '\n' ' '
}

# The workload: a spinning thread first, then a storm on each CPU, then the
# spinner alone for a second more, all within the recording. Each storm is
# pinned to its CPU: left to the scheduler, both storms could share one CPU
# beside the spinner, and the other CPU's shard, a few segments long, would
# rightly keep its oldest (the budget drops where the next segment starts
# earliest).
cat >"$tmp/work.sh" <<EOF
"$H/spinthread" 600000 0 >"$tmp/spin.tid" &
echo \$! >"$tmp/spin.pid"
sleep 0.5
storms=
for c in \$(seq 0 $(($(nproc) - 1))); do taskset -c \$c "$H/storm" $N & storms="\$storms \$!"; done
wait \$storms
sleep 1.5
kill \$(cat "$tmp/spin.pid")
wait
EOF
"$PREC" record -d "$tmp/md" -a --max-disk "$BUDGET" -e cpu-clock \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- sh "$tmp/work.sh" 2>"$tmp/err" &
rec=$!
max=0
while kill -0 "$rec" 2>/dev/null; do
	s=$(du -s -B1 "$tmp/md" 2>/dev/null | cut -f1)
	[ -n "$s" ] && [ "$s" -gt "$max" ] && max=$s
	sleep 0.05
done
wait "$rec" || fail_rc "$tmp/err" "record"
cat "$tmp/err"
echo "largest directory seen: $max bytes (budget $budget)"
[ "$max" -gt 0 ] || fail "the directory was never seen"
[ "$max" -le $((budget + slack)) ] || fail "directory at $max bytes, budget $budget + slack $slack"
# Losses depend on the machine's load and disk (bench/soak.sh measures
# them): said, not judged.
echo "lost under the budget: $(grep -o '[0-9]* lost' "$tmp/err" | head -1)"

# The segment files (docs/format.md, "Segment files"): per CPU shard a run
# cpuNNN.shard.LO .. .HI with LO > 1 (the oldest dropped), nothing missing
# in it, none empty; cpuNNN.shard cut back to its 64-byte header.
for f in "$tmp"/md/cpu*.shard; do
	b=$(basename "$f")
	nums=$(cd "$tmp/md" && ls | sed -n "s/^$b\.\([1-9][0-9]*\)\$/\1/p" | sort -n)
	[ -n "$nums" ] || fail "$b: no segment files: $(ls "$tmp/md" | tr '\n' ' ')"
	lo=$(echo "$nums" | head -1) hi=$(echo "$nums" | tail -1) cnt=$(echo "$nums" | wc -l)
	[ "$lo" -gt 1 ] || fail "$b: segment file $lo still there: the oldest were not dropped"
	[ $((hi - lo + 1)) = "$cnt" ] || fail "$b: segment files $lo..$hi, but $cnt of them"
	for n in $nums; do
		[ -s "$tmp/md/$b.$n" ] || fail "$b.$n: empty segment file left"
	done
	[ "$(stat -c %s "$f")" = 64 ] || fail "$b: $(stat -c %s "$f") bytes, want its 64-byte header alone"
	echo "$b: segment files $lo..$hi"
done

"$PREC" info "$tmp/md" >"$tmp/info" || fail "prec info"
grep -A1 '^max disk:' "$tmp/info"
segs=$(awk '/^max disk:/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "segments,") { print $i; exit } }' "$tmp/info")
[ "${segs:-0}" -gt 0 ] || fail "nothing dropped: the storm did not pass the budget"
written=$(sed -n 's/.* records, \([0-9.]*\) MB written.*/\1/p' "$tmp/err")
echo "written: $written MB"
awk -v w="$written" -v b="$budget" 'BEGIN { exit !(w * 1e6 > 5 * b) }' ||
	fail "the storm wrote $written MB, not many times the budget"
"$PREC" info --check "$tmp/md" >"$tmp/check" 2>&1 || fail "info --check: $(cat "$tmp/check")"
grep -q ': ok$' "$tmp/check" || fail "info --check: $(cat "$tmp/check")"

"$PREC" merge "$tmp/md" -o "$tmp/perf.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
cat "$tmp/merge.err"
grep -q '^prec: --max-disk window: from [0-9]*\.[0-9]* s$' "$tmp/merge.err" ||
	fail "merge does not say where the window starts"
# prec dump prints the records the merge wrote: as many, as many samples,
# from the window it says in the merge's words.
"$PREC" dump "$tmp/md" >"$tmp/dump" 2>"$tmp/dump.err" || fail_rc "$tmp/dump.err" "dump"
w=$(grep '^prec: --max-disk window: ' "$tmp/merge.err")
grep -qxF "$w" "$tmp/dump.err" || fail "dump does not say '$w': $(cat "$tmp/dump.err")"
read -r mrec msam < <(sed -n 's/.*: \([0-9]*\) records (\([0-9]*\) samples).*/\1 \2/p' "$tmp/merge.err")
drec=$(wc -l <"$tmp/dump") dsam=$(awk '$4 == "SAMPLE"' "$tmp/dump" | wc -l)
[ "$drec $dsam" = "$mrec $msam" ] ||
	fail "dump: $drec records ($dsam samples), merge $mrec ($msam samples)"
perf script -i "$tmp/perf.data" >"$tmp/script" 2>"$tmp/script.err" || fail_rc "$tmp/script.err" "perf script"
[ ! -s "$tmp/script.err" ] || fail "perf script stderr: $(head -5 "$tmp/script.err")"
[ -s "$tmp/script" ] || fail "perf script printed nothing"

# The spinner's samples in the window: its comm, and its own function.
spid=$(cat "$tmp/spin.pid")
perf report -i "$tmp/perf.data" --stdio --pid "$spid" --sort comm,dso,sym \
	>"$tmp/report" 2>"$tmp/report.err" || fail_rc "$tmp/report.err" "perf report"
grep -v '^#' "$tmp/report" | grep -v '^$' | head -8
top=$(grep -v '^#' "$tmp/report" | awk 'NF { print $2, $3, $5; exit }')
[ ! -s "$tmp/report.err" ] || fail "perf report stderr: $(head -5 "$tmp/report.err")"
[ "$top" = "spinthread spinthread spin" ] ||
	fail "the spinner's top entry is '$top', want its comm, binary and spin()"
perf script -i "$tmp/perf.data" -F pid,comm 2>/dev/null | awk -v p="$spid" '$NF == p' >"$tmp/spin.samples"
n=$(wc -l <"$tmp/spin.samples")
[ "$n" -ge 100 ] || fail "$n samples of the spinner in the window"
unres=$(grep -c ":$spid" "$tmp/spin.samples")
[ "$unres" = 0 ] || fail "$unres samples of the spinner without its comm"
# merge --follow of such a recording falls behind its trimming: it goes on
# from the oldest chunk kept, says so, and ends clean, with at least the
# storm samples the finished merge has (those it read before they went too).
"$PREC" record -q -d "$tmp/mf" -a --max-disk "$BUDGET" \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- \
	sh -c 'for i in 1 2 3 4 5; do for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c $c "$1" 300000 & echo $! >>"$2"; done; wait; sleep 0.3; done' \
	sh "$H/storm" "$tmp/mf.storms" 2>"$tmp/mf.rec.err" &
rec=$!
sleep 0.3
"$PREC" merge --follow "$tmp/mf" 2>"$tmp/mf.err" | perf script -i - -F comm,pid 2>"$tmp/mf.ps.err" |
	awk '{ print $2 }' >"$tmp/mf.pids"
frc=${PIPESTATUS[0]}
wait $rec || fail_rc "$tmp/mf.rec.err" "record (followed)"
[ "$frc" = 0 ] || fail "merge --follow exit $frc: $(cat "$tmp/mf.err")"
grep -q -e corrupt -e error "$tmp/mf.err" && fail "merge --follow: $(cat "$tmp/mf.err")"
grep -q 'dropped chunks before this merge read them' "$tmp/mf.err" ||
	fail "merge --follow did not fall behind the trimming (a slower storm?): $(cat "$tmp/mf.err")"
# Only perf's counts of LOST records and of lost samples (the
# LOST_SAMPLES records) may be there: the budget's drops can hold a
# drainer up long enough to lose some (bench/results/soak.md).
other=$(grep -v -e '^Warning:$' -e 'and lost [0-9]* chunks!$' -e '^Check IO/CPU overload!$' -e '^$' \
	-e '^Processed [0-9]* samples and lost [0-9. ]*%!$' "$tmp/mf.ps.err")
[ -z "$other" ] || fail "perf script -i - (followed) stderr: $(head -3 "$tmp/mf.ps.err")"
# The finished merge's window holds the end of the last storms: samples of
# the storm processes (their pids as the workload started them), and the
# follower read at least as many of them. Counted by pid, not by comm: a
# storm exec'd after the carry's last synthesis before the window has its
# COMM in dropped chunks, and its samples in the window show as ":PID"
# (docs/format.md, "The carry", what is lost); a follower behind the
# trimming can miss a COMM likewise.
"$PREC" merge "$tmp/mf" 2>/dev/null | perf script -i - -F comm,pid 2>/dev/null >"$tmp/mf.fin"
fin=$(awk 'NR == FNR { p[$1] = 1; next } ($2 in p)' "$tmp/mf.storms" "$tmp/mf.fin" | wc -l)
nf=$(awk 'NR == FNR { p[$1] = 1; next } ($1 in p)' "$tmp/mf.storms" "$tmp/mf.pids" | wc -l)
named=$(awk '$1 == "storm"' "$tmp/mf.fin" | wc -l)
[ "$nf" -ge "$fin" ] && [ "$fin" -gt 0 ] ||
	fail "merge --follow: $nf storm samples, the finished merge $fin of the storm processes"
echo "merge --follow behind the trimming: $nf storm samples, the finished merge's window $fin ($named named storm)"

# kill -9 once data went and a carry was written (a CPU shard's own file cut
# back to its header): the workload goes on, prec's own cleanup never runs.
# A spinner on each CPU: killed, a CPU whose drainer had its newest data
# still in its staging (lost with the process) may keep only a few ms of
# the window, and a lone spinner may have run there alone.
cat >"$tmp/k9.sh" <<EOF
for c in $(seq -s " " 0 $(($(nproc) - 1))); do
	taskset -c \$c "$H/spinthread" 600000 0 >/dev/null & echo \$! >>"$tmp/k9.spins"
done
cat "$tmp/k9.spins" >>"$tmp/k9.pids"
sleep 0.5
for c in \$(seq 1 $(nproc)); do "$H/storm" $((N * 20)) & echo \$! >>"$tmp/k9.pids"; done
wait
EOF
"$PREC" record -q -d "$tmp/k9" -a --max-disk "$BUDGET" -e cpu-clock \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- sh "$tmp/k9.sh" 2>"$tmp/k9.err" &
rec=$!
trimmed() {
	[ -e "$tmp/k9/carry.shard" ] || return 1
	for f in "$tmp"/k9/cpu*.shard; do [ "$(stat -c %s "$f")" = 64 ] && return 0; done
	return 1
}
i=0
while [ $i -lt 300 ] && ! trimmed; do sleep 0.1; i=$((i + 1)); done
trimmed || fail "kill -9 case: nothing dropped or no carry after 30 s: $(ls "$tmp/k9")"
sleep 1
kill -9 $rec
wait $rec 2>/dev/null
k9spin=$(head -1 "$tmp/k9.spins")
k9spins=$(paste -sd, "$tmp/k9.spins")
kill $(cat "$tmp/k9.pids") 2>/dev/null
"$PREC" merge "$tmp/k9" -o "$tmp/k9.data" 2>"$tmp/k9.merge.err" || fail_rc "$tmp/k9.merge.err" "merge (killed)"
cat "$tmp/k9.merge.err"
grep -q 'recording did not finish' "$tmp/k9.merge.err" || fail "merge (killed): no 'did not finish' warning"
grep -q '^prec: --max-disk window: from [0-9]*\.[0-9]* s$' "$tmp/k9.merge.err" ||
	fail "merge (killed) does not start at the window"
perf script -i "$tmp/k9.data" -F pid,comm >"$tmp/k9.script" 2>"$tmp/k9.script.err" ||
	fail_rc "$tmp/k9.script.err" "perf script (killed)"
# perf's one warning of LOST records is the ring's loss, recorded as it
# happened (on a loaded machine a storm can outrun a drainer): allowed
# only when the recording holds LOST records; any other line fails.
lost_recs=$("$PREC" dump "$tmp/k9" 2>/dev/null | awk '$4 == "LOST"' | wc -l)
grep -v -e '^Warning:$' -e '^Processed [0-9]* events and lost [0-9]* chunks!$' \
	-e '^Check IO/CPU overload!$' -e '^$' "$tmp/k9.script.err" >"$tmp/k9.script.other"
[ ! -s "$tmp/k9.script.other" ] && { [ "$lost_recs" -gt 0 ] || [ ! -s "$tmp/k9.script.err" ]; } ||
	fail "perf script (killed) stderr ($lost_recs LOST records): $(head -5 "$tmp/k9.script.err")"
perf report -i "$tmp/k9.data" --stdio --pid "$k9spins" --sort comm,dso,sym \
	>"$tmp/k9.report" 2>"$tmp/k9.report.err" || fail_rc "$tmp/k9.report.err" "perf report (killed)"
top=$(grep -v '^#' "$tmp/k9.report" | awk 'NF { print $2, $3, $5; exit }')
[ "$top" = "spinthread spinthread spin" ] ||
	fail "killed: the spinner's top entry is '$top', want its comm, binary and spin()"
spinners() { # the lines of perf script -F pid,comm whose pid is a spinner's
	awk -v ps="$k9spins" 'BEGIN { n = split(ps, a, ","); for (i = 1; i <= n; i++) s[a[i]] = 1 }
		($NF in s)' "$1"
}
k9n=$(spinners "$tmp/k9.script" | wc -l)
[ "$k9n" -ge 20 ] || fail "killed: $k9n samples of the spinners in the window"
[ "$(spinners "$tmp/k9.script" | awk '$1 ~ /^:/' | wc -l)" = 0 ] ||
	fail "killed: samples of the spinners without their comm"
# prec dump of it prints what that merge writes, as perf script shows it:
# the same records in the same order (so as many of each type, from the
# same first time), the window said in the merge's words, the carry's
# records (the spinner's comm among them) shown as such.
"$PREC" dump "$tmp/k9" >"$tmp/k9.dump" 2>"$tmp/k9.dump.err" || fail_rc "$tmp/k9.dump.err" "dump (killed)"
w=$(grep '^prec: --max-disk window: ' "$tmp/k9.merge.err")
grep -qxF "$w" "$tmp/k9.dump.err" || fail "dump (killed) does not say '$w': $(cat "$tmp/k9.dump.err")"
script_lines "$tmp/k9" >"$tmp/k9.ps.n"
dump_lines "$tmp/k9.dump" >"$tmp/k9.dump.n"
[ -s "$tmp/k9.ps.n" ] || fail "killed: perf script of the merge printed nothing"
cmp -s "$tmp/k9.ps.n" "$tmp/k9.dump.n" ||
	fail "dump (killed) is not the merge: merge [$(type_counts "$tmp/k9.ps.n")] dump [$(type_counts "$tmp/k9.dump.n")]; first difference (< merge, > dump): $(diff "$tmp/k9.ps.n" "$tmp/k9.dump.n" | grep '^[<>]' | head -4 | tr '\n' ' ')"
k9first=$(awk '$2 == "SAMPLE" { print $1; exit }' "$tmp/k9.dump.n")
k9carry=$(awk -v p="$k9spin" '$2 == "carry" && $4 == "COMM" && $3 ~ "^" p "/"' "$tmp/k9.dump" | wc -l)
[ "$k9carry" -ge 1 ] || fail "dump (killed): no carry COMM of the spinner: $(grep -m3 ' carry ' "$tmp/k9.dump")"
# prec info of it: carry.shard among its shards, the merge's window, the
# drops not counted (no final manifest); info --check reads the carry too.
"$PREC" info "$tmp/k9" >"$tmp/k9.info" 2>&1 || fail_rc "$tmp/k9.info" "info (killed)"
grep -A1 '^max disk:' "$tmp/k9.info"
grep -qxF "             window: from ${w#prec: --max-disk window: from } (every CPU has data)" \
	"$tmp/k9.info" || fail "info (killed) does not give '$w': $(grep -A1 '^max disk:' "$tmp/k9.info")"
grep -q '^max disk: .*; dropped the oldest chunks (counted in the final manifest only)$' "$tmp/k9.info" ||
	fail "info (killed): $(grep '^max disk:' "$tmp/k9.info")"
grep -q '^  carry\.shard  *-3 ' "$tmp/k9.info" || fail "info (killed) does not list carry.shard"
"$PREC" info --check "$tmp/k9" >"$tmp/k9.check" 2>&1 || fail "info --check (killed): $(cat "$tmp/k9.check")"
nsh=$(($(find "$tmp/k9" -maxdepth 1 -name 'cpu*.shard' | wc -l) + 2))
grep -q "^check: $nsh shards, .*: ok\$" "$tmp/k9.check" ||
	fail "info --check (killed), want $nsh shards (the carry's too): $(cat "$tmp/k9.check")"
echo "killed with -9: merged from the window, $k9n spinner samples resolved; dump: the merge's $(wc -l <"$tmp/k9.dump.n") records [$(type_counts "$tmp/k9.dump.n")], first sample at $k9first, $(grep -c ' carry ' "$tmp/k9.dump") from the carry"

echo "PASS: --max-disk $BUDGET held (largest $max bytes) over $written MB, $segs segments dropped; merge read clean by perf; $n spinner samples resolved"
