#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The records perf record synthesizes from its event list, in prec's file
# as in perf's own: perf report --stats lists the same kinds of record
# (ID_INDEX, THREAD_MAP, CPU_MAP, EVENT_UPDATE, FINISHED_INIT with the
# kernel's), file and pipe, for a command, for -a and for -C 1; perf
# report -D shows the same clock unit and scale, the same CPU map and a
# thread map of the command's pid (-1 with -a), and every id in the
# ID_INDEX with its CPU and, as perf's, the index of that CPU's ring (its
# place in the CPU map: perf's AUX area sampling queues a sample's AUX
# data by it). Before, prec's files had none of these records and --stats
# listed five kinds fewer than perf's; then prec's ID_INDEX gave each id
# its event's position as idx (idx 2 on CPU 1 with -C 1, perf's 0).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir userrecs
# A program loaded throughout: both tools' files have its KSYMBOL and
# BPF_EVENT, whatever programs other processes load or unload meanwhile
# (one loaded during perf's run only gave its file these kinds and not
# prec's)
bpf=(KSYMBOL BPF_EVENT)
hold_bpf userrec || { bpf=(); echo "no BPF here: the kinds have no KSYMBOL or BPF_EVENT"; }

# kinds FILE-OR-DASH: the record kinds perf report --stats counts, one a
# line, sorted; FINISHED_ROUND aside (how often is the writer's choice) and
# BUILD_ID (prec's pipe carries the build-ids, perf's has none)
kinds() {
	perf report --stats -i "$1" 2>/dev/null |
		awk '/^Aggregated/ { on = 1; next } on && / events:/ { print $1 } /stats:$/ { on = 0 }' |
		grep -v -e '^TOTAL$' -e '^FINISHED_ROUND$' -e '^BUILD_ID$' | sort
}

# maps FILE: the unit, scale and CPU map lines of perf report -D, and the
# thread map's size
maps() {
	perf report -D -i "$1" 2>/dev/null |
		sed -n -e 's/^\.\.\. \(unit\|scale\): *\(.*\)/\1 \2/p' -e 's/.*PERF_RECORD_CPU_MAP: /cpus /p' \
			-e 's/.*PERF_RECORD_THREAD_MAP nr: \([0-9]*\) .*/threads \1/p'
}

# rings FILE-OR-DASH: the ID_INDEX's distinct "idx N cpu C" pairs
rings() {
	perf report -D -i "$1" 2>/dev/null |
		sed -n 's/^ \.\.\. id: [0-9]*  idx: \([0-9]*\)  cpu: \([-0-9]*\) .*/idx \1 cpu \2/p' | sort -u
}

# thread FILE: the thread map's first pid
thread() {
	perf report -D -i "$1" 2>/dev/null | sed -n 's/.*PERF_RECORD_THREAD_MAP nr: [0-9]* thread: \([-0-9]*\).*/\1/p'
}

for mode in command system cpu1; do
	opts=(-e cpu-clock -c 100000)
	[ "$mode" = system ] && opts+=(-a)
	[ "$mode" = cpu1 ] && opts+=(-C 1)
	perf record -q -o "$tmp/p.data" "${opts[@]}" -- "$H/storm" 20000 >/dev/null 2>"$tmp/p.err" ||
		fail_rc "$tmp/p.err" "perf record ($mode)"
	perf record -q -o - "${opts[@]}" -- "$H/storm" 2000 2>"$tmp/pp.err" >"$tmp/pp.data" ||
		fail_rc "$tmp/pp.err" "perf record -o - ($mode)"
	rm -rf "$tmp/q" "$tmp/q.data"
	"$PREC" record -q -d "$tmp/q" "${opts[@]}" -- "$H/storm" 20000 >/dev/null 2>"$tmp/q.err" ||
		fail_rc "$tmp/q.err" "prec record ($mode)"
	"$PREC" merge -q "$tmp/q" -o "$tmp/q.data" || fail "prec merge ($mode)"
	# through cat: to a file, prec merge writes the file format
	"$PREC" merge -q "$tmp/q" | cat >"$tmp/qp.data" || fail "prec merge to a pipe ($mode)"
	kinds "$tmp/p.data" >"$tmp/p.kinds"
	kinds "$tmp/q.data" >"$tmp/q.kinds"
	for k in ID_INDEX "${bpf[@]}"; do
		grep -qx "$k" "$tmp/p.kinds" || fail "$mode: perf's own --stats has no $k: $(cat "$tmp/p.kinds")"
	done
	# (-C 1 sees a task's EXIT or FORK only when it ran on CPU 1: which
	# kernel records each run has is the scheduler's)
	if [ "$mode" != cpu1 ]; then
		diff -u "$tmp/p.kinds" "$tmp/q.kinds" >"$tmp/d" ||
			fail "$mode: perf report --stats counts other kinds of record (- perf, + prec): $(cat "$tmp/d")"
		kinds - <"$tmp/pp.data" >"$tmp/pp.kinds"
		kinds - <"$tmp/qp.data" >"$tmp/qp.kinds"
		diff -u "$tmp/pp.kinds" "$tmp/qp.kinds" >"$tmp/d" ||
			fail "$mode: in a pipe, perf report --stats counts other kinds of record (- perf, + prec): $(cat "$tmp/d")"
	fi
	maps "$tmp/p.data" >"$tmp/p.maps"
	maps "$tmp/q.data" >"$tmp/q.maps"
	diff -u "$tmp/p.maps" "$tmp/q.maps" >"$tmp/d" ||
		fail "$mode: perf report -D shows other units, maps (- perf, + prec): $(cat "$tmp/d")"
	want=-1
	[ "$mode" = command ] &&
		want=$(perf script -F pid,comm -i "$tmp/q.data" 2>/dev/null | awk '$1 == "storm" { print $2; exit }')
	got=$(thread "$tmp/q.data")
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		fail "$mode: prec's thread map has $got, want the command's pid $want"
	fi
	# every id of the attrs in the ID_INDEX, with a CPU
	ids=$(perf evlist -v -i "$tmp/q.data" 2>/dev/null | grep -c .)
	indexed=$(perf report -D -i "$tmp/q.data" 2>/dev/null | grep -c '^ \.\.\. id: [0-9]*  idx: [0-9]*  cpu: [0-9]')
	[ "$indexed" -ge "$ids" ] || fail "$mode: $indexed ids with a CPU in the ID_INDEX for $ids events"
	rings "$tmp/p.data" >"$tmp/p.rings"
	rings "$tmp/q.data" >"$tmp/q.rings"
	[ -s "$tmp/p.rings" ] || fail "$mode: no ID_INDEX entry in perf's own file"
	diff -u "$tmp/p.rings" "$tmp/q.rings" >"$tmp/d" ||
		fail "$mode: the ID_INDEX's rings (idx) of the CPUs differ (- perf, + prec): $(cat "$tmp/d")"
	rings - <"$tmp/pp.data" >"$tmp/pp.rings"
	rings - <"$tmp/qp.data" >"$tmp/qp.rings"
	diff -u "$tmp/pp.rings" "$tmp/qp.rings" >"$tmp/d" ||
		fail "$mode: in a pipe, the ID_INDEX's rings (idx) of the CPUs differ (- perf, + prec): $(cat "$tmp/d")"
	echo "$mode: $(wc -l <"$tmp/q.kinds") kinds of record as perf's, file and pipe; $(tr '\n' ' ' <"$tmp/q.maps")"
done
echo "PASS"
