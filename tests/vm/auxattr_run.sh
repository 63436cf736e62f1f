#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's AUX mode attrs against prec's where perf prints them: one boot of
# Debian's 6.1 kernel under qemu (TCG) with a vCPU that says GenuineIntel
# (perf 6.1 takes -S and --aux-sample only there) and a fake intel_pt
# (tests/vm/auxattr.sh), then, case by case, perf's -vv attr of intel_pt//
# against prec's -vv --dry-run one, field by field as
# tests/lib/attr_blocks.awk normalizes them. perf stops at the failed open
# of the group leader, so a --aux-sample member's attr is perf's source's
# word only (tests/e2e/record_aux_modes.sh). Needs root; about a minute.
# Usage: tests/vm/auxattr_run.sh   (env: BUILD=build)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d /tmp/prec-auxattr.XXXXXX)
trap 'rm -rf "$out"' EXIT
VM_MEM=${VM_MEM:-2G} VM_DISK_SIZE=${VM_DISK_SIZE:-512M} VM_TIMEOUT=${VM_TIMEOUT:-600} \
	VM_CPU=max,vendor=GenuineIntel VM_JOB=$top/tests/vm/auxattr.sh \
	"$top/tests/vm/run.sh" 2 >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
tr -d '\r' <"$out/log" >"$out/console"
grep -q 'vendor_id.*GenuineIntel' "$out/console" || { echo "FAIL: the vCPU is not GenuineIntel"; exit 1; }
bad=0
for c in full snap snap2 u snapu sample sample2; do
	for tool in perf prec; do
		# perf's first attr block is intel_pt's; prec's first is its
		# tracking event, skipped; only event 1 (intel_pt) is compared
		awk -v n="$tool-$c" '$0 == "== " n { f = 1; next } /^== end/ { f = 0 } f' "$out/console" |
			awk -v skip="$([ $tool = prec ] && echo 1 || echo 0)" -f "$top/tests/lib/attr_blocks.awk" |
			awk '$1 == 1' >"$out/$tool-$c"
	done
	if [ ! -s "$out/perf-$c" ]; then
		echo "FAIL $c: perf printed no attr"
		bad=$((bad + 1))
	elif cmp -s "$out/perf-$c" "$out/prec-$c"; then
		echo "ok   $c: intel_pt's attr equal ($(wc -l <"$out/perf-$c") fields)"
	else
		echo "FAIL $c: perf < > prec"
		diff "$out/perf-$c" "$out/prec-$c" | sed 's/^/     /'
		bad=$((bad + 1))
	fi
done
[ $bad = 0 ] || exit 1
echo "PASS: intel_pt's attr as perf 6.1's with -S, -Se0x10000, --aux-sample[=8192], :u"
