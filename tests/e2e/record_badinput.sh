#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record on bad input: one clear line, the documented exit code (2 bad
# command line, 1 runtime failure, 127 missing command), and nothing on disk
# created or damaged.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir badinput
cd "$tmp" || exit 1

# expect CODE TEXT prec-record-args...: exit code, message, no out dir.
expect() {
	local code=$1 text=$2; shift 2
	rm -rf out
	"$PREC" record -d out "$@" >stdout 2>stderr
	local rc=$?
	echo "record $* -> $rc: $(cat stderr)"
	[ $rc = "$code" ] || fail "record $*: exit $rc, want $code"
	grep -qF -- "$text" stderr || fail "record $*: no '$text' in: $(cat stderr)"
	[ "$(wc -l <stderr)" -le 2 ] || fail "record $*: more than one line of complaint"
	[ ! -e out ] || fail "record $*: created the output directory"
}

expect 2 "event 'nosuch': unknown event" -e nosuch -- true
expect 2 "event 'sched:no_such_tp': no such tracepoint" -e sched:no_such_tp -- true
expect 2 "event 'sched:no_such_*': no tracepoint matches" -e 'sched:no_such_*' -- true
expect 2 "event 'cpu-clock:kx': unknown modifier ':kx'" -e cpu-clock:kx -- true
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
	expect 2 "event 'intel_pt//': PMU 'intel_pt' not found (no /sys/bus/event_source/devices/intel_pt)" \
		-e intel_pt// -- true
fi
if [ ! -e /sys/bus/event_source/devices/cs_etm ]; then
	expect 2 "event 'cs_etm//': PMU 'cs_etm' not found (no /sys/bus/event_source/devices/cs_etm)" \
		-e cs_etm// -- true
	expect 2 "event 'cs_etm/timestamp=0/': PMU 'cs_etm' not found" -a -e cs_etm/timestamp=0/ -- true
fi
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	# cycles falls back to cpu-clock, as perf's; another hardware event does not
	expect 1 "event 'instructions': no hardware PMU on this machine (perf_event_open: " -e instructions -- true
fi
# a branch stack on an event whose PMU has none: that named, as perf's
# "doesn't support branch stack sampling" (the arm64 guest's suite: its
# PMU's cycles -b, --call-graph lbr)
expect 1 "event 'cpu-clock': its PMU does not sample branch stacks (-b, -j, --call-graph lbr, branch_type=)" -e cpu-clock -b -- true
expect 2 "option -C '0-x'" -C 0-x -- true
expect 2 "CPU 4095 is not online" -C 4095 -- true
expect 2 "option -m '3x'" -m 3x -- true
expect 2 "option -F '0'" -F 0 -- true
expect 2 "option -k 'sundial'" -k sundial -- true
# perf_event_set_clock: a tracepoint takes only the NMI-safe clocks
expect 1 "event 'sched:sched_switch': the kernel takes -k realtime, boottime or tai only for software events" \
	-k boottime -e sched:sched_switch -- true
expect 2 "options --markers and -k tai: markers need -k monotonic or monotonic_raw" -k tai --markers -- true
expect 2 "option '--bogus'" --bogus -- true
expect 2 "give a frequency or a period" -c 1 -F 1 -- true
expect 2 "must follow the -e tracepoint" --filter 'id == 1' -- true
expect 2 "is not a tracepoint" -e cpu-clock --filter 'id == 1' -- true
expect 2 "'cpu-clock' of the -e before it is not a tracepoint" \
	-e raw_syscalls:sys_enter,cpu-clock --filter 'id == 1' -- true
expect 1 "filter 'nosuchfield == 1'" -e raw_syscalls:sys_enter --filter 'nosuchfield == 1' -- true
expect 1 "pid 999999: no such process" -p 999999
expect 127 "command 'prec-no-such-cmd': No such file or directory" -- prec-no-such-cmd arg
expect 127 "command './nope': No such file or directory" -- ./nope

