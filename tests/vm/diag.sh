#!/bin/sh
# SPDX-License-Identifier: MIT
# A guest job for finding where prec's time goes on many CPUs (run with
# VM_JOB=tests/vm/diag.sh tests/vm/run.sh NCPU "N [0]"): prec record -v (its
# start and close laps) and the same under strace -f -tt -T (not with a
# second argument 0), whose slowest system calls and the stop phase's calls
# are printed; where prec's threads spend their CPU (perf record -a -g
# around prec record, by thread name and hottest symbols); then prec against
# perf on when the first and last cpu-clock samples come relative to the
# workload's start and end (does prec enable late, miss the start?).
. /guest_lib.sh
echo "suite: diag, $NCPU CPUs, kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime) s"
tp="-e raw_syscalls:sys_enter --filter id==110"

for ev in "$tp" "-e cpu-clock"; do
	echo "== prec record -v -a $ev -- sleep 1"
	rec prec v -a -v $ev -- sleep 1
	grep -v '^drainer cpu' "$ERR" | sed 's/^/   /'
	echo "   wall_ms=$WALL cpu_s=$CPU"
done

# DIAG_STRACE=0 in the job's arguments' place: no strace part (slow on many vCPUs)
[ "${2:-1}" = 0 ] || {
echo "== strace -f -tt -T prec record -a $tp -- sleep 1"
rm -rf "$OUT/st"
strace -f -tt -T -o /tmp/st prec record -d "$OUT/st" -a $tp -- sleep 1 2>/tmp/st.err
cat /tmp/st.err
echo "-- slowest calls (s, call), all threads:"
sed -n -e 's/^\([0-9]*\) *\([0-9:.]*\) \([a-z_0-9]*\)(\(.\{0,60\}\).*<\([0-9.]*\)>$/\5 \1 \2 \3(\4/p' \
	-e 's/^\([0-9]*\) *\([0-9:.]*\) <\.\.\. \([a-z_0-9]*\) resumed>.*<\([0-9.]*\)>$/\4 \1 \2 \3 (resumed)/p' /tmp/st |
	sort -rn | head -25
echo "-- time per call name (s summed, count), all threads:"
sed -n -e 's/^[0-9]* *[0-9:.]* \([a-z_0-9]*\)(.*<\([0-9.]*\)>$/\1 \2/p' \
	-e 's/^[0-9]* *[0-9:.]* <\.\.\. \([a-z_0-9]*\) resumed>.*<\([0-9.]*\)>$/\1 \2/p' /tmp/st |
	awk '{ t[$1] += $2; n[$1]++ } END { for (k in t) printf "%.3f %d %s\n", t[k], n[k], k }' |
	sort -rn | head -15
echo "-- the main thread from the workload's exit (the waitid that sees it, before the reap; else its last wait4: the reap) to its exit:"
main=$(head -1 /tmp/st | cut -d' ' -f1)
awk -v m="$main" '$1 == m' /tmp/st >/tmp/st.main
from=$(grep -n 'waitid.*si_signo=SIGCHLD' /tmp/st.main | head -1 | cut -d: -f1)
[ -n "$from" ] || from=$(grep -n -e 'wait4(' -e 'waitid(' /tmp/st.main | tail -1 | cut -d: -f1)
tail -n +"${from:-1}" /tmp/st.main | cut -c1-180 | awk '
	# runs of the same call collapsed: first line and a count
	{ split($3, a, "("); c = a[1] }
	c == last { n++; t += $NF ~ /^<.*>$/ ? substr($NF, 2, length($NF) - 2) : 0; next }
	{ if (n) printf "      ... %d more %s, %.3f s\n", n, last, t; print; last = c; n = 0; t = 0 }
	END { if (n) printf "      ... %d more %s, %.3f s\n", n, last, t }'
echo "-- every thread: the stop phase's calls (after the main thread's reap of the workload) by name, s summed:"
t0=$(sed -n "${from:-1}p" /tmp/st.main | awk '{ print $2 }')
awk -v t0="$t0" '$2 >= t0' /tmp/st | sed -n -e 's/^[0-9]* *[0-9:.]* \([a-z_0-9]*\)(.*<\([0-9.]*\)>$/\1 \2/p' \
	-e 's/^[0-9]* *[0-9:.]* <\.\.\. \([a-z_0-9]*\) resumed>.*<\([0-9.]*\)>$/\1 \2/p' |
	awk '{ t[$1] += $2; n[$1]++ } END { for (k in t) printf "%.3f %d %s\n", t[k], n[k], k }' | sort -rn | head -12
echo "-- the start: main thread's calls until the workload runs, by name, s summed:"
to=$(grep -n 'PERF_EVENT_IOC_ENABLE' /tmp/st.main | tail -1 | cut -d: -f1)
head -n "${to:-0}" /tmp/st.main | sed -n 's/^[0-9]* *[0-9:.]* \([a-z_0-9]*\)(.*<\([0-9.]*\)>$/\1 \2/p' |
	awk '{ t[$1] += $2; n[$1]++ } END { for (k in t) printf "%.3f %d %s\n", t[k], n[k], k }' | sort -rn | head -8
echo "   first: $(head -1 /tmp/st | cut -c1-100)"
echo "   last enable: $(sed -n "${to:-1}p" /tmp/st.main | cut -c1-100)"
echo "   last:  $(tail -1 /tmp/st | cut -c1-100)"
}

