#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# User markers: prec record --markers turns every trace_marker write into an
# ftrace:print sample at its place in time. (1) storm N 4 writes "phase K"
# before each quarter of its N getppid() calls: in prec dump and in perf
# script each marker must be followed by exactly N/4 samples, markers in
# order. (2) prec mark between three storms: 'prec mark -d' checks the
# recording, the markers land between the storms' samples; -d on a finished
# or marker-less recording is refused. (3) A recorder killed with kill -9
# leaves its instance; the next --markers run removes it.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-40000}
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir markers
need_cmd perf

# Collapse a stream of "M text" / "S" lines into "text count" per marker.
segments() {
	awk '$1 == "M" { if (name != "") print name, n; name = $2; n = 0; next }
	     $1 == "S" { n++ } END { if (name != "") print name, n }'
}

# A perf script ftrace:print line -> "M text_with_underscores".
PERF_MARK='/ftrace:print:/ { t = $0; sub(/.*ftrace:print: [^ ]*: /, "", t); gsub(/ /, "_", t); print "M", t; next }'

# ---- (1) storm's own trace_marker writes ----
# The exact-count recordings use a ring that holds the whole workload (-m 16M):
# a count must not depend on how a loaded CI machine schedules the drainer
# (loss against ring size is bench/record_ring.sh's business).
"$PREC" record -q -d "$tmp/a" -m 16M --markers -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- "$H/storm" "$N" 4 2>"$tmp/err" || fail_rc "$tmp/err" "record"
ls /sys/kernel/tracing/instances | grep -q "^prec-" && fail "ftrace instance left behind"
"$PREC" dump "$tmp/a" >"$tmp/dump" || fail "prec dump failed"
q=$((N / 4))
awk '$4 == "SAMPLE" && $5 == "marker" { t = $0; sub(/.* marker "/, "", t); sub(/"$/, "", t)
					  gsub(/ /, "_", t); print "M", t; next }
     $4 == "SAMPLE" { print "S" }' "$tmp/dump" | segments >"$tmp/seg.dump"
cat "$tmp/seg.dump"
printf 'phase_0 %d\nphase_1 %d\nphase_2 %d\nphase_3 %d\n' $q $q $q $q >"$tmp/want"
cmp -s "$tmp/seg.dump" "$tmp/want" || fail "prec dump: markers and samples out of order"
# Timestamps never go backwards in the dump.
awk '{ if ($1 < last) bad++; last = $1 } END { exit bad > 0 }' "$tmp/dump" ||
	fail "prec dump: time goes backwards"

"$PREC" merge "$tmp/a" -o "$tmp/a.data" 2>"$tmp/merr" || { cat "$tmp/merr"; fail "merge"; }
perf script -i "$tmp/a.data" >"$tmp/script" 2>"$tmp/serr" || fail "perf script failed"
[ -s "$tmp/serr" ] && { cat "$tmp/serr"; fail "perf script printed warnings"; }
awk "$PERF_MARK"' /sys_enter/ { print "S" }' \
	"$tmp/script" | segments >"$tmp/seg.perf"
cat "$tmp/seg.perf"
cmp -s "$tmp/seg.perf" "$tmp/want" || fail "perf script: markers and samples out of order"

# ---- (2) prec mark between processes ----
cat >"$tmp/work.sh" <<EOF
"$H/storm" 3000
"$PREC" mark -d "$tmp/b" first marker || exit 11
"$H/storm" 2000
"$PREC" mark second || exit 12
"$H/storm" 1000
EOF
"$PREC" record -q -d "$tmp/b" -m 16M --markers -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- sh "$tmp/work.sh" 2>"$tmp/err" || fail_rc "$tmp/err" "record (prec mark)"
"$PREC" merge "$tmp/b" -o "$tmp/b.data" 2>/dev/null || fail "merge b"
perf script -i "$tmp/b.data" >"$tmp/bscript" 2>"$tmp/serr" || fail "perf script b"
[ -s "$tmp/serr" ] && { cat "$tmp/serr"; fail "perf script b printed warnings"; }
awk "$PERF_MARK"' /^ *storm .*sys_enter/ { print "S" }' "$tmp/bscript" | segments >"$tmp/seg.b"
cat "$tmp/seg.b"
printf 'first_marker 2000\nsecond 1000\n' >"$tmp/want.b"
cmp -s "$tmp/seg.b" "$tmp/want.b" || fail "prec mark: markers not between the storms"
# The markers were written by the prec mark processes, on their CPUs.
grep 'ftrace:print' "$tmp/bscript" | grep -qv '^ *prec ' && fail "marker not attributed to prec mark"
pre=$(awk '/ftrace:print:/ { exit } /^ *storm .*sys_enter/ { n++ } END { print n + 0 }' "$tmp/bscript")
[ "$pre" = 3000 ] || fail "$pre storm samples before the first marker, want 3000"

# -d refuses a recording that is finished, or has no markers.
"$PREC" mark -d "$tmp/b" late 2>"$tmp/merr" && fail "prec mark -d accepted a finished recording"
grep -q 'not running' "$tmp/merr" || fail "prec mark -d: $(cat "$tmp/merr")"
"$PREC" record -q -d "$tmp/c" -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- sh -c "\"$PREC\" mark -d \"$tmp/c\" nope" 2>"$tmp/err" && fail "prec mark -d accepted a recording without --markers"
grep -q 'without markers' "$tmp/err" || fail "prec mark -d: $(cat "$tmp/err")"

# ---- (3) kill -9 leaves the instance (nothing runs at SIGKILL); the next
# --markers run removes it, since its recorder is gone ----
inst=/sys/kernel/tracing/instances
"$PREC" record -q -a -d "$tmp/k" --markers -e raw_syscalls:sys_enter --filter 'id == 110' \
	2>/dev/null & kpid=$!
for _ in $(seq 200); do [ -e "$tmp/k/manifest" ] && break; sleep 0.05; done
[ -d "$inst/prec-$kpid" ] || fail "no instance prec-$kpid while recording"
kill -9 $kpid
wait $kpid 2>/dev/null
[ -d "$inst/prec-$kpid" ] || fail "prec-$kpid gone after kill -9 (expected it left behind)"
"$PREC" record -d "$tmp/k2" --markers -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- true 2>"$tmp/err" || { rc=$?; cat "$tmp/err"; rmdir "$inst/prec-$kpid"; fail "record after kill -9 exited $rc"; }
if [ -d "$inst/prec-$kpid" ]; then
	rmdir "$inst/prec-$kpid"
	fail "the next --markers run left prec-$kpid of the killed recorder"
fi
grep -q "prec-$kpid: removed (its recorder, pid $kpid, is gone)" "$tmp/err" ||
	fail "no message for the removed instance: $(cat "$tmp/err")"
echo "PASS: markers in order around $N storm samples (dump and perf script), prec mark between processes, a killed recorder's instance removed by the next run"
