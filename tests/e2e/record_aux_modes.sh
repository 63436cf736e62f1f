#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's AUX modes, -S/--snapshot[=OPTS] and --aux-sample[=OPTS],
# where no AUX PMU exists:
# - a bad OPTS, a mode without an AUX area event, the combinations perf
#   and prec refuse: one line naming the option, exit 2, nothing left;
#   without an AUX event perf refuses alike (its line is checked too);
# - --help lists both with their OPTS;
# - with a fake intel_pt (tests/lib/fake_pmus.sh, a private mount
#   namespace), prec -vv --dry-run's attrs: drained, intel_pt has perf's
#   aux_watermark (a quarter of the area) and no exclude_guest; -S changes
#   nothing else (perf 6.1's snapshot mode sets no attr); --aux-sample gives the group's
#   member aux_sample_size 4096 (or OPTS) and PERF_SAMPLE_AUX, and the
#   leader psb_period 0, all else equal. perf itself is asked the same: on
#   an Intel CPU it prints its attrs and the member's aux_sample_size and
#   AUX bit must be prec's; elsewhere perf's auxtrace support stops before
#   its attrs ("No AUX area tracing to snapshot": it builds its AUX record
#   only on GenuineIntel), which is checked and said.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
# shellcheck source=tests/lib/fake_pmus.sh
. "$PREC_TOP/tests/lib/fake_pmus.sh"
need_root
need_cmd perf
need_cmd unshare
e2e_tmpdir auxmodes
cd "$tmp" || fail "cd $tmp"
AWK=$PREC_TOP/tests/lib/attr_blocks.awk

# refused WANT ARGS...: prec record ARGS exits 2 with one line holding WANT
# and leaves no recording.
refused() {
	local want=$1
	shift
	"$PREC" record -q -d out.prec "$@" -- true >out 2>err
	local rc=$?
	[ $rc = 2 ] || fail "prec record $*: exit $rc, want 2 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] && grep -qF -- "$want" err ||
		fail "prec record $*: want one line with '$want', got: $(cat err)"
	[ ! -e out.prec ] || fail "prec record $*: left a recording"
}

# the grammar: perf's [e][SIZE] and SIZE, C integers
refused "option -S/--snapshot 'x': expected [e][SIZE]" -Sx -e cpu-clock
refused "option -S/--snapshot '4k': expected [e][SIZE]" --snapshot=4k -e cpu-clock
refused "option -S/--snapshot 'ee': expected [e][SIZE]" --snapshot=ee -e cpu-clock
refused "option --aux-sample 'big': expected a size" --aux-sample=big -e cpu-clock
refused "option --aux-sample '0x100000000': expected a size" --aux-sample=0x100000000 -e cpu-clock
# no AUX area event: perf's reason, perf's refusal too
refused "option -S/--snapshot: no AUX area tracing to snapshot" -S -e cpu-clock
refused "option -S/--snapshot: no AUX area tracing to snapshot" -Se4096 -e cpu-clock
refused "option --aux-sample: no AUX area event to sample" --aux-sample=8192 -e cpu-clock
perf record -o perf.data -S -e cpu-clock -- true >out 2>err && fail "perf record -S exited 0"
grep -q "No AUX area tracing to snapshot" err || fail "perf record -S: $(cat err)"
perf record -o perf.data --aux-sample -e cpu-clock -- true >out 2>err && fail "perf record --aux-sample exited 0"
grep -q "No AUX area event to sample" err || fail "perf record --aux-sample: $(cat err)"

# --help
"$PREC" record --help >help 2>&1
grep -q -- "-S, --snapshot\[=\[e\]SIZE\]" help || fail "--help: no -S, --snapshot[=[e]SIZE]"
grep -q -- "--aux-sample\[=SIZE\]" help || fail "--help: no --aux-sample[=SIZE]"

# ---- a fake intel_pt ----
fake_pmus "$tmp/devices" || fail "cannot build the fake PMU tree"
# attrs N EVENTS ARGS...: prec's -vv --dry-run attrs as "N field value"
attrs() {
	local out=$1
	shift
	in_fake_pmus "$tmp/devices" "$PREC" record -vv --dry-run -d "$tmp/dry" -f "$@" -- true \
		>"$out.raw" 2>&1 || fail "prec record -vv --dry-run $*: $(tail -3 "$out.raw")"
	awk -f "$AWK" "$out.raw" >"$out"
	[ -s "$out" ] || fail "prec record -vv $*: no attr printed"
}
field() { awk -v n="$2" -v f="$3" '$1 == n { k = $0; sub(/^[0-9]+ /, "", k)
	if (substr(k, 1, length(f) + 1) == f " ") { print substr(k, length(f) + 2); exit } }' "$1"; }

attrs plain -e intel_pt//
attrs snap -S -e intel_pt//
attrs snap2 -Se0x10000 -e intel_pt//
# drained, a quarter of the AUX area (4 MiB as root) wakes the reader
[ "$(field plain 2 aux_watermark)" = 1048576 ] ||
	fail "intel_pt//: aux_watermark '$(field plain 2 aux_watermark)', want 1048576 (perf's)"
