#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A perf record beside a running prec record must not be harmed. With
# attr.build_id on any event, the kernel (5.12 up to at least 6.18) sets the
# build-id flag in an MMAP2 header it reuses for every other event the mmap
# is reported to, and perf 6.1 parses the maj/min/ino of its own record as a
# build-id: "assertion failed at util/build-id.c", "stack smashing
# detected", exit 134. prec asks for build_id only with --buildid-mmap.
# While prec records (-a), perf records a command (per task) and the whole
# machine (-a), TRIES times each: every perf must exit 0 and its file must
# read with `perf report` with nothing on stderr. The same perf commands
# without prec are the control: on a machine where they fail already
# (another session there records with build_id), the test cannot tell.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir beside
TRIES=${TRIES:-10}

# perf_once NAME ARGS...: perf record ARGS into $tmp/NAME.data, then perf
# report of it; 0 when both exit 0 and say nothing on stderr.
perf_once() {
	local name=$1
	shift
	perf record -q -o "$tmp/$name.data" "$@" >/dev/null 2>"$tmp/$name.err" || {
		echo "perf record $* exited $?: $(head -3 "$tmp/$name.err")"
		return 1
	}
	perf report -i "$tmp/$name.data" --stdio >/dev/null 2>"$tmp/$name.rep" || {
		echo "perf report of perf record $* exited $?: $(head -3 "$tmp/$name.rep")"
		return 1
	}
	[ ! -s "$tmp/$name.rep" ] || {
		echo "perf report of perf record $* said: $(head -3 "$tmp/$name.rep")"
		return 1
	}
}

control() {
	if ! perf_once ctl-task -e cpu-clock -- true ||
		! perf_once ctl-all -a -e cpu-clock -- sh -c true; then
		skip "perf alone fails here (another session recording with build_id?): $1"
	fi
}

control "before prec"
"$PREC" record -q -d "$tmp/out" -a -e cpu-clock -F 10 >"$tmp/prec.log" 2>&1 &
prec_pid=$!
at_exit "kill $prec_pid 2>/dev/null; wait $prec_pid 2>/dev/null"
wait_manifest "$tmp/out"
# The start manifest comes before the events are on: wait until they are.
sleep 0.5
bad=0
for i in $(seq "$TRIES"); do
	perf_once "task$i" -e cpu-clock -- true || bad=$((bad + 1))
	perf_once "all$i" -a -e cpu-clock -- sh -c true || bad=$((bad + 1))
done
kill -INT "$prec_pid"
wait_signaled "$prec_pid" INT "prec record" "$tmp/prec.log"
cat "$tmp/prec.log"
control "after prec (during it, $bad of $((2 * TRIES)) perf runs failed)"
[ "$bad" = 0 ] || fail "$bad of $((2 * TRIES)) perf runs beside prec failed"
complete "$tmp/out" || fail "prec's manifest is not complete"
echo "PASS: $((2 * TRIES)) perf records beside prec record -a, all read back"
