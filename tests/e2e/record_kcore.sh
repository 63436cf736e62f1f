#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record --kcore, as perf 6.1's: where /proc/kcore cannot be read (a
# kernel without CONFIG_PROC_KCORE, a user without CAP_SYS_RAWIO) both
# refuse, prec in one line naming /proc/kcore, exit 2, nothing left behind;
# where it can, prec's recording and its merged file hold kcore_dir as
# perf's does and perf report reads the kernel's code from it (the x86
# guest checks this against perf in the same boot: tests/vm/suite.sh,
# c_kcore). Either way: not with -o - (perf fails on it too) nor with
# --switch-output, one line, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir kcore
cd "$tmp" || fail "cd $tmp"
chmod 755 "$tmp"

# refused WHO WORDS OPTIONS...: prec record OPTIONS (run by WHO: "" or
# nobody) exits 2 with one line holding WORDS, and leaves nothing.
refused() {
	local who=$1 words=$2 rc
	shift 2
	rm -rf out.data out.data.prec d
	$who "$PREC" record -q "$@" -e cpu-clock -- true >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "prec record $*: exit $rc, want 2 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] && grep -q -- "$words" err ||
		fail "prec record $* ($who): want one line with '$words', got: $(cat err)"
	[ ! -e out.data ] && [ ! -e out.data.prec ] && [ ! -e d ] ||
		fail "prec record $*: left a recording"
	echo "${who:-root} $*: $(cat err)"
}

refused "" "option --kcore: not with -o - (the pipe format)" --kcore -o -
refused "" "option --kcore: not with --switch-output" --kcore --switch-output -d d

if [ ! -e /proc/kcore ]; then
	# perf's refusal, then prec's with the reason
	perf record --kcore -o perf.data -e cpu-clock -- true >out 2>err &&
		fail "perf record --kcore exited 0 without /proc/kcore"
	grep -q "kcore is not readable" err || fail "perf record --kcore: $(cat err)"
	refused "" "option --kcore: /proc/kcore: not in this kernel (CONFIG_PROC_KCORE)" --kcore -o out.data
	refused "" "/proc/kcore" --kcore -d d
	exit 0
fi

# Not root: perf's rule, /proc/kcore must open (CAP_SYS_RAWIO).
chmod 777 "$tmp"
refused nobody "option --kcore: /proc/kcore: Permission denied (it needs root" --kcore -d d

"$PREC" record -q --kcore -o out.data -e cpu-clock -a -- sleep 0.2 2>err || fail_rc err "prec record --kcore -o"
got=$(cd out.data && find . | sort | tr '\n' ' ')
[ "$got" = ". ./data ./kcore_dir ./kcore_dir/kallsyms ./kcore_dir/kcore ./kcore_dir/modules " ] ||
	fail "out.data: perf's layout wanted, got: $got"
perf report -v -i out.data --stdio >report 2>&1 || fail_rc report "perf report"
grep -q "^Using $tmp/out.data/kcore_dir/kcore for kernel data" report ||
	fail "perf report did not read out.data/kcore_dir/kcore: $(grep -i kcore report | head -3)"
echo "out.data: $got; perf: $(grep '^Using .*kcore for' report)"
