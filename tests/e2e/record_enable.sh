#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# At the start of record -a each drainer enables its own CPU's events (from
# that CPU: no ioctl waits on another, and all CPUs at once): the tracking
# event before the side band is read, then every event before the command
# starts, which waits for them all: strace -f of record -a -e cpu-clock --
# true. Every PERF_EVENT_IOC_ENABLE comes from a drainer thread, none from
# the main one, three from each of as many threads as CPUs, all before the
# command's execve; the recording is complete and merges.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd strace
e2e_tmpdir enable

ncpu=$(nproc)
# LeakSanitizer cannot run under ptrace (sanitizer builds): not in the
# traced run.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
strace -f -qq -e trace=ioctl,execve -o "$tmp/trace" \
	"$PREC" record -q -d "$tmp/out" -a -e cpu-clock -F 999 -- true 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 0 ] || fail "record exited $rc"
complete "$tmp/out" || fail "manifest not complete"
"$PREC" merge "$tmp/out" -o "$tmp/out.data" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge"

main=$(awk 'NR == 1 { print $1 }' "$tmp/trace")
# "PID ioctl(FD, PERF_EVENT_IOC_ENABLE, 0) = 0". The command's execve is
# the one of "true".
cmd_line=$(grep -n 'execve("[^"]*true"' "$tmp/trace" | head -1 | cut -d: -f1)
[ -n "$cmd_line" ] || fail "no execve of the command in the trace"
head -n "$cmd_line" "$tmp/trace" | awk -v m="$main" '/PERF_EVENT_IOC_ENABLE/ && $1 != m { print $1 }' |
	sort | uniq -c >"$tmp/threads"
cat "$tmp/threads"
n=$(awk -v m="$main" '$1 == m && /PERF_EVENT_IOC_ENABLE/' "$tmp/trace" | wc -l)
[ "$n" = 0 ] || fail "$n ENABLE ioctls from the main thread"
n=$(wc -l <"$tmp/threads")
[ "$n" = "$ncpu" ] || fail "ENABLE ioctls before the command from $n drainer threads, want $ncpu"
late=$(tail -n +"$cmd_line" "$tmp/trace" | grep -c 'PERF_EVENT_IOC_ENABLE')
[ "$late" = 0 ] || fail "$late ENABLE ioctls after the command's execve"
# Two events per CPU (cpu-clock and the tracking dummy): each drainer
# enables its CPU's dummy, then both (the dummy's second ENABLE is a no-op
# for the kernel).
awk '$1 != 3 { exit 1 }' "$tmp/threads" || fail "a drainer did not make three ENABLEs"
echo "PASS: $ncpu drainers enabled their CPUs' events before the command"
