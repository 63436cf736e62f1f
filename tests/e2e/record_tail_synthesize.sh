#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --tail-synthesize, perf is the judge: a process recorded with -p runs
# bash, then execs sleep during the recording, and is still running at
# its end. /proc is read at the start by default, so bash's maps are named
# (synthesized MMAP2s of /usr/bin/bash); with --tail-synthesize it is read
# at the end, when the process is sleep: no MMAP2 names bash, sleep's do.
# perf and prec, in the same run, give the same answers. It is refused
# with --max-disk and with -o - (one line, exit 2: the stream is merged as
# it is recorded, the tail comes last; before, the recording ran, then its
# merge failed, exit 1); with --switch-output see record_tail_switch.sh.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir tailsynth
cd "$tmp" || fail "cd $tmp"
bash_bin=$(readlink -f "$(command -v bash)")

# maps TOOL OUT [OPTS...]: record -p of a bash that execs sleep 1.5 s in;
# print the files its MMAP2 records name, one a line.
maps() {
	local tool=$1 out=$2 p r
	shift 2
	bash -c 'sleep 1.5; exec sleep 6' &
	p=$!
	sleep 0.3
	if [ "$tool" = perf ]; then
		perf record -q -B -o "$out" -e cpu-clock -p "$p" "$@" -- sleep 2.5 >/dev/null 2>&1 ||
			fail "perf record $* exited $?"
	else
		"$PREC" record -q -o "$out" -e cpu-clock -p "$p" "$@" 2>err &
		r=$!
		sleep 2.5
		kill -INT $r
		wait_signaled $r INT "prec record $*" err
	fi
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	perf script -i "$out" --show-mmap-events 2>/dev/null |
		awk -v p="$p" '/PERF_RECORD_MMAP2/ { split($0, a, "PERF_RECORD_MMAP2 "); split(a[2], t, "/"); if (t[1] == p) print $NF }' |
		sort -u
}

# verdict NAME MAPS: "bash" (bash's maps named) or "sleep" (only sleep's)
verdict() {
	if grep -qx "$bash_bin" <<<"$2"; then echo bash
	elif grep -q '/sleep$' <<<"$2"; then echo sleep
	else echo "none ($1: $(tr '\n' ' ' <<<"$2"))"
	fi
}

perf_start=$(verdict perf-start "$(maps perf p0.data)")
perf_tail=$(verdict perf-tail "$(maps perf p1.data --tail-synthesize)")
prec_start=$(verdict prec-start "$(maps prec r0.data)")
prec_tail=$(verdict prec-tail "$(maps prec r1.data --tail-synthesize)")
echo "maps named: perf $perf_start by default, $perf_tail with --tail-synthesize; prec $prec_start, $prec_tail"
[ "$perf_start" = bash ] && [ "$perf_tail" = sleep ] ||
	fail "perf: $perf_start / $perf_tail, want bash / sleep (the test shows nothing)"
[ "$prec_start" = "$perf_start" ] || fail "prec by default: $prec_start, perf $perf_start"
[ "$prec_tail" = "$perf_tail" ] || fail "prec with --tail-synthesize: $prec_tail, perf $perf_tail"

"$PREC" record -q -d bad.d --tail-synthesize --max-disk 100M -- true >out 2>err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- '--tail-synthesize and --max-disk' err ||
	fail "--tail-synthesize --max-disk: exit $rc, want 2 and one line: $(cat err)"
"$PREC" record -q --tail-synthesize -o - -- true >out 2>err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && [ ! -s out ] && grep -q -- '--tail-synthesize and -o -' err ||
	fail "--tail-synthesize -o -: exit $rc, $(wc -c <out) bytes out, want 2, none and one line: $(cat err)"
echo "refusals: one line, exit 2 (--max-disk, -o -)"
