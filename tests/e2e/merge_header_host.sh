#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The host facts perf's header carries beside the topology, in prec's
# perf.data as in perf's own for the same command: perf report
# --header-only -I prints the same PMU mappings (each PMU's attr type,
# numbered at boot) and PMU capabilities, the same CPU caches (a file's
# only: perf's pipe has none), and lists the same of those features as
# missing, for prec's file and pipe (and prec record -o -'s) as for perf's,
# with no word on stderr; SAMPLE_TIME too, a recording without samples'
# included.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint sched/sched_switch
e2e_tmpdir header_host

# feats FILE-OR-DASH ERR: the lines of the features compared, and which of
# them the header lists as missing (a file's header only: a pipe has no
# such line)
feats() {
	perf report --header-only -I -i "$1" 2>"$2" | awk '
		/^# pmu mappings:/ || /^# .*pmu capabilities:/ { print; next }
		/^# CPU cache info:/ || /^#  L[0-9]/ { print; next }
		/^# time of first sample :/ { print "SAMPLE_TIME" }
		/^# missing features:/ {
			for (i = 4; i <= NF; i++)
				if ($i ~ /^(PMU_MAPPINGS|CPU_PMU_CAPS|PMU_CAPS|CACHE|SAMPLE_TIME)$/) print "missing " $i
		}'
}

# same NAME ARGS...: perf and prec record ARGS, their headers compared
same() {
	local n=$1 f
	shift
	perf record -q -o "$tmp/$n.p.data" "$@" >/dev/null 2>"$tmp/$n.p.err" ||
		fail_rc "$tmp/$n.p.err" "perf record $*"
	perf record -q -o - "$@" 2>"$tmp/$n.pp.err" >"$tmp/$n.pp.data" ||
		fail_rc "$tmp/$n.pp.err" "perf record -o - $*"
	"$PREC" record -q -d "$tmp/$n.q" "$@" >/dev/null 2>"$tmp/$n.q.err" ||
		fail_rc "$tmp/$n.q.err" "prec record $*"
	"$PREC" merge -q "$tmp/$n.q" -o "$tmp/$n.q.data" 2>"$tmp/$n.m.err" ||
		fail_rc "$tmp/$n.m.err" "prec merge"
	feats "$tmp/$n.p.data" "$tmp/$n.p.rerr" >"$tmp/$n.p.feats"
	feats - "$tmp/$n.pp.rerr" <"$tmp/$n.pp.data" >"$tmp/$n.pp.feats"
	feats "$tmp/$n.q.data" "$tmp/$n.q.rerr" >"$tmp/$n.q.feats"
	"$PREC" merge -q "$tmp/$n.q" | feats - "$tmp/$n.qp.rerr" >"$tmp/$n.qp.feats"
	# perf report --header-only leaves the pipe at the header: prec keeps
	# the stream's recording then, in TMPDIR, which goes with $tmp
	TMPDIR=$tmp "$PREC" record -q -o - "$@" 2>"$tmp/$n.ql.err" | feats - "$tmp/$n.ql.rerr" >"$tmp/$n.ql.feats"
	for f in p pp q qp ql; do
		[ ! -s "$tmp/$n.$f.rerr" ] || fail "$n: perf report on $f said: $(head -3 "$tmp/$n.$f.rerr")"
	done
	grep -q '^# pmu mappings: .*software = 1' "$tmp/$n.p.feats" ||
		fail "$n: perf's own header has no PMU mappings: $(cat "$tmp/$n.p.feats")"
	if [ -d /sys/devices/system/cpu/cpu0/cache/index0 ]; then
		grep -q '^#  L1 ' "$tmp/$n.p.feats" || fail "$n: perf's own header has no caches: $(cat "$tmp/$n.p.feats")"
	fi
	diff -u "$tmp/$n.p.feats" "$tmp/$n.q.feats" >"$tmp/d" ||
		fail "$n: the header differs from perf's (- perf, + prec): $(cat "$tmp/d")"
	diff -u "$tmp/$n.pp.feats" "$tmp/$n.qp.feats" >"$tmp/d" ||
		fail "$n: the pipe's header differs from perf's pipe (- perf, + prec): $(cat "$tmp/d")"
	diff -u "$tmp/$n.pp.feats" "$tmp/$n.ql.feats" >"$tmp/d" ||
		fail "$n: prec record -o -'s header differs from perf's pipe (- perf, + prec): $(cat "$tmp/d")"
}

same task -e cpu-clock -- sleep 0.1
same cpus -a -e sched:sched_switch -- sleep 0.1
# no sample (a period of 1 s of CPU time): perf's header has SAMPLE_TIME
# still, its times 0
same none -e cpu-clock -c 1000000000 -- true
echo "PASS: $(grep -c . "$tmp/task.q.feats") and $(grep -c . "$tmp/cpus.q.feats") lines as perf's, file and pipe"
