# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# fake_pmus DIR: a copy of /sys/bus/event_source/devices (each PMU's type,
# format/, events/, caps/) with an intel_pt of a Skylake beside them, to
# bind-mount over the real directory in a private mount namespace
# (in_fake_pmus), so that perf and prec parse intel_pt// and print its attr
# before the open fails (type 9 is no PMU of this kernel).
fake_pmus() {
	local root=$1 d n f kv
	rm -rf "$root" && mkdir -p "$root" || return 1
	for d in /sys/bus/event_source/devices/*; do
		n=${d##*/}
		mkdir -p "$root/$n"
		for f in "$d"/type "$d"/format/* "$d"/events/* "$d"/caps/*; do
			[ -f "$f" ] || continue
			mkdir -p "$root/$n/$(dirname "${f#"$d"/}")"
			cat "$f" >"$root/$n/${f#"$d"/}" 2>/dev/null || true
		done
	done
	d=$root/intel_pt
	mkdir -p "$d/format" "$d/caps"
	echo 9 >"$d/type"
	echo 2 >"$d/nr_addr_filters"
	for kv in pt:config:0 cyc:config:1 pwr_evt:config:4 fup_on_ptw:config:5 \
		mtc:config:9 tsc:config:10 noretcomp:config:11 ptw:config:12 \
		branch:config:13 mtc_period:config:14-17 cyc_thresh:config:19-22 \
		psb_period:config:24-27; do
		echo "${kv#*:}" >"$d/format/${kv%%:*}"
	done
	for kv in cr3_filtering:1 psb_cyc:1 ip_filtering:1 mtc:1 ptwrite:1 \
		power_event_trace:1 topa_output:1 topa_multiple_entries:1 \
		single_range_output:1 output_subsys:0 payloads_lip:0 \
		num_address_ranges:2 mtc_periods:249 cycle_thresholds:3fff psb_periods:3f; do
		echo "${kv#*:}" >"$d/caps/${kv%%:*}"
	done
}

# in_fake_pmus DIR CMD...: CMD in a private mount namespace where DIR is
# /sys/bus/event_source/devices (root only). For CMD's own pid in the
# background ($!), run `unshare -m sh -c "$FAKE_PMUS_SH" DIR CMD... &`:
# unshare and sh exec CMD in turn.
# shellcheck disable=SC2016 # expanded by the inner sh
FAKE_PMUS_SH='mount --bind "$0" /sys/bus/event_source/devices && exec "$@"'
in_fake_pmus() {
	local root=$1
	shift
	unshare -m sh -c "$FAKE_PMUS_SH" "$root" "$@"
}
