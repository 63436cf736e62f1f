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
# e2e/record_group_perf checks recorded files against perf's.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir attrperf
AWK=$PREC_TOP/tests/lib/attr_blocks.awk

# One case: an event string, then after '|' options (more -e options batch
# events this machine opens into one run: perf stops at the first it
# cannot open, so those have a run each).
sw="-e cpu-clock:u -e cpu-clock:k -e cpu-clock:uk -e cpu-clock:kh -e cpu-clock:h
-e cpu-clock:G -e cpu-clock:H -e cpu-clock:Gu -e cpu-clock:I -e cpu-clock:p -e cpu-clock:pp
-e cpu-clock:ppp -e cpu-clock:P -e cpu-clock:S -e cpu-clock:D -e cpu-clock:W -e cpu-clock:e
-e page-faults:uk -e task-clock -e minor-faults -e major-faults -e cs -e emulation-faults
-e bpf-output -e cgroup-switches"
terms="-e cpu-clock/period=100000/ -e cpu-clock/freq=100/ -e cpu-clock/no-inherit/
-e cpu-clock/name=foo/ -e cpu-clock/call-graph=dwarf/ -e cpu-clock/call-graph=fp,max-stack=5/
-e cpu-clock/max-stack=5/ -e cpu-clock/stack-size=4096/
-e cpu-clock/call-graph=dwarf,stack-size=1000/ -e cpu-clock/period=100000/u
-e mem:0x1000 -e mem:0x1000:x -e mem:0x1000/8:w -e mem:0x1000/2:rw:u
-e sched:sched_switch:u -e sched:sched_switch:k -e sched:sched_switch/call-graph=fp/
-e cpu-clock/metric-id=x/ -e cpu-clock/percore/ -e cpu-clock/nr=1/ -e cpu-clock/config1=1/
-e page-faults/config=0/ -e cpu-clock/max-stack=0/ -e cpu-clock: -e sched:sched_switch:
-e sched:sched_switch/call-graph=fp/:u -e sched:sched_switch/call-graph=fp/:
-e cpu-clock/period/ -e cpu-clock/freq/ -e cpu-clock/max-stack/"
cases=(
	"cpu-clock|$sw" "sched:sched_switch|$terms"
	cycles cpu-cycles instructions:u cache-references cache-misses branches
	branch-misses bus-cycles ref-cycles:k stalled-cycles-frontend
	idle-cycles-backend
	L1-dcache-load-misses L1-dcache-stores LLC-loads LLC-load-misses
	dTLB-store-misses iTLB-loads branch-load-misses l1d-prefetch branch-miss
	node-loads L1-icache-load-misses LLC-Reference l1d-loads
	'mem:0x1000:rw:|-e mem:0x1000/4:' 'mem:0x1000/0|-e mem:0x1000/0:x -e mem:0x1000:wr' r1a8 r0:u r1a8: 'r1a8/period=1/:u' L1-dcache-loads: 'L1-dcache-loads/period=1/:k'
	'sched:sched_switch|-c 5'
	'cpu-clock/stack-size=4096/|-g' 'cpu-clock/call-graph=no/|-g'
	'page-faults/call-graph=fp/|--call-graph dwarf,512' 'page-faults/max-stack=3/|--call-graph dwarf'
	'page-faults/call-graph=no/|--call-graph dwarf' 'page-faults/stack-size=1024/|--call-graph dwarf'
	'page-faults/call-graph=dwarf/|-g'
	'page-faults/call-graph=fp/|--call-graph dwarf --user-regs=ip,sp' 'page-faults/call-graph=dwarf/|--user-regs=ip'
	'page-faults/stack-size=1024/|--call-graph dwarf --user-regs=ax' 'page-faults/call-graph=no/|--call-graph dwarf --user-regs=ip'
	'cpu-clock|--call-graph dwarf --no-data' 'cpu-clock|--no-data --call-graph dwarf'
	'page-faults/max-stack=3/|--call-graph dwarf --no-data' 'page-faults/call-graph=dwarf/|--call-graph dwarf --no-data'
	'cpu-clock|-F 99' 'cpu-clock|-c 1000' 'cpu-clock|--all-user'
	'cpu-clock|-c 010' 'cpu-clock|-F 010' 'cpu-clock|-F 1.5' 'cpu-clock|-F 10x' 'cpu-clock|-F MAX'
	'cpu-clock|--all-kernel' 'cpu-clock|-g' 'cpu-clock|--call-graph dwarf,4096'
	'cpu-clock|--call-graph fp,5' 'cpu-clock|--call-graph fp,200'
	'cpu-clock|--call-graph fp,' 'cpu-clock|--call-graph fp,5x' 'cpu-clock|--call-graph fp,,5,6'
	'cpu-clock|--call-graph fp,abc' 'cpu-clock|--call-graph dwarf,' 'cpu-clock|--call-graph dwarf,4096,1'
	'cpu-clock|--call-graph lbr,'
	'cpu-clock|-P' 'cpu-clock|-i' 'cpu-clock|--per-thread -T' 'cpu-clock|--per-thread -a' 'cpu-clock|--per-thread -C 0' 'cpu-clock|-a' 'cpu-clock|-p 1'
	'{cpu-clock,page-faults}|-e {cpu-clock,page-faults}:S -e {cpu-clock:u,page-faults}:k -e {cpu-clock,sched:sched_switch}:S -e {cpu-clock,page-faults}:D -e task-clock,{cpu-clock,page-faults}:S'
	'{cycles,instructions}' '{cycles,cache-misses}:S' '{cpu-clock,page-faults}:S|-a'
	'{page-faults,cpu-clock/period=1000/}:S' '{page-faults,cpu-clock/freq=100/}:S|-c 5000'
	'cpu-clock,page-faults|--group' 'dummy|-e page-faults' 'dummy:u'
	'cpu-clock/period=0/|-e cpu-clock/freq=0/ -e page-faults/period=0/' 'cpu-clock/period=0/|-g -c 100'
	'cpu-clock/inherit=0/|-e cpu-clock/inherit=5/ -e cpu-clock/no-inherit=0/ -e cpu-clock/no-inherit=1/'
	'cpu-clock/stack-size=0/|-g' "cpu-clock/name='a,b',period=1000/|-e task-clock/name=x!y/"
	'cpu-clock/max-stack=65537/|-e cpu-clock/max-stack=65536/ -e cpu-clock/max-stack=4294967296/ -e cpu-clock/call-graph=dwarf,stack-size=4294967304/ -e cpu-clock/call-graph=dwarf,stack-size=4294967296/ -e cpu-clock/period=4294967296/'
	'duration_time|-e user_time -e system_time -e duration_time:u -e duration_time//' '{cpu-clock,duration_time}'
	# blanks between perf's tokens, and before modifier letters
	' { cpu-clock ,page-faults/period = 7/ }: u' 'cpu-clock k' 'sched : sched_switch/call-graph = fp/ k'
	'mem:0x1000:w :u' '	cs upp ' 'L1-dcache-loads u' 'mem: 0x1000 / 8' 'mem:0x1000/ 2 :k'
	'mem:0x1000/8,cpu-clock' '{mem:0x1000/2:w,cs}:u'
	'sched:sched_sw*/call-graph=fp/u' 'sch?d:sched_switch*/max-stack=2/:k' 'sch*:sched_switch'
	# bytes perf's lexer skips as blanks (its catch-all rule)
	'!cpu-clock' 'cpu-clock#u' "cpu-clock'" "'cpu-clock" '"cpu-clock"' 'cs#' '(cpu-clock)' 'mem:0x1000!'
	'{!cpu-clock,page-faults}:u' 'cpu-clock/period=1!/' 'cpu-clock/name=x!y/' 'cpu-clock/name=a-b!/'
	"cpu-clock/name=x'/" 'cpu-clock.' 'cpu-clock!u' "$(printf 'cpu-clock\302\240')" 'mem:!0x1000'
	'cpu-clock/call-graph#=fp/' 'cpu-clock/#/' 'cpu-clock#,#cs' 'cpu-clock/period=3/#k' 'sched:sched_switch#'
	'!mem:0x1000/8,cpu-clock' '#{mem:0x1000/8,cs}' 'cpu-clock,!mem:0x1000/4,cs'
	# where an event starts (the list's start, after ',' or '{') perf's
	# lexer skips the '/' and '}' no event starts with
	'/cpu-clock' '}cpu-clock' '}/cpu-clock:u' 'cpu-clock,/page-faults' '{/cpu-clock,/page-faults}:u'
	'{cpu-clock,}page-faults}' 'g{/cpu-clock}:S' '/sched:sched_switch' 'mem:0x1000/8,/cpu-clock'
	# branch_type=: perf's attr before its open fails (no branch stack
	# here), but for "no", which opens
	'cpu-clock/branch_type=any/' "cpu-clock/branch_type='any,u'/" 'cpu-clock/branch_type=ANY/'
	'software/config=0,branch_type=any_call/' 'cpu-clock/branch_type=any,branch_type=u/'
	'cpu-clock/branch_type=u,branch_type=any_call/' 'cpu-clock/branch_type=u/|-j any_call'
	'cpu-clock/branch_type=k/|-j u' 'cpu-clock/branch_type=k/|--call-graph lbr'
	'cpu-clock/branch_type=no/|-b -e page-faults/branch_type=no/ -e cpu-clock/branch_type=k,branch_type=no/ -e {cpu-clock/branch_type=no/,cs/branch_type=no/}:S'
	'cpu-clock|-j ANY,u'
	# term numbers as perf's lexer reads them (010 is ten), the first
	# name=, a bpf-output attr made by config= (and unmade)
	'cpu-clock/period=010/|-e cpu-clock/max-stack=010/ -e cpu-clock/freq=010/ -e cpu-clock/period=00/'
	'cpu-clock/config=010/|-e software/config=10/ -e bpf-output/config=9/ -e cpu-clock/name=x,name=y/'
	# call-graph=lbr, a word perf cannot read (it keeps the global call
	# graph), and an event's own call graph over --call-graph lbr
	'cpu-clock|-b --call-graph lbr' 'cpu-clock:k|--call-graph lbr' 'cpu-clock/call-graph=lbr/'
	'cpu-clock/call-graph=lbr/|--call-graph dwarf' 'cpu-clock/call-graph=lbr,max-stack=4/|-b'
	'cpu-clock/call-graph=lbr/k|-g' 'cpu-clock/call-graph=xyz/|-e cpu-clock/call-graph=xyz,max-stack=3/ -e cpu-clock/call-graph=dwarf,call-graph=xyz/ -e cpu-clock/call-graph=xyz,call-graph=fp/'
	'cpu-clock/call-graph=xyz/|--call-graph dwarf' 'cpu-clock/call-graph=fp/|--call-graph lbr -e cpu-clock/max-stack=3/ -e cpu-clock/call-graph=no/ -e cpu-clock/call-graph=dwarf/ -e cpu-clock/branch_type=any,call-graph=fp/'
	'cpu-clock/call-graph=xyz/|--call-graph lbr' 'cpu-clock/call-graph=fp/|-b --call-graph lbr'
	"cpu-clock/call-graph='dwarf,1024'/|-e cpu-clock/call-graph='dwarf,1024',stack-size=2048/ -e cpu-clock/call-graph='fp,5',max-stack=3/ -e cpu-clock/call-graph='fp,'/ -e cpu-clock/call-graph='lbr,5'/ -e cpu-clock/call-graph='dwarf,0'/ -e cpu-clock/call-graph='fp,x'/"
	'cpu-clock/overwrite=0/|-e cpu-clock/overwrite=1/ -e cpu-clock/no-overwrite=0/ -e cpu-clock/no-overwrite=2/ -e cpu-clock/aux-output=0/ -e cpu-clock/percore=1/ -e cpu-clock/metric-id=m/ -e sched:sched_switch/nr=2,max-stack=3,aux-output=0/'
)
[ -e /sys/bus/event_source/devices/msr/events/tsc ] && cases+=(tsc msr/tsc/ msr/event=0x1/)
tp_id=$(cat /sys/kernel/tracing/events/sched/sched_switch/id) || fail "no sched_switch id"
cases+=("tracepoint/config=$tp_id/" "tracepoint/config=$tp_id/k")
# perf refuses these; prec must too
# perf refuses these; prec must too
refused=(cpu-clock:uu cpu-clock:pppp L1-icache-store iTLB-stores cpu-clock:q
	'{cpu-clock' 'cpu-clock}' mem:0x1000/9 mem:0x1000:xx mem:0x1000:rwr
	L1-DCACHE-loads llc-loads LLC-Misses branch-Loads LLC-reference Duration_time r0x1a8
	cpu-clock/inherit=x/ cpu-clock/time=2/ 'cpu-clock, ,cs' ' ' '{cpu-clock} u' '//' 'cpu-clock,/'
	',cpu-clock' '/cpu-clock/' '/ /cpu-clock'
	sched:sched_switch/period=2/ sched:sched_switch/config=1/ sched:sched_switch/name=x/
	sched:sched_switch/freq=2/ sched:sched_switch/time=1/ sched:sched_switch/percore/
	sched:sched_switch/metric-id=x/ cpu-clock/percore=2/ cpu-clock/aux-output/
	'*:sched_switch' '[s-z]*:sched_sw*' 'sched:sched_swit[c]h' 'sched:sched_sw*/period=1/'
	cpu-clock/branch_type=foo/ cpu-clock/branch_type=hw_index/ cpu-clock/branch_type/
	cpu-clock/branch_type=any.x/ sched:sched_switch/branch_type=any/
	cpu-clock/period=0X10/ cpu-clock/period=0xG/
	'cycles!' 'cs!u' 'r1a8!' 'L1-dcache-loads!' 'duration_time!' 'cpu-clock:u!' "'cpu-clock'"
	'{cpu-clock,cs}!u' 'mem:0x1000#:w' 'mem#:0x1000' 'cpu-clock/period=1#2/' '#' '{#}')
