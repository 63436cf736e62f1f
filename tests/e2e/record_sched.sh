#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where and how the drainer threads run (-r, --affinity), read from /proc
# while a recording runs:
# 1. default, as root: every prec-drain-N is SCHED_FIFO at priority 1 and
#    allowed on CPU N alone (its ring's CPU).
# 2. -r 0: the fair scheduler, on CPU N's package less CPU N (CPU N itself
#    when it is alone in its package).
# 3. -r 7 --affinity none: SCHED_FIFO 7, on every online CPU.
# 3b. --affinity node (perf's): on the CPUs of CPU N's NUMA node (sysfs
#    nodeM's cpulist; every online CPU where sysfs has no node).
# 4. without CAP_SYS_NICE (setpriv): the default falls back to case 2's
#    placement and the recording completes; an explicit -r 5 is refused
#    with one line naming -r, exit 1, and no directory left behind.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir recsched
online=$(cat /sys/devices/system/cpu/online)

# expand "0-2,5" to "0 1 2 5"
expand() {
	tr ',' '\n' <<<"$1" | awk -F- '{ b = NF > 1 ? $2 : $1; for (c = $1; c <= b; c++) print c }' |
		sort -n | tr '\n' ' ' | sed 's/ $//'
}

# drainers PID: "cpu policy prio allowed" per prec-drain thread of PID, once
# they all exist (one per online CPU)
drainers() {
	local pid=$1 want n t i
	want=$(expand "$online" | wc -w)
	for i in $(seq 400); do
		n=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c '^prec-drain-')
		[ "$n" = "$want" ] && break
		sleep 0.05
	done
	for t in /proc/"$pid"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in prec-drain-*) ;; *) continue ;; esac
		# stat fields 40 and 41: rt_priority, policy (after "(comm)")
		printf '%s %s %s %s\n' "$(sed 's/prec-drain-//' "$t/comm")" \
			"$(sed 's/.*) //' "$t/stat" | awk '{ print $39 }')" \
			"$(sed 's/.*) //' "$t/stat" | awk '{ print $38 }')" \
			"$(expand "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")")"
	done | sort -n
}

# check NAME WANT_POLICY WANT_PRIO PLACEMENT [prec record options...]
# PLACEMENT: cpu (CPU N alone), others (N's package less N), all (online),
# node (N's NUMA node)
check() {
	local name=$1 pol=$2 prio=$3 place=$4 pid rows want got
	shift 4
	# the command runs until the threads are read (a loaded machine can
	# take longer to start them than any fixed sleep)
	rm -f "$tmp/go"
	"${run[@]}" "$PREC" record -q -d "$tmp/$name" -a "$@" -- \
		sh -c 'i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done' sh "$tmp/go" &
	pid=$!
	rows=$(drainers $pid)
	touch "$tmp/go"
	wait $pid || fail "$name: prec record exit $?"
	[ -n "$rows" ] || fail "$name: no prec-drain threads seen"
	while read -r cpu gpol gprio allowed; do
		case $place in
		cpu) want=$cpu ;;
		all) want=$(expand "$online") ;;
		node)
			want=$(expand "$online")
			for n in /sys/devices/system/cpu/cpu"$cpu"/node[0-9]*; do
				[ -e "$n" ] && want=$(expand "$(cat "/sys/devices/system/node/${n##*/}/cpulist")")
			done ;;
		others)
			want=$(expand "$(cat /sys/devices/system/cpu/cpu"$cpu"/topology/package_cpus_list)")
			[ "$want" = "$cpu" ] || want=$(tr ' ' '\n' <<<"$want" | grep -vx "$cpu" | tr '\n' ' ' | sed 's/ $//') ;;
		esac
		got="$gpol $gprio [$allowed]"
		[ "$got" = "$pol $prio [$want]" ] ||
			fail "$name: prec-drain-$cpu: policy, priority, CPUs $got; want $pol $prio [$want]"
	done <<<"$rows"
	echo "$name: $(wc -l <<<"$rows") drainers: policy $pol, priority $prio, $place"
}

run=()
check default 1 1 cpu
check r0 0 0 others -r 0
check r7none 1 7 all -r 7 --affinity none
check node 1 1 node --affinity node

command -v setpriv >/dev/null || { echo "skip: no setpriv for the no-CAP_SYS_NICE cases"; exit 0; }
run=(setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice)
check nocap 0 0 others
"$PREC" info "$tmp/nocap" >/dev/null || fail "nocap: prec info on the recording"
"${run[@]}" "$PREC" record -q -d "$tmp/nocap-r5" -a -r 5 -- true 2>"$tmp/r5.err"
rc=$?
[ $rc = 1 ] || fail "no CAP_SYS_NICE, -r 5: exit $rc, want 1"
[ "$(wc -l <"$tmp/r5.err")" = 1 ] && grep -q -- '-r 5' "$tmp/r5.err" ||
	fail "no CAP_SYS_NICE, -r 5: want one line naming -r 5, got: $(cat "$tmp/r5.err")"
[ -e "$tmp/nocap-r5" ] && fail "no CAP_SYS_NICE, -r 5: left $tmp/nocap-r5 behind"
echo "no CAP_SYS_NICE: default falls back, -r 5 refused: $(cat "$tmp/r5.err")"
exit 0