# No tracefs: a private mount namespace without it.
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	rm -rf out
	# An empty tmpfs over /sys/kernel: no tracefs, and no mount point
	# for prec to mount one on.
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel || exit 77
		[ -e /sys/kernel/tracing ] && exit 77
		exec "$0" record -d out -e sched:sched_switch -- true' "$PREC" 2>stderr
	rc=$?
	cat stderr
	if [ $rc != 77 ]; then
		[ $rc = 1 ] || fail "no tracefs: exit $rc, want 1"
		grep -qF "tracefs is not mounted" stderr || fail "no tracefs: message"
		[ ! -e out ] || fail "no tracefs: created the output directory"
	fi
fi

# perf_event_paranoid: an unprivileged user may not record every CPU.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	chmod 777 "$tmp"
	rm -rf out
	nobody \
		"$PREC" record -d out -a -e cpu-clock 2>stderr
	rc=$?
	cat stderr
	[ $rc = 1 ] || fail "paranoid: exit $rc, want 1"
	grep -q "kernel.perf_event_paranoid <= 0 (it is [0-9]*) or CAP_PERFMON" stderr || fail "paranoid: message"
	[ ! -e out ] || fail "paranoid: created the output directory"
fi

# An existing non-empty directory is refused without -f, and untouched.
mkdir -p keep && echo precious >keep/file && touch -d '2001-01-01' keep/file
before=$(stat -c '%s %Y %i' keep/file; sha1sum keep/file)
"$PREC" record -d keep -e cpu-clock -- true 2>stderr
rc=$?
cat stderr
[ $rc = 1 ] || fail "existing dir: exit $rc, want 1"
grep -qF "keep: exists (use -f to replace it)" stderr || fail "existing dir: message"
[ "$(ls keep)" = file ] || fail "existing dir: contents changed"
[ "$(stat -c '%s %Y %i' keep/file; sha1sum keep/file)" = "$before" ] || fail "existing dir: file changed"
# A plain file in the way is refused too.
echo x >afile
"$PREC" record -d afile -e cpu-clock -- true 2>stderr && fail "existing file accepted"
[ "$(cat afile)" = x ] || fail "existing file changed"
# An existing empty directory is used.
mkdir empty
"$PREC" record -q -d empty -e cpu-clock -- true || fail "empty dir refused"
[ -f empty/manifest ] || fail "empty dir: no manifest"
# -f replaces, and leaves no DIR.old.* behind.
"$PREC" record -q -f -d keep -e cpu-clock -- true || fail "-f: exit $?"
[ -f keep/manifest ] && [ ! -e keep/file ] || fail "-f: not replaced"
ls -d keep.old.* 2>/dev/null && fail "-f: old directory left behind"
"$H/mfdump" keep | grep -q '^state complete' || fail "-f: manifest"

# A tiny soft fd limit is raised to the hard one, not fatal.
rm -rf fds
(ulimit -Sn 16 && "$PREC" record -q -d fds -a -e cpu-clock,cs,faults,migrations,minor-faults -- true) ||
	fail "soft fd limit 16: not raised"
"$H/mfdump" fds | grep -q '^state complete' || fail "soft fd limit 16: manifest"
# A hard limit that cannot be raised (no CAP_SYS_RESOURCE here, or as a
# user): one line, exit 1, nothing on disk.
if ! (ulimit -n 16 && ulimit -Hn 4096) 2>/dev/null; then
	expect_fds() { (ulimit -n 16 && exec "$PREC" record -d out -a -e cpu-clock,cs,faults -- true); }
	rm -rf out
	expect_fds 2>stderr
	rc=$?
	cat stderr
	[ $rc = 1 ] || fail "hard fd limit 16: exit $rc, want 1"
	grep -qF "RLIMIT_NOFILE is 16 and cannot be raised" stderr || fail "hard fd limit: message"
	[ ! -e out ] || fail "hard fd limit: created the output directory"
fi
echo "PASS"