# and these, where both say "event syntax error": modifiers twice, a ':'
# after a PMU's or a named event's terms
syntax=(cpu-clock:u:k cpu-clock::u cpu-clock:: cpu-clock:u:
	r1a8:u:k L1-dcache-loads:u:k sched:sched_switch:u:k sched:sched_switch:u: 'sched:sched_sw*:u:'
	mem:0x1000:u:k mem:0x1000:rw:u:k mem:0x1000:u: 'cpu-clock/period=10/:u' 'cpu-clock/period=10/:'
	'cpu-clock//:u' 'software/config=0/:u' "tracepoint/config=$tp_id/:k"
	duration_time/period=5/ user_time/name=x/ 'cpu-clock/name=a b/' cpu-clock/name=1a/
	'cpu-clock/name="a,b"/' cpu-clock/name=-a/ cpu-clock/name=a=b/
	cpu-clock/,/ cpu-clock/period=1,/ cpu-clock/,period=1/ cpu-clock/period=1,,freq=1/
	software/,/ software/config=1,/ sched:sched_switch/,/
	'cpu- clock' 'cpu-clock x' 'cpu-clock/period=1 u/' 'mem:0x1000 :rw' 'mem: 0x1000:rw' 'mem:0x1000: :u' 'mem: 0x1000/8:u' mem:0x1000::u
	cpu-clock/metric-id=/ cpu-clock/metric-id=1x/ cpu-clock/branch_type=1/ cpu-clock/branch_type=/)
