#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --proc-map-timeout MS, read by perf: two processes recorded with -p.
# - --proc-map-timeout 0: each process's maps stop at the first line, which
#   carries PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT as perf writes it:
#   perf report warns "2 map information files for pre-existing threads
#   were not processed", and perf script shows one MMAP2 per process.
#   (perf 6.1's own file of the same command is no judge here: its
#   truncated record's other misc bits are left uninitialized, and its
#   report aborts on them.)
# - the default (500 ms): no warning, every executable map of each.
# - a bad value: one line, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir procmap
cd "$tmp" || fail "cd $tmp"

# rec OUT [OPTS...]: record two sleeping processes until they end
rec() {
	local out=$1 a b
	shift
	sleep 1.5 &
	a=$!
	sleep 1.5 &
	b=$!
	"$PREC" record -q -o "$out" -e cpu-clock -p "$a,$b" "$@" 2>err || fail_rc err "prec record $*"
	wait
}

rec cut.data --proc-map-timeout 0
rec whole.data
perf report -i cut.data --stdio >/dev/null 2>cut.err
perf report -i whole.data --stdio >/dev/null 2>whole.err
grep -q '^2 map information files for pre-existing threads were' cut.err ||
	fail "--proc-map-timeout 0: perf report does not count 2 cut maps: $(cat cut.err)"
if grep -q 'map information files' whole.err; then
	fail "default timeout: perf report counts cut maps: $(cat whole.err)"
fi
ncut=$(perf script -i cut.data --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2')
nwhole=$(perf script -i whole.data --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2')
echo "MMAP2 records: $ncut with --proc-map-timeout 0, $nwhole with the default"
[ "$ncut" = 2 ] || fail "--proc-map-timeout 0: $ncut MMAP2 records, want 2 (one per process)"
[ "$nwhole" -ge 6 ] || fail "default timeout: $nwhole MMAP2 records, want every executable map"

"$PREC" record -q -o bad.data --proc-map-timeout 1s -e cpu-clock -- true >out 2>err
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- '--proc-map-timeout' err ||
	fail "--proc-map-timeout 1s: exit $rc, want 2 and one line naming it: $(cat err)"
echo "refusal: one line, exit 2"
