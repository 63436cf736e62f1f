#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec's recordings against perf's own (e2e/record_attr_perf compares the
# attrs of -vv): for events this machine opens, perf evlist -v of prec's
# merged file equals that of perf's recording of the same string, names
# included, but for the fields prec sets by design (tests/lib/
# attr_blocks.awk, docs/events.md). tracepoint/config=N/ merges into a file
# perf script reads (its tracing data). {cpu-clock,page-faults}:S recorded
# by prec and merged: perf evlist shows both with READ and GROUP, perf
# script -F period,event shows the leader's samples each followed by the
# member's value read with it, and perf evlist -g / perf report --group
# show one group of two (GROUP_DESC), file and pipe, as for perf's own.
# Without a PMU, cycles is perf's cpu-clock, named from its attr, in both.
# A named group, NAME{a,b}: its name in GROUP_DESC as in perf's file
# (perf report --header-only, perf evlist -g), and perf report --group
# from a pipe names it.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir groupperf
AWK=$PREC_TOP/tests/lib/attr_blocks.awk
tp_id=$(cat /sys/kernel/tracing/events/sched/sched_switch/id) || fail "no sched_switch id"

# Events this machine opens: perf evlist -v of prec's merged file against
# perf's own recording of the same string, names included.
opened=(cpu-clock:u page-faults sched:sched_switch sched:sched_switch:u task-clock:k
	bpf-output cpu-clock/period=100000/ cpu-clock/name=foo/ 'cpu-clock/name="foo"/' cpu-clock:S
	'cpu-clock,page-faults' '{cpu-clock,page-faults}' '{cpu-clock,page-faults}:S'
	'sched:sched_process_*' 'sched*:sched_wak*'
	cycles cycles:u cpu-cycles:k cycles:P cycles:S 'cycles/name=foo/' '{cycles,page-faults}'
	'group1{cpu-clock,page-faults}' 'g_2{cpu-clock,page-faults}:u'
	duration_time 'user_time,system_time:u' cpu-clock/period=0/ 'page-faults/freq=0/')
bad=0
for ev in "${opened[@]}"; do
	perf record -B -N -q -o "$tmp/pe.data" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/pe.err" ||
		fail_rc "$tmp/pe.err" "perf record -e $ev"
	"$PREC" record -q -f -d "$tmp/pd" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/pd.err" ||
		fail_rc "$tmp/pd.err" "prec record -e $ev"
	"$PREC" merge -f "$tmp/pd" -o "$tmp/pd.data" 2>"$tmp/pd.err" || fail_rc "$tmp/pd.err" "prec merge"
	perf evlist -v -i "$tmp/pe.data" | awk -v evlist=1 -f "$AWK" >"$tmp/pe.a"
	perf evlist -v -i "$tmp/pd.data" | awk -v evlist=1 -f "$AWK" >"$tmp/pd.a"
	[ -s "$tmp/pe.a" ] || fail "perf evlist -v of perf's own -e $ev: nothing"
	if ! diff -u "$tmp/pe.a" "$tmp/pd.a" >"$tmp/p.diff"; then
		echo "perf evlist -v differs for '$ev' (- perf's recording, + prec's):"
		sed 's/^/    /' "$tmp/p.diff"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || fail "$bad of ${#opened[@]} recordings' attrs differ from perf's"
echo "${#opened[@]} recorded event strings: perf evlist -v of prec's file equals perf's own"

# A tracepoint named by number is a PMU event for perf, but its file still
# needs the tracing data perf reads every tracepoint type's format from.
"$PREC" record -q -f -d "$tmp/t.d" -e "tracepoint/config=$tp_id/" -a -- sleep 0.3 \
	>/dev/null 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "prec record"
"$PREC" merge -f "$tmp/t.d" -o "$tmp/t.data" 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "prec merge"
perf script -i "$tmp/t.data" >"$tmp/t.script" 2>"$tmp/t.err" || fail_rc "$tmp/t.err" "perf script"
n=$(grep -c " tracepoint/config=$tp_id/: " "$tmp/t.script")
[ "$n" -ge 1 ] || fail "perf script: no tracepoint/config=$tp_id/ sample"
echo "tracepoint/config=$tp_id/: $n samples read by perf script"