[ -e /sys/bus/event_source/devices/msr/events/tsc ] && syntax+=(tsc:u:k msr/tsc/:u)

run_both() { # NAME EVENT OPTS: perf's and prec's -vv outputs in $tmp/NAME.{perf,prec}
	local n=$1 ev=$2
	# shellcheck disable=SC2086 # $3 is the options, word-split on purpose
	perf record -B -N --no-bpf-event -vv -o "$tmp/perf.data" $3 -e "$ev" -- true >"$tmp/$n.perf" 2>&1
	echo "rc=$?" >>"$tmp/$n.perf"
	# shellcheck disable=SC2086
	"$PREC" record -vv -N --no-bpf-event -f -d "$tmp/p.d" $3 -e "$ev" -- true >"$tmp/$n.prec" 2>&1
	echo "rc=$?" >>"$tmp/$n.prec"
}

i=0 bad=0 events=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	ev=${c%%|*} opts=
	[ "$ev" != "$c" ] && opts=${c#*|}
	run_both "$i" "$ev" "$opts"
	awk -f "$AWK" -v skip=1 "$tmp/$i.prec" >"$tmp/$i.b" # prec's tracking event first
	k=$(awk 'END { print $1 + 0 }' "$tmp/$i.b")
	events=$((events + k))
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
	# --user-regs' subset under dwarf: perf's warning, once an event
	w=$(grep -c 'may render DWARF unwinding unreliable' "$tmp/$i.perf")
	[ "$(grep -c 'may render DWARF unwinding unreliable' "$tmp/$i.prec")" = "$w" ] ||
		{ echo "'$c': perf warns of --user-regs under dwarf $w times, prec $(grep -c 'may render DWARF' "$tmp/$i.prec")"; bad=$((bad + 1)); }
done
[ "$bad" = 0 ] || fail "$bad of ${#cases[@]} event strings differ from perf"
echo "${#cases[@]} runs, $events events: prec's attrs equal perf's"
# -vv's sample_type as perf prints it, names in perf's order (IDENTIFIER
# before DATA_SRC), TRANSACTION unnamed; prec's CPU aside
run_both st cpu-clock "--data --sample-identifier -W --transaction"
pst=$(grep -m1 '^  sample_type ' "$tmp/st.perf")
cst=$(grep '^  sample_type ' "$tmp/st.prec" | sed -n '2s/|CPU|/|/p')
[ -n "$pst" ] && [ "$pst" = "$cst" ] || fail "-vv sample_type: perf's '$pst', prec's '$cst'"

n=${#refused[@]}
for ev in "${refused[@]}" "${syntax[@]}"; do
	i=$((i + 1))
	run_both "$i" "$ev" ""
	grep -q '^rc=0$' "$tmp/$i.perf" && fail "perf took '$ev' (the test's table is wrong)"
	grep -q '^rc=0$' "$tmp/$i.prec" && fail "prec took '$ev', which perf refuses"
	grep -q 'perf_event_attr:' "$tmp/$i.prec" && fail "prec opened '$ev'"
	n=$((n - 1))
	[ $n -lt 0 ] || continue
	grep -q 'event syntax error' "$tmp/$i.perf" || fail "perf's refusal of '$ev' is no syntax error (the test's table is wrong)"
	grep -q 'event syntax error' "$tmp/$i.prec" ||
		fail "prec's refusal of '$ev' is no syntax error, perf's is: $(head -1 "$tmp/$i.prec")"
done
echo "$((${#refused[@]} + ${#syntax[@]})) event strings perf refuses: prec refuses them"


# an event is named as written, the bytes perf's lexer skips kept
for ev in '!cpu-clock' 'cpu-clock#u' '{!cpu-clock,page-faults}:u' 'cpu-clock/period=1!/' "cpu-clock'" \
	'cpu-clock/name=x,name=y/' '/cpu-clock' '{/cpu-clock,}page-faults}:u'; do
	perf record -q -o "$tmp/n.perf" -e "$ev" -- true >/dev/null 2>&1 || fail "perf record -e '$ev' failed"
	"$PREC" record -q -f -d "$tmp/n.d" -e "$ev" -- true >/dev/null 2>&1 || fail "prec record -e '$ev' failed"
	"$PREC" merge -q -f "$tmp/n.d" -o "$tmp/n.prec" || fail "prec merge of -e '$ev' failed"
	pn=$(perf evlist -i "$tmp/n.perf" 2>/dev/null | grep -v '^dummy' | tr '\n' ' ')
	cn=$(perf evlist -i "$tmp/n.prec" 2>/dev/null | grep -v '^dummy' | tr '\n' ' ')
	[ -n "$pn" ] && [ "$pn" = "$cn" ] || fail "-e '$ev': perf names '$pn', prec '$cn'"
done
echo "names of events with bytes perf's lexer skips, and the first name=: perf's"

# options perf refuses before it opens anything (OPTIONS|the one named):
# prec refuses them in one line naming the option, exit 2, and opens
# nothing
opt_refused=('-j hw_index|-j' '-j any,,u|-j' '-j =|-j' '-j any -b|-b' '-b -j u|-j'
	'-k mono -k raw|-k' '--clockid=raw --clockid=raw|-k' '-I -I|-I' '--user-regs=ip --user-regs=sp|--user-regs')
for c in "${opt_refused[@]}"; do
	o=${c%|*} named=${c#*|}
	i=$((i + 1))
	run_both "$i" cpu-clock "$o"
	grep -q '^rc=0$' "$tmp/$i.perf" && fail "perf took '$o' (the test's table is wrong)"
	grep -q 'perf_event_attr:' "$tmp/$i.perf" && fail "perf opened with '$o' (the test's table is wrong)"
	grep -q '^rc=2$' "$tmp/$i.prec" || fail "prec '$o': $(tail -1 "$tmp/$i.prec"), want rc=2: $(head -1 "$tmp/$i.prec")"
	grep -q 'perf_event_attr:' "$tmp/$i.prec" && fail "prec opened with '$o'"
	[ "$(grep -vc '^rc=' "$tmp/$i.prec")" = 1 ] && grep -q -- "option $named " "$tmp/$i.prec" ||
		fail "prec '$o': want one line naming $named, got: $(cat "$tmp/$i.prec")"
done
echo "${#opt_refused[@]} option strings perf refuses: prec refuses them in one line"
