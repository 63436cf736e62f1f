#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record options that change what is recorded, checked through perf:
# 1. -i / --no-inherit: the command's children are not followed. A shell
#    that runs the storm helper (N getppid calls) gives N storm samples of
#    raw_syscalls:sys_enter (id == 110), and none with -i.
#    -p follows its processes into their children too (perf's default):
#    attached to a shell that starts the storm later, N storm samples; with
#    -i none. prec info prints the command line quoted as a shell reads it.
# 2. --switch-events: PERF_RECORD_SWITCH records, which perf script shows
#    with --show-switch-events: a ping-pong of P round trips on one CPU
#    switches each side out at least P times.
# 3. --max-size: a system-wide storm of 5M getppid calls (~650 MB) stops
#    once 5 MiB are recorded (under 100 MiB asserted here; record_max_size
#    checks the bound), the command is stopped with it, and prec exits
#    with its status, 143, as perf does.
# 4. --all-user / --all-kernel: cpu-clock at 10 kHz over the storm (which
#    spends its time in both): every sample perf script shows is a user
#    address with --all-user and a kernel one with --all-kernel (at least
#    100 of each asserted); the storm's samples also carry -e's :k.
# 5. -c N on a software event: the faults helper takes B page faults of its
#    own (start-up, exit; counted with -c 1, where every fault is a sample)
#    and K more, all on one CPU. With B < N (asserted), -c N gives exactly
#    K / N samples (each CPU's event counts towards its own period), every
#    one of period N, as perf record -c, where PERIOD in sample_type made
#    the kernel sample every fault with period 1. cpu-clock -c keeps its
#    period; -F and -P put PERIOD in sample_type, -c alone does not.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir recopts
N=2000
P=1000

storm_samples() { # DIR: samples of comm storm in perf script
	"$PREC" merge "$1" 2>/dev/null | perf script -i - 2>/dev/null | awk '$1 == "storm"' | wc -l
}
for opt in "" -i; do
	# shellcheck disable=SC2086 # $opt is empty or one word
	"$PREC" record -q -d "$tmp/inh$opt" -m 4M $opt -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- sh -c "\"$H/storm\" $N; true" || fail "record $opt: exit $?"
done
n=$(storm_samples "$tmp/inh")
[ "$n" = $N ] || fail "inherit: $n storm samples, want $N"
# prec info's command line, read back by the shell, is the argv recorded
# (the filter and sh -c's script each stay one word).
want=(record -q -d "$tmp/inh" -m 4M -e raw_syscalls:sys_enter --filter 'id == 110'
	-- sh -c "\"$H/storm\" $N; true")
