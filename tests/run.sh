#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test runner: every unit program and every e2e script, each timed out, one
# line per test (name, result, seconds), then "N passed, N failed".
# Exit codes of a test: 0 pass, 77 skip, anything else fail.
# Usage: tests/run.sh [name-filter...]; env BUILD (build dir), PREC (binary),
# TEST_TIMEOUT (seconds per test, default 300), TEST_SEED (passed to tests),
# TEST_EXEC (a command the unit programs and fuzz replayers run under, such
# as qemu-aarch64-static for a cross build: make ARCH=arm64 unit-run),
# SKIPS_STRICT (1: a skip not in tests/skips.allowed fails; the default
# as root with perf on PATH and no TEST_EXEC, i.e. in CI).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export PREC=${PREC:-$PWD/$BUILD/prec}
export PREC_BUILD=$PWD/$BUILD
export PREC_TOP=$PWD
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
export TEST_EXEC=${TEST_EXEC:-}
# perf's config files (/etc/perfconfig, ~/.perfconfig) are read by prec
# record as by perf: a machine's own (call-graph.record-mode = dwarf,
# record.build-id = skip) would change what the tests expect of the
# defaults. Both tools leave them out under these; the tests of the config
# files themselves unset them.
export PERF_CONFIG_NOSYSTEM=1 PERF_CONFIG_NOGLOBAL=1
unset PERF_CONFIG
read -ra test_exec <<<"$TEST_EXEC"
logdir=$BUILD/test-logs
mkdir -p "$logdir"

# The tracepoint tests need tracefs; prec mounts it itself when needed (as
# perf does), but some scripts look before they call prec, so make sure it
# is there on a fresh machine.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] && [ ! -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi

# A skip hides a regression as well as a missing machine feature: where
# every test can run (CI: root, perf present), a skip fails unless
# tests/skips.allowed names the test and the start of its reason.
if [ -z "${SKIPS_STRICT:-}" ]; then
	SKIPS_STRICT=0
	[ "$(id -u)" = 0 ] && command -v perf >/dev/null && [ -z "$TEST_EXEC" ] && SKIPS_STRICT=1
fi
skip_allowed() { # NAME REASON
	grep -v '^#' tests/skips.allowed |
		awk -F'\t' -v n="$1" -v r="$2" '$1 == n && $2 != "" && index(r, $2) == 1 { f = 1 } END { exit !f }'
}

tests=()
for t in "$BUILD"/tests/unit/*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && [ "${t%.o}" = "$t" ] && tests+=("$t")
done
for t in tests/e2e/*.sh; do [ -e "$t" ] && tests+=("$t"); done

selected=()
for t in "${tests[@]}"; do
	if [ $# -eq 0 ]; then selected+=("$t"); continue; fi
	for f in "$@"; do case "$t" in *"$f"*) selected+=("$t"); break;; esac; done
done

pass=0 fail=0 skip=0 failed=()
for t in "${selected[@]}"; do
	name=$(basename "$t" .sh)
	case "$t" in tests/e2e/*) name="e2e/$name";; *) name="unit/$name";; esac
	log="$logdir/${name//\//_}.log"
	start=$(date +%s.%N)
	if [[ "$t" == *.sh ]]; then
		timeout -k 10 "$TEST_TIMEOUT" bash "$t" >"$log" 2>&1
	else
		timeout -k 10 "$TEST_TIMEOUT" "${test_exec[@]}" "$t" >"$log" 2>&1
	fi
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
	case $rc in
	0) res=PASS; pass=$((pass + 1));;
	77) res=SKIP
	    reason=$(tail -n 1 "$log" | sed -n 's/^skip: //p')
	    if [ "$SKIPS_STRICT" = 1 ] && ! skip_allowed "$name" "$reason"; then
		res="FAIL (skip)"; fail=$((fail + 1)); failed+=("$name")
		echo "skipped where every test must run (root, perf): '$reason' is not in tests/skips.allowed" >>"$log"
	    else
		skip=$((skip + 1))
	    fi;;
	124|137) res="FAIL (timeout)"; fail=$((fail + 1)); failed+=("$name");;
	*) res="FAIL (exit $rc)"; fail=$((fail + 1)); failed+=("$name");;
	esac
	printf '%-40s %-16s %7ss\n' "$name" "$res" "$secs"
	if [ "$res" != PASS ] && [ "$res" != SKIP ]; then sed 's/^/    | /' "$log" | tail -n 40; fi
	if [ "$res" = SKIP ]; then tail -n 1 "$log" | sed 's/^/    | /'; fi
done
# Again at the end, where a truncated CI log still shows them: which tests
# failed and the end of each one's log.
for name in "${failed[@]}"; do
	echo "FAILED $name:"
	tail -n 25 "$logdir/${name//\//_}.log" | sed 's/^/    | /'
done
echo "$skip skipped"
echo "$pass passed, $fail failed${failed:+: ${failed[*]}}"
[ $fail -eq 0 ]
