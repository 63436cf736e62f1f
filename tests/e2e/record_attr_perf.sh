#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf is the judge of prec's event grammar: for each event string of the
# table (with extra options after a '|'), `prec record -vv` and
# `perf record -vv` of the same string print their attrs before opening
# them (perf prints an attr before its open fails, so hardware, raw and
# msr events this machine cannot open are compared too), and the attrs
# must match field by field, event by event, but for the fields prec sets
# by design (tests/lib/attr_blocks.awk, docs/events.md). A string perf
# refuses (a letter twice, an op a cache has not) is refused by prec too.
# Then {cpu-clock,page-faults}:S recorded by prec and merged: perf evlist
# shows both with READ and GROUP, perf script -F period,event shows the
# leader's samples each followed by the member's value read with it, and
# perf evlist -g / perf report --group show one group of two (GROUP_DESC),
# file and pipe, as for perf's own recording of the same.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir attrperf
AWK=$PREC_TOP/tests/lib/attr_blocks.awk

cases=(
	cpu-clock cpu-clock:u cpu-clock:k cpu-clock:uk cpu-clock:kh cpu-clock:h
	cpu-clock:G cpu-clock:H cpu-clock:Gu cpu-clock:I cpu-clock:p cpu-clock:pp
	cpu-clock:ppp cpu-clock:P cpu-clock:S cpu-clock:D cpu-clock:W cpu-clock:e
	page-faults:uk task-clock minor-faults major-faults cs emulation-faults
	bpf-output cgroup-switches
	cycles cpu-cycles instructions:u cache-references cache-misses branches
	branch-misses bus-cycles ref-cycles:k stalled-cycles-frontend
	idle-cycles-backend
	L1-dcache-load-misses L1-dcache-stores LLC-loads LLC-load-misses
	dTLB-store-misses iTLB-loads branch-load-misses l1d-prefetch branch-miss
	node-loads L1-icache-load-misses
	r1a8 r0:u
	mem:0x1000 mem:0x1000:x mem:0x1000/8:w mem:0x1000/2:rw:u
	sched:sched_switch sched:sched_switch:u sched:sched_switch:k
	sched:sched_switch/call-graph=fp/ 'sched:sched_switch|-c 5'
	'cpu-clock/period=7/' 'cpu-clock/freq=100/' 'cpu-clock/no-inherit/'
	'cpu-clock/name=foo/' 'cpu-clock/call-graph=dwarf/'
	'cpu-clock/call-graph=fp,max-stack=5/' 'cpu-clock/max-stack=5/'
	'cpu-clock/stack-size=4096/' 'cpu-clock/call-graph=dwarf,stack-size=1000/'
	'cpu-clock/stack-size=4096/|-g' 'cpu-clock/call-graph=no/|-g'
	'cpu-clock/period=7/u'
	'cpu-clock|-F 99' 'cpu-clock|-c 1000' 'cpu-clock|--all-user'
	'cpu-clock|--all-kernel' 'cpu-clock|-g' 'cpu-clock|--call-graph dwarf,4096'
	'cpu-clock|-P' 'cpu-clock|-i' 'cpu-clock|-a'
	'{cpu-clock,page-faults}' '{cpu-clock,page-faults}:S' '{cpu-clock:u,page-faults}:k'
	'{cpu-clock,sched:sched_switch}:S' '{cpu-clock,page-faults}:D'
	'{cycles,instructions}' '{cycles,cache-misses}:S' '{cpu-clock,page-faults}:S|-a'
	'cpu-clock,page-faults|--group' 'task-clock,{cpu-clock,page-faults}:S'
)
[ -e /sys/bus/event_source/devices/msr/events/tsc ] && cases+=(tsc msr/tsc/ msr/event=0x1/)
tp_id=$(cat /sys/kernel/tracing/events/sched/sched_switch/id) || fail "no sched_switch id"
cases+=("tracepoint/config=$tp_id/" "tracepoint/config=$tp_id/k")
# perf refuses these; prec must too
refused=(cpu-clock:uu cpu-clock:pppp L1-icache-store iTLB-stores cpu-clock:q
	'{cpu-clock' 'cpu-clock}' mem:0x1000/9)

run_both() { # NAME EVENT OPTS: perf's and prec's -vv outputs in $tmp/NAME.{perf,prec}
	local n=$1 ev=$2
	# shellcheck disable=SC2086 # $3 is the options, word-split on purpose
	perf record -B -N --no-bpf-event -vv -o "$tmp/perf.data" $3 -e "$ev" -- true >"$tmp/$n.perf" 2>&1
	echo "rc=$?" >>"$tmp/$n.perf"
	# shellcheck disable=SC2086
	"$PREC" record -vv -N --no-bpf-event -f -d "$tmp/p.d" $3 -e "$ev" -- true >"$tmp/$n.prec" 2>&1
	echo "rc=$?" >>"$tmp/$n.prec"
}