[ -z "$(field plain 2 exclude_guest)" ] || fail "intel_pt//: exclude_guest set (perf's intel_pt clears it)"
grep -v '^2 aux_watermark ' plain >plain.ow
cmp -s plain.ow snap || fail "-S changed intel_pt's attr: $(diff plain.ow snap)"
cmp -s plain.ow snap2 || fail "-Se0x10000 changed intel_pt's attr: $(diff plain.ow snap2)"

attrs group -e '{intel_pt//,cpu-clock}'
attrs sampled --aux-sample -e '{intel_pt//,cpu-clock}'
attrs sampled2 --aux-sample=8192 -e '{intel_pt//,cpu-clock}'
# event 2 is intel_pt, 3 the member (1: prec's tracking event)
[ "$(field group 2 type)" = 9 ] || fail "event 2 is not intel_pt: $(cat group)"
[ "$(field sampled 3 aux_sample_size)" = 4096 ] ||
	fail "--aux-sample: member's aux_sample_size '$(field sampled 3 aux_sample_size)', want 4096"
[ "$(field sampled2 3 aux_sample_size)" = 8192 ] ||
	fail "--aux-sample=8192: member's aux_sample_size '$(field sampled2 3 aux_sample_size)'"
field sampled 3 sample_type | grep -q '|AUX' || fail "--aux-sample: member without PERF_SAMPLE_AUX"
field sampled 2 sample_type | grep -q 'AUX' && fail "--aux-sample: the leader has PERF_SAMPLE_AUX"
[ -z "$(field sampled 2 aux_sample_size)" ] || fail "--aux-sample: the leader has an aux_sample_size"
cfg=$(field group 2 config) cfgs=$(field sampled 2 config)
[ "$((cfgs))" = "$((cfg & ~(0xf << 24)))" ] && [ "$((cfg & (0xf << 24)))" != 0 ] ||
	fail "--aux-sample: intel_pt config $cfgs, want $cfg without psb_period (perf's sample mode)"
# all else equal
[ -z "$(field sampled 2 aux_watermark)" ] || fail "--aux-sample: intel_pt has an aux_watermark"
grep -v ' aux_sample_size \| sample_type \|^2 config \|^2 aux_watermark ' group >g.rest
grep -v ' aux_sample_size \| sample_type \|^2 config ' sampled >s.rest
cmp -s g.rest s.rest || fail "--aux-sample changed more: $(diff g.rest s.rest)"
# refused with the fake PMU too, as perf refuses: ARGS|WORDS of the line
while IFS='|' read -r a want; do
	# shellcheck disable=SC2086 # the words of a case
	in_fake_pmus "$tmp/devices" "$PREC" record -q --dry-run -d "$tmp/dry" -f $a -- true >out 2>err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -qF -- "$want" err ||
		fail "prec record $a: exit $rc, want 2 and one line with '$want': $(cat err)"
done <<'CASES'
--aux-sample -e intel_pt//,cpu-clock|requires an AUX area event group leader
--aux-sample -e {cpu-clock,intel_pt//}|requires an AUX area event group leader
--aux-sample=61441 -e {intel_pt//,cpu-clock}|sample size 61441 too big, max. 61440
-S --aux-sample -e {intel_pt//,cpu-clock}|snapshot mode and --aux-sample cannot be used together
-S0x200000 --aux-size 1M -e intel_pt//|snapshot size 2097152 must not be greater than the AUX area
-S --overwrite -e intel_pt//|--overwrite cannot be combined with an AUX area event
-S --switch-output -e intel_pt//|option --switch-output: -S takes SIGUSR2
CASES

# perf, the same commands in the same namespace
perf_note=""
in_fake_pmus "$tmp/devices" perf record -vv -o "$tmp/p.data" --aux-sample \
	-e '{intel_pt//,cpu-clock}' -- true >perf.raw 2>&1
if grep -q 'perf_event_attr:' perf.raw && grep -q 'aux_sample_size' perf.raw; then
	grep -q 'aux_sample_size  *4096' perf.raw || fail "perf's member aux_sample_size is not 4096"
	grep -q 'sample_type .*|AUX' perf.raw || fail "perf's member has no PERF_SAMPLE_AUX"
	perf_note="perf's attrs compared"
else
	grep -q "No AUX area event to sample" perf.raw ||
		fail "perf --aux-sample with a fake intel_pt: $(tail -3 perf.raw)"
	in_fake_pmus "$tmp/devices" perf record -vv -o "$tmp/p.data" -S -e intel_pt// -- true >perf.raw 2>&1
	grep -q "No AUX area tracing to snapshot" perf.raw ||
		fail "perf -S with a fake intel_pt: $(tail -3 perf.raw)"
	perf_note="perf stops before its attrs on $(grep -m1 -o 'Using CPUID [A-Za-z]*' perf.raw || echo 'this CPU') (its AUX record is Intel's only): compared with perf 6.1's source"
fi
echo "PASS: -S and --aux-sample: bad OPTS and perf's refusals exit 2 with one line; fake intel_pt attrs as perf 6.1's ($perf_note)"
