#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's weak groups (:W): a group the kernel refuses to open is opened
# event by event instead, with perf's message. The reproducible refusal:
# a member with its own :D (pinned), which the kernel takes for a leader
# only (EINVAL with a group_fd), while alone it opens. perf is the judge,
# on the same command line: without :W both refuse it; with :W both record
# it, say "Weak group for LEADER/2 failed" at -v, write no group
# (perf evlist -g), sample the member as a lone pinned event (K faults at
# -c N: at least K/N samples in each file), and their attrs of the member
# differ in exactly what docs/events.md says: prec enables it as a lone
# event (disabled, enable_on_exec), perf leaves its member's 0.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir weak
AWK=$PREC_TOP/tests/lib/attr_blocks.awk
K=5000 N=50
# the leader's own period: -c N is for the member (cpu-clock at N ns would
# sample the machine to a crawl)
lead=cpu-clock/period=10000000/
strong="{$lead,page-faults:D}"
weak="$strong:W"

perf record -q -o "$tmp/pe0.data" -c $N -e "$strong" -- "$H/faults" 10 >/dev/null 2>&1 &&
	fail "perf opened $strong (the kernel takes a pinned member here: the test's case is wrong)"
"$PREC" record -q -o "$tmp/pd0.data" -c $N -e "$strong" -- "$H/faults" 10 >/dev/null 2>"$tmp/pd0.err" &&
	fail "prec opened $strong, which perf refuses"
grep -q "page-faults:D.*Invalid argument" "$tmp/pd0.err" ||
	fail "prec's refusal of $strong: $(cat "$tmp/pd0.err")"

perf record -v -o "$tmp/pe.data" -c $N -e "$weak" -- "$H/faults" $K >/dev/null 2>"$tmp/pe.err" ||
	fail_rc "$tmp/pe.err" "perf record -e $weak"
"$PREC" record -v -o "$tmp/pd.data" -c $N -e "$weak" -- "$H/faults" $K >/dev/null 2>"$tmp/pd.err" ||
	fail_rc "$tmp/pd.err" "prec record -e $weak"
grep -qxF "Weak group for $lead/2 failed" "$tmp/pe.err" ||
	fail "perf -v did not say its weak group failed (the test's case is wrong)"
grep -qxF "prec: debug: Weak group for $lead/2 failed" "$tmp/pd.err" ||
	fail "prec -v did not say perf's 'Weak group for $lead/2 failed'"

# no group left in either file: the same events, each alone
perf evlist -g -i "$tmp/pe.data" >"$tmp/pe.g" 2>/dev/null || fail "perf evlist -g of perf's file"
perf evlist -g -i "$tmp/pd.data" 2>/dev/null | grep -vx dummy >"$tmp/pd.g" ||
	fail "perf evlist -g of prec's file"
printf '%s\npage-faults:D\n' "$lead" >"$tmp/want.g"
diff -u "$tmp/want.g" "$tmp/pe.g" || fail "perf's file: not two events alone"
diff -u "$tmp/want.g" "$tmp/pd.g" || fail "prec's file: not perf's two events alone"

# the member samples on its own: K faults at -c N
for f in pe pd; do
	n=$(perf script -F event -i "$tmp/$f.data" 2>/dev/null | grep -c '^ *page-faults:D:')
	[ "$n" -ge $((K / N)) ] || fail "$f.data: $n page-faults:D samples, want >= $((K / N))"
	echo "$f.data: $n page-faults:D samples (>= $((K / N)))"
done

# the member's attr: perf's but for being enabled as a lone event. The
# member's EINVAL first runs perf's missing-feature fallbacks, which switch
# off PERF_FORMAT_LOST and sample_id_all for every event of perf's file
# (perf -v: "switching off ..."): read_format and sample_id_all are left
# out here.
for f in pe pd; do
	perf evlist -v -i "$tmp/$f.data" | awk -v evlist=1 -f "$AWK" |
		awk '$1 == 2 && $2 != "read_format" && $2 != "sample_id_all"' >"$tmp/$f.a"
done
grep -qx '2 pinned 1' "$tmp/pd.a" || fail "prec's page-faults:D is not pinned: $(cat "$tmp/pd.a")"
printf '2 disabled 1\n2 enable_on_exec 1\n' >"$tmp/lone"
grep -vxF -f "$tmp/lone" "$tmp/pd.a" >"$tmp/pd.b"
diff -u "$tmp/pe.a" "$tmp/pd.b" || fail "page-faults:D's attr differs from perf's (- perf, + prec) beyond disabled/enable_on_exec"
[ "$(grep -cxF -f "$tmp/lone" "$tmp/pd.a")" = 2 ] ||
	fail "prec's page-faults:D is not enabled as a lone event (disabled 1, enable_on_exec 1)"
echo "$weak: opened event by event as perf, member attrs equal but for disabled/enable_on_exec"
