#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --exclude-perf, perf is the judge: `-a -e raw_syscalls:sys_enter` records
# the recorder's own system calls, and --exclude-perf after the -e leaves
# them out. In the same run:
# - perf: its main thread (the pid its filter names) has samples without
#   the option and none with it (its side-band thread, which fetches the
#   info of BPF programs other processes load meanwhile, is not in perf's
#   filter: it has samples with the option too when they do);
# - prec: its own pid and its build-id readers (child processes) have
#   samples without the option (its drainers' and its readers' at least);
#   with it, none at all: not from the threads that ran when the events
#   were enabled (main, drainers), nor from the build-id readers, filtered
#   by their name, which they have from birth (fork()ed by a thread that
#   took the name for the fork). Before, as threads, each set it first
#   thing, after its C library's thread start had made 3 calls (12 under
#   ASan, which failed the bound of 8 this test had).
# - with --filter (before or after it), both filters hold, as perf's.
# - --exclude-perf on a non-tracepoint or before any -e: one line, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir exclperf
cd "$tmp" || fail "cd $tmp"

# own TOOL OUT [OPTS...]: record 0.5 s system-wide with TOOL; prints
# TOOL's pid then the samples of that pid, and of prec's build-id reader
# processes (prec-bid, its children), as "tid comm" lines.
own() {
	local tool=$1 out=$2 pid
	shift 2
	if [ "$tool" = perf ]; then
		perf record -q -B -o "$out" -a -e raw_syscalls:sys_enter "$@" -- sleep 0.5 \
			>/dev/null 2>&1 &
	else
		"$PREC" record -q -o "$out" -a -e raw_syscalls:sys_enter "$@" -- sleep 0.5 \
			>/dev/null 2>&1 &
	fi
	pid=$!
	wait $pid || fail "$tool record $* exited $?"
	echo "$pid"
	perf script -i "$out" -F pid,tid,comm 2>/dev/null |
		awk -v p="$pid" '{ split($2, t, "/"); if (t[1] == p || $1 == "prec-bid") print t[2], $1 }'
}

# count LINES: how many sample lines (the pid line aside)
count() { tail -n +2 <<<"$1" | grep -c . ; }
# main LINES: how many of them are the main thread's (tid = pid)
main() { tail -n +2 <<<"$1" | awk -v p="$(head -1 <<<"$1")" '$1 == p' | grep -c . ; }

perf_with=$(own perf p1.data --exclude-perf)
perf_without=$(own perf p0.data)
prec_with=$(own prec r1.data --exclude-perf)
prec_without=$(own prec r0.data)
echo "own samples: perf's main thread $(main "$perf_without") without, $(main "$perf_with") with; prec $(count "$prec_without") without, $(count "$prec_with") with"

[ "$(main "$perf_without")" -gt 0 ] || fail "perf without --exclude-perf: no sample of its main thread (the test shows nothing)"
[ "$(main "$perf_with")" = 0 ] || fail "perf with --exclude-perf: $(main "$perf_with") samples of its main thread"
[ "$(count "$prec_without")" -gt 0 ] || fail "prec without --exclude-perf: no sample of its own pid"
tail -n +2 <<<"$prec_without" | grep -q ' prec-drain-' ||
	fail "prec without --exclude-perf: no sample of a drainer"
# a reader is a task other than main named prec-bid
tail -n +2 <<<"$prec_without" | awk -v p="$(head -1 <<<"$prec_without")" '$1 != p && $2 == "prec-bid"' |
	grep -q . || fail "prec without --exclude-perf: no sample of a build-id reader"
[ "$(count "$prec_with")" = 0 ] ||
	fail "prec with --exclude-perf: own samples left (tid, comm): $(tail -n +2 <<<"$prec_with" | sort | uniq -c | head)"

# with --filter, in either order: the two filters joined, as perf joins
# them (the kernel sets a tracepoint's filter once)
for r in perf prec; do
	for args in "--filter id==39 --exclude-perf" "--exclude-perf --filter id==39"; do
		cmd=perf
		[ $r = prec ] && cmd=$PREC
		# shellcheck disable=SC2086 # the options are words
		"$cmd" record -q -o f.$r.data -a -e raw_syscalls:sys_enter $args -- sleep 0.2 >/dev/null 2>f.err ||
			fail "$r record $args: exit $?: $(cat f.err)"
		perf script -i f.$r.data -F trace 2>/dev/null | awk '$1 != "NR" || $2 != 39' >f.other
		[ ! -s f.other ] || fail "$r record $args: samples the filter leaves out: $(head -3 f.other)"
	done
done
echo "--filter with --exclude-perf: both filters, prec as perf"

# refused: one line, exit 2
for args in "-e cpu-clock --exclude-perf" "--exclude-perf -e raw_syscalls:sys_enter"; do
	# shellcheck disable=SC2086 # the options are words
	"$PREC" record -q -o bad.data -a $args -- true >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "prec record $args: exit $rc, want 2"
	[ "$(wc -l <err)" = 1 ] && grep -q -- '--exclude-perf' err ||
		fail "prec record $args: want one line naming --exclude-perf, got: $(cat err)"
	[ ! -e bad.data ] || fail "prec record $args: left bad.data"
done
echo "refusals: one line, exit 2"
