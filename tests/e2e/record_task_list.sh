#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tasks -p and -t name, as perf 6.1 takes them, perf and prec
# recording at once the same workload: two tests/helpers/goners processes
# (P with threads A and B, Q with C and D) each making exactly N getppid()
# calls per thread once both enabled their events (-D -1, 'enable' acked).
# Samples are counted by task, the ids written as their letters: prec's
# must be the counts perf's semantics give (perf's own are shown where
# they differ: its rings lose records on a loaded machine).
#  1. -p P -p Q: the last -p is the list, P is not recorded.
#  2. -t A -t B: likewise, B alone. -p P -t C: P's tasks alone (perf's
#     thread map is -p's), their events without inherit (-t's), as perf's.
#  3. -p P,A: A (a thread) stands for its whole process, listed twice:
#     exit 0 and every task's events twice (2N samples), as perf's.
#  4. -p P,P and -t A,A: a repeated id is not dropped: 2N, as perf's.
#  5. The side band's records of these tasks (FORK, COMM, MMAP2, in file
#     order, perf script --show-task-events --show-mmap-events) alike with
#     -p Q,P (ids sorted, each process's maps right after its leader's
#     COMM), -t B,A and -t A,C (each thread's COMM, then its leader's COMM
#     and maps, again for each), -p P,A (the process twice) and -a (each
#     thread's FORK and COMM, the maps right after the leader's); but
#     for -a, what perf report --tasks shows of them.
#  6. -a: a process whose /proc/PID/maps root cannot read (with several
#     threads): its leader's FORK and COMM alone, as perf's scan stops
#     there (where a sandbox has such a process; else a note).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint syscalls/sys_enter_getppid
e2e_tmpdir tasklist
N=1000
g1="" g2="" pp="" qp=""
cleanup() {
	[ -n "$pp" ] && kill "$pp" 2>/dev/null
	[ -n "$qp" ] && kill "$qp" 2>/dev/null
	[ -n "$g1" ] && kill -9 "$g1" 2>/dev/null
	[ -n "$g2" ] && kill -9 "$g2" 2>/dev/null
}
at_exit cleanup

# ctl NAME COMMAND: COMMAND to recorder NAME's control fifo, its ack back.
ctl() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 20 bash -c 'echo "$1" >"$2" && read -r a <"$3" && [ "$a" = ack ]' \
		_ "$2" "$tmp/$1.ctl" "$tmp/$1.ack"
}

