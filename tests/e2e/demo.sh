#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's demo (scripts/demo.sh, what `make demo` runs after the
# build): it records its workload with -a, merges it and prints the start
# of perf report on the result, exit 0. Its workload's own comms (dd,
# sha256sum) are in the report. Run again with a perf on PATH whose report
# is 100,000 lines longer (a busy machine's -a report outgrows a pipe):
# the demo still exits 0 (head's early exit failed it with perf's SIGPIPE).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir demo

DEMO_DIR=$tmp/demo.data "$PREC_TOP/scripts/demo.sh" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "the demo"
grep -q '^== perf report -i ' "$tmp/out" || fail "the demo printed no report: $(tail -5 "$tmp/out")"
for c in dd sha256sum; do
	grep -q "^ *[0-9.]*% *$c " "$tmp/out" || fail "the demo's report has no $c: $(tail -30 "$tmp/out")"
done
[ "$(sed -n '/^== perf report/,$p' "$tmp/out" | wc -l)" -le 31 ] || fail "the demo printed more than 30 lines of report"

mkdir -p "$tmp/bin"
real=$(command -v perf)
cat >"$tmp/bin/perf" <<EOF
#!/bin/sh
"$real" "\$@" || exit \$?
[ "\$1" = report ] && seq 100000
exit 0
EOF
chmod +x "$tmp/bin/perf"
PATH=$tmp/bin:$PATH DEMO_DIR=$tmp/demo.data "$PREC_TOP/scripts/demo.sh" >"$tmp/out2" 2>&1 ||
	fail_rc "$tmp/out2" "the demo with a long report"
echo "the demo: exit 0, its workload in perf's report, a long report cut at 30 lines"
echo "PASS"
