#!/bin/sh
# SPDX-License-Identifier: MIT
# A guest job comparing prec's drainer settings on many CPUs (run with
# VM_JOB=tests/vm/sched.sh tests/vm/run.sh NCPU): record -a -- sleep 1
# with the default (SCHED_FIFO drainers on their CPUs, O_DIRECT, 100 ms
# rounds), -r 0, --no-direct-io, a long --round-ms, alternated, with
# wall, recorder CPU and the close laps; then perf for reference and an
# strace of the stop. With VM_PREC_OLD set on the host, prec.old (the
# binary before a change) runs alternated with prec. Arguments: rounds
# (default 2), then "quick" for the default only, "all" to add --round-ms 1000, or "strace" for an strace
# of the stop (slow under TCG).
. /guest_lib.sh
echo "suite: sched, $NCPU CPUs, kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime) s"
ROUNDS=${1:-2}
bins=prec
command -v prec.old >/dev/null && bins="prec.old prec"

one() {
	local bin=$1 label=$2 t0
	shift 2
	rm -rf "$OUT/s"
	t0=$(now_ms)
	time -f "%U %S" -o /tmp/s.time $bin record -v -d "$OUT/s" "$@" -- sleep 1 2>/tmp/s.err
	wall=$(($(now_ms) - t0))
	cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' /tmp/s.time)
	laps=$(sed -n 's/.*close: \(.*\) at +\([0-9.]*\) ms.*/\2/p' /tmp/s.err | tr '\n' '/')
	starts=$(sed -n 's/.*start: \(.*\) at +\([0-9.]*\) ms.*/\2/p' /tmp/s.err | tr '\n' '/')
	samples=$(sed -n 's/.* \([0-9]*\) records.*/\1/p' /tmp/s.err | tail -1)
	# What the CPU rings kept (cpu-clock samples, and the few tracking
	# records), against perf's SAMPLE count below.
	kept=$(prec info "$OUT/s" 2>/dev/null | awk '$1 ~ /^cpu[0-9]+\.shard$/ { s += $4 } END { print s + 0 }')
	# prec -v's per-drainer stop times (new binaries): the slowest to see
	# the stop, to drain, to fsync and close.
	drn=$(sed -n 's/.*stop seen at +\([0-9.]*\) ms, drained +\([0-9.]*\), fsynced +\([0-9.]*\)\(, closed +\([0-9.]*\)\)*.*/\1 \2 \3 \5/p' /tmp/s.err |
		awk 'NF >= 3 { for (i = 1; i <= 4; i++) if ($i > m[i]) m[i] = $i; n++ }
		     END { if (n) printf " drainers_max_ms=seen:%s/drained:%s/fsynced:%s/closed:%s", m[1], m[2], m[3], m[4] + 0 }')
	echo "run $bin $label wall_ms=$wall cpu_s=$cpu kept=$kept start_laps_ms=${starts:--} close_laps_ms=$laps$drn"
	# Every lap by name (the binaries' laps differ): "lap start|close MS WHAT".
	sed -n 's/.*\(start\|close\): \(.*\) at +\([0-9.]*\) ms.*/lap \1 \3 \2/p' /tmp/s.err
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	for b in $bins; do
		one $b default -a
		[ "${2:-}" = quick ] && continue
		one $b r0 -a -r 0
		one $b nodio -a --no-direct-io
		[ "${2:-}" = all ] && one $b round1s -a --round-ms 1000
	done
	rm -f "$OUT/p.data"
	t0=$(now_ms)
	time -f "%U %S" -o /tmp/p.time perf record -q -o "$OUT/p.data" -a -- sleep 1 2>/dev/null
	echo "run perf - wall_ms=$(($(now_ms) - t0)) cpu_s=$(awk 'NF == 2 { printf "%.2f", $1 + $2 }' /tmp/p.time)" \
		"kept=$(perf report --stats -i "$OUT/p.data" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')"
	r=$((r + 1))
done
echo "the laps, from the last run:"
grep -e 'close:' -e 'start:' /tmp/s.err | sed 's/^/   /'

[ "${2:-}" = strace ] && for b in $bins; do
	echo "== strace -f -tt -T $b record -a -- sleep 1: stop phase"
	rm -rf "$OUT/st"
	strace -f -tt -T -o /tmp/st $b record -d "$OUT/st" -a -- sleep 1 2>/dev/null
	main=$(head -1 /tmp/st | cut -d' ' -f1)
	awk -v m="$main" '$1 == m' /tmp/st >/tmp/st.main
	# prec: the waitid that sees the exit (it reaps after the stop's
	# tail); perf: its reap
	from=$(grep -n 'waitid.*si_signo=SIGCHLD' /tmp/st.main | head -1 | cut -d: -f1)
	[ -n "$from" ] || from=$(grep -n -e 'wait4(' -e 'waitid(' /tmp/st.main | tail -1 | cut -d: -f1)
	t0=$(sed -n "${from:-1}p" /tmp/st.main | awk '{ print $2 }')
	echo "   main thread after the reap: $(tail -n +"${from:-1}" /tmp/st.main | wc -l) calls, from $t0 to $(tail -1 /tmp/st.main | awk '{print $2}')"
	tail -n +"${from:-1}" /tmp/st.main | awk '{ split($3, a, "("); c = a[1]; t = $NF; gsub(/[<>]/, "", t); s[c] += t; n[c]++ }
		END { for (k in s) printf "   main %.3f s %d %s\n", s[k], n[k], k }' | sort -k2 -rn | head -8
	echo "   all threads after the reap, by call (s summed, count):"
	awk -v t0="$t0" '$2 >= t0' /tmp/st | sed -n -e 's/^[0-9]* *[0-9:.]* \([a-z_0-9]*\)(.*<\([0-9.]*\)>$/\1 \2/p' \
		-e 's/^[0-9]* *[0-9:.]* <\.\.\. \([a-z_0-9]*\) resumed>.*<\([0-9.]*\)>$/\1 \2/p' |
		awk '{ t[$1] += $2; n[$1]++ } END { for (k in t) printf "   %.3f %d %s\n", t[k], n[k], k }' | sort -rn | head -10
	echo "   threads alive at stop: $(awk -v t0="$t0" '$2 >= t0 { print $1 }' /tmp/st | sort -u | wc -l)"
done
exit 0
