#!/bin/sh
# SPDX-License-Identifier: MIT
# The guest suite (tests/vm/run.sh boots it): prec on every CPU of the
# guest at once, each check asserting counts read back with perf, then
# prec against perf in the same guest. Prints "ok NAME: what", "FAIL NAME:
# what", "FIG ..." lines (figures, not checks), "lap" lines (the guest's
# uptime), and "N passed, N failed". Each step of a check runs under a
# watchdog (guest_lib.sh: STEP_LIMIT): a hang prints "HANG CHECK: STEP" with
# the process tree's kernel stacks and fails that check alone.
# Usage: suite.sh [STORM_N [CHECKS [ROUNDS]]]: CHECKS, a comma list of the
# check functions' names below without c_ (default: all, once), run ROUNDS
# times (to chase a rare failure: VM_JOB unset, run.sh N "10000 sched 30").
. /guest_lib.sh
N=${1:-10000}
CHECKS=${2:-all}
ROUNDS=${3:-1}
prec_lost() { sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$ERR"; }
comm_count() { awk -v c="$1" '$1 == c' /tmp/script | wc -l; }
fig() { # PART TOOL: the last recording's figures
	echo "FIG $1 $2 kept=$KEPT lost=$3 wall_ms=$WALL cpu_s=$CPU close_ms=$CLOSE stop_ms=${STOP:--}"
}

echo "suite: $NCPU CPUs, kernel $(uname -r), storm $N per CPU, booted in $(cut -d' ' -f1 /proc/uptime) s"
TOTAL=$((N * NCPU))
STORM="-e raw_syscalls:sys_enter --filter id==110"
# pingpong's two processes on one CPU: each round trip then needs the CPU
# to go from one to the other and back, two switches out of pingpong at
# least (on two CPUs a reply can be there before its reader blocks).
cat >/tmp/load.sh <<'EOS'
sh /tmp/storms.sh 5000 &
taskset -c 0 pingpong 1000
wait
EOS
cat >/tmp/snap.sh <<'EOS'
c=0
while [ $c -lt $(nproc) ]; do
	taskset -c $c timeout 2 sh -c 'while :; do :; done' &
	c=$((c + 1))
done
sleep 1
kill -USR2 $PPID
wait
EOS

# 1. A storm on every CPU at once into a ring that holds it all: exactly N
# per CPU kept and nothing lost, by prec and by perf; prec's merged file
# read by perf script with nothing on stderr.
c_big() {
local tool got lost
for tool in prec perf; do
	begin big_$tool
	ERR=/dev/null
	rec_storm $tool big_$tool "$N" -m 32M $STORM || { bad big_$tool "record exit $RC$(hung)"; continue; }
	script_clean "$OUT/big_$tool.data" ||
		[ $tool = perf ] || ERR=/tmp/script.err bad big_$tool "perf script: stderr not empty$(hung)"
	got=$(comm_count storm)
	stats "$OUT/big_$tool.data"
	lost=$LOST
	[ $tool = prec ] && lost=$(prec_lost)
	[ $tool = prec ] && WANT=$KEPT
	# the kernel's other records in the CPU rings (the storms' FORK,
	# COMM, MMAP2, EXIT...): a ring that overflows may lose some of them
	# too, and prec's lost count is of records of every kind
	[ $tool = prec ] && SIDE=$(prec dump "$OUT/big_prec" 2>/dev/null |
		awk '$2 ~ /^[0-9]+$/ && $4 != "SAMPLE"' | wc -l)
	fig storm_big $tool "$lost"
	check big_$tool "-m 32M: storm samples $got of $TOTAL, lost $lost${SIDE:+, $SIDE other records in the rings}" \
		"$got" = "$TOTAL" -a "$lost" = 0
done
# The getppid() calls that are not the storm's (the launching shell's):
# the big ring kept them, and they are part of the exact total below.
lap storm_big
}

# 2. The same storm into the default ring: what prec does not keep it
# counts as lost (with the side-band records an overflow took with them:
# a loss count is of records of every kind). perf's figures are for
# comparison only.
c_def() {
local tool lost extra
for tool in prec perf; do
	begin def_$tool
	rec_storm $tool def_$tool "$N" $STORM || { bad def_$tool "record exit $RC$(hung)"; continue; }
	stats "$OUT/def_$tool.data"
	lost=$LOST
	[ $tool = prec ] && lost=$(prec_lost)
	fig storm_def $tool "$lost"
	[ $tool = perf ] && continue
	# Every sample kept or counted lost; when the ring overflowed, the
	# lost count may hold some of the side band's records besides (at
	# most SIDE, the big ring's); without a loss, exactly
	extra=0
	[ "$lost" -gt 0 ] && extra=${SIDE:-0}
	check def_prec "default ring: kept $KEPT + lost $lost = $((KEPT + lost)), want ${WANT:-$TOTAL} (+ up to $extra side-band records lost with them)" \
		$((KEPT + lost)) -ge "${WANT:-$TOTAL}" -a $((KEPT + lost)) -le $((${WANT:-$TOTAL} + extra))
done
lap storm_def
}

# 3. -z: lz4 chunks, merged back into what perf reads: the exact count.
c_z() {
local got
begin z
if rec_storm prec z "$N" -z -m 32M $STORM && script_clean "$OUT/z.data"; then
	got=$(comm_count storm)
	check z "-z: storm samples $got of $TOTAL, lost $(prec_lost)" "$got" = "$TOTAL" -a "$(prec_lost)" = 0
else
	bad z "record exit $RC or perf script stderr: $(cat /tmp/script.err)$(hung)"
fi
lap z
}

# 4. cpu-clock on every CPU: samples from each, and perf script and perf
# report read prec's file with nothing on stderr (perf's own file may warn:
# a figure only).
c_clock() {
local tool cpus
for tool in prec perf; do
	begin clock_$tool
	STOP=
	rec $tool clock_$tool -a -e cpu-clock -F 1000 -- sleep 1 || { bad clock_$tool "record exit $RC$(hung)"; continue; }
	if ! script_clean "$OUT/clock_$tool.data" report && [ $tool = prec ]; then
		ERR=/tmp/script.err bad clock_prec "perf script/report: stderr not empty$(hung)"
		continue
	fi
	stats "$OUT/clock_$tool.data"
	cpus=$(step "perf script -F cpu" perf script -i "$OUT/clock_$tool.data" -F cpu 2>/dev/null | sort -u | wc -l)
	fig clock $tool "$LOST"
	check clock_$tool "cpu-clock -a -F 1000 -- sleep 1: $KEPT samples from $cpus CPUs" \
		"$cpus" = "$NCPU" -a "$KEPT" -gt 0
done
lap clock
}

# 5. sched:sched_switch under load (a storm on every CPU, a pingpong of
# 1000 round trips on CPU 0): 2000 switches out of pingpong at least,
# whatever else runs there; fewer means switches missed.
c_sched() {
local pp
begin sched_switch
if rec prec sched -a -m 8M -e sched:sched_switch -- sh /tmp/load.sh &&
	script_clean "$OUT/sched.data"; then
	pp=$(step "perf script -F trace" perf script -i "$OUT/sched.data" -F trace 2>/dev/null |
		grep -c 'prev_comm=pingpong ')
	check sched_switch "$pp switches out of pingpong (>= 2000), lost $(prec_lost)" \
		"$pp" -ge 2000 -a "$(prec_lost)" = 0
else
	bad sched_switch "record exit $RC or perf script stderr: $(cat /tmp/script.err)$(hung)"
fi
lap sched
}

# 6. --switch-events: PERF_RECORD_SWITCH_CPU_WIDE records from every CPU.
c_switch() {
local sw
begin switch_events
if rec prec switch -a --switch-events -e cpu-clock -F 100 -- sh /tmp/load.sh &&
	script_clean "$OUT/switch.data"; then
	sw=$(step "perf script --show-switch-events" perf script -i "$OUT/switch.data" \
		--show-switch-events -F cpu,event 2>/dev/null |
		grep PERF_RECORD_SWITCH_CPU_WIDE | awk '{ print $1 }' | sort -u | wc -l)
	check switch_events "switch records from $sw of $NCPU CPUs" "$sw" = "$NCPU"
else
	bad switch_events "record exit $RC or perf script stderr: $(cat /tmp/script.err)$(hung)"
fi
lap switch
}

# 7. --overwrite, a snapshot on SIGUSR2 while a shell spins on every CPU,
# then the stop's: samples of the shells from every CPU, one flight shard
# per CPU. A ring paused for a snapshot loses what comes meanwhile: perf
# script may say so (lost chunks, and lost samples: the flight events'
# LOST_SAMPLES records, as perf record --overwrite writes them), and then
# only that, with one LOST record for each CPU prec reported a loss on.
c_flight() {
local got cpus snaps lossy chunks other
begin flight
if rec prec flight -a --overwrite -e cpu-clock -F 1000 -- sh /tmp/snap.sh; then
	script_clean "$OUT/flight.data"
	got=$(comm_count sh)
	cpus=$(step "perf script -F comm,cpu" perf script -i "$OUT/flight.data" -F comm,cpu 2>/dev/null |
		awk '$1 == "sh" { print $2 }' | sort -u | wc -l)
	snaps=$(ls "$OUT/flight" | grep -c flight.shard)
	lossy=$(grep -c 'records LOST in the flight ring' "$ERR")
	chunks=$(sed -n 's/.* and lost \([0-9]*\) chunks!/\1/p' /tmp/script.err)
	other=$(grep -v -e '^Warning:$' -e 'and lost [0-9]* chunks!$' -e '^Check IO/CPU overload!$' \
		-e '^Processed [0-9]* samples and lost [0-9. ]*%!$' -e '^$' /tmp/script.err | wc -l)
	check flight "--overwrite: $got samples of the spinning shells from $cpus CPUs, $snaps flight shards, LOST records $chunks for $lossy lossy CPUs" \
		"$got" -gt 0 -a "$cpus" = "$NCPU" -a "$snaps" = "$NCPU" -a "${chunks:-0}" = "$lossy" -a "$other" = 0
else
	bad flight "record exit $RC$(hung)"
fi
lap flight
}

# 8. info --check on every recording of the suite.
c_info() {
local d bad_info=
begin info_check
for d in "$OUT"/*/manifest; do
	d=${d%/manifest}
	step "prec info --check" prec info --check "$d" >/tmp/info 2>&1 || bad_info="$bad_info ${d##*/}$(hung)"
done
ERR=/dev/null
check info_check "prec info --check on every recording:${bad_info:- all clean}" -z "$bad_info"
lap info
}