echo "== where the recorder's CPU goes: perf record -a -g -F 499 on prec record -a -- sleep 1"
rm -rf "$OUT/prof" "$OUT/prof.data"
perf record -q -a -g -F 499 -e cpu-clock -o "$OUT/prof.data" -- \
	prec record -q -v -d "$OUT/prof" -a -- sleep 1 2>/tmp/prof.err
grep 'close:' /tmp/prof.err | sed 's/^/   /'
echo "-- samples by thread name (prec's main thread, drainers, their io-wq workers, others):"
perf report -i "$OUT/prof.data" --stdio --no-children -g none --sort comm 2>/dev/null |
	grep -v '^#' | grep -v '^$' | sed 's/prec-drain-[0-9]*/prec-drain-N/; s/iou-wrk-[0-9]*/iou-wrk-N/' |
	awk '{ sub("%", "", $1); t[$2] += $1 } END { for (k in t) printf "   %6.2f%% %s\n", t[k], k }' | sort -rn | head -8
echo "-- prec's threads: the hottest symbols, kernel and user:"
perf report -i "$OUT/prof.data" --stdio --no-children --sort sym -g none \
	--comms "$(perf report -i "$OUT/prof.data" --stdio --no-children -g none --sort comm 2>/dev/null |
		awk '$2 ~ /^(prec|prec-drain-|iou-wrk-)/ { printf "%s%s", s, $2; s = "," }')" 2>/dev/null |
	grep -v '^#' | grep -v '^$' | head -25 | sed 's/^/   /'

echo "== features on this kernel"
for opt in --markers "-k perf" "--call-graph dwarf" "-e intel_pt//" --switch-events "-z"; do
	rm -rf "$OUT/feat"
	if prec record -q -d "$OUT/feat" $opt -- true 2>/tmp/feat.err; then
		echo "   ok   $opt"
	else
		echo "   FAIL $opt: $(head -2 /tmp/feat.err | tr '\n' ' ')"
	fi
done
echo "   perf_event_max_sample_rate now $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
dmesg | grep -i 'perf' | tail -3 | sed 's/^/   /'

echo "== first and last cpu-clock sample against the command's start (-F 1000 -- sleep 1)"
for tool in prec perf prec perf; do
	rec $tool first -a -e cpu-clock -F 1000 -- sleep 1
	perf script -i "$OUT/first.data" -F comm,pid,cpu,time 2>/dev/null >/tmp/fs
	# sleep's exec is its first sample's comm change; time of the first and
	# last sample overall, of sleep's samples, and the per-CPU counts.
	awk -v t="$tool" '{ sub(":", "", $4); ts = $4 + 0; if (!first) first = ts; last = ts; n++
		c[$3]++; if ($1 == "sleep") { if (!sf) sf = ts; sl = ts } }
		END { printf "%s: %d samples, span %.3f s (first %.3f, last %.3f), sleep comm from %.3f to %.3f; per CPU:", t, n, last - first, first, last, sf, sl
		      for (k in c) printf " %s=%d", k, c[k]; printf "\n" }' /tmp/fs
	echo "   wall_ms=$WALL cpu_s=$CPU close_ms=$CLOSE"
done
