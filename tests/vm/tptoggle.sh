#!/bin/sh
# SPDX-License-Identifier: MIT
# A guest job that switches sched tracepoints on and off many times while
# CPUs schedule (a pingpong pinned on each of the first LOADED CPUs, all by
# default). Each switch patches the tracepoints' call sites (text_poke_bp).
# TOOL says who switches: "tracefs" (echo 1 and 0 to the events' enable
# files: neither prec nor perf runs), "perf" or "prec" (TOOL record -a -e
# sched:sched_switch -e sched:sched_wakeup -- sleep 0.1). It tells a guest
# hang that comes with prec from one that comes without it (docs/many-cpus.md):
#   VM_JOB=tests/vm/tptoggle.sh tests/vm/run.sh 8 "TOOL ROUNDS [EVERY [LOADED]]"
# Prints "round K" every EVERY rounds (default 20 for tracefs, 10 with a
# tool), then "tptoggle: TOOL ROUNDS rounds done".
. /guest_lib.sh
TOOL=${1:-tracefs}
ROUNDS=${2:-100}
EVERY=${3:-}
LOADED=${4:-$NCPU}
EV=/sys/kernel/tracing/events/sched
echo "suite: tptoggle, $TOOL, $NCPU CPUs, kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime) s"
c=0
while [ $c -lt "$LOADED" ]; do
	(while :; do taskset -c $c pingpong 1000 >/dev/null 2>&1; done) &
	c=$((c + 1))
done
every=10
[ "$TOOL" = tracefs ] && every=20
[ -n "$EVERY" ] && every=$EVERY
k=0
while [ $k -lt "$ROUNDS" ]; do
	k=$((k + 1))
	rm -rf /mnt/t.data /mnt/t.dir
	case $TOOL in
	tracefs)
		echo 1 >$EV/sched_switch/enable
		echo 1 >$EV/sched_wakeup/enable
		echo 0 >$EV/sched_wakeup/enable
		echo 0 >$EV/sched_switch/enable
		rc=$? ;;
	perf)
		perf record -q -o /mnt/t.data -a -e sched:sched_switch -e sched:sched_wakeup -- sleep 0.1 >/dev/null 2>&1
		rc=$? ;;
	*)
		prec record -d /mnt/t.dir -a -e sched:sched_switch -e sched:sched_wakeup -- sleep 0.1 >/dev/null 2>&1
		rc=$? ;;
	esac
	[ $((k % every)) = 0 ] && echo "round $k (exit $rc, uptime $(cut -d' ' -f1 /proc/uptime))"
done
echo "tptoggle: $TOOL $ROUNDS rounds done"
kill $(jobs -p) 2>/dev/null
exit 0
