#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tasks -p and -t name, as perf 6.1 takes them, perf and prec in the
# same run on the same workload: two tests/helpers/goners processes (P
# with threads A and B, Q with C and D) each making exactly N getppid()
# calls per thread once the events are enabled (-D -1, 'enable' acked).
# Samples are counted by task, the ids written as their letters.
#  1. -p P -p Q: the last -p is the list, P is not recorded.
#  2. -t A -t B: likewise, B alone.
#  3. -p P,A: A (a thread) stands for its whole process, listed twice:
#     exit 0 and every task's events twice (2N samples), as perf's.
#  4. -p P,P and -t A,A: a repeated id is not dropped: 2N, as perf's.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint syscalls/sys_enter_getppid
e2e_tmpdir tasklist
N=1000
g1="" g2="" rp=""
cleanup() {
	[ -n "$rp" ] && kill "$rp" 2>/dev/null
	[ -n "$g1" ] && kill -9 "$g1" 2>/dev/null
	[ -n "$g2" ] && kill -9 "$g2" 2>/dev/null
}
at_exit cleanup

# ctl COMMAND: COMMAND to the recorder's control fifo and its ack back.
ctl() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 20 bash -c 'echo "$1" >"$2" && read -r a <"$3" && [ "$a" = ack ]' \
		_ "$1" "$tmp/ctl" "$tmp/ack"
}

# rec TOOL OUT ARG...: two goners waiting on go1 and go2, ARGs with
# their letters replaced by their ids, recorded by TOOL started disabled;
# once 'enable' is acked both run, and the recording ends once they
# exited. $rc its status; OUT.names the sed script giving ids back their
# letters.
rec() {
	local tool=$1 out=$2 a args=() P A B Q C D
	shift 2
	rm -f "$tmp"/go1 "$tmp"/go2 "$tmp"/ids1 "$tmp"/ids2 "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/go1" "$tmp/go2" "$tmp/ctl" "$tmp/ack"
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
	printf 's/\\b%s\\b/%s/g\n' "$P" P "$A" A "$B" B "$Q" Q "$C" C "$D" D >"$out.names"
	"$tool" record -o "$out" -D -1 --control "fifo:$tmp/ctl,$tmp/ack" \
		-e syscalls:sys_enter_getppid "${args[@]}" 2>"$out.err" & rp=$!
	ctl enable || { cat "$out.err"; fail "$tool ${args[*]}: no ack for 'enable'"; }
	echo >"$tmp/go1"
	echo >"$tmp/go2"
	wait "$g1" || fail "goners exited $?"
	wait "$g2" || fail "goners exited $?"
	g1="" g2=""
	timeout 30 tail --pid="$rp" -f /dev/null
	wait "$rp"
	rc=$?
	rp=
}

# counts FILE: "LETTER COUNT" per task of FILE's samples, on one line.
counts() {
	perf script -i "$1" -F tid 2>/dev/null | sed -f "$1.names" |
		awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' | sort | xargs
}

# same ARG...: perf and prec record ARGs; both exit 0 and their samples
# by task are alike. $got prec's counts.
same() {
	rec perf "$tmp/p.data" "$@"
	[ $rc = 0 ] || { cat "$tmp/p.data.err"; fail "perf $*: exit $rc"; }
	rec "$PREC" "$tmp/q.data" "$@"
	[ $rc = 0 ] || { cat "$tmp/q.data.err"; fail "prec $*: exit $rc"; }
	got=$(counts "$tmp/q.data")
	[ "$got" = "$(counts "$tmp/p.data")" ] ||
		fail "$*: prec's samples by task: $got; perf's: $(counts "$tmp/p.data")"
}
# want ARG... -- COUNTS: same, and COUNTS the counts.
want() {
	local args=()
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	same "${args[@]}"
	[ "$got" = "$*" ] || fail "${args[*]}: samples by task: $got, want $*"
}

# ---- 1, 2: the last -p or -t is the list ----
want -p P -p Q -- C $N D $N Q $N
want -t A -t B -- B $N
# ---- 3: a thread's id in -p: its process ----
want -p P,A -- A $((2 * N)) B $((2 * N)) P $((2 * N))
# ---- 4: repeated ids ----
want -p P,P -- A $((2 * N)) B $((2 * N)) P $((2 * N))
want -t A,A -- A $((2 * N))
exit 0
