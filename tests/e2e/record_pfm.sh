#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libpfm4's names in prec, judged by libpfm4 itself (Debian's perf 6.1 is
# built without libpfm4, so perf cannot judge --pfm-events here):
#  - --pfm-events: each string's attr in prec's -vv dump carries exactly
#    the words libpfm4's own encoding gives (helpers/pfm_encode: type,
#    config, privilege and guest bits, precise, pinned, exclusive, period
#    or frequency), -c/-F not over libpfm4's period (perf's rule); {a,b}
#    is a group as perf splits it; strings libpfm4 refuses are refused.
#  - vendor names in -e, with libpfm4 made to use a hardware PMU's table
#    (LIBPFM_FORCE_PMU: this VM has no hardware PMU, so only libpfm4's
#    perf and perf_raw tables are active): NAME[:mods] gets the attr of
#    rCONFIG[:mods] (CONFIG libpfm4's encoding of NAME), an attr
#    e2e/record_attr_perf judges against perf; libpfm4's perf:: names are
#    no -e names (perf's -e refuses them too).
#  - a recording of libpfm4's software names, merged and read by perf.
#  - without libpfm4 (a library that does not load in its place): one
#    line saying so.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir pfm
AWK=$PREC_TOP/tests/lib/attr_blocks.awk
ENC=$H/pfm_encode
[ -x "$ENC" ] || fail "no $ENC (make unit)"
# the words libpfm4 sets: what is compared (its period and frequency
# below: -c fills them where libpfm4 gives none)
words='^[0-9]+ (type|config|config1|config2|exclude_user|exclude_kernel|exclude_hv|exclude_idle|exclude_host|exclude_guest|precise_ip|pinned|exclusive) '

# prec's attrs (tracking event dropped) of a dry run, as "N field value"
prec_attrs() { # OUT ARGS...
	local out=$1
	shift
	"$PREC" record -vv --dry-run --no-bpf-event "$@" -- true >"$tmp/run.out" 2>&1 ||
		fail_rc "$tmp/run.out" "prec record $*"
	awk -f "$AWK" -v skip=1 "$tmp/run.out" >"$out"
}

# 1. --pfm-events against libpfm4's encoding, one string at a time and all
# in one list (the events keep their order)
pfm=(cycles:period=77777 cycles:freq=100 cycles:u instructions:k cycles:precise=2
	cycles:excl cycles:pinned cycles:mg PERF_COUNT_SW_PAGE_FAULTS perf_raw::r1a8
	perf::L1-DCACHE-LOAD-MISSES perf::instructions:u=0)
list=$(IFS=,; echo "${pfm[*]}")
"$ENC" "${pfm[@]}" >"$tmp/enc.out" 2>&1 || fail_rc "$tmp/enc.out" "pfm_encode"
awk -f "$AWK" "$tmp/enc.out" | grep -E "$words" | sed 's/^/x /' >"$tmp/want"
prec_attrs "$tmp/got.all" -c 10000 --pfm-events "$list"
grep -E "$words" "$tmp/got.all" | sed 's/^/x /' >"$tmp/got"
if ! diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then
	sed 's/^/    /' "$tmp/diff"
	fail "--pfm-events: prec's attrs differ from libpfm4's encoding (- libpfm4, + prec)"
fi
# -c over libpfm4's period: never (77777 stays), where it gives none: yes
grep -qx '1 { sample_period, sample_freq } 77777' "$tmp/got.all" || fail "cycles:period=77777 lost its period to -c"
if ! grep -qx '2 { sample_period, sample_freq } 100' "$tmp/got.all" ||
	! grep -qx '2 freq 1' "$tmp/got.all"; then
	fail "cycles:freq=100 lost its frequency to -c"
fi
grep -qx '3 { sample_period, sample_freq } 10000' "$tmp/got.all" || fail "cycles:u did not take -c 10000"
grep -qx '1 sample_type IP|TID|TIME' "$tmp/got.all" || fail "libpfm4's period= kept PERIOD in sample_type (perf drops it)"
grep -qx '2 sample_type IP|TID|TIME|PERIOD' "$tmp/got.all" || fail "libpfm4's freq= without PERIOD"
echo "--pfm-events: ${#pfm[@]} strings, prec's attrs carry libpfm4's encoding"

# groups as perf splits them: {a,b} led by a, an empty {} skipped
"$PREC" record -v --dry-run --pfm-events '{cycles,instructions:u},{},PERF_COUNT_SW_CPU_CLOCK' \
	-- true >"$tmp/g.out" 2>&1 || fail_rc "$tmp/g.out" "prec record --pfm-events {...}"
sed -n "s/^prec: debug: \(event [0-9] '[^']*'\): .* \(leader -\?[0-9]*\).*/\1 \2/p" "$tmp/g.out" >"$tmp/g.got"
printf '%s\n' "event 0 'dummy' leader -1" "event 1 'cycles' leader 1" \
	"event 2 'instructions:u' leader 1" "event 3 'PERF_COUNT_SW_CPU_CLOCK' leader -1" >"$tmp/g.want"
