#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --tail-synthesize: which tasks the tail names, perf 6.1 the judge. perf
# synthesizes at its end the threads of its target's thread map as they
# were listed at the start, each as it is then: its COMM (NAMESPACES after
# it), and the process's MMAP2s after a thread-group leader's COMM (a
# thread whose leader is not listed brings the leader's after its own).
# For a command that is the command's pid alone, before it is reaped. So no
# thread made later, no child, no thread of the command but its first.
# Each case runs perf, then prec (-d DIR, then prec merge), on the same
# workload, and compares the tails' records (tests/lib/tail_records.py):
#  - a command that execs and exits by itself: the zombie's COMM under the
#    name it exec'd, no map; also with prec record -o FILE;
#  - a command (laterkin: a second thread from its start, then a third
#    thread and a child once told) stopped by SIGINT while it runs;
#  - -p of laterkin (with --namespaces), told once the recording runs;
#  - -t of laterkin's second thread.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
e2e_tmpdir tailtasks
cd "$tmp" || fail "cd $tmp"
lk=$H/laterkin
tr=$PREC_TOP/tests/lib/tail_records.py
[ -x "$lk" ] || fail "$lk missing (make unit builds it)"
rec="" tgt=""
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$tgt" ] && kill "$tgt" 2>/dev/null
}
at_exit cleanup

# wait_file FILE: until FILE has a line (5 s at most).
wait_file() {
	local i
	for i in $(seq 50); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	fail "$1 never written"
}

# prec_tail DIR OUT: DIR merged into OUT, its tail's records.
prec_tail() {
	local t
	"$PREC" merge -q "$1" -o "$2" 2>merr || fail_rc merr "prec merge $1"
	t=$("$PREC" info "$1" | awk '$1 == "tail.shard" { print $(NF - 1) }' | tr -d .)
	[ -n "$t" ] || fail "$1: no tail.shard in prec info"
	python3 "$tr" "$2" "$t"
}

# same NAME PERF_TAIL PREC_TAIL: the two lists identical.
same() {
	[ -s "$2" ] || fail "$1: perf's tail is empty (the test shows nothing)"
	cmp -s "$2" "$3" || fail "$1: prec's tail differs from perf's:
$(diff "$2" "$3")"
	echo "$1: as perf's, $(awk '{ n[$1]++ } END { for (k in n) printf "%s %d, ", k, n[k] }' "$2")"
}

# ---- a command that execs and exits: the zombie, by its exec'd name ----
# shellcheck disable=SC2016 # the inner shell's arguments
wl=(sh -c 'sleep 0.2; exec "$0" "$1" 300' "$lk" "$tmp/x.pid")
perf record -q --tail-synthesize -e cpu-clock -o a.p.data -- "${wl[@]}" >/dev/null 2>perr ||
	fail_rc perr "perf record -- sh"
"$PREC" record -q --tail-synthesize -e cpu-clock -d a.d -- "${wl[@]}" 2>err ||
	fail_rc err "prec record -d -- sh"
"$PREC" record -q --tail-synthesize -e cpu-clock -o a.o.data -- "${wl[@]}" 2>err ||
	fail_rc err "prec record -o -- sh"
python3 "$tr" a.p.data >a.p
prec_tail a.d a.r.data >a.r
python3 "$tr" a.o.data first >a.o
[ "$(cat a.p)" = "COMM: laterkin:P0/P0" ] || fail "perf's tail: $(cat a.p), want the zombie's COMM alone"
same "a command gone (-d)" a.p a.r
same "a command gone (-o FILE)" a.p a.o

# ---- a command stopped while it runs, with a later thread and child ----
# run_cmd TOOL OUT: TOOL records laterkin, which is told to make its later
# tasks, then TOOL is stopped by SIGINT.
run_cmd() {
	local p n
	rm -f c.pid
	if [ "$1" = perf ]; then
		perf record -q --tail-synthesize -e cpu-clock -o "$2" -- "$lk" c.pid 20000 >/dev/null 2>perr &
	else
		"$PREC" record -q --tail-synthesize -e cpu-clock -d "$2" -- "$lk" c.pid 20000 2>err &
	fi
	rec=$!
	wait_file c.pid
	read -r p _ <c.pid
	kill -USR1 "$p"
	for _ in $(seq 50); do pgrep -P "$p" >/dev/null && break; sleep 0.1; done
	n=$(find "/proc/$p/task" -mindepth 1 -maxdepth 1 | wc -l)
	[ "$n" = 3 ] || fail "$1: laterkin has $n threads, want 3"
	sleep 0.2
	kill -INT "$rec"
	wait "$rec"
	rec=
}
run_cmd perf b.p.data
run_cmd prec b.d
[ -s b.p.data ] || fail "perf wrote no b.p.data: $(cat perr)"
python3 "$tr" b.p.data >b.p
prec_tail b.d b.r.data >b.r
same "a command stopped" b.p b.r

# ---- -p and -t of laterkin, told once the recording runs ----
# run_target TOOL OUT OPTS...: laterkin started, then recorded by TOOL with
# OPTS (a %P in them is its pid, %T its second thread's), for a command
# that tells it to make its later tasks and then sleeps.
run_target() {
	local tool=$1 out=$2 p t o=() a n
	shift 2
	rm -f t.pid
	"$lk" t.pid 20000 & tgt=$!
	wait_file t.pid
	read -r p t <t.pid
	for a in "$@"; do a=${a//%P/$p}; o+=("${a//%T/$t}"); done
	if [ "$tool" = perf ]; then
		perf record -q --tail-synthesize -e cpu-clock -o "$out" "${o[@]}" -- \
			sh -c "kill -USR1 $p; sleep 0.8" >/dev/null 2>perr || fail_rc perr "perf record $*"
	else
		"$PREC" record -q --tail-synthesize -e cpu-clock -d "$out" "${o[@]}" -- \
			sh -c "kill -USR1 $p; sleep 0.8" 2>err || fail_rc err "prec record $*"
	fi
	# the later thread and the child were there to be left out
	n=$(find "/proc/$p/task" -mindepth 1 -maxdepth 1 | wc -l)
	if [ "$n" != 3 ] || ! pgrep -P "$p" >/dev/null; then
		fail "$tool: laterkin has $n threads, and a child: $(pgrep -P "$p" || echo none)"
	fi
	kill "$tgt"
	wait "$tgt" 2>/dev/null
	tgt=
}
run_target perf c.p.data -p %P --namespaces
run_target prec c.d -p %P --namespaces
python3 "$tr" c.p.data >c.p
prec_tail c.d c.r.data >c.r
same "-p --namespaces" c.p c.r

run_target perf d.p.data -t %T
run_target prec d.d -t %T
python3 "$tr" d.p.data >d.p
prec_tail d.d d.r.data >d.r
same "-t" d.p d.r
