# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# What every e2e script shares, sourced first thing after `set -u`:
#   . "$(dirname "$0")/../lib/e2e.sh"
# the binaries' paths, fail/skip, the scratch directory and its clean-up,
# and the few prec/perf helpers that scripts used to repeat.

# Paths. tests/run.sh exports PREC, PREC_BUILD and PREC_TOP; a script run by
# hand (bash tests/e2e/NAME.sh) finds them from here and from BUILD.
PREC_TOP=${PREC_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PREC_BUILD=${PREC_BUILD:-$PREC_TOP/${BUILD:-build}}
PREC=${PREC:-$PREC_BUILD/prec}
export PREC PREC_BUILD PREC_TOP
# The test helper programs (storm, mfdump, shardcount, mkshards ...).
H=$PREC_BUILD/tests/helpers

# fail MESSAGE...: "FAIL: MESSAGE" on stdout, then the script's on_fail (if
# it defines one, to show what it has at hand), exit 1. In a subshell or a
# command substitution it ends only that, as exit does.
fail() {
	echo "FAIL: $*"
	if declare -F on_fail >/dev/null; then on_fail; fi
	exit 1
}

# cmd || fail_rc FILE WHAT: for a command that just failed, FILE (its
# stderr) and "FAIL: WHAT exited RC" with the command's own status. It must
# be the first thing run after the command: $? is read on entry.
fail_rc() {
	local rc=$?
	cat "$1"
	fail "$2 exited $rc"
}

# wait_signaled PID SIG WHAT [FILE]: wait for PID, which must die of SIG
# (INT, TERM, HUP ...), as perf record and prec record end when SIG stopped
# them or killed their command: a status of 128 + SIG's number. Else FILE
# (its stderr) and "FAIL: WHAT exited RC, want N (SIGSIG)".
wait_signaled() {
	local rc want
	wait "$1"
	rc=$?
	want=$((128 + $(kill -l "$2")))
	[ "$rc" = "$want" ] && return 0
	if [ -n "${4:-}" ]; then cat "$4"; fi
	fail "$3 exited $rc, want $want (SIG$2)"
}

# skip REASON...: "skip: REASON" (tests/run.sh shows the last line), exit 77.
skip() {
	echo "skip: $*"
	exit 77
}

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root"
}

# need_cmd NAME [REASON]: skip unless NAME is on PATH; the reason defaults to
# "no NAME".
need_cmd() {
	command -v "$1" >/dev/null || skip "${2:-no $1}"
}

# need_tracepoint SYS[/EVENT]: skip without that tracefs directory, once
# tracefs had its chance to be mounted (as prec does itself when needed).
need_tracepoint() {
	local d=/sys/kernel/tracing/events/$1
	[ -d "$d" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d "$d" ] || skip "no ${1%%/*} tracepoints"
}

# Clean-up at exit: each at_exit command (a string, eval'd) in the reverse of
# the order they were added, then the scratch directory is removed. The
# script's exit status is kept.
e2e_at_exit=()
at_exit() {
	e2e_at_exit+=("$1")
}
e2e_cleanup() {
	local i
	for ((i = ${#e2e_at_exit[@]} - 1; i >= 0; i--)); do
		eval "${e2e_at_exit[i]}"
	done
	if [ -n "${tmp:-}" ]; then rm -rf "$tmp"; fi
}
trap e2e_cleanup EXIT

# e2e_tmpdir NAME [PARENT]: a fresh directory PARENT/prec-NAME.XXXXXX
# (PARENT /tmp by default) in $tmp, removed at exit.
e2e_tmpdir() {
	tmp=$(mktemp -d "${2:-/tmp}/prec-$1.XXXXXX") || fail "mktemp in ${2:-/tmp}"
}

# nobody CMD...: CMD as uid and gid 65534, no supplementary groups.
nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# wait_manifest DIR [SECONDS]: wait (5 s by default) for a recorder's start
# manifest in DIR, or fail.
wait_manifest() {
	local secs=${2:-5} i
	for ((i = 0; i < secs * 20; i++)); do
		[ -f "$1/manifest" ] && return 0
		sleep 0.05
	done
	fail "$1: no start manifest after $secs s"
}

# wait_enabled CTL ACK [WHAT]: a recorder started with --control
# fifo:CTL,ACK has its events enabled: the start manifest comes before the
# events are (a loaded machine took over 0.5 s between them), and the
# control channel is read only once they are, so a ping's ack says so.
# Fails after 20 s.
wait_enabled() {
	timeout 20 bash -c 'echo ping >"$0" && read -r _ <"$1"' "$1" "$2" ||
		fail "${3:-record}: no ack for ping within 20 s"
}

# perf_handles_usr2 FILE: perf record --switch-output -o FILE has its
# SIGUSR2 handler (set just before it creates FILE: a SIGUSR2 before that
# kills it). Fails after 10 s.
perf_handles_usr2() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "perf record: no $1 after 10 s"
}

# hold_bpf NAME: a BPF program (NAME0, loaded by $H/bpfload) held from now
# until the script exits, $tmp set. Every recording the script makes then
# starts with a program loaded, so that perf and prec both synthesize
# KSYMBOL and BPF_EVENT records: which kinds of record a file holds no
# longer depends on whether another process happened to load or unload a
# program during one tool's run and not the other's. Returns 1 where the
# kernel refuses BPF (no other process loads any there either).
hold_bpf() {
	local pid rc i
	"$H/bpfload" 1 "$1" 3600000 2>"$tmp/hold_bpf.err" &
	pid=$!
	at_exit "kill $pid 2>/dev/null"
	for ((i = 0; i < 200; i++)); do
		grep -qs '^prog_id:' /proc/"$pid"/fdinfo/* && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			[ $rc = 77 ] && return 1
			fail "bpfload exited $rc: $(cat "$tmp/hold_bpf.err")"
		fi
		sleep 0.05
	done
	fail "bpfload: no program loaded after 10 s"
}

# complete DIR: true when DIR's manifest says the recording completed.
complete() {
	"$H/mfdump" "$1" 2>/dev/null | grep -q '^state complete'
}

# elf_id FILE: the build-id readelf reads in FILE's notes, or nothing.
elf_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}
