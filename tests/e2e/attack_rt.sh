#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real-time drainers keep their priority to themselves: while an unprivileged
# workload storms system calls into a recording written through the page
# cache on tmpfs (whose writes io_uring carries out in io-wq workers,
# "iou-wrk-TID", forked from the drainer thread TID), every io_uring worker
# of prec runs under the fair scheduler (policy 0), and the drainers run
# SCHED_FIFO at -r's priority with SCHED_RESET_ON_FORK. -r above 50 warns
# once, -r 50 not at all; a kernel with real-time throttling off
# (sched_rt_runtime_us -1) gets a warning when the drainers run real-time.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
rt_knob=/proc/sys/kernel/sched_rt_runtime_us
rt_saved=
mnt=
prec_pid=
cleanup() {
	[ -n "$rt_saved" ] && echo "$rt_saved" >"$rt_knob"
	# A failed check leaves a recording running: its workload stops on
	# the flag, prec then ends on its own (or on SIGINT).
	if [ -n "$prec_pid" ]; then
		touch "$tmp/go/stop"
		for _ in $(seq 50); do kill -0 "$prec_pid" 2>/dev/null || break; sleep 0.1; done
		kill -INT "$prec_pid" 2>/dev/null
		wait "$prec_pid" 2>/dev/null
	fi
	[ -n "$mnt" ] && umount "$mnt"
}
# The recording's files on tmpfs: /dev/shm, or a tmpfs of our own.
at_exit cleanup
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	e2e_tmpdir rt /dev/shm
else
	e2e_tmpdir rt
	mount -t tmpfs -o size=4g prec-rt "$tmp" || fail "mounting a tmpfs on $tmp"
	mnt=$tmp
fi
chmod 711 "$tmp"
mkdir -m 755 "$tmp/go"
cp "$H/storm" "$tmp/go/storm"

# stat field 40 is rt_priority, 41 the policy (0 SCHED_OTHER, 1 SCHED_FIFO),
# counted after the ")" that ends the name.
policy_of() { # /proc/PID/task/TID -> "POLICY RTPRIO"
	local s rest f
	s=$(<"$1/stat") || return 1
	rest=${s##*) }
	read -r -a f <<<"$rest"
	echo "${f[38]} ${f[37]}"
}

# One look at prec's threads: every io_uring worker under the fair
# scheduler, every drainer SCHED_FIFO at prio with SCHED_RESET_ON_FORK.
# Sets seen_wrk to the number of workers forked from a drainer.
check_threads() { # pid prio
	local pid=$1 prio=$2 t comm pol drains=" " n=0
	seen_wrk=0
	for t in /proc/"$pid"/task/*; do
		comm=$(<"$t/comm") 2>/dev/null || continue
		[[ $comm == prec-drain-* ]] || continue
		drains+="${t##*/} "
		n=$((n + 1))
		pol=$(policy_of "$t") || continue
		[ "$pol" = "1 $prio" ] ||
			fail "-r $prio: drainer $comm (tid ${t##*/}): policy/rt_priority $pol, want 1 $prio"
		chrt -p "${t##*/}" | grep -q 'SCHED_FIFO|SCHED_RESET_ON_FORK' ||
			fail "-r $prio: drainer $comm: $(chrt -p "${t##*/}" | head -1), want SCHED_FIFO|SCHED_RESET_ON_FORK"
	done
	[ "$n" -gt 0 ] || return 0
	for t in /proc/"$pid"/task/*; do
		comm=$(<"$t/comm") 2>/dev/null || continue
		[[ $comm == iou-wrk-* ]] || continue
		pol=$(policy_of "$t") || continue
		[ "${pol%% *}" = 0 ] ||
			fail "-r $prio: io_uring worker $comm (tid ${t##*/}) runs policy ${pol% *} at rt_priority ${pol#* } (want 0, SCHED_OTHER): it inherited the drainer's SCHED_FIFO"
		[[ $drains == *" ${comm#iou-wrk-} "* ]] && seen_wrk=$((seen_wrk + 1))
	done
	return 0
}

