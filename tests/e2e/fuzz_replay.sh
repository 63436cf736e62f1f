#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Replays every fuzz corpus (seeds and every crash ever found, kept as
# regression inputs) through the plain-main replayers of this build, so a
# fixed fuzzer finding stays fixed in every build, sanitized or not.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
corpus=$PREC_TOP/tests/fuzz/corpus
# a cross build's replayers run under an emulator (tests/run.sh)
read -ra test_exec <<<"${TEST_EXEC:-}"
failed=0 ran=0
for src in "$PREC_TOP"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bin=$PREC_BUILD/tests/fuzz/$name-replay
	[ -x "$bin" ] || skip "$bin not built (make unit)"
	if [ ! -d "$corpus/$name" ]; then
		echo "FAIL: $name: no corpus directory $corpus/$name"
		failed=1
		continue
	fi
	# The replayer runs in a scratch cwd: a target must not leave files.
	scratch=$(mktemp -d /tmp/prec-fuzz-replay.XXXXXX)
	out=$(cd "$scratch" && timeout -k 5 120 "${test_exec[@]}" "$bin" "$corpus/$name" 2>&1)
	rc=$?
	left=$(ls -A "$scratch")
	rm -rf "$scratch"
	echo "$name: $out (exit $rc)"
	if [ $rc != 0 ]; then
		echo "FAIL: $name: replayer exit $rc"
		failed=1
	fi
	if [ -n "$left" ]; then
		echo "FAIL: $name: left files behind: $left"
		failed=1
	fi
	# Targets print nothing of their own: only the replayer's summary.
	if [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then
		echo "FAIL: $name: unexpected output"
		failed=1
	fi
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || fail "no fuzz targets"
exit $failed