# perf 6.1's `perf report --group -i -` sets forced_leader on the first
# evsel of the still empty evlist, which is the list head: it writes 1
# into bucket 49 of the evlist's id hash, and perf crashes on the first
# id that hashes there (hash_64(id, 8), about one recording in 40 with
# six ids, perf's own piped recordings as well). The kernel numbers the
# ids, so a recording whose ids miss that bucket is taken.
perf61_group_pipe_crashes() {
	local id
	for id in $(perf report --header-only -I -i "$1" 2>/dev/null |
		sed -n 's/.*, id = { \([0-9, ]*\) }.*/\1/p' | tr ',' ' '); do
		[ $(((id * 0x61C8864680B583EB >> 56) & 255)) = 49 ] && return 0
	done
	return 1
}

# A group sampled by its leader: recorded by prec, read by perf.
for try in 1 2 3 4; do
	"$PREC" record -q -f -d "$tmp/g.d" -e '{cpu-clock,page-faults}:S' -- "$H/faults" 2000 \
		>/dev/null 2>"$tmp/g.err" || fail_rc "$tmp/g.err" "prec record"
	"$PREC" merge -f "$tmp/g.d" -o "$tmp/g.data" 2>"$tmp/g.err" || fail_rc "$tmp/g.err" "prec merge"
	perf61_group_pipe_crashes "$tmp/g.data" || break
	echo "try $try: an id in perf 6.1's bucket 49, recorded again"
done
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

# Named groups: GROUP_DESC as perf writes it, names and all
named=('mygrp{cpu-clock,page-faults}' 'g_2{cpu-clock,page-faults}:u'
	'cpu-clock,xyz{task-clock,minor-faults}' 'aa{cpu-clock,task-clock},{minor-faults,major-faults}')
for ev in "${named[@]}"; do
	perf record -B -N -q -o "$tmp/ne.data" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/ne.err" ||
		fail_rc "$tmp/ne.err" "perf record -e $ev"
	"$PREC" record -q -o "$tmp/nd.data" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/nd.err" ||
		fail_rc "$tmp/nd.err" "prec record -e $ev"
	for f in ne nd; do
		perf report --header-only -i "$tmp/$f.data" 2>/dev/null | grep '^# group: ' >"$tmp/$f.groups"
		# prec's tracking dummy, last, aside
		perf evlist -g -i "$tmp/$f.data" 2>/dev/null | grep -vx dummy >"$tmp/$f.evlist"
	done
	[ -s "$tmp/ne.groups" ] || fail "perf's own -e $ev: no group in its header"
	cmp -s "$tmp/ne.groups" "$tmp/nd.groups" ||
		fail "-e $ev: perf's header has $(tr '\n' ' ' <"$tmp/ne.groups"), prec's $(tr '\n' ' ' <"$tmp/nd.groups")"
	cmp -s "$tmp/ne.evlist" "$tmp/nd.evlist" ||
		fail "-e $ev: perf evlist -g shows $(tr '\n' ' ' <"$tmp/ne.evlist") for perf's, $(tr '\n' ' ' <"$tmp/nd.evlist") for prec's"
done
# --group over named groups: one group, led by the first event, named
# by its own NAME{} alone, as perf's (a later group's name on a member
# made a manifest the merge refused)
for ev in 'cpu-clock,xyz{task-clock,minor-faults}' 'aa{cpu-clock,task-clock},minor-faults'; do
	perf record --group -B -N -q -o "$tmp/ne.data" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/ne.err" ||
		fail_rc "$tmp/ne.err" "perf record --group -e $ev"
	"$PREC" record --group -q -o "$tmp/nd.data" -e "$ev" -- "$H/faults" 100 >/dev/null 2>"$tmp/nd.err" ||
		fail_rc "$tmp/nd.err" "prec record --group -e $ev"
	for f in ne nd; do
		perf report --header-only -i "$tmp/$f.data" 2>/dev/null | grep '^# group: ' >"$tmp/$f.groups"
	done
	[ -s "$tmp/ne.groups" ] || fail "perf's own --group -e $ev: no group in its header"
	cmp -s "$tmp/ne.groups" "$tmp/nd.groups" ||
		fail "--group -e $ev: perf's header has $(tr '\n' ' ' <"$tmp/ne.groups"), prec's $(tr '\n' ' ' <"$tmp/nd.groups")"