# 9. The kernel: what it can do works, what needs a newer one (--markers:
# 6.17) fails with one line naming the version, exit 1, nothing on disk.
c_kernel() {
local kver opt rc
begin kernel
kver=$(uname -r | awk -F. '{ printf "%d%03d", $1, $2 }')
for opt in "-k perf" "--call-graph dwarf" "-e cpu-clock -F 99 --no-direct-io"; do
	ERR=/tmp/feat.err
	rm -rf "$OUT/feat"
	step "prec record $opt" prec record -q -d "$OUT/feat" -a $opt -- true 2>$ERR
	rc=$?
	check "kernel_ok" "record -a $opt on $(uname -r): exit $rc$(hung)" "$rc" = 0 -a ! -s "$ERR"
done
if [ "$kver" -lt 6017 ]; then
	ERR=/tmp/feat.err
	rm -rf "$OUT/feat"
	step "prec record --markers" prec record -d "$OUT/feat" --markers -- true 2>$ERR
	rc=$?
	check kernel_markers "--markers on $(uname -r): exit $rc, $(wc -l <$ERR) line: $(head -1 $ERR)" \
		"$rc" = 1 -a "$(wc -l <$ERR)" = 1 -a "$(grep -c 'needs Linux 6\.17' $ERR)" = 1 -a ! -e "$OUT/feat"
fi
lap kernel
}