i=0 bad=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	ev=${c%%|*} opts=
	[ "$ev" != "$c" ] && opts=${c#*|}
	run_both "$i" "$ev" "$opts"
	awk -f "$AWK" -v skip=1 "$tmp/$i.prec" >"$tmp/$i.b" # prec's tracking event first
	k=$(awk 'END { print $1 + 0 }' "$tmp/$i.b")
	awk -f "$AWK" "$tmp/$i.perf" | awk -v k="$k" '$1 <= k' >"$tmp/$i.a"
	if [ "$k" = 0 ] || [ ! -s "$tmp/$i.a" ]; then
		echo "no attrs for '$c' (perf: $(grep -c perf_event_attr: "$tmp/$i.perf"), prec: $k)"
		grep -v '^  ' "$tmp/$i.prec" | head -5
		bad=$((bad + 1))
	elif ! diff -u "$tmp/$i.a" "$tmp/$i.b" >"$tmp/$i.diff"; then
		echo "attrs differ for '$c' (- perf, + prec):"
		sed 's/^/    /' "$tmp/$i.diff"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || fail "$bad of ${#cases[@]} event strings differ from perf"
echo "${#cases[@]} event strings: prec's attrs equal perf's"

for ev in "${refused[@]}"; do
	i=$((i + 1))
	run_both "$i" "$ev" ""
	grep -q '^rc=0$' "$tmp/$i.perf" && fail "perf took '$ev' (the test's table is wrong)"
	grep -q '^rc=0$' "$tmp/$i.prec" && fail "prec took '$ev', which perf refuses"
	grep -q 'perf_event_attr:' "$tmp/$i.prec" && fail "prec opened '$ev'"
done
echo "${#refused[@]} event strings perf refuses: prec refuses them"

# A tracepoint named by number is a PMU event for perf, but its file still
# needs the tracing data perf reads every tracepoint type's format from.
"$PREC" record -q -f -d "$tmp/t.d" -e "tracepoint/config=$tp_id/" -a -- sleep 0.3 \
	>/dev/null 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "prec record"
"$PREC" merge -f "$tmp/t.d" -o "$tmp/t.data" 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "prec merge"
perf script -i "$tmp/t.data" >"$tmp/t.script" 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "perf script"
n=$(grep -c " tracepoint/config=$tp_id/: " "$tmp/t.script")
[ "$n" -ge 1 ] || fail "perf script: no tracepoint/config=$tp_id/ sample"
echo "tracepoint/config=$tp_id/: $n samples read by perf script"

# A group sampled by its leader: recorded by prec, read by perf.
"$PREC" record -q -f -d "$tmp/g.d" -e '{cpu-clock,page-faults}:S' -- "$H/faults" 2000 \
	>/dev/null 2>"$tmp/g.err" || fail_rc "$tmp/g.err" "prec record"
"$PREC" merge -f "$tmp/g.d" -o "$tmp/g.data" 2>"$tmp/g.err" || fail_rc "$tmp/g.err" "prec merge"
perf evlist -v -i "$tmp/g.data" >"$tmp/g.evlist" 2>&1 || fail_rc "$tmp/g.evlist" "perf evlist"
for e in cpu-clock page-faults; do
	grep "^$e: " "$tmp/g.evlist" | grep -q 'READ' || fail "$e: no READ in sample_type"
	grep "^$e: " "$tmp/g.evlist" | grep -q 'read_format: ID|GROUP|LOST' || fail "$e: no GROUP read_format"
done
perf script -i "$tmp/g.data" -F period,event >"$tmp/g.script" 2>"$tmp/g.err" ||
	fail_rc "$tmp/g.err" "perf script"
# Each leader sample is delivered with the member's value read with it
# right after (perf skips a member whose count did not move since the
# last read): a page-faults line always follows a cpu-clock one.
orphans=$(awk '{ e = $2 } e == "page-faults:" && prev != "cpu-clock:" { n++ } { prev = e }
	END { print n + 0 }' "$tmp/g.script")
leaders=$(grep -c ' cpu-clock:' "$tmp/g.script")
members=$(grep -c ' page-faults:' "$tmp/g.script")
if [ "$leaders" -lt 2 ] || [ "$members" -lt 1 ]; then
	fail "perf script: $leaders cpu-clock and $members page-faults lines"
fi
[ "$orphans" = 0 ] || fail "perf script: $orphans page-faults lines not after a cpu-clock one"
faults=$(grep ' page-faults:' "$tmp/g.script" | awk '{ s += $1 } END { print s + 0 }')
# The group as perf shows its own: one group of two (GROUP_DESC), report
# columns for both members, in a file and in a pipe.
[ "$(perf evlist -g -i "$tmp/g.data" 2>&1 | head -1)" = "{cpu-clock,page-faults}" ] ||
	fail "perf evlist -g: $(perf evlist -g -i "$tmp/g.data" 2>&1 | tr '\n' ' ')"
for how in file pipe; do
	if [ $how = file ]; then
		perf report -i "$tmp/g.data" --group --stdio >"$tmp/g.report" 2>&1
	else
		"$PREC" merge "$tmp/g.d" -o - 2>/dev/null | perf report -i - --group --stdio >"$tmp/g.report" 2>&1
	fi
	grep -q "of events 'anon group { cpu-clock, page-faults }'" "$tmp/g.report" ||
		fail "perf report --group ($how): no group of cpu-clock and page-faults"
	grep -E '^ +[0-9.]+% +[0-9.]+% +[a-z]' "$tmp/g.report" | head -1 | grep -q . ||
		fail "perf report --group ($how): no line with both members' columns"
done
echo "{cpu-clock,page-faults}:S: $leaders leader samples, each with its page-faults read ($faults in all); perf shows one group of two"
