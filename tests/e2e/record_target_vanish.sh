#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A target task gone between the scan of /proc and its perf_event_open
# (ESRCH), taken as perf 6.1 takes it in the same run: perf leaves out a
# missing thread of -p and -u (evsel's ignore_missing_thread, "WARNING:
# Ignored open failure for pid N") unless it is the last one left, and
# fails on -t's. tests/preload/vanish.so ends the task at its first open,
# in prec and in perf alike; tests/helpers/goners' tasks that stay make N
# getppid() calls each once the events are enabled (-D -1, 'enable' acked).
#  1. -p of a process with three workers, one ended at its open: perf warns
#     and records the other three; prec warns once naming it, exits 0, and
#     records exactly N calls of each of perf's three tasks, none of the
#     one gone; THREAD_MAP lists perf's three.
#  2. -u: a process (SIGKILL) and a worker of another ended at their first
#     opens, and at their second: both left out by perf and by prec, exact
#     counts of the two that stay.
#  3. -u over a user's processes that come and go (shell loops of
#     /bin/true, caught by the scan of /proc and gone at the listing of
#     their threads or at the open): five recordings, every one exit 0.
#  4. -t of four threads, one ended at its open: perf and prec both fail.
#  5. -p of a lone thread ended at its open (the last task): both fail.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd setpriv
need_tracepoint raw_syscalls/sys_enter
so=$PREC_BUILD/tests/preload/vanish.so
[ -f "$so" ] || fail "$so missing (make unit builds it)"
e2e_tmpdir vanish
chmod 711 "$tmp" # goners as nobody opens its fifo here
N=1000
gp="" rp="" loops=()
cleanup() {
	[ -n "$rp" ] && kill "$rp" 2>/dev/null
	[ -n "$gp" ] && kill -9 "$gp" 2>/dev/null
	for l in "${loops[@]}"; do kill "$l" 2>/dev/null; done
}
at_exit cleanup

# goners NTHREADS [CMD...]: a goners (run by CMD...) waiting on $tmp/go;
# $gp its pid, ids its pid then its workers' tids.
goners() {
	local n=$1
	shift
	rm -f "$tmp/go" "$tmp/ids"
	mkfifo -m 666 "$tmp/go"
	"$@" "$H/goners" "$n" $N "$tmp/go" >"$tmp/ids" & gp=$!
	for _ in $(seq 500); do [ -s "$tmp/ids" ] && break; sleep 0.01; done
	read -r -a ids <"$tmp/ids"
	[ "${#ids[@]}" = $((n + 1)) ] || fail "goners printed '${ids[*]}'"
}

# ctl COMMAND: COMMAND to the recorder's control fifo and its ack back.
ctl() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 20 bash -c 'echo "$1" >"$2" && read -r a <"$3" && [ "$a" = ack ]' \
		_ "$1" "$tmp/ctl" "$tmp/ack"
}

# rec TOOL OUT VANISH ARGS...: TOOL (perf or prec) records ARGS with the
# preload ending VANISH's tasks, started disabled; once 'enable' is acked
# goners runs, and once it exited the recording ends (by itself, or
# 'stop' where another task of the user keeps it going). $rc its exit
# status, OUT.err its stderr.
rec() {
	local tool=$1 out=$2 v=$3
	shift 3
	rm -f "$tmp/ctl" "$tmp/ack"
	mkfifo "$tmp/ctl" "$tmp/ack"
	VANISH_TIDS=$v LD_PRELOAD=$so "$tool" record -o "$out" -D -1 \
		--control "fifo:$tmp/ctl,$tmp/ack" "$@" 2>"$out.err" & rp=$!
	ctl enable || { cat "$out.err"; fail "$tool: no ack for 'enable'"; }
	echo >"$tmp/go"
	wait "$gp" || fail "goners exited $?"
	gp=
	for _ in $(seq 100); do kill -0 "$rp" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$rp" 2>/dev/null && { ctl stop || fail "$tool: no ack for 'stop'"; }
	wait "$rp"
	rc=$?
	rp=
	cat "$out.err"
}

