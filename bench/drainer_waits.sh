#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What holds a drainer away from its ring: runs CMD (default: the stall
# test, tests/e2e/record_stall.sh) RUNS times (default 5) under bpftrace
# and counts each time a drainer thread (prec-drain-N) slept in D state
# (TASK_UNINTERRUPTIBLE) for 3 ms or more, by the kernel function it
# waited in (the first frame below the scheduler's), with how many of
# them lasted 5 ms or more and the longest. A storm of 200 MB/s a CPU
# fills the default 1 MiB ring in 5 ms, and the storm has the CPU while
# its drainer sleeps. Waits in fsync and truncate come at the stop, the
# events already disabled. PREC=BINARY runs another build's recorder
# through the same test (the test's helpers stay this tree's). STACKS=1
# prints each wait's kernel stack after the table (10 frames).
# Needs root and bpftrace (apt-get install bpftrace).
# Usage: bench/drainer_waits.sh [CMD...]   (env: RUNS, PREC, STACKS)
set -u
cd "$(dirname "$0")/.." || exit 1
command -v bpftrace >/dev/null || { echo "drainer_waits: needs bpftrace" >&2; exit 2; }
RUNS=${RUNS:-5}
[ $# -gt 0 ] || set -- bash tests/e2e/record_stall.sh
tmp=$(mktemp -d) || exit 1
trap 'kill "$bt" 2>/dev/null; rm -rf "$tmp"' EXIT
cat >"$tmp/waits.bt" <<'EOF'
tracepoint:sched:sched_switch
{
	if (!strncmp(args->prev_comm, "prec-drain", 10)) {
		@off[args->prev_pid] = nsecs;
		@state[args->prev_pid] = args->prev_state;
		@stack[args->prev_pid] = kstack(10);
	}
	if (!strncmp(args->next_comm, "prec-drain", 10)) {
		$t = @off[args->next_pid];
		if ($t && @state[args->next_pid] == 2 && nsecs - $t >= 3000000) {
			printf("wait %d us%s\n", (nsecs - $t) / 1000, @stack[args->next_pid]);
		}
	}
}
EOF
bpftrace "$tmp/waits.bt" >"$tmp/out" 2>"$tmp/bt.err" &
bt=$!
# attached once it says so
for _ in $(seq 100); do
	grep -q Attaching "$tmp/out" "$tmp/bt.err" 2>/dev/null && break
	sleep 0.1
done
pass=0
for r in $(seq "$RUNS"); do
	if "$@" >"$tmp/run.log" 2>&1; then
		pass=$((pass + 1))
	else
		echo "run $r failed: $(tail -1 "$tmp/run.log")"
	fi
done
kill -INT "$bt"
wait "$bt" 2>/dev/null
echo "drainer_waits: $* x $RUNS ($pass passed), ${PREC:-build/prec}"
echo "  D-state waits of a drainer, 3 ms or more, by where it waited:"
printf "  %6s %6s %8s  %s\n" ">=3ms" ">=5ms" "max_ms" "function"
awk '/^wait / { us = $2; f = "?"
		while ((getline line) > 0) {
			split(line, a, " "); g = a[1]; sub(/\+.*/, "", g)
			if (g == "" || g ~ /^(__schedule|schedule|io_schedule|schedule_preempt_disabled|schedule_timeout)$/)
				continue
			f = g; break
		}
		n[f]++; if (us >= 5000) n5[f]++; if (us > mx[f]) mx[f] = us }
	END { for (f in n) printf "  %6d %6d %8.1f  %s\n", n[f], n5[f], mx[f] / 1000, f }' "$tmp/out" |
	sort -k1,1 -rn
[ "${STACKS:-0}" = 1 ] && sed -n "/^wait /,\$p" "$tmp/out"
exit 0