done
echo "--group over named groups: one group, the first event's name alone, as perf's"
for try in 1 2 3 4; do
	"$PREC" record -q -f -d "$tmp/n.d" -e 'mygrp{cpu-clock,page-faults}' -- "$H/faults" 1000 \
		>/dev/null 2>"$tmp/n.err" || fail_rc "$tmp/n.err" "prec record"
	"$PREC" merge -f "$tmp/n.d" -o "$tmp/n.data" 2>"$tmp/n.err" || fail_rc "$tmp/n.err" "prec merge"
	perf61_group_pipe_crashes "$tmp/n.data" || break
	echo "try $try: an id in perf 6.1's bucket 49, recorded again"
done
"$PREC" merge "$tmp/n.d" -o - 2>/dev/null | perf report -i - --group --stdio >"$tmp/n.report" 2>&1
grep -q "of events 'mygrp { cpu-clock, page-faults }'" "$tmp/n.report" ||
	fail "perf report --group (pipe): no group named mygrp: $(grep 'of event' "$tmp/n.report")"
echo "${#named[@]} named groups: prec's GROUP_DESC as perf's; perf report --group names mygrp from a pipe"

# A dummy the user asks for keeps its place in the merged file, as in
# perf's; prec's own tracking dummy goes last (as perf's system-wide one).
"$PREC" record -q -o "$tmp/d.data" -e dummy -e page-faults -- "$H/faults" 10 >/dev/null 2>"$tmp/d.err" ||
	fail_rc "$tmp/d.err" "prec record -e dummy -e page-faults"
perf record -q -o "$tmp/dp.data" -e dummy -e page-faults -- "$H/faults" 10 >/dev/null 2>"$tmp/dp.err" ||
	fail_rc "$tmp/dp.err" "perf record -e dummy -e page-faults"
[ "$(perf evlist -i "$tmp/d.data" | head -2 | tr '\n' ' ')" = "$(perf evlist -i "$tmp/dp.data" | tr '\n' ' ')" ] ||
	fail "-e dummy -e page-faults: prec's file lists $(perf evlist -i "$tmp/d.data" | tr '\n' ' '), perf's $(perf evlist -i "$tmp/dp.data" | tr '\n' ' ')"
echo "-e dummy -e page-faults: listed as perf lists them, prec's tracking dummy after"

# No -e: perf's default event, cycles:P, or where the machine has no
# cycles perf's fallback to cpu-clock with cycles:P's attr (cpu-clock:ppp,
# precise_ip 3, guest samples kept): the same event in prec's file.
perf record -B -N -q -o "$tmp/de.data" -- "$H/faults" 10 >/dev/null 2>"$tmp/de.err" ||
	fail_rc "$tmp/de.err" "perf record with no -e"
"$PREC" record -q -o "$tmp/dp.data" -- "$H/faults" 10 >/dev/null 2>"$tmp/dpr.err" ||
	fail_rc "$tmp/dpr.err" "prec record with no -e"
perf evlist -v -i "$tmp/de.data" | awk -v evlist=1 -f "$AWK" >"$tmp/de.a"
perf evlist -v -i "$tmp/dp.data" | awk -v evlist=1 -f "$AWK" >"$tmp/dp.a"
diff -u "$tmp/de.a" "$tmp/dp.a" >"$tmp/de.diff" ||
	fail "no -e: the default event differs from perf's (- perf, + prec): $(cat "$tmp/de.diff")"
echo "no -e: $(perf evlist -i "$tmp/dp.data" | head -1), as perf's"

# The command's task has no parent in the file, as in perf's (perf
# synthesizes FORK only for -a's scan of every task): perf report --tasks
# shows it as a root, not under prec's own pid.
for f in de dp; do
	perf report --tasks -i "$tmp/$f.data" 2>/dev/null | awk '$4 ~ /faults$/ { print $3; exit }' >"$tmp/$f.ppid"
done
[ "$(cat "$tmp/de.ppid")" = -1 ] || fail "perf's own file: the command's ppid is '$(cat "$tmp/de.ppid")'"
[ "$(cat "$tmp/dp.ppid")" = -1 ] ||
	fail "prec's file: the command's ppid is '$(cat "$tmp/dp.ppid")', not -1 as in perf's: $(perf report --tasks -i "$tmp/dp.data" 2>/dev/null | tail -4)"
echo "perf report --tasks: the command a root, as in perf's file"