# counts FILE: "TID COUNT" per task of FILE's samples, by tid.
counts() {
	perf script -i "$1" -F tid 2>/dev/null | awk '{ n[$1]++ } END { for (t in n) print t, n[t] }' | sort -n
}
threads() { # FILE: the THREAD_MAP's tids, sorted, on one line
	perf report -D -i "$1" 2>/dev/null |
		sed -n 's/.*PERF_RECORD_THREAD_MAP nr: [0-9]* threads: //p' | tr -d ' ' | tr , '\n' | sort -n | xargs
}
# want_counts FILE TID...: exactly N samples of each TID, of no other task.
want_counts() {
	local f=$1 want=""
	shift
	for t in $(printf '%s\n' "$@" | sort -n); do want+="$t $N"$'\n'; done
	[ "$(counts "$f")" = "${want%$'\n'}" ] || fail "$f: samples by tid: $(counts "$f" | xargs), want $N of each of $*"
}
EV=(-e raw_syscalls:sys_enter)
FILTER=(--filter 'id == 110')

# ---- 1. -p: one of four threads gone ----
# perf 6.1 then fails to set a filter (the slot the thread left has no fd,
# "failed to set filter ... (No such process)"): it records unfiltered.
goners 3
pid=${ids[0]} gone=${ids[2]} stay=("${ids[0]}" "${ids[1]}" "${ids[3]}")
rec perf "$tmp/p1.data" "$gone" "${EV[@]}" -p "$pid"
[ $rc = 0 ] || fail "perf -p exited $rc"
grep -qx "WARNING: Ignored open failure for pid $gone" "$tmp/p1.data.err" || fail "perf: no warning for $gone"
[ "$(counts "$tmp/p1.data" | awk '{ print $1 }' | xargs)" = "$(printf '%s\n' "${stay[@]}" | sort -n | xargs)" ] ||
	fail "perf -p: samples of $(counts "$tmp/p1.data" | xargs), want of ${stay[*]}"
goners 3
pid=${ids[0]} gone=${ids[2]} stay=("${ids[0]}" "${ids[1]}" "${ids[3]}")
rec "$PREC" "$tmp/q1.data" "$gone" "${EV[@]}" "${FILTER[@]}" -p "$pid"
[ $rc = 0 ] || fail "prec -p exited $rc"
[ "$(grep -c "task $gone: gone before its events were opened" "$tmp/q1.data.err")" = 1 ] ||
	fail "prec: not one warning naming task $gone"
grep -q "error" "$tmp/q1.data.err" && fail "prec -p: an error"
want_counts "$tmp/q1.data" "${stay[@]}"
[ "$(threads "$tmp/p1.data" | wc -w)" = 3 ] || fail "perf's THREAD_MAP: $(threads "$tmp/p1.data")"
[ "$(threads "$tmp/q1.data")" = "$(printf '%s\n' "${stay[@]}" | sort -n | xargs)" ] ||
	fail "prec's THREAD_MAP: $(threads "$tmp/q1.data"), want ${stay[*]}"

# ---- 2. -u: a process and a worker of another gone ----
# At their first open; then at their second, once their first events on
# the first CPU are open: the process, started first, is likely the first
# task, whose first event owns that CPU's ring (kept mapped, the others'
# records go on into it).
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
for at in 1 2; do for tool in perf "$PREC"; do
	t=$([ "$tool" = perf ] && echo p2 || echo q2)
	"${NB[@]}" sleep 600 & victim=$!
	goners 2 "${NB[@]}"
	stay=("${ids[0]}" "${ids[1]}")
	# only prec's with the filter (perf's fails to set it, as above)
	f=()
	[ "$tool" = perf ] || f=("${FILTER[@]}")
	rec "$tool" "$tmp/$t.data" "$victim:9@$at,${ids[2]}@$at" "${EV[@]}" "${f[@]}" -u nobody
	wait "$victim" 2>/dev/null
	[ $rc = 0 ] || fail "$tool -u exited $rc"
	if [ "$tool" = perf ]; then
		for g in "$victim" "${ids[2]}"; do
			grep -qx "WARNING: Ignored open failure for pid $g" "$tmp/$t.data.err" ||
				fail "perf -u: no warning for $g"
		done
		# the user's other tasks on this machine may be recorded too
		for s in "${stay[@]}"; do
			counts "$tmp/$t.data" | grep -q "^$s " || fail "perf -u: no sample of $s"
		done
	else
		for g in "$victim" "${ids[2]}"; do
			[ "$(grep -c "task $g: gone before its events were opened" "$tmp/$t.data.err")" = 1 ] ||
				fail "prec -u: not one warning naming task $g"
		done
		for s in "${stay[@]}"; do
			[ "$(counts "$tmp/$t.data" | awk -v s="$s" '$1 == s { print $2 }')" = $N ] ||
				fail "prec -u: samples of $s: $(counts "$tmp/$t.data" | xargs), want $N"
		done
	fi
	for g in "$victim" "${ids[2]}"; do
		counts "$tmp/$t.data" | grep -q "^$g " && fail "$tool -u: samples of $g, gone before the open"
	done
