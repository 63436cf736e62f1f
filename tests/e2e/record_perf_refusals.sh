#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's options that prec cannot honour are refused, never taken
# silently: one line naming the option, exit 2, nothing left behind.
# - -S/--snapshot and --aux-sample without an AUX area event: perf 6.1
#   refuses them too, and prec's line gives perf's reason ("no AUX area
#   tracing to snapshot", "no AUX area event to sample"); with one they
#   are perf's AUX modes (tests/e2e/record_aux_modes.sh).
# - --kcore and --off-cpu are taken: record_kcore.sh and offcpu.sh have
#   their refusals.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir refusals
cd "$tmp" || fail "cd $tmp"

# refused OPTION NAME [WORDS]: prec record OPTION refused, its line naming
# NAME (and WORDS, case aside, when given)
refused() {
	"$PREC" record -q -o out.data "$1" -e cpu-clock -- true >out 2>err
	local rc=$?
	[ $rc = 2 ] || fail "prec record $1: exit $rc, want 2 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] && grep -q -- "$2" err ||
		fail "prec record $1: want one line naming $2, got: $(cat err)"
	[ -z "${3:-}" ] || grep -qi -- "$3" err || fail "prec record $1: '$3' not in: $(cat err)"
	[ ! -e out.data ] && [ ! -e out.data.prec ] || fail "prec record $1: left a recording"
	echo "$1: $(cat err)"
}

# perf's own refusal of OPTION: exit non-zero, WORDS said
perf_refuses() {
	perf record -o perf.data "$1" -e cpu-clock -- true >out 2>err && fail "perf record $1 exited 0"
	grep -qi -- "$2" err || fail "perf record $1: '$2' not in: $(cat err)"
}

perf_refuses -S "no AUX area tracing to snapshot"
refused -S "-S/--snapshot" "no AUX area tracing to snapshot"
refused --snapshot=e "-S/--snapshot" "no AUX area tracing to snapshot"
perf_refuses --aux-sample "no AUX area event to sample"
refused --aux-sample "--aux-sample" "no AUX area event to sample"
refused --aux-sample=8192 "--aux-sample" "no AUX area event to sample"