diff -u "$tmp/g.want" "$tmp/g.got" || fail "--pfm-events groups"
for bad in foo cycles:zz 'cycles:u=2' '{cycles,{instructions}}' 'cycles}' '{cycles'; do
	"$PREC" record --dry-run --pfm-events "$bad" -- true >"$tmp/bad.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "--pfm-events '$bad': exit $rc, want 2 (a bad command line)"
	[ "$(wc -l <"$tmp/bad.out")" = 1 ] || fail "--pfm-events '$bad': not one line: $(cat "$tmp/bad.out")"
done
echo "--pfm-events: groups as perf's, 6 bad strings refused with one line"

# 2. vendor names in -e through a hardware PMU's table
vendor() { # PMU NAME MODS
	local pmu=$1 name=$2 mods=$3 config
	config=$(LIBPFM_FORCE_PMU=$pmu "$ENC" "$name" | awk '$1 == "config" { print $2 }')
	[ -n "$config" ] || fail "libpfm4 ($pmu) has no $name"
	LIBPFM_FORCE_PMU=$pmu prec_attrs "$tmp/v.got" -e "$name${mods:+:$mods}"
	prec_attrs "$tmp/v.want" -e "r${config#0x}${mods:+:$mods}"
	diff -u "$tmp/v.want" "$tmp/v.got" ||
		fail "-e $name:$mods ($pmu) differs from -e r${config#0x}:$mods (- raw, + vendor name)"
	echo "-e $name${mods:+:$mods} ($pmu): the attr of r${config#0x}${mods:+:$mods}"
}
vendor skl br_inst_retired.near_call ""
vendor skl br_inst_retired.near_call u
vendor skl mem_load_retired.l1_miss pp
vendor amd64_fam19h_zen4 retired_branch_instructions k
for name in PERF_COUNT_HW_CPU_CYCLES PERF_COUNT_SW_PAGE_FAULTS no_such.event perf::cycles; do
	"$PREC" record --dry-run -e "$name" -- true >"$tmp/bad.out" 2>&1
	rc=$?
	if [ "$rc" != 2 ] || [ "$(wc -l <"$tmp/bad.out")" != 1 ]; then
		fail "-e $name: exit $rc, $(cat "$tmp/bad.out")"
	fi
	[ "$name" = perf::cycles ] || grep -q "unknown event" "$tmp/bad.out" || fail "-e $name: $(cat "$tmp/bad.out")"
done
perf record -o "$tmp/x.data" -e PERF_COUNT_HW_CPU_CYCLES -- true >/dev/null 2>&1 &&
	fail "perf took -e PERF_COUNT_HW_CPU_CYCLES (the test's table is wrong)"
echo "-e: libpfm4's perf:: names refused, as perf"

# 3. a recording: libpfm4's software names, perf reads prec's file
K=3000 N=30
"$PREC" record -q -o "$tmp/r.data" --pfm-events "PERF_COUNT_SW_PAGE_FAULTS:period=$N" \
	--pfm-events '{PERF_COUNT_SW_CPU_CLOCK,PERF_COUNT_SW_CONTEXT_SWITCHES}' \
	-- "$H/faults" $K >/dev/null 2>"$tmp/r.err" || fail_rc "$tmp/r.err" "prec record --pfm-events"
n=$(perf script -F event -i "$tmp/r.data" 2>/dev/null | grep -c "^ *PERF_COUNT_SW_PAGE_FAULTS:period=$N:")
[ "$n" -ge $((K / N)) ] || fail "$n samples of PERF_COUNT_SW_PAGE_FAULTS:period=$N, want >= $((K / N))"
perf evlist -g -i "$tmp/r.data" >"$tmp/r.g" 2>/dev/null || fail "perf evlist -g"
grep -qx '{PERF_COUNT_SW_CPU_CLOCK,PERF_COUNT_SW_CONTEXT_SWITCHES}' "$tmp/r.g" ||
	fail "perf evlist -g: no group: $(cat "$tmp/r.g")"
echo "recorded: $n samples of PERF_COUNT_SW_PAGE_FAULTS:period=$N (>= $((K / N))), the group in perf evlist -g"

# 4. no libpfm4: a library of its name that does not load
mkdir "$tmp/lib" && : >"$tmp/lib/libpfm.so.4"
LD_LIBRARY_PATH=$tmp/lib "$PREC" record --dry-run --pfm-events cycles -- true >"$tmp/n.out" 2>&1
rc=$?
if [ "$rc" = 0 ] || ! grep -q "libpfm4 is not installed" "$tmp/n.out" ||
	[ "$(wc -l <"$tmp/n.out")" != 1 ]; then
	fail "--pfm-events without libpfm4: exit $rc, $(cat "$tmp/n.out")"
fi
LD_LIBRARY_PATH=$tmp/lib "$PREC" record --dry-run -e br_inst_retired.near_call -- true >"$tmp/n.out" 2>&1 &&
	fail "a vendor name taken without libpfm4"
grep -q "libpfm4 is not installed" "$tmp/n.out" || fail "-e vendor name without libpfm4: $(cat "$tmp/n.out")"
LD_LIBRARY_PATH=$tmp/lib "$PREC" record --dry-run -e cpu-clock -- true >"$tmp/n.out" 2>&1 ||
	fail_rc "$tmp/n.out" "prec record -e cpu-clock without libpfm4"
echo "without libpfm4: one line naming it; other events as ever"