done; done

# ---- 3. -u over processes that come and go ----
for _ in 1 2; do
	"${NB[@]}" sh -c 'while :; do /bin/true; done' & loops+=($!)
done
sleep 0.2
for i in 1 2 3 4 5; do
	"$PREC" record -q -d "$tmp/c$i" -e cpu-clock -u nobody 2>"$tmp/c.err" & rp=$!
	# stopped once recording (its start manifest written), or failed
	for _ in $(seq 400); do
		{ [ -f "$tmp/c$i/manifest" ] || ! kill -0 "$rp" 2>/dev/null; } && break
		sleep 0.05
	done
	kill -INT "$rp" 2>/dev/null
	wait_signaled "$rp" INT "prec -u over short-lived processes: recording $i" "$tmp/c.err"
	rp=
	grep -q error "$tmp/c.err" && { cat "$tmp/c.err"; fail "prec -u: recording $i: an error"; }
done
kill "${loops[@]}"
loops=()

# ---- 4. -t: one of the threads listed gone: an error, as perf's ----
# ---- 5. -p of one thread, gone: the last task, an error ----
fails() { # TOOL OUT VANISH ARGS...: TOOL must fail; $rc its status
	local tool=$1 out=$2 v=$3
	shift 3
	VANISH_TIDS=$v LD_PRELOAD=$so timeout 30 "$tool" record -o "$out" "$@" 2>"$out.err"
	rc=$?
	cat "$out.err"
	kill -9 "$gp"
	wait "$gp" 2>/dev/null
	gp=
}
goners 3
fails perf "$tmp/p4.data" "${ids[2]}" "${EV[@]}" -t "$(IFS=,; echo "${ids[*]}")"
[ $rc = 255 ] || fail "perf -t: exited $rc, want 255"
grep -q "returned with 3 (No such process)" "$tmp/p4.data.err" || fail "perf -t: no ESRCH error"
goners 3
gone=${ids[2]}
fails "$PREC" "$tmp/q4.data" "$gone" "${EV[@]}" -t "$(IFS=,; echo "${ids[*]}")"
[ $rc = 1 ] || fail "prec -t: exited $rc, want 1"
grep -q "^prec: error: event '.*': task $gone: no such process$" "$tmp/q4.data.err" || fail "prec -t: no error naming $gone"
[ -e "$tmp/q4.data" ] && fail "prec -t: a perf.data left behind"
goners 0
fails perf "$tmp/p5.data" "${ids[0]}:9" "${EV[@]}" -p "${ids[0]}"
[ $rc = 255 ] || fail "perf -p of a lone thread: exited $rc, want 255"
grep -q "returned with 3 (No such process)" "$tmp/p5.data.err" || fail "perf -p of a lone thread: no ESRCH error"
goners 0
gone=${ids[0]}
fails "$PREC" "$tmp/q5.data" "$gone:9" "${EV[@]}" -p "$gone"
[ $rc = 1 ] || fail "prec -p of a lone thread: exited $rc, want 1"
grep -q "^prec: error: event '.*': task $gone: no such process$" "$tmp/q5.data.err" ||
	fail "prec -p of a lone thread: no error naming $gone"
echo "PASS: a target task gone at its open: -p and -u leave it out as perf does (exact counts of the rest), -u over short-lived processes records, -t and the last task fail as perf's"