# rec ARG...: two goners waiting on go1 and go2, ARGs with their letters
# replaced by their ids, recorded by perf (p.data) and by prec (q.data)
# at once, both started disabled (the same tasks: the same ids, the same
# order of the lists); once both acked 'enable' the goners run, and each
# recording ends once they exited. $prc and $qrc their statuses, names
# the sed script giving ids back their letters.
rec() {
	local a args=() P A B Q C D t
	rm -f "$tmp"/go1 "$tmp"/go2 "$tmp"/ids1 "$tmp"/ids2 "$tmp"/[pq].ctl "$tmp"/[pq].ack
	mkfifo "$tmp/go1" "$tmp/go2" "$tmp"/{p,q}.{ctl,ack}
	"$H/goners" 2 $N "$tmp/go1" >"$tmp/ids1" & g1=$!
	"$H/goners" 2 $N "$tmp/go2" >"$tmp/ids2" & g2=$!
	for _ in $(seq 500); do [ -s "$tmp/ids1" ] && [ -s "$tmp/ids2" ] && break; sleep 0.01; done
	read -r P A B <"$tmp/ids1"
	read -r Q C D <"$tmp/ids2"
	[ -n "$D" ] || fail "goners printed '$(cat "$tmp/ids1" "$tmp/ids2")'"
	for a in "$@"; do
		a=${a//P/$P} a=${a//A/$A} a=${a//B/$B} a=${a//Q/$Q} a=${a//C/$C}
		args+=("${a//D/$D}")
	done
	printf 's/\\b%s\\b/%s/g\n' "$P" P "$A" A "$B" B "$Q" Q "$C" C "$D" D >"$tmp/names"
	perf record -o "$tmp/p.data" -D -1 --control "fifo:$tmp/p.ctl,$tmp/p.ack" \
		-e syscalls:sys_enter_getppid "${args[@]}" 2>"$tmp/p.err" & pp=$!
	"$PREC" record -o "$tmp/q.data" -D -1 --control "fifo:$tmp/q.ctl,$tmp/q.ack" \
		-e syscalls:sys_enter_getppid "${args[@]}" 2>"$tmp/q.err" & qp=$!
	for t in p q; do
		ctl $t enable || { cat "$tmp/$t.err"; fail "$t ${args[*]}: no ack for 'enable'"; }
	done
	echo >"$tmp/go1"
	echo >"$tmp/go2"
	wait "$g1" || fail "goners exited $?"
	wait "$g2" || fail "goners exited $?"
	g1="" g2=""
	# -a: no target to end them
	for _ in $(seq 40); do
		kill -0 "$pp" 2>/dev/null || kill -0 "$qp" 2>/dev/null || break
		sleep 0.05
	done
	for t in p q; do
		kill -0 "$([ $t = p ] && echo "$pp" || echo "$qp")" 2>/dev/null &&
			{ ctl $t stop || fail "$t: no ack for 'stop'"; }
	done
	wait "$pp"
	prc=$?
	wait "$qp"
	qrc=$?
	pp="" qp=""
}

# counts FILE: "LETTER COUNT" per goners task of FILE's samples, on one
# line (with -a the machine's other tasks make calls too).
counts() {
	perf script -i "$1" -F tid 2>/dev/null | sed -f "$tmp/names" |
		awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' | sort |
		grep -E '^[PQABCD] ' | xargs
}

# tasks FILE: FILE's synthesized records (time 0) of the goners' tasks,
# one a line, their ids
# as letters: TYPE PID/TID (FORK's without its parent).
tasks() {
	perf script -i "$1" --show-task-events --show-mmap-events 2>/dev/null |
		grep -F ' 0.000000: ' | sed -nE 's/.*(PERF_RECORD_[A-Z0-9]+)(: [^ ]*:| |)\(?([0-9]+[:/][0-9]+).*/\1 \3/p' |
		sed -f "$tmp/names" | grep -E ' [PQABCD][:/][PQABCD]$'
}

# same ARG...: perf and prec record ARGs; both exit 0, and their tasks'
# records are alike. $got prec's counts, $pgot perf's.
same() {
	rec "$@"
	[ $prc = 0 ] || { cat "$tmp/p.err"; fail "perf $*: exit $prc"; }
	[ $qrc = 0 ] || { cat "$tmp/q.err"; fail "prec $*: exit $qrc"; }
	got=$(counts "$tmp/q.data")
	pgot=$(counts "$tmp/p.data")
	# the events followed into children or not alike
	[ "$(perf evlist -v -i "$tmp/q.data" 2>/dev/null | grep -c 'inherit: 1')" = \
	  "$(perf evlist -v -i "$tmp/p.data" 2>/dev/null | grep -c 'inherit: 1')" ] ||
		fail "$*: inherit: prec's $(perf evlist -v -i "$tmp/q.data" 2>/dev/null), perf's $(perf evlist -v -i "$tmp/p.data" 2>/dev/null)"
	tasks "$tmp/p.data" >"$tmp/p.tasks"
	tasks "$tmp/q.data" >"$tmp/q.tasks"
	[ -s "$tmp/p.tasks" ] || fail "$*: perf's side band names none of the tasks"
	diff "$tmp/p.tasks" "$tmp/q.tasks" >"$tmp/tasks.diff" ||
		fail "$*: the tasks' records, perf's (<) and prec's (>): $(cat "$tmp/tasks.diff")"
	# what perf report --tasks shows of them (-t: the threads listed);
	# not with -a, whose file holds every task's calls on this machine
	[ "$1" = -a ] && return
	for t in p q; do
		perf report -i "$tmp/$t.data" --tasks 2>"$tmp/$t.rerr" | sed -f "$tmp/names" |
			grep -E '^ *[PQABCD] +[PQABCD] ' >"$tmp/$t.report"
	done
	diff "$tmp/p.report" "$tmp/q.report" >"$tmp/report.diff" ||
		fail "$*: perf report --tasks, perf's (<) and prec's (>): $(cat "$tmp/report.diff"); perf's stderr: $(head -c 300 "$tmp/p.rerr")"
}
# want ARG... -- COUNTS: same, and COUNTS the counts.
want() {
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	same "${args[@]}"
	[ "$got" = "$*" ] || fail "${args[*]}: prec's samples by task: $got, want $*; perf's: $pgot"
	# perf's own count, where the machine let it be exact (its rings
	# lose records under load, more so with -a): said, not failed on
	[ "$pgot" = "$*" ] || echo "note: ${args[*]}: perf's samples by task: $pgot, want $*" >&2
}

# ---- 1, 2: the last -p or -t is the list ----
want -p P -p Q -- C $N D $N Q $N
want -t A -t B -- B $N
# -p over -t (C not recorded), inherit off as -t's
want -p P -t C -- A $N B $N P $N
# ---- 3: a thread's id in -p: its process ----
want -p P,A -- A $((2 * N)) B $((2 * N)) P $((2 * N))
# ---- 4: repeated ids ----
want -p P,P -- A $((2 * N)) B $((2 * N)) P $((2 * N))
want -t A,A -- A $((2 * N))
# ---- 5: the side band's order ----
want -p Q,P -- A $N B $N C $N D $N P $N Q $N
want -t B,A -- A $N B $N
want -t A,C -- A $N C $N
want -a -- A $N B $N C $N D $N P $N Q $N
# ---- 6: -a, a process whose maps root cannot read (the init of this
# machine's pid namespace, in some sandboxes): perf names its leader
# alone, none of its other threads ----
hidden=0
for d in /proc/[0-9]*; do
	x=${d#/proc/}
	[ "$(find "$d/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" -gt 1 ] || continue
	cat "$d/maps" >/dev/null 2>&1 && continue
	[ -r "$d/status" ] || continue
	hidden=$((hidden + 1))
	for t in p q; do
		perf script -i "$tmp/$t.data" --show-task-events 2>/dev/null | grep -F ' 0.000000: ' |
			grep -oE "PERF_RECORD_(FORK\($x:[0-9]+\)|COMM: .*:$x/[0-9]+)" >"$tmp/$t.hidden"
	done
	[ -s "$tmp/p.hidden" ] || continue # gone or made since
	diff "$tmp/p.hidden" "$tmp/q.hidden" >"$tmp/hidden.diff" ||
		fail "-a: process $x (maps unreadable): its records, perf's (<) and prec's (>): $(cat "$tmp/hidden.diff")"
done
[ $hidden = 0 ] && echo "note: no process here whose maps root cannot read: case 6 shows nothing" >&2
exit 0
