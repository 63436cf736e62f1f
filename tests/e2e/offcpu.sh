#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --off-cpu: perf's offcpu-time samples, made by prec merge from the
# sched:sched_switch source. The offsleep helper sleeps 20 x 50 ms in
# offsleep_sleeper (nanosleep: S) and measures those sleeps itself with
# CLOCK_MONOTONIC around each; offsleep_spinner spins and never sleeps.
# For the workload, -a and -p PID, perf (the judge) reads the merged file:
# - no warning on stderr from perf report or perf script;
# - the offcpu-time samples whose user call chain passes through
#   offsleep_sleeper add up to at least 1.0 s and at most what the helper
#   measured (each interval runs from the task's switch out to its switch
#   back in, both inside the helper's clock_gettime pair); none passes
#   through offsleep_spinner;
# - the workload's total is the event count perf report shows, from the
#   file and from the pipe format.
# The attrs (perf evlist -v): offcpu-time as perf 6.1 makes it, compared
# field by field with perf's own rendering of the same event (a bpf-output
# named offcpu-time with freq=1 and a call graph goes through the same
# evsel__config and OFFCPU_SAMPLE_TYPES mask), but exclude_guest, which
# perf's off_cpu_config leaves 0 (its attr never went through the event
# parser), for the workload, -F 99, -a and -p; the other events as without
# --off-cpu; no sched_switch shown.
# perf's own record_offcpu.sh passes with perf record played by prec.
# Errors: one line naming --off-cpu, exit 2: as an unprivileged user,
# without tracefs, with -G.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir offcpu
cd "$tmp" || fail "cd $tmp"
w=
cleanup() { [ -n "$w" ] && kill "$w" 2>/dev/null; }
at_exit cleanup

# samples DIR: DIR.data merged, and DIR.off: "TID PERIOD SYMBOLS..." for
# each offcpu-time sample perf script prints; perf says nothing on stderr.
samples() {
	"$PREC" merge "$1" -o "$1.data" 2>"$1.merr" || fail_rc "$1.merr" "merge $1"
	perf script -i "$1.data" -F tid,period,event,ip,sym >"$1.script" 2>"$1.err" ||
		fail_rc "$1.err" "perf script $1"
	[ ! -s "$1.err" ] || fail "$1: perf script said: $(cat "$1.err")"
	perf report -i "$1.data" --stdio >"$1.report" 2>"$1.err" || fail_rc "$1.err" "perf report $1"
	[ ! -s "$1.err" ] || fail "$1: perf report said: $(cat "$1.err")"
	awk 'function flush() { if (inb) print tid, per, chain; inb = 0 }
		/ offcpu-time: *$/ { flush(); inb = 1; tid = $1; per = $2; chain = ""; next }
		inb && /^[ \t]+[0-9a-f]+ / { chain = chain " " $2; next }
		{ flush() }
		END { flush() }' "$1.script" >"$1.off"
}