eval "set -- $("$PREC" info "$tmp/inh" | sed -n 's/^command: *//p')"
shift
[ "$*" = "${want[*]}" ] && [ $# = ${#want[@]} ] ||
	fail "info command line: $# words '$*', want ${#want[@]} words '${want[*]}'"
n=$(storm_samples "$tmp/inh-i")
[ "$n" = 0 ] || fail "-i: $n storm samples, want 0 (the child is not followed)"
echo "inherit: $N storm samples; -i: 0"
for opt in "" -i; do
	sh -c "sleep 1; \"$H/storm\" $N; sleep 0.2" &
	target=$!
	sleep 0.1
	# shellcheck disable=SC2086 # $opt is empty or one word
	"$PREC" record -q -d "$tmp/p$opt" -m 4M $opt -p $target \
		-e raw_syscalls:sys_enter --filter 'id == 110' || fail "record -p $opt: exit $?"
	wait $target
done
n=$(storm_samples "$tmp/p")
[ "$n" = $N ] || fail "-p: $n storm samples of the target's child, want $N"
n=$(storm_samples "$tmp/p-i")
[ "$n" = 0 ] || fail "-p -i: $n storm samples, want 0"
echo "-p: $N storm samples of the target's child; -p -i: 0"

"$PREC" record -q -d "$tmp/sw" -e cpu-clock --switch-events -- taskset -c 0 "$H/pingpong" $P ||
	fail "record --switch-events: exit $?"
"$PREC" merge "$tmp/sw" -o "$tmp/sw.data" 2>/dev/null || fail "merge --switch-events"
perf script -i "$tmp/sw.data" --show-switch-events >"$tmp/sw.script" 2>"$tmp/sw.err" ||
	fail "perf script --show-switch-events"
[ -s "$tmp/sw.err" ] && fail "perf script said: $(head -3 "$tmp/sw.err")"
out=$(grep -c 'PERF_RECORD_SWITCH OUT' "$tmp/sw.script")
[ "$out" -ge $((2 * P)) ] || fail "--switch-events: $out switch-outs, want >= $((2 * P))"
"$PREC" record -d "$tmp/max" --max-size 5M -e raw_syscalls:sys_enter -a \
	-- "$H/storm" 5000000 2>"$tmp/max.err"
rc=$?
# as perf's: the command's status, the SIGTERM that stopped it
[ $rc = 143 ] || fail "--max-size: exit $rc, not the stopped command's 143 (perf's): $(cat "$tmp/max.err")"
grep -q "max-size reached" "$tmp/max.err" || fail "--max-size: no message: $(cat "$tmp/max.err")"
read -r recs bytes < <("$PREC" info "$tmp/max" | awk '$1 == "total" { print $3, $5 }')
if [ "$bytes" -lt $((5 << 20)) ] || [ "$bytes" -ge $((100 << 20)) ]; then
	fail "--max-size 5M: $bytes bytes recorded"
fi
[ "$recs" -lt 1000000 ] || fail "--max-size 5M: $recs records: the storm was not stopped"
echo "--max-size 5M: stopped at $bytes bytes, $recs records"
# ips DIR: "user kernel" counts of the storm's sample addresses
ips() {
	"$PREC" merge "$1" 2>/dev/null | perf script -i - -F comm,ip 2>/dev/null |
		awk '$1 == "storm" { if (length($2) == 16 && $2 ~ /^ffff/) k++; else u++ }
		     END { print u + 0, k + 0 }'
}
for space in user kernel; do
	"$PREC" record -q -d "$tmp/all-$space" -e cpu-clock:k -F 10000 --all-$space \
		-- "$H/storm" 3000000 || fail "record --all-$space: exit $?"
done
read -r u k < <(ips "$tmp/all-user")
if [ "$k" != 0 ] || [ "$u" -lt 100 ]; then fail "--all-user: $u user and $k kernel samples"; fi
read -r u2 k2 < <(ips "$tmp/all-kernel")
if [ "$u2" != 0 ] || [ "$k2" -lt 100 ]; then fail "--all-kernel: $u2 user and $k2 kernel samples"; fi
echo "--all-user: $u user samples, 0 kernel; --all-kernel: $k2 kernel samples, 0 user"
# periods DIR: "count period" lines of the faults helper's samples
periods() {
	"$PREC" merge "$1" 2>/dev/null | perf script -i - -F comm,period 2>/dev/null |
		awk '$1 == "faults" { print $2 }' | sort | uniq -c | awk '{ print $1, $2 }'
}
# sample_type DIR EVENT: the event's sample_type as perf evlist -v prints it
sample_type() {
	"$PREC" merge "$1" -o "$1.data" 2>/dev/null || fail "merge $1"
	perf evlist -v -i "$1.data" 2>/dev/null | sed -n "s/^$2: .*sample_type: \([A-Z_|]*\).*/\1/p"
}
K=10000 C=250
"$PREC" record -q -d "$tmp/pf1" -e page-faults -c 1 -- "$H/faults" 0 || fail "record -c 1: exit $?"
read -r B p1 < <(periods "$tmp/pf1")
[ "${p1:-}" = 1 ] && [ "$B" -gt 0 ] && [ "$B" -lt $C ] ||
	fail "-c 1: '$B' samples of period '${p1:-}': want the helper's own faults, fewer than $C"
"$PREC" record -q -d "$tmp/pf" -e page-faults -c $C -- "$H/faults" $K || fail "record -c $C: exit $?"
got=$(periods "$tmp/pf" | tr '\n' ' ')
[ "$got" = "$((K / C)) $C " ] ||
	fail "page-faults -c $C over $K + $B faults: '$got' (count period), want '$((K / C)) $C'"
case $(sample_type "$tmp/pf" page-faults) in
*PERIOD*|"") fail "-c $C: sample_type '$(sample_type "$tmp/pf" page-faults)', want no PERIOD";;
esac
"$PREC" record -q -d "$tmp/pfP" -P -e page-faults -c $C -- "$H/faults" 0 || fail "record -P: exit $?"
[[ $(sample_type "$tmp/pfP" page-faults) == *PERIOD* ]] || fail "-P: no PERIOD in sample_type"
"$PREC" record -q -d "$tmp/pfF" -e page-faults -F 1000 -- "$H/faults" 0 || fail "record -F: exit $?"
[[ $(sample_type "$tmp/pfF" page-faults) == *PERIOD* ]] || fail "-F: no PERIOD in sample_type"
"$PREC" record -q -d "$tmp/cc" -e cpu-clock -c 1000000 -- "$H/storm" 3000000 || fail "record cpu-clock -c: exit $?"
read -r n p < <("$PREC" merge "$tmp/cc" 2>/dev/null | perf script -i - -F comm,period 2>/dev/null |
	awk '$1 == "storm" { n++; if ($2 != 1000000) bad = $2 } END { print n + 0, bad + 0 }')
