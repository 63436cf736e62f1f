# SPDX-License-Identifier: MIT
# Guest side of the VM harness, sourced by tests/vm/suite.sh and
# tests/vm/bench.sh inside the guest: runs one recording with prec or perf
# into /mnt (the ext4 disk) and reads back what it kept, what it lost, its
# wall time and CPU time, with perf's own reader.

NCPU=$(nproc)
OUT=/mnt

now_ms() { gdate +%s%3N; }

# Every step of a check (a recording, its stop, a merge, a perf read) runs
# under a watchdog: a step still running after STEP_LIMIT seconds is a hang.
# The watchdog then prints "HANG CHECK: STEP", the step's process tree
# (each thread's state, wait channel and kernel stack) and the kernel's
# blocked tasks, and kills the tree, so that the check fails on its own
# and the next one runs. CHECK names the check (begin sets it).
STEP_LIMIT=${STEP_LIMIT:-$((60 + 2 * NCPU))}
CHECK=-
# begin NAME: check NAME starts; the kernel's log is marked (kwarn).
begin() {
	CHECK=$1
	rm -f /tmp/hung
	KLOG0=$(dmesg | wc -l)
}
# kwarn: the kernel's warnings (WARNING: ... at FILE:LINE FUNCTION) logged
# since the check began: a failed check names them, so that the kernel's
# own assertions are told apart from prec's results.
kwarn() { dmesg | tail -n +$((${KLOG0:-0} + 1)) | sed -n 's/.*\(WARNING: .* at [^ ]* [^ ]*\).*/\1/p'; }
hung() { [ -s /tmp/hung ] && echo " (hung: $(cat /tmp/hung))"; }

# tree_of PID: PID and its descendants, parents first.
tree_of() {
	local todo=$1 p
	while [ -n "$todo" ]; do
		set -- $todo
		p=$1
		shift
		todo="$* $(cat /proc/$p/task/*/children 2>/dev/null)"
		todo=${todo# }
		echo "$p"
	done
}

hang_diag() {
	local p t
	for p in $(tree_of "$1"); do
		echo "  pid $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-120)"
		for t in /proc/$p/task/*; do
			echo "    tid ${t##*/} $(cat $t/comm 2>/dev/null)" \
				"$(awk '/^State:/ { print $2 }' $t/status 2>/dev/null)" \
				"wchan=$(cat $t/wchan 2>/dev/null)" \
				"cpu=$(awk '{ print $39 }' $t/stat 2>/dev/null)"
			sed 's/^/      /' $t/stack 2>/dev/null | head -12
		done
	done
	echo "  dmesg tail, with the blocked tasks (sysrq w):"
	echo w >/proc/sysrq-trigger 2>/dev/null
	dmesg | tail -40 | sed 's/^/  | /'
}

uptime_s() { cut -d. -f1 /proc/uptime; }

# watch PID STEP [LIMIT]: a watchdog on PID for STEP; WATCH is its pid.
# Wall time (the guest's uptime): a starved vCPU runs the loop late.
watch() {
	local p=$1 step=$2 limit=${3:-$STEP_LIMIT}
	WATCH_T0=$(uptime_s)
	WATCH_STEP=$step
	(
		end=$((WATCH_T0 + limit))
		while [ "$(uptime_s)" -lt $end ]; do
			sleep 1
			kill -0 "$p" 2>/dev/null || exit 0
		done
		echo "$step" >/tmp/hung
		echo "HANG $CHECK: $step still running after ${limit} s"
		hang_diag "$p"
		for t in $(tree_of "$p"); do kill -KILL "$t" 2>/dev/null; done
	) >/dev/console 2>&1 &
	WATCH=$!
}
# Ends the watchdog; a step that took over half its limit is named (SLOW
# CHECK: STEP N s): where a run that nearly timed out spent its time.
unwatch() {
	local took=$(($(uptime_s) - WATCH_T0))
	kill "$WATCH" 2>/dev/null
	wait "$WATCH" 2>/dev/null
	[ $took -gt $((STEP_LIMIT / 2)) ] && echo "SLOW $CHECK: $WATCH_STEP took $took s" >/dev/console
	return 0
}

# step NAME COMMAND...: COMMAND under the watchdog; its exit status.
step() {
	local name=$1 p rc
	shift
	"$@" &
	p=$!
	watch "$p" "$name"
	wait "$p"
	rc=$?
	unwatch
	return $rc
}

# A storm of $1 getppid() calls pinned on every CPU at once.
cat >/tmp/storms.sh <<'EOS'
n=$1
c=0
while [ $c -lt $(nproc) ]; do
	taskset -c $c storm $n &
	c=$((c + 1))
done
wait
EOS

# rec TOOL NAME OPTIONS... -- COMMAND...: records with prec (merged into
# $OUT/NAME.data) or perf (written to $OUT/NAME.data). Sets WALL (ms, start
# to exit), CPU (user+sys s of the recorder and its command), CLOSE (prec's
# manifest ms, perf: "-"), ERR (the recorder's stderr file), RC.
rec() {
	local tool=$1 name=$2 t0
	shift 2
	start "$tool" "$name" "$@"
	t0=$T0
	watch $TPID "$tool record"
	wait $TPID
	WRC=$?
	unwatch
	finish "$tool" "$name" "$t0"
}