# check DIR WHAT TID SLEPT: TID's samples through offsleep_sleeper add up
# to [1.0 s, SLEPT ns]; none of any task through offsleep_spinner.
check() {
	local sum n spin
	read -r n sum < <(awk -v t="$3" '$1 == t && / offsleep_sleeper( |$)/ { n++; s += $2 }
		END { printf "%d %d\n", n, s }' "$1.off")
	spin=$(grep -c ' offsleep_spinner' "$1.off")
	echo "$2: $n samples through offsleep_sleeper, $sum ns (the helper measured $4 ns)"
	[ "$n" -ge 20 ] || fail "$2: $n samples through offsleep_sleeper, want >= 20"
	[ "$sum" -ge 1000000000 ] || fail "$2: $sum ns off-CPU in offsleep_sleeper, under 1.0 s"
	[ "$sum" -le "$4" ] || fail "$2: $sum ns off-CPU in offsleep_sleeper, over the $4 ns measured"
	[ "$spin" = 0 ] || fail "$2: $spin samples through offsleep_spinner"
}

# The workload.
"$PREC" record -q --off-cpu -e cpu-clock -d wl -- "$H/offsleep" 20 50 100 >wl.slept 2>wl.rerr ||
	fail_rc wl.rerr "record --off-cpu"
samples wl
pid=$(awk '{ print $1; exit }' wl.off)
[ -n "$pid" ] || fail "workload: no offcpu-time sample"
check wl "workload" "$pid" "$(cat wl.slept)"
# Its samples are all the workload's: perf report's count is their sum.
total=$(awk '{ s += $2 } END { printf "%d", s }' wl.off)
grep -q "^# Samples: .* of event 'offcpu-time'" wl.report || fail "workload: perf report shows no offcpu-time"
want=$(awk '/of event .offcpu-time./ { f = 1 } f && /^# Event count/ { print $NF; exit }' wl.report)
[ "$want" = "$total" ] || fail "workload: perf report counts $want ns, the samples $total"
# The same in perf's pipe format.
"$PREC" merge wl -o - 2>/dev/null | perf report -i - --stdio >pipe.report 2>pipe.err ||
	fail_rc pipe.err "perf report of the pipe"
[ ! -s pipe.err ] || fail "pipe: perf report said: $(cat pipe.err)"
got=$(awk '/of event .offcpu-time./ { f = 1 } f && /^# Event count/ { print $NF; exit }' pipe.report)
[ "$got" = "$total" ] || fail "pipe: perf report counts '$got' ns, the file $total"

# The attrs: offcpu-time as perf's, the others as without --off-cpu.
perf evlist -i wl.data >wl.names 2>&1
[ "$(tr '\n' ' ' <wl.names)" = "cpu-clock offcpu-time dummy " ] ||
	fail "events of the merged file: $(tr '\n' ' ' <wl.names)"
perf evlist -v -i wl.data >wl.evlist 2>&1 || fail "perf evlist"
# same_attr WHAT DATA TERMS PERF-RECORD-ARGS...: DATA's offcpu-time as
# perf's rendering of bpf-output/name=offcpu-time,TERMS/ recorded after -e
# cpu-clock with those arguments, field by field but for prec's design
# (tests/lib/attr_blocks.awk) and perf's parser's exclude_guest.
same_attr() {
	local what=$1 data=$2 terms=$3
	shift 3
	perf record -q -o perf.data -e cpu-clock -e "bpf-output/name=offcpu-time,$terms/" "$@" \
		2>perf.err || fail_rc perf.err "perf record $* (offcpu-time's attr)"
	perf evlist -v -i perf.data 2>&1 | grep '^offcpu-time:' | sed 's/, exclude_guest: 1//' |
		awk -v evlist=1 -f "$PREC_TOP/tests/lib/attr_blocks.awk" >want.attr
	perf evlist -v -i "$data" 2>&1 | grep '^offcpu-time:' >got.evlist
	awk -v evlist=1 -f "$PREC_TOP/tests/lib/attr_blocks.awk" got.evlist >got.attr
	[ -s want.attr ] || fail "$what: perf's offcpu-time attr not read"
	diff want.attr got.attr >attr.diff || fail "$what: offcpu-time's attr differs from perf's: $(cat attr.diff)"
	! grep -q 'exclude_guest' got.evlist || fail "$what: offcpu-time has exclude_guest"
}
same_attr "workload" wl.data freq=1,call-graph=fp -- true
# -F as perf's evsel__config takes it: a weak default's replacement (the
# freq term would replace -F in perf's rendering: without it, perf's -F
# sets freq and the frequency as its off_cpu_config path ends up).
"$PREC" record -q --off-cpu -F 99 -e cpu-clock -o f99.data -- true 2>f99.err || fail_rc f99.err "record --off-cpu -F 99"
same_attr "-F 99" f99.data call-graph=fp -F 99 -- true
grep -q 'sample_freq } 99' got.attr || fail "-F 99: offcpu-time $(cat got.attr)"
"$PREC" record -q -e cpu-clock -d plain -- "$H/offsleep" 1 1 1 >/dev/null 2>plain.err ||
	fail_rc plain.err "record without --off-cpu"
"$PREC" merge plain -o plain.data 2>/dev/null || fail "merge plain"
perf evlist -v -i plain.data >plain.evlist 2>&1
diff plain.evlist <(grep -v '^offcpu-time:' wl.evlist) >others.diff ||
	fail "the other events changed with --off-cpu: $(cat others.diff)"
echo "attrs: offcpu-time as perf's, the others unchanged"

# -a: the helper among every task of the machine.
"$PREC" record -q --off-cpu -a -d all -- "$H/offsleep" 20 50 100 >all.slept 2>all.rerr ||
	fail_rc all.rerr "record --off-cpu -a"
samples all
pid=$(awk '/ offsleep_sleeper( |$)/ { print $1; exit }' all.off)
[ -n "$pid" ] || fail "-a: no sample through offsleep_sleeper"
check all "-a" "$pid" "$(cat all.slept)"
same_attr "-a" all.data freq=1,call-graph=fp -a -- true

# -p: the helper already running, waiting 2.5 s before its sleeps (a
# slow start of prec, up to 2.3 s, still sees them all).
"$H/offsleep" 20 50 100 2500 >pid.slept &
w=$!
sleep 0.2
"$PREC" record -q --off-cpu -p "$w" -d pid 2>pid.rerr || fail_rc pid.rerr "record --off-cpu -p"
wait "$w"
w=
samples pid
check pid "-p" "$(awk '/ offsleep_sleeper( |$)/ { print $1; exit }' pid.off)" "$(cat pid.slept)"
# perf records until its target ends: one that outlives a slow start
sleep 2 &
same_attr "-p" pid.data freq=1,call-graph=fp -p $!

# perf's own test (its installed record_offcpu.sh: --off-cpu -e dummy on
# sleep 1, then on perf bench sched messaging's 400 processes, read by perf
# report), perf record played by prec. With Debian's perf it skips (no BPF).
s=/usr/lib/perf-core/tests/shell/record_offcpu.sh
if [ -f "$s" ]; then
	PATH=$PREC_TOP/tests/lib/perf-as-prec:$PATH sh "$s" >perf_test.log 2>&1 ||
		fail "perf's record_offcpu.sh with prec record: $(tail -5 perf_test.log)"
	[ "$(grep -c 'off-cpu test \[Success\]' perf_test.log)" = 2 ] ||
		fail "perf's record_offcpu.sh: $(cat perf_test.log)"
	echo "perf's record_offcpu.sh with prec record: both its tests pass"
else
	echo "no $s (linux-perf's tests): perf's own test not run"
fi

# refused ARGS WORDS: prec record ARGS exits 2 with one line naming
# --off-cpu and WORDS, and leaves no directory.
refused() {
	local words=$1
	shift
	"$@" >out 2>err
	local rc=$?
	[ $rc = 2 ] || fail "$*: exit $rc, want 2 ($(cat err))"
	if [ "$(wc -l <err)" != 1 ] || ! grep -q -- '--off-cpu' err || ! grep -qi -- "$words" err; then
		fail "$*: want one line naming --off-cpu and '$words', got: $(cat err)"
	fi
	[ ! -e refused ] || fail "$*: left a directory"
	echo "refused: $(cat err)"
}
mkdir -m 755 nob || fail "mkdir nob"
cd nob || fail "cd nob"
refused "paranoid" nobody "$PREC" record --off-cpu -d refused -- true
cd .. || fail "cd .."
refused "no tracefs" unshare -m sh -c "mount -t tmpfs none /sys/kernel && exec \"\$0\" \"\$@\"" \
	"$PREC" record --off-cpu -d refused -- true
refused "-G" "$PREC" record --off-cpu -a -e cpu-clock -G / -d refused -- true
