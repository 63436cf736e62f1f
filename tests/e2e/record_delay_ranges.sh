#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -D START-END,... (perf 6.1's ranges), perf is the judge: the CPUs
# sampled at 1 kHz (-a) with -D 200-400,700-900 have their samples in two
# bursts about 200 ms long, 300 ms apart, under perf as under prec; each
# says "Events disabled" at the start, then "Events enabled" and "Events
# disabled" twice; a first range from below 0 as perf's; the last range's
# end stops the recording, as perf's. Ranges out of order
# or empty are refused in one line, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir delayranges
cd "$tmp" || fail "cd $tmp"
# The bursts are timed by the CPUs' clocks (-a -e cpu-clock: a timer on
# each CPU, idle or not), not by a command's CPU time, which other
# processes' load takes (a burst of 62 ms of 200 under ten busy loops);
# and the recorders run SCHED_FIFO (as root, where the machine allows
# it), so that no load wakes them late for an edge. They sleep between
# edges: no CPU is held from anyone.
rt=()
if chrt -f 2 true 2>/dev/null; then
	rt=(chrt -f 2)
else
	echo "SCHED_FIFO refused here: the recorders wake for their edges as the machine's load lets them"
fi
work=(sleep 1.3)

# bursts FILE: "gaps G spans S1 S2 ..." in ms, a burst ending where two
# samples are more than 120 ms apart
bursts() {
	perf script -i "$1" -F time 2>/dev/null | awk '
		{ t = $1 * 1000
		  if (n && t - p > 120) { g = g " " int(t - p); sp = sp " " int(p - s) }
		  if (!n || t - p > 120) s = t
		  p = t; n++ }
		END { print "gaps" g " spans" sp " " int(p - s) }'
}

# check TOOL FILE ERR
check() {
	local b gap s1 s2
	b=$(bursts "$2")
	echo "$1: $b"
	read -r _ gap _ s1 s2 extra <<<"$b"
	[ "$gap" != spans ] && [ -n "$s2" ] && [ -z "${extra:-}" ] ||
		fail "$1: want two bursts, got $b"
	[ "$gap" -ge 220 ] && [ "$gap" -le 420 ] || fail "$1: gap $gap ms, want about 300"
	for s in "$s1" "$s2"; do
		[ "$s" -ge 100 ] && [ "$s" -le 300 ] || fail "$1: a burst of $s ms, want about 200"
	done
	[ "$(grep -c 'Events enabled' "$3")" = 2 ] && [ "$(grep -c 'Events disabled' "$3")" = 3 ] ||
		fail "$1: want 'Events disabled' at the start, then 'Events enabled' and 'Events disabled' twice: $(cat "$3")"
}

"${rt[@]}" perf record -B -o perf.data -a -D 200-400,700-900 -e cpu-clock -F 1000 -- "${work[@]}" \
	>/dev/null 2>perf.err # the last range's end stops it, and ends the command
"${rt[@]}" "$PREC" record -o prec.data -a -D 200-400,700-900 -e cpu-clock -F 1000 -- "${work[@]}" \
	>/dev/null 2>prec.err
check perf perf.data perf.err
check prec prec.data prec.err

# a first range from below 0, as perf 6.1's: its initial delay below 0
# leaves the events disabled (as -D -1) and its timer runs from there:
# -100-200,500-700 is one burst, 600 to 800 ms; "Events disabled" at the
# start and at 300 ms, then "Events enabled", "Events disabled"
"${rt[@]}" perf record -B -o perfn.data -a -D -100-200,500-700 -e cpu-clock -F 1000 -- "${work[@]}" \
	>/dev/null 2>perfn.err
"${rt[@]}" "$PREC" record -o precn.data -a -D -100-200,500-700 -e cpu-clock -F 1000 -- "${work[@]}" \
	>/dev/null 2>precn.err
for t in perf prec; do
	b=$(bursts "${t}n.data")
	echo "$t -D -100-200,500-700: $b"
	read -r _ gap s1 extra <<<"$b"
	[ "$gap" = spans ] && [ -z "${extra:-}" ] && [ "$s1" -ge 100 ] && [ "$s1" -le 300 ] ||
		fail "$t: -D -100-200,500-700: want one burst of about 200 ms, got $b"
	[ "$(grep -c 'Events enabled' "${t}n.err")" = 1 ] && [ "$(grep -c 'Events disabled' "${t}n.err")" = 3 ] ||
		fail "$t: -D -100-200,500-700: want 'Events disabled' twice, 'Events enabled', 'Events disabled': $(cat "${t}n.err")"
done

# -D MS and -D -1 said as perf says them: "Events disabled" at the start,
# "Events enabled" when the delay ends
for d in 100 -1; do
	"${rt[@]}" perf record -B -o say.perf -D "$d" -e cpu-clock -- sleep 0.3 >/dev/null 2>say.perf.err
	"${rt[@]}" "$PREC" record -o say.prec -D "$d" -e cpu-clock -- sleep 0.3 >/dev/null 2>say.prec.err
	p=$(grep -o 'Events [a-z]*' say.perf.err | tr '\n' ,)
	c=$(grep -o 'Events [a-z]*' say.prec.err | tr '\n' ,)
	echo "-D $d: perf says '$p', prec '$c'"
	[ -n "$p" ] && [ "$p" = "$c" ] || fail "-D $d: perf says '$p', prec '$c': $(cat say.prec.err)"
done

# the last range's end stops the recording, as perf's timer does: a
# command still running is ended (SIGTERM: exit 143, as perf's)
for t in perf prec; do
	start=$(date +%s%N)
	if [ $t = perf ]; then
		"${rt[@]}" perf record -q -B -o stop.perf -D 10-20 -e cpu-clock -- sleep 10 >/dev/null 2>&1
	else
		"${rt[@]}" "$PREC" record -q -o stop.prec -D 10-20 -e cpu-clock -- sleep 10 >/dev/null 2>&1
	fi
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "$t -D 10-20 -- sleep 10: exit $rc after $ms ms"
	[ $rc = 143 ] && [ $ms -lt 5000 ] || fail "$t -D 10-20 -- sleep 10: exit $rc after $ms ms, want 143 well before 10 s"
done

for d in 400-200 200-400,300-500 5- '1-2,' -5-6,6-8; do
	"$PREC" record -q -o bad.data -D "$d" -e cpu-clock -- true >out 2>err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- "-D '$d'" err ||
		fail "-D $d: exit $rc, want 2 and one line naming it: $(cat err)"
done
echo "bad ranges: one line, exit 2"