[ "$n" -ge 100 ] && [ "$p" = 0 ] || fail "cpu-clock -c 1000000: $n storm samples, a period $p"
# Messages name a drainer's CPU by its number, never by its index among
# the recorded CPUs: under -C 1 the only drainer is CPU 1's.
if [ "$(nproc)" -ge 2 ]; then
	"$PREC" record -v -d "$tmp/c1" -C 1 -e cpu-clock -- true 2>"$tmp/c1.err" || fail "record -C 1: exit $?"
	grep -q '^prec: debug: drainer cpu1: ' "$tmp/c1.err" || fail "-C 1 -v: no 'drainer cpu1:' line: $(grep drainer "$tmp/c1.err")"
	! grep -q 'drainer cpu0' "$tmp/c1.err" || fail "-C 1 -v: a drainer named by its index: $(grep 'drainer cpu0' "$tmp/c1.err")"
fi
# -u USER: the user's processes at the start (each of /proc's owned by
# the user), prec itself aside: two spinners of nobody's, nothing else.
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'while :; do :; done' &
u1=$!
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'while :; do :; done' &
u2=$!
sleep 0.2
timeout -s INT 1 "$PREC" record -q -u nobody -e cpu-clock -d "$tmp/u" || true
kill $u1 $u2 2>/dev/null
wait $u1 $u2 2>/dev/null
"$PREC" merge "$tmp/u" -o "$tmp/u.data" 2>/dev/null || fail "-u: merge"
perf script -i "$tmp/u.data" -F pid 2>/dev/null | sort | uniq -c >"$tmp/u.pids"
pids=$(awk '{ print $2 }' "$tmp/u.pids" | tr '\n' ' ')
[ "$pids" = "$(printf '%s\n' $u1 $u2 | sort | tr '\n' ' ')" ] ||
	fail "-u nobody: samples of pids '$pids', want the two spinners' ($u1 $u2)"
echo "page-faults -c $C: $((K / C)) samples of period $C over $K + $B faults; cpu-clock -c 1000000: $n samples"
echo "PASS: -i follows no child; --switch-events: $out switch-outs for $P round trips; --max-size; --all-user/--all-kernel; -c N on page-faults; -C 1 names its drainer cpu1; -u nobody records the user's two spinners"
