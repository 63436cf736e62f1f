#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The demo: record a small workload with prec, merge the shards into one
# perf.data and show perf's own report of it.
set -euo pipefail
cd "$(dirname "$0")/.."
PREC=${PREC:-./prec}
out=${DEMO_DIR:-demo.data}
echo "== prec record -f -d $out -e cpu-clock -F 999 -a -- sh -c 'dd if=/dev/zero bs=1M count=300 | sha256sum'"
"$PREC" record -f -d "$out" -e cpu-clock -F 999 -a -- sh -c 'dd if=/dev/zero bs=1M count=300 status=none | sha256sum >/dev/null'
echo "== prec info $out"
"$PREC" info "$out"
echo "== prec merge -f $out -o $out.perf"
"$PREC" merge -f "$out" -o "$out.perf"
echo "== perf report -i $out.perf --stdio --sort comm,dso"
# Into a file first: with -a on a busy machine the report outgrows the
# pipe, and head's early exit would fail perf report (SIGPIPE, exit 141).
perf report -i "$out.perf" --stdio --sort comm,dso >"$out.report" 2>&1 ||
	{ cat "$out.report" >&2; exit 1; }
head -n 30 "$out.report"