# 10. --kcore, prec and perf in the same boot (a module loaded, so both
# of perf's segments exist): the same layout (perf.data/data and
# kcore_dir/{kallsyms,kcore,modules}, prec's also in its recording), the
# same program headers in kcore_dir/kcore, and perf report reading the
# kernel's code from each file's own kcore_dir/kcore ("Using ... for
# kernel data", perf -v), its kernel samples resolved to symbols. Then
# prec record --kcore -o FILE (perf's layout straight from record), and
# the pipe format: perf fails (255), prec refuses in one line (exit 2).
KC_LOAD="sh -c 'i=0; while [ \$i -lt 4 ]; do cat /proc/kallsyms >/dev/null; i=\$((i+1)); done'"
kc_tree() { (cd "$1" && find . | sort | tr '\n' ' '); }
kc_phdrs() { readelf -lW "$1/kcore_dir/kcore" 2>&1 | awk '$1 == "LOAD" { print $2, $3, $5, $7 }' | tr '\n' ';'; }
# kc_resolved FILE: "KERNEL UNKNOWN" samples of the kernel (perf script)
kc_resolved() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null |
		awk '/\[kernel\.kallsyms\]/ { k++; if ($2 == "[unknown]") u++ } END { print k + 0, u + 0 }'
}
c_kcore() {
local tool want got pw
[ -e /lib/modules/dummy.ko ] && ! grep -q '^dummy ' /proc/modules && insmod /lib/modules/dummy.ko
for tool in prec perf; do
	begin kcore_$tool
	eval "rec $tool kc_$tool --kcore -a -e cpu-clock -F 499 -- $KC_LOAD" ||
		{ bad kcore_$tool "record --kcore exit $RC$(hung)"; continue; }
	step "perf report -v" perf report -v -i "$OUT/kc_$tool.data" --stdio >/tmp/kc_report 2>&1
	got=$(grep -c "^Using $OUT/kc_$tool.data/kcore_dir/kcore for kernel data" /tmp/kc_report)
	set -- $(kc_resolved "$OUT/kc_$tool.data")
	ERR=/tmp/kc_report
	check kcore_$tool "perf report reads $tool's kcore_dir/kcore ($got), $1 kernel samples, $2 unresolved" \
		"$got" = 1 -a "$1" -gt 0 -a "$2" -lt $(($1 / 20 + 1))
done
begin kcore_layout
want=". ./data ./kcore_dir ./kcore_dir/kallsyms ./kcore_dir/kcore ./kcore_dir/modules "
got=$(kc_tree "$OUT/kc_prec.data")
pw=$(kc_tree "$OUT/kc_perf.data")
ERR=/dev/null
check kcore_layout "prec's merged file: $got; perf's: $pw" "$got" = "$want" -a "$pw" = "$want"
got=$(kc_tree "$OUT/kc_prec/kcore_dir")
check kcore_recording "prec's recording has kcore_dir: $got; prec info: $(prec info "$OUT/kc_prec" | grep '^kcore:')" \
	"$got" = ". ./kallsyms ./kcore ./modules " -a "$(prec info "$OUT/kc_prec" | grep -c '^kcore: ')" = 1
got=$(kc_phdrs "$OUT/kc_prec.data")
pw=$(kc_phdrs "$OUT/kc_perf.data")
check kcore_phdrs "kcore's LOAD headers (offset vaddr filesz flags), prec: $got perf: $pw" \
	-n "$got" -a "$got" = "$pw" -a "$(echo "$got" | tr ';' '\n' | grep -c .)" = "$(grep -c '^dummy ' /proc/modules | awk '{ print $1 + 1 }')"
for f in kallsyms modules; do
	cmp -s "$OUT/kc_prec.data/kcore_dir/$f" "$OUT/kc_perf.data/kcore_dir/$f"
	verdict kcore_$f "kcore_dir/$f: prec's and perf's the same bytes"
done
# the kernel's text is patched at run time (static keys): a FIG, not a check
cmp -s "$OUT/kc_prec.data/kcore_dir/kcore" "$OUT/kc_perf.data/kcore_dir/kcore" &&
	echo "FIG kcore identical" || echo "FIG kcore differs: $(cmp -l "$OUT/kc_prec.data/kcore_dir/kcore" "$OUT/kc_perf.data/kcore_dir/kcore" | wc -l) bytes"
# what the copy costs: prec record -- true with and without --kcore (FIG)
t0=$(now_ms); prec record -q -d "$OUT/kc_t0" -e cpu-clock -- true 2>/dev/null; t1=$(now_ms)
prec record -q --kcore -d "$OUT/kc_t1" -e cpu-clock -- true 2>/dev/null; t2=$(now_ms)
echo "FIG kcore_cost without_ms=$((t1 - t0)) with_ms=$((t2 - t1)) kcore_bytes=$(stat -c %s "$OUT/kc_t1/kcore_dir/kcore")"
rm -rf "$OUT/kc_t0" "$OUT/kc_t1"
begin kcore_o
rm -rf "$OUT/kc_o.data" "$OUT/kc_o.data.prec"
ERR=/tmp/kc_o.err
step "prec record --kcore -o" prec record -q --kcore -o "$OUT/kc_o.data" -a -e cpu-clock -F 499 -- sleep 0.3 2>$ERR
RC=$?
step "perf report -v" perf report -v -i "$OUT/kc_o.data" --stdio >/tmp/kc_report 2>&1
got=$(kc_tree "$OUT/kc_o.data")
check kcore_o "prec record --kcore -o FILE: exit $RC, $got, perf reads its kcore: $(grep -c "^Using $OUT/kc_o.data/kcore_dir/kcore for kernel data" /tmp/kc_report)" \
	"$RC" = 0 -a "$got" = "$want" -a ! -e "$OUT/kc_o.data.prec" -a \
	"$(grep -c "^Using $OUT/kc_o.data/kcore_dir/kcore for kernel data" /tmp/kc_report)" = 1
begin kcore_pipe
perf record --kcore -o - -e cpu-clock -- true >/tmp/kc_pipe 2>/tmp/kc_perf.err
pw=$?
prec record --kcore -o - -e cpu-clock -- true >/tmp/kc_pipe 2>/tmp/kc_prec.err
got=$?
ERR=/tmp/kc_prec.err
check kcore_pipe "--kcore -o -: perf exit $pw ($(head -1 /tmp/kc_perf.err)), prec exit $got ($(head -1 /tmp/kc_prec.err))" \
	"$pw" != 0 -a "$got" = 2 -a "$(wc -l </tmp/kc_prec.err)" = 1 -a ! -s /tmp/kc_pipe
lap kcore
}

# 11. prec against perf: record -a -- sleep 1, prec then perf (figures).
c_sleep() {
local tool
for tool in prec perf; do
	begin sleep_$tool
	STOP=
	rec $tool sleep_$tool -a -- sleep 1 || bad sleep_$tool "record exit $RC$(hung)"
	stats "$OUT/sleep_$tool.data"
	fig sleep $tool "$LOST"
done
lap sleep
}

[ "$CHECKS" = all ] && CHECKS=big,def,z,clock,sched,switch,flight,kcore,info,kernel,sleep
round=0
while [ $round -lt "$ROUNDS" ]; do
	for c in $(echo "$CHECKS" | tr , ' '); do
		c_$c
	done
	round=$((round + 1))
done
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
