#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PMU caps, which this machine's PMUs may not have, from a PMU directory
# of the test's own bound over /sys/bus/event_source/devices in a private
# mount namespace: with a core PMU ("cpu") and another with caps, perf
# report --header-only -I prints the same PMU mappings, core PMU caps and
# other PMUs' caps for prec's file and pipe as for perf's own. Then a
# directory past the bounds (1100 PMUs of 70 caps): prec keeps 1024 PMUs
# and 64 caps a PMU, says so on stderr, and perf reads the file quietly.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd unshare
need_cmd python3
e2e_tmpdir pmu_sysfs
[ -d /sys/bus/event_source/devices ] || skip "no PMU directory in sysfs"

# The real PMUs with their types, a core PMU and ibs_op with caps
mkdir "$tmp/pmus"
for d in /sys/bus/event_source/devices/*; do
	{ mkdir "$tmp/pmus/${d##*/}" && cat "$d/type" >"$tmp/pmus/${d##*/}/type"; } ||
		fail "copy of $d"
done
for p in cpu:4 ibs_op:11; do
	n=${p%%:*}
	[ -d "$tmp/pmus/$n" ] || { mkdir "$tmp/pmus/$n" && echo "${p#*:}" >"$tmp/pmus/$n/type"; }
	mkdir "$tmp/pmus/$n/caps" || fail "mkdir caps"
done
echo 3 >"$tmp/pmus/cpu/caps/max_precise"
echo zen4 >"$tmp/pmus/cpu/caps/pmu_name"
echo 16 >"$tmp/pmus/cpu/caps/branches"
echo 1 >"$tmp/pmus/ibs_op/caps/zen4_ibs_extensions"

# The recordings, inside the namespace with the directory bound
cat >"$tmp/inner.sh" <<'EOF'
set -u
t=$1
mount --bind "$t/pmus" /sys/bus/event_source/devices || exit 2
perf record -q -o "$t/p.data" -e cpu-clock -- sleep 0.1 >/dev/null 2>"$t/p.err" || exit 3
perf record -q -o - -e cpu-clock -- sleep 0.1 2>"$t/pp.err" >"$t/pp.data" || exit 4
"$PREC" record -q -d "$t/q" -e cpu-clock -- sleep 0.1 >/dev/null 2>"$t/q.err" || exit 5
EOF
unshare -m bash "$tmp/inner.sh" "$tmp" >"$tmp/ns.out" 2>&1 ||
	fail_rc "$tmp/ns.out" "the recordings in a mount namespace (see $tmp/*.err)"
"$PREC" merge -q "$tmp/q" -o "$tmp/q.data" || fail "prec merge"

feats() {
	perf report --header-only -I -i "$1" 2>"$2" | awk '
		/^# pmu mappings:/ || /^# .*pmu capabilities:/ { print; next }
		/^# missing features:/ {
			for (i = 4; i <= NF; i++)
				if ($i ~ /^(PMU_MAPPINGS|CPU_PMU_CAPS|PMU_CAPS)$/) print "missing " $i
		}'
}
feats "$tmp/p.data" "$tmp/p.rerr" >"$tmp/p.feats"
feats - "$tmp/pp.rerr" <"$tmp/pp.data" >"$tmp/pp.feats"
feats "$tmp/q.data" "$tmp/q.rerr" >"$tmp/q.feats"
"$PREC" merge -q "$tmp/q" | feats - "$tmp/qp.rerr" >"$tmp/qp.feats"
for f in p pp q qp; do
	[ ! -s "$tmp/$f.rerr" ] || fail "perf report on $f said: $(head -3 "$tmp/$f.rerr")"
done
if ! grep -q '^# cpu pmu capabilities: .*max_precise=3' "$tmp/p.feats" ||
	! grep -q '^# ibs_op pmu capabilities: zen4_ibs_extensions=1' "$tmp/p.feats"; then
	fail "perf's own header has not the caps: $(cat "$tmp/p.feats")"
fi
diff -u "$tmp/p.feats" "$tmp/q.feats" >"$tmp/d" ||
	fail "the header differs from perf's (- perf, + prec): $(cat "$tmp/d")"
diff -u "$tmp/pp.feats" "$tmp/qp.feats" >"$tmp/d" ||
	fail "the pipe's header differs from perf's pipe (- perf, + prec): $(cat "$tmp/d")"

# Past the bounds: 1100 PMUs of 70 caps each, on a tmpfs of the namespace
cat >"$tmp/inner2.sh" <<'EOF'
set -u
t=$1
d=/sys/bus/event_source/devices
mount -t tmpfs none "$d" || exit 2
python3 -c '
import os, sys
for i in range(1100):
    p = os.path.join(sys.argv[1], "fake%d" % i)
    os.makedirs(p + "/caps")
    open(p + "/type", "w").write("%d\n" % (1000 + i))
    for c in range(70):
        open("%s/caps/cap%d" % (p, c), "w").write("%d\n" % c)
' "$d" || exit 3
"$PREC" record -d "$t/m" -e cpu-clock -- sleep 0.1 >/dev/null 2>"$t/m.err" || exit 5
EOF
unshare -m bash "$tmp/inner2.sh" "$tmp" >"$tmp/ns.out" 2>&1 ||
	fail_rc "$tmp/ns.out" "the recording past the bounds (see $tmp/m.err)"
grep -q '^prec: warning: host: 76 PMUs past the first 1024 ' "$tmp/m.err" ||
	fail "no word of the PMUs left out: $(cat "$tmp/m.err")"
grep -q '^prec: warning: host: 6144 PMU caps past 64 ' "$tmp/m.err" ||
	fail "no word of the caps left out: $(cat "$tmp/m.err")"
"$PREC" info --json "$tmp/m" >"$tmp/m.json" || fail "prec info --json"
python3 -c '
import json, sys
pmus = json.load(open(sys.argv[1]))["host"]["pmus"]
caps = set(len(p["caps"]) for p in pmus)
assert len(pmus) == 1024, len(pmus)
assert caps == {64}, caps
' "$tmp/m.json" || fail "the manifest's PMUs are not cut at 1024 PMUs and 64 caps"
"$PREC" merge -q "$tmp/m" -o "$tmp/m.data" || fail "prec merge past the bounds"
perf report --header-only -I -i "$tmp/m.data" >"$tmp/m.hdr" 2>"$tmp/m.rerr" ||
	fail_rc "$tmp/m.rerr" "perf report past the bounds"
[ ! -s "$tmp/m.rerr" ] || fail "perf report past the bounds said: $(head -3 "$tmp/m.rerr")"
grep -q '^# fake[0-9]* pmu capabilities: cap' "$tmp/m.hdr" || fail "no caps in the header past the bounds"
echo "PASS: $(grep -c . "$tmp/q.feats") lines as perf's, file and pipe; 1100 PMUs cut to 1024, 70 caps to 64"
