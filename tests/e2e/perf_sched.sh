#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf sched's readers on prec's file as on perf's own: perf sched record's
# event list (perf record -a -R -m 1024 -c 1 -e sched:..., here with -g, as
# perf sched record -g) recorded by perf and by prec on the same workload;
# perf sched latency, map, timehist (its call chains) and timehist -s on
# each file exit 0 with nothing on stderr, and timehist prints the switches'
# call chains on prec's as on perf's. Before, prec's tracking dummy had no
# CALLCHAIN while perf's own dummy has -g's, and timehist, which drops every
# event's chains when one event has none, said "Samples do not have
# callchains." on prec's file alone. (The pipe is left out: perf sched
# timehist finds no sched_switch in perf's own pipe either.)
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir perfsched

events=(-a -R -m 1024 -c 1 -g -e sched:sched_switch -e sched:sched_stat_runtime
	-e sched:sched_process_fork -e sched:sched_wakeup_new -e sched:sched_migrate_task)
[ -d /sys/kernel/tracing/events/sched/sched_waking ] && events+=(-e sched:sched_waking)
work=(perf bench sched messaging -g 1 -l 10)

perf record -q -o "$tmp/p.data" "${events[@]}" -- "${work[@]}" >/dev/null 2>"$tmp/p.err" ||
	fail_rc "$tmp/p.err" "perf record"
"$PREC" record -q -d "$tmp/q" "${events[@]}" -- "${work[@]}" >/dev/null 2>"$tmp/q.err" ||
	fail_rc "$tmp/q.err" "prec record"
"$PREC" merge -q "$tmp/q" -o "$tmp/q.data" || fail "prec merge"

# run WHO FILE SUBCOMMAND...: perf sched SUBCOMMAND on FILE, its output in
# $tmp/WHO.out; fails on a non-zero exit or a word on stderr
run() {
	local who=$1 file=$2
	shift 2
	perf sched -i "$file" "$@" >"$tmp/$who.out" 2>"$tmp/$who.err" ||
		fail_rc "$tmp/$who.err" "perf sched $* on $who's file"
	[ ! -s "$tmp/$who.err" ] || fail "perf sched $* on $who's file said: $(head -3 "$tmp/$who.err")"
}

for sub in latency map "timehist -s" timehist; do
	# shellcheck disable=SC2086 # the subcommand and its options, split
	run perf "$tmp/p.data" $sub
	# shellcheck disable=SC2086
	run prec "$tmp/q.data" $sub
	[ -s "$tmp/prec.out" ] || fail "perf sched $sub: nothing on prec's file"
done
# timehist's last column: each switch's chain, "a <- b <- c"
pc=$(grep -c ' <- ' "$tmp/perf.out")
qc=$(grep -c ' <- ' "$tmp/prec.out")
[ "$pc" -gt 0 ] || fail "perf sched timehist: no call chain on perf's own file"
[ "$qc" -gt 0 ] || fail "perf sched timehist: no call chain on prec's file ($pc on perf's): $(sed -n 4,6p "$tmp/prec.out")"
echo "PASS: perf sched latency, map, timehist -s and timehist read prec's file as perf's; timehist's chains on $qc switches (perf's file: $pc)"