# rec_storm TOOL NAME N OPTIONS...: records every CPU (-a, no command)
# while a storm of N getppid() calls runs on each CPU, and stops it with
# SIGINT when the storm is over. The events start disabled (-D -1) and the
# storm starts once the recorder acked 'enable' on its control fifo, so
# that the count does not depend on how long the recorder takes to start.
# Sets what rec sets, CPU being the recorder's alone, and STOP (ms from
# SIGINT to exit).
rec_storm() {
	local tool=$1 name=$2 n=$3 pid t0 t1 a=
	shift 3
	rm -f /tmp/ctl /tmp/ack
	mkfifo /tmp/ctl /tmp/ack
	exec 3<>/tmp/ctl 4<>/tmp/ack
	start "$tool" "$name" -a -D -1 --control fifo:/tmp/ctl,/tmp/ack "$@"
	t0=$T0
	echo enable >&3
	read -r -t "$STEP_LIMIT" a <&4
	[ "$a" = ack ] || echo "HANG $CHECK: $tool did not ack 'enable' in $STEP_LIMIT s"
	step "storm (under $tool)" sh /tmp/storms.sh "$n"
	pid=$(child_of $TPID)
	t1=$(now_ms)
	kill -INT "$pid"
	watch $TPID "$tool record's stop (SIGINT)"
	wait $TPID
	WRC=$?
	unwatch
	STOP=$(($(now_ms) - t1))
	exec 3>&- 4>&-
	# perf and prec die by the SIGINT they stopped on, once done.
	grep -q '^Command terminated by signal 2' "$OUT/$name.time" && WRC=0
	finish "$tool" "$name" "$t0"
}

# The recorder under busybox time, in the background: sets TPID and T0.
start() {
	local tool=$1 name=$2
	shift 2
	rm -rf "${OUT:?}/$name" "$OUT/$name.data"
	ERR=$OUT/$name.err
	T0=$(now_ms)
	if [ "$tool" = prec ]; then
		time -f "%U %S" -o "$OUT/$name.time" prec record -d "$OUT/$name" "$@" 2>"$ERR" &
	else
		time -f "%U %S" -o "$OUT/$name.time" perf record -o "$OUT/$name.data" "$@" 2>"$ERR" &
	fi
	TPID=$!
}

child_of() {
	local p
	for p in /proc/[0-9]*; do
		if grep -q "^PPid:[[:space:]]*$1\$" "$p/status" 2>/dev/null; then
			echo "${p#/proc/}"
			return
		fi
	done
}

finish() {
	local tool=$1 name=$2 t0=$3
	RC=$WRC
	WALL=$(($(now_ms) - t0))
	CPU=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$OUT/$name.time")
	CLOSE=-
	if [ "$tool" = prec ]; then
		CLOSE=$(sed -n 's/.*manifest in \([0-9.]*\) ms.*/\1/p' "$ERR")
		step "prec merge" prec merge "$OUT/$name" -o "$OUT/$name.data" 2>"$OUT/$name.merge.err" >/dev/null ||
			RC=$((RC ? RC : 100))
	fi
	return "$RC"
}

# stats FILE: sets KEPT (samples) and LOST (lost samples) of the file's
# events, from perf report --stats' per-event part (its LOST_SAMPLES line
# is perf's own exact count from the kernel; prec's lost count is in its
# summary line instead).
stats() {
	step "perf report --stats" perf report --stats -i "$1" >/tmp/stats 2>/dev/null
	KEPT=$(awk '/^[^ A].* stats:$/ { ev = 1 } ev && /^ *SAMPLE events:/ { s += $3 } END { print s + 0 }' /tmp/stats)
	LOST=$(awk '/^[^ A].* stats:$/ { ev = 1 } ev && /^ *LOST_SAMPLES events:/ { s += $3 } END { print s + 0 }' /tmp/stats)
}

# script_clean FILE [report]: perf script (and perf report with a second
# word) read FILE with nothing on stderr. Leaves perf script's output in
# /tmp/script.
script_clean() {
	step "perf script" perf script -i "$1" >/tmp/script 2>/tmp/script.err || return 1
	if [ -n "${2:-}" ]; then
		step "perf report" perf report -i "$1" --stdio >/dev/null 2>>/tmp/script.err || return 1
	fi
	[ ! -s /tmp/script.err ]
}

# A check's verdict: "ok NAME: WHAT" or "FAIL NAME: WHAT" (with the
# recorder's stderr, $ERR); pass and failed count them.
pass=0
failed=0
ok() { echo "ok   $1: $2"; pass=$((pass + 1)); }
bad() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
	[ -s "$ERR" ] && sed 's/^/     | /' "$ERR" | head -40
	kwarn | sed 's/^/     | kernel, during this check: /'
}
check() { # NAME WHAT TEST-ARGS...
	local name=$1 what=$2
	shift 2
	if [ "$@" ]; then ok "$name" "$what"; else bad "$name" "$what"; fi
}
# verdict NAME WHAT: the verdict of the command just run (its status).
verdict() {
	if [ $? = 0 ]; then ok "$1" "$2"; else bad "$1" "$2"; fi
}

# lap NAME: the guest's uptime at the end of a part of the suite.
lap() { echo "lap $1 $(cut -d' ' -f1 /proc/uptime) s"; }
