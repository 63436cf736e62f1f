#!/bin/sh
# SPDX-License-Identifier: MIT
# Guest job (VM_JOB=tests/vm/auxattr.sh VM_CPU=max,vendor=GenuineIntel
# tests/vm/run.sh 2): perf 6.1 builds its AUX record (and so takes -S and
# --aux-sample) only on a GenuineIntel CPU with an intel_pt PMU. Here the
# vCPU says GenuineIntel and a fake intel_pt (a Skylake's format and caps,
# type 9: no PMU of this kernel) is bind-mounted into
# /sys/bus/event_source/devices, so perf and prec both parse the event and
# print their attrs (-vv) before the open fails. The host compares the
# blocks between the "== NAME" lines (tests/lib/attr_blocks.awk).
echo "suite: auxattr on $(grep -m1 vendor_id /proc/cpuinfo)"
F=/tmp/fakepmu
mkdir -p $F
for d in /sys/bus/event_source/devices/*; do
	n=${d##*/}
	mkdir -p "$F/$n"
	for f in "$d"/type "$d"/format/* "$d"/events/* "$d"/caps/*; do
		[ -f "$f" ] || continue
		r=${f#"$d"/}
		mkdir -p "$F/$n/$(dirname "$r")"
		cat "$f" >"$F/$n/$r" 2>/dev/null
	done
done
P=$F/intel_pt
mkdir -p $P/format $P/caps
echo 9 >$P/type
echo 2 >$P/nr_addr_filters
for kv in pt:config:0 cyc:config:1 pwr_evt:config:4 fup_on_ptw:config:5 \
	mtc:config:9 tsc:config:10 noretcomp:config:11 ptw:config:12 \
	branch:config:13 mtc_period:config:14-17 cyc_thresh:config:19-22 \
	psb_period:config:24-27; do
	echo "${kv#*:}" >$P/format/${kv%%:*}
done
for kv in cr3_filtering:1 psb_cyc:1 ip_filtering:1 mtc:1 ptwrite:1 \
	power_event_trace:1 topa_output:1 topa_multiple_entries:1 \
	single_range_output:1 output_subsys:0 payloads_lip:0 \
	num_address_ranges:2 mtc_periods:249 cycle_thresholds:3fff psb_periods:3f; do
	echo "${kv#*:}" >$P/caps/${kv%%:*}
done
mount -o bind $F /sys/bus/event_source/devices || { echo "FAIL: bind mount"; exit 1; }
run() { # NAME CMD...: its output between "== NAME" and "== end"
	name=$1
	shift
	echo "== $name"
	"$@" 2>&1
	echo "== end $name (exit $?)"
}
run perf-full perf record -vv -o /tmp/p0.data -e intel_pt// -- true
run prec-full prec record -vv --dry-run -d /tmp/d0 -e intel_pt// -- true
run perf-snap perf record -vv -o /tmp/p1.data -S -e intel_pt// -- true
run prec-snap prec record -vv --dry-run -d /tmp/d1 -S -e intel_pt// -- true
run perf-snap2 perf record -vv -o /tmp/p2.data -Se0x10000 -e intel_pt// -- true
run prec-snap2 prec record -vv --dry-run -d /tmp/d2 -Se0x10000 -e intel_pt// -- true
run perf-sample perf record -vv -o /tmp/p3.data --aux-sample -e '{intel_pt//,cpu-clock}' -- true
run prec-sample prec record -vv --dry-run -d /tmp/d3 --aux-sample -e '{intel_pt//,cpu-clock}' -- true
run perf-sample2 perf record -vv -o /tmp/p4.data --aux-sample=8192 -e '{intel_pt//,cpu-clock}' -- true
run prec-sample2 prec record -vv --dry-run -d /tmp/d4 --aux-sample=8192 -e '{intel_pt//,cpu-clock}' -- true
run perf-u perf record -vv -o /tmp/p5.data -e intel_pt//u -- true
run prec-u prec record -vv --dry-run -d /tmp/d5 -e intel_pt//u -- true
run perf-snapu perf record -vv -o /tmp/p6.data -S -e intel_pt//u -- true
run prec-snapu prec record -vv --dry-run -d /tmp/d6 -S -e intel_pt//u -- true
exit 0