# A recording at -r prio of an unprivileged syscall storm that lasts until
# told to stop, written through the page cache: threads checked while it
# runs, its stderr in $tmp/err.prio.
storm_run() { # prio
	local prio=$1 pid rc looks=0 any=0
	rm -f "$tmp/go/stop"
	"$PREC" record -d "$tmp/rec$prio" -m 1M -r "$prio" --no-direct-io \
		-e raw_syscalls:sys_enter --filter 'id == 110' -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c 'while [ ! -e "$1" ]; do "$2" 100000; done' sh "$tmp/go/stop" "$tmp/go/storm" \
		2>"$tmp/err.$prio" &
	pid=$!
	prec_pid=$pid
	# Until a worker of a drainer has been seen in 5 looks (10 s at most).
	for _ in $(seq 100); do
		sleep 0.1
		kill -0 "$pid" 2>/dev/null || break
		check_threads "$pid" "$prio"
		[ "$seen_wrk" -gt 0 ] && any=1
		[ "$any" = 1 ] && looks=$((looks + 1))
		[ "$looks" -ge 5 ] && break
	done
	touch "$tmp/go/stop"
	wait "$pid"
	rc=$?
	prec_pid=
	cat "$tmp/err.$prio"
	[ "$rc" = 0 ] || fail "-r $prio: record exited $rc"
	[ "$any" = 1 ] ||
		fail "-r $prio: no io_uring worker of a drainer appeared in 10 s of page-cache writes to tmpfs: nothing was checked"
	rm -rf "$tmp/rec$prio"
	echo "-r $prio: $looks looks at prec's threads, io_uring workers of drainers seen, all SCHED_OTHER; drainers SCHED_FIFO $prio"
}

above='warning: drainers: SCHED_FIFO 99 (-r): above 50'
throttle='real-time throttling is off'
rt_was=$(<"$rt_knob")
storm_run 99
[ "$(grep -c "$above" "$tmp/err.99")" = 1 ] ||
	fail "-r 99: want the above-50 warning once, got $(grep -c "$above" "$tmp/err.99")"
storm_run 50
grep -q 'above 50' "$tmp/err.50" && fail "-r 50: warned: $(grep 'above 50' "$tmp/err.50")"
if [ "$rt_was" != -1 ]; then
	grep -q 'warning: drainers:' "$tmp/err.50" &&
		fail "-r 50: warned: $(grep 'warning: drainers:' "$tmp/err.50")"
	grep -q "$throttle" "$tmp/err.99" && fail "throttling on ($rt_was): warned anyway"
fi

# Real-time throttling off, for as long as two short recordings take.
if [ "$rt_was" != -1 ]; then
	rt_saved=$rt_was
	echo -1 >"$rt_knob" || fail "$rt_knob: cannot set -1"
fi
"$PREC" record -d "$tmp/thr1" -r 1 -e raw_syscalls:sys_enter -- true 2>"$tmp/err.thr1"
rc1=$?
"$PREC" record -d "$tmp/thr0" -r 0 -e raw_syscalls:sys_enter -- true 2>"$tmp/err.thr0"
rc0=$?
if [ -n "$rt_saved" ]; then
	echo "$rt_saved" >"$rt_knob" && rt_saved=
fi
cat "$tmp/err.thr1" "$tmp/err.thr0"
[ "$rc1" = 0 ] || fail "throttling off, -r 1: record exited $rc1"
[ "$rc0" = 0 ] || fail "throttling off, -r 0: record exited $rc0"
[ "$(grep -c "warning: drainers: SCHED_FIFO 1: $throttle" "$tmp/err.thr1")" = 1 ] ||
	fail "throttling off, -r 1: want the throttling warning once: $(cat "$tmp/err.thr1")"
grep -q 'warning: drainers:' "$tmp/err.thr0" &&
	fail "throttling off, -r 0 (no real-time drainers): warned: $(cat "$tmp/err.thr0")"
[ "$(<"$rt_knob")" = "$rt_was" ] || fail "$rt_knob not restored to $rt_was"
echo "PASS: io_uring workers SCHED_OTHER under SCHED_FIFO drainers (-r 99, -r 50); -r 99 warned once, -r 50 not; throttling off: warned once at -r 1, not at -r 0"
