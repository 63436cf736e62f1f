#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck shell=dash
# The arm64 guest suite (tests/vm/a64_run.sh boots it): prec beside perf on
# qemu's emulated PMU (armv8_pmuv3), in the same boot, perf the judge: the
# same command recorded by both, their attrs (perf evlist -v) and their
# counts (perf report of each) compared. Prints "ok NAME: what", "FAIL
# NAME: what", "FIG ..." lines (prec's and perf's figures side by side),
# "lap" lines and "N passed, N failed". Leaves prec's merged files, what the
# guest's perf reports of them, and /proc/kallsyms in /mnt/export for the
# host's perf to read.
# Usage: a64_suite.sh MODE [CHECKS]: MODE icount (one vCPU counting
# instructions: exact counts) or smp (two vCPUs running free); CHECKS, a
# comma list of the check functions below without c_ (default: all of
# the mode's).
STEP_LIMIT=${STEP_LIMIT:-300}
# shellcheck source=tests/vm/guest_lib.sh
. /guest_lib.sh
MODE=${1:-icount}
CHECKS=${2:-all}
EXPORT=$OUT/export
mkdir -p "$EXPORT"
PMU=
for d in /sys/bus/event_source/devices/armv8_pmuv3*; do
	[ -e "$d" ] && PMU=${d##*/} && break
done
# The workload's size: N instructions, 3/4 in hot(), 1/4 in cold().
N=200000000

echo "suite: arm64 $MODE, $NCPU CPUs, kernel $(uname -r), PMU ${PMU:-none}" \
	"($(ls "/sys/bus/event_source/devices/$PMU/events" 2>/dev/null | tr '\n' ' ')), booted in $(cut -d' ' -f1 /proc/uptime) s"

# within A B PERMILLE: A is B within PERMILLE thousandths of B.
within() {
	local d=$((${1:-0} - ${2:-0}))
	[ $d -lt 0 ] && d=$((-d))
	[ $((d * 1000)) -le $(($3 * ${2:-0})) ]
}
# near A B D: A and B at most D apart.
near() {
	local d=$((${1:-0} - ${2:-0}))
	[ $d -ge "-$3" ] && [ $d -le "$3" ]
}

# report FILE: perf report's samples per symbol of FILE into /tmp/report,
# nothing on stderr or it fails; sets KEPT (samples: of the leader, in a
# group's rows), KS (of them with a kernel ip), HOT, COLD (in those
# functions), SPLIT (hot's share of the two, in hundredths of a percent).
report() {
	step "perf report" perf report -i "$1" --stdio --no-children -n --sort sym -q -g none \
		>/tmp/report 2>/tmp/report.err
	# shellcheck disable=SC2046 # four numbers
	set -- $(awk '$1 ~ /%$/ {
		# a row: a share per member, a count per member, [k] or [.], the name
		for (i = 1; i <= NF && $i ~ /%$/; i++) ;
		if ($i !~ /^[0-9]+$/) next
		n += $i
		if ($(NF - 1) == "[k]") k += $i
		if ($NF == "hot") h += $i
		if ($NF == "cold") c += $i
	} END { print n + 0, k + 0, h + 0, c + 0 }' /tmp/report)
	KEPT=$1 KS=$2 HOT=$3 COLD=$4 SPLIT=0
	[ $((HOT + COLD)) -gt 0 ] && SPLIT=$((HOT * 10000 / (HOT + COLD)))
	[ ! -s /tmp/report.err ]
}
# kernel_share_bound K1 N1 K2 N2: in whole points, three standard errors of
# the difference between two shares drawn from the pooled share p =
# (K1+K2)/(N1+N2), N1 and N2 samples; 3 at least. Integer shell arithmetic
# (busybox's awk has no sqrt): the least b with b^2 >= 9 * 100^2 * p(1-p)
# * (1/N1 + 1/N2), that is b^2 * N * N1 * N2 >= 90000 * K * (N - K).
kernel_share_bound() {
	local k=$(($1 + $3)) n=$(($2 + $4)) b=3
	if [ "$2" -gt 0 ] && [ "$4" -gt 0 ]; then
		while [ $((b * b * n * $2 * $4)) -lt $((90000 * k * (n - k))) ]; do
			b=$((b + 1))
		done
	fi
	echo "$b"
}
pct() { printf '%d.%02d%%' $(($1 / 100)) $(($1 % 100)); }
# split_ok SPLIT D: hot's share 75% within D hundredths.
split_ok() { near "$1" 7500 "$2"; }

# attrs FILE: the fields of FILE's sampling events' attrs that say what is
# counted and how it is sampled (perf evlist -v), one event a line, the
# tracking dummy aside; bits prec sets for its own merge (IDENTIFIER, CPU,
# TIME's clock, wakeups) are left out.
attrs() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v '^dummy' | sed \
		-e 's/{ sample_period, sample_freq }/period/' \
		-e 's/{ wakeup_events, wakeup_watermark }/wakeup/' | awk '
	{
		sub(/^[^:]*: /, "")
		n = split($0, kv, ", ")
		out = ""
		for (i = 1; i <= n; i++) {
			split(kv[i], p, ": ")
			k = p[1]; v = p[2]
			if (k == "sample_type") {
				m = split(v, bits, "|"); v = ""
				for (j = 1; j <= m; j++)
					if (bits[j] ~ /^(CALLCHAIN|REGS_USER|STACK_USER|READ|PERIOD|BRANCH_STACK|RAW|WEIGHT|WEIGHT_STRUCT|ADDR|DATA_SRC|PHYS_ADDR)$/)
						v = v (v == "" ? "" : "|") bits[j]
			} else if (k == "read_format") {
				v = (v ~ /GROUP/) ? "GROUP" : ""
			} else if (k !~ /^(type|config[12]?|period|freq|exclude_(user|kernel|hv|idle|callchain_user|callchain_kernel)|precise_ip|sample_regs_user|sample_stack_user|sample_max_stack|inherit|exclude_guest)$/)
				continue
			if (v != "") out = out " " k "=" v
		}
		print substr(out, 2)
	}'
}

# same_attrs NAME PREC-FILE PERF-FILE: check NAME, prec's attrs are perf's.
same_attrs() {
	attrs "$2" >/tmp/attrs.prec
	attrs "$3" >/tmp/attrs.perf
	if cmp -s /tmp/attrs.prec /tmp/attrs.perf; then
		ok "$1" "attr as perf's: $(tr '\n' ';' </tmp/attrs.perf)"
	else
		ERR=/dev/null bad "$1" "attr differs from perf's: prec $(tr '\n' ';' </tmp/attrs.prec) perf $(tr '\n' ';' </tmp/attrs.perf)"
	fi
}

# pair NAME OPTIONS... -- COMMAND: records COMMAND with prec (merged into
# $OUT/NAME_prec.data) and with perf ($OUT/NAME_perf.data); prec's merge
# read by perf script and perf report with nothing on stderr, or the check
# NAME_rec fails. Sets report's figures of prec's file as P_KEPT, P_KS,
# P_HOT, P_COLD, P_SPLIT and of perf's as F_..., and P_LOST (prec's count
# of lost samples).
pair() {
	local name=$1
	shift
	begin "$name"
	rec prec "${name}_prec" "$@" || { bad "${name}_rec" "prec record exit $RC$(hung)"; return 1; }
	P_LOST=$(sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$ERR")
	P_ERR=$ERR
	if ! script_clean "$OUT/${name}_prec.data" || ! report "$OUT/${name}_prec.data"; then
		cat /tmp/script.err /tmp/report.err >/tmp/pair.err 2>/dev/null
		ERR=/tmp/pair.err bad "${name}_rec" "perf script/report of prec's merge: stderr not empty$(hung)"
		return 1
	fi
	P_KEPT=$KEPT P_KS=$KS P_HOT=$HOT P_COLD=$COLD P_SPLIT=$SPLIT
	rec perf "${name}_perf" "$@" || { bad "${name}_rec" "perf record exit $RC$(hung)"; return 1; }
	report "$OUT/${name}_perf.data"
	F_KEPT=$KEPT F_KS=$KS F_HOT=$HOT F_COLD=$COLD F_SPLIT=$SPLIT
	# a failed comparison shows prec's stderr
	ERR=$P_ERR
	return 0
}

# export_file NAME FILE [PERF-FILE]: FILE for the host's perf, with the
# guest's perf report and script of it (the host's must print the same;
# callchains aside: the host's perf cannot unwind arm64 stacks), and
# perf's own recording of the same (NAME.perf.data: what the host's perf
# says of it is what it may say of prec's).
export_file() {
	cp "$2" "$EXPORT/$1.data"
	perf report -i "$2" --stdio --no-children -g none -n --sort comm,dso,sym -q \
		>"$EXPORT/$1.report" 2>/dev/null
	perf script -i "$2" -G -F comm,tid,time,ip,sym,dso >"$EXPORT/$1.script" 2>/dev/null
	[ -n "${3:-}" ] && cp "$3" "$EXPORT/$1.perf.data"
	return 0
}

# 1. -e cycles -c 100000 of N instructions: about N / 100000 samples, prec's
# count perf's within 1%, hot():cold() 3:1 by both, prec's split perf's
# within 0.5 points; -z as well (lz4 chunks merged back).
c_cycles() {
	local want=$((N / 100000))
	pair cycles -e cycles -c 100000 -- pmusplit "$N" || return
	export_file cycles "$OUT/cycles_prec.data" "$OUT/cycles_perf.data"
	echo "FIG cycles samples prec=$P_KEPT perf=$F_KEPT want~$want lost prec=$P_LOST"
	echo "FIG cycles hot/cold prec=$P_HOT/$P_COLD ($(pct "$P_SPLIT")) perf=$F_HOT/$F_COLD ($(pct "$F_SPLIT"))"
	[ "$P_LOST" = 0 ] && [ "$P_KEPT" -gt 0 ] && within "$P_KEPT" "$F_KEPT" 10
	verdict cycles_count "-e cycles -c 100000: prec $P_KEPT samples, perf $F_KEPT (within 1%), lost $P_LOST"
	[ "$P_HOT" -gt 0 ] && within $((P_HOT + P_COLD)) "$want" 10
	verdict cycles_known "-e cycles -c 100000: prec's hot+cold $((P_HOT + P_COLD)) samples of $N instructions (want $want within 1%)"
	split_ok "$P_SPLIT" 100 && split_ok "$F_SPLIT" 100 && near "$P_SPLIT" "$F_SPLIT" 50
	verdict cycles_split "hot:cold prec $(pct "$P_SPLIT"), perf $(pct "$F_SPLIT") (75% within 1 point, prec perf's within 0.5)"
	same_attrs cycles_attr "$OUT/cycles_prec.data" "$OUT/cycles_perf.data"
	begin cycles_z
	if rec prec cycles_z -z -e cycles -c 100000 -- pmusplit "$N" && script_clean "$OUT/cycles_z.data" &&
		report "$OUT/cycles_z.data"; then
		echo "FIG cycles -z samples prec=$KEPT hot/cold=$HOT/$COLD ($(pct "$SPLIT"))"
		[ "$KEPT" -gt 0 ] && within "$KEPT" "$F_KEPT" 10 && near "$SPLIT" "$F_SPLIT" 50
		verdict cycles_z "-z: $KEPT samples (perf's $F_KEPT within 1%), split $(pct "$SPLIT") (perf's $(pct "$F_SPLIT") within 0.5)"
	else
		bad cycles_z "record exit $RC or perf's stderr: $(cat /tmp/script.err /tmp/report.err)$(hung)"
	fi
	lap cycles
}

# group FILE: perf report --group's rows for hot and cold into /tmp/group
# ("pct pct samples samples sym"); sets G_HEAD (the samples line).
group() {
	step "perf report --group" perf report -i "$1" --group --stdio -n --sort sym >/tmp/group.all 2>/tmp/group.err
	G_HEAD=$(grep -m1 '^# Samples' /tmp/group.all)
	awk '!/^#/ && NF == 6 && ($NF == "hot" || $NF == "cold") { print $1, $2, $3, $4, $6 }' /tmp/group.all >/tmp/group
}

# 2. {cycles,instructions}:S, leader sampling: as many samples per member
# as perf, and perf report --group of prec's merge perf's own (each row's
# samples within 1%, its shares within 0.5 points).
c_group() {
	local p_rows f_rows ok_rows=1 a b
	pair group -e '{cycles,instructions}:S' -c 100000 -- pmusplit "$N" || return
	export_file group "$OUT/group_prec.data" "$OUT/group_perf.data"
	group "$OUT/group_prec.data"
	cp /tmp/group /tmp/group.prec
	p_rows=$(tr '\n' ';' </tmp/group)
	a=$G_HEAD
	group "$OUT/group_perf.data"
	f_rows=$(tr '\n' ';' </tmp/group)
	b=$G_HEAD
	echo "FIG group prec: $a | $p_rows"
	echo "FIG group perf: $b | $f_rows"
	# row by row: the same symbols in the same order, counts within 1%,
	# shares (hundredths) within 50
	paste -d' ' /tmp/group.prec /tmp/group >/tmp/group.both
	[ "$(wc -l </tmp/group.prec)" = 2 ] && [ "$(wc -l </tmp/group)" = 2 ] || ok_rows=0
	while read -r pa pb pc pd ps fa fb fc fd fs; do
		[ "$ps" = "$fs" ] || ok_rows=0
		within "$pc" "$fc" 10 && within "$pd" "$fd" 10 || ok_rows=0
		for a in "$pa:$fa" "$pb:$fb"; do
			a=$(echo "$a" | tr -d '%.')
			near "${a%:*}" "${a#*:}" 50 || ok_rows=0
		done
	done </tmp/group.both
	[ "$P_KEPT" -gt 0 ] && within "$P_KEPT" "$F_KEPT" 10
	verdict group_samples "{cycles,instructions}:S: prec $P_KEPT samples, perf $F_KEPT (within 1%)"
	check group_report "perf report --group: prec's rows are perf's (samples within 1%, shares within 0.5 points)" \
		"$ok_rows" = 1 -a ! -s /tmp/group.err
	same_attrs group_attr "$OUT/group_prec.data" "$OUT/group_perf.data"
	lap group
}

# 3. :u and :k: the attr as perf's; :u samples all user, as many as perf's
# within 1%; :k samples of the kernel, as perf's (the emulated PMU's
# interrupt comes late: perf's :k has user ips too, a share of them that
# is the emulator's, not the recorder's; so prec's share of kernel ips is
# perf's within three standard errors of two such binomial draws, never
# less than 3 points; at -c 2000 each run takes about 160 samples).
c_mods() {
	pair user -e cycles:u -c 100000 -- pmusplit "$((N / 4))" || return
	echo "FIG cycles:u samples prec=$P_KEPT (kernel $P_KS) perf=$F_KEPT (kernel $F_KS)"
	[ "$P_KS" = 0 ] && [ "$P_KEPT" -gt 0 ] && within "$P_KEPT" "$F_KEPT" 10
	verdict user_samples ":u: prec $P_KEPT samples ($P_KS kernel), perf $F_KEPT ($F_KS kernel) (within 1%)"
	same_attrs user_attr "$OUT/user_prec.data" "$OUT/user_perf.data"
	pair kernel -e cycles:k -c 2000 -- pmusplit "$((N / 4))" || return
	export_file kernel "$OUT/kernel_prec.data" "$OUT/kernel_perf.data"
	echo "FIG cycles:k samples prec=$P_KEPT (kernel $P_KS) perf=$F_KEPT (kernel $F_KS)"
	local bound
	bound=$(kernel_share_bound "$P_KS" "$P_KEPT" "$F_KS" "$F_KEPT")
	[ "$P_KS" -gt 0 ] && [ "$F_KEPT" -gt 0 ] && near $((P_KS * 100 / P_KEPT)) $((F_KS * 100 / F_KEPT)) "$bound"
	verdict kernel_samples ":k: prec $P_KS kernel ips of $P_KEPT, perf $F_KS of $F_KEPT (shares within $bound points: 3 standard errors)"
	same_attrs kernel_attr "$OUT/kernel_prec.data" "$OUT/kernel_perf.data"
	lap mods
}

# 4. The PMU by name: raw event=0x11 (CPU_CYCLES); its sysfs aliases,
# PMU/cpu_cycles/ leading a :u group whose member is the bare alias
# inst_retired, and the alias with terms, cpu_cycles/period=N/u: the attr
# as perf's, the counts as perf's within 1%.
c_pmu() {
	local ev i=0
	for ev in "$PMU/event=0x11/" "{$PMU/cpu_cycles/,inst_retired}:Su" "cpu_cycles/period=100000/u"; do
		i=$((i + 1))
		pair pmu$i -e "$ev" -c 100000 -- pmusplit "$((N / 4))" || continue
		echo "FIG $ev samples prec=$P_KEPT perf=$F_KEPT"
		[ "$P_KEPT" -gt 0 ] && within "$P_KEPT" "$F_KEPT" 10
		verdict pmu${i}_samples "-e $ev: prec $P_KEPT samples, perf $F_KEPT (within 1%)"
		same_attrs pmu${i}_attr "$OUT/pmu${i}_prec.data" "$OUT/pmu${i}_perf.data"
	done
	lap pmu
}

# chains FILE: of FILE's samples in hot() or cold(), how many unwound
# through work() and main() (CHAINED) of how many (LEAF).
chains() {
	step "perf script (callchains)" perf script -i "$1" -F ip,sym >/tmp/chains 2>/tmp/chains.err
	# shellcheck disable=SC2046 # two numbers
	set -- $(awk 'BEGIN { RS = "" } {
		if ($3 != "hot" && $3 != "cold" && $2 != "hot" && $2 != "cold") next
		leaf++
		if ($0 ~ / work(\+0x[0-9a-f]+)?\n/ && $0 ~ / main(\+0x[0-9a-f]+)?\n/) chained++
	} END { print leaf + 0, chained + 0 }' /tmp/chains)
	LEAF=$1 CHAINED=$2
}

# 5. -g and --call-graph dwarf: the samples in hot() and cold() unwound
# through work() and main(), by perf reading prec's file as many (within 2
# points) as perf's own; the attr as perf's.
c_callgraph() {
	local mode pl pc
	for mode in fp dwarf; do
		if [ $mode = fp ]; then
			pair cg_$mode -e cycles -c 100000 -g -- pmusplit "$((N / 4))" || continue
		else
			pair cg_$mode -e cycles -c 500000 --call-graph dwarf -- pmusplit "$((N / 4))" || continue
			export_file cg_dwarf "$OUT/cg_dwarf_prec.data" "$OUT/cg_dwarf_perf.data"
		fi
		chains "$OUT/cg_${mode}_prec.data"
		pl=$LEAF pc=$CHAINED
		chains "$OUT/cg_${mode}_perf.data"
		echo "FIG callgraph $mode unwound prec=$pc/$pl perf=$CHAINED/$LEAF"
		[ "$pl" -gt 0 ] && [ "$LEAF" -gt 0 ] && [ $((pc * 100 / pl)) -ge 90 ] &&
			near $((pc * 100 / pl)) $((CHAINED * 100 / LEAF)) 2 && [ ! -s /tmp/chains.err ]
		verdict cg_$mode "$mode: prec $pc of $pl samples in hot/cold unwound through work and main, perf $CHAINED of $LEAF"
		same_attrs cg_${mode}_attr "$OUT/cg_${mode}_prec.data" "$OUT/cg_${mode}_perf.data"
	done
	lap callgraph
}

# 6a. What a sample carries, asked as perf users ask: -W (perf 6.1 asks
# arm64 for WEIGHT, x86 alone for WEIGHT_STRUCT), --data (perf's -d:
# ADDR, DATA_SRC), --phys-data: the attr as perf's, perf reads it clean.
c_sample() {
	pair sample -W --data --phys-data -e cycles -c 100000 -- pmusplit "$((N / 4))" || return
	echo "FIG -W --data --phys-data samples prec=$P_KEPT perf=$F_KEPT"
	same_attrs sample_attr "$OUT/sample_prec.data" "$OUT/sample_perf.data"
	lap sample
}

# 6b. What the emulated PMU cannot do, refused by both tools (prec exit 1,
# perf's 255), prec naming why in one line: an event it lacks (ref-cycles:
# arm64 maps none), a mode (:I, arm64's PMU excludes no idle time), a
# branch stack (-b, --call-graph lbr: qemu's PMU has none); and what 6.1
# refuses of any PMU: :S alone, on a counter the children inherit.
c_refuse() {
	local name args want prc frc
	while IFS='|' read -r name args want; do
		begin "refuse_$name"
		# shellcheck disable=SC2086 # the options, a word each
		step "prec record" prec record -q -o /tmp/refuse.data $args -- true 2>/tmp/refuse.err
		prc=$?
		# shellcheck disable=SC2086
		step "perf record" perf record -q -o /tmp/refuse.perf $args -- true 2>/dev/null
		frc=$?
		ERR=/tmp/refuse.err
		grep -qF "prec: error: $want (perf_event_open: " /tmp/refuse.err && [ "$(wc -l </tmp/refuse.err)" = 1 ]
		check "refuse_$name" "$args: prec exit $prc, perf exit $frc, prec says why: $want" \
			"$prc" = 1 -a "$frc" = 255 -a $? = 0
	done <<-EOF
	event|-e ref-cycles|event 'ref-cycles': not supported by this machine's PMU
	idle|-e cycles:I|event 'cycles:I': this machine's PMU cannot leave idle time out (:I)
	branch|-e cycles -c 100000 -b|event 'cycles': its PMU does not sample branch stacks (-b, -j, --call-graph lbr, branch_type=)
	lbr|-e cycles -c 100000 --call-graph lbr|event 'cycles': its PMU does not sample branch stacks (-b, -j, --call-graph lbr, branch_type=)
	read|-e cycles:S -c 100000|event 'cycles:S': this kernel cannot sample the counts (:S, PERF_SAMPLE_READ) of a counter that child tasks inherit: -i, or a group whose leader samples ({a,b}:S)
	EOF
	rm -f /tmp/refuse.data /tmp/refuse.perf
	lap refuse
}

# 6. The default event: perf's (cycles, precise as the PMU takes, 4000 Hz).
c_default() {
	pair default -- pmusplit "$((N / 4))" || return
	echo "FIG default samples prec=$P_KEPT perf=$F_KEPT"
	same_attrs default_attr "$OUT/default_prec.data" "$OUT/default_perf.data"
	lap default
}

# 7. --overwrite: a snapshot on SIGUSR2 between two halves of the workload, then
# the stop's: two chunks in the flight shard (prec info --check, clean),
# hot():cold() 3:1 in what they kept (within 2 points), perf reads the
# merge with nothing on stderr but the lost chunks it may note.
c_flight() {
	local snaps other
	begin flight
	# the snapshot between two halves of the workload, not at a time:
	# under icount a half takes about as long as a short sleep, and a
	# signal after the whole workload leaves the stop nothing new
	cat >/tmp/snap.sh <<-EOS
	pmusplit $((N / 4))
	kill -USR2 \$PPID
	sleep 0.05
	pmusplit $((N / 4))
	EOS
	if rec prec flight --overwrite -m 64K -e cycles -c 100000 -- sh /tmp/snap.sh; then
		script_clean "$OUT/flight.data"
		report "$OUT/flight.data"
		# (the pauses' drops: LOST records, and LOST_SAMPLES as perf
		# record --overwrite writes them)
		other=$(cat /tmp/script.err /tmp/report.err | grep -c -v -e '^Warning:$' -e 'and lost [0-9]* chunks!$' \
			-e '^Check IO/CPU overload!$' -e '^Processed [0-9]* samples and lost [0-9. ]*%!$' -e '^$')
		# a chunk per snapshot in the flight shard: SIGUSR2's and the stop's
		snaps=$(step "prec info --check" prec info --check "$OUT/flight" 2>&1 |
			awk '$1 == "cpu000.flight.shard" { print $3 }')
		export_file flight "$OUT/flight.data"
		echo "FIG flight hot/cold=$HOT/$COLD ($(pct "$SPLIT")) ${snaps:-no} snapshots"
		[ "$HOT" -gt 0 ] && [ "$COLD" -gt 0 ] && split_ok "$SPLIT" 200 && [ "$other" = 0 ] && [ "${snaps:-0}" -ge 2 ]
		verdict flight "--overwrite -m 64K with a SIGUSR2: ${snaps:-no} snapshots (2 wanted), kept hot/cold $HOT/$COLD ($(pct "$SPLIT")), perf: $other other lines on stderr"
	else
		bad flight "record exit $RC$(hung)"
	fi
	lap flight
}

# 8. --max-disk: a recording several times the budget (samples of 2 KiB
# of user stack each; the least budget on 2 CPUs is 3 MiB) keeps its
# newest window: the directory within the budget (+1 MiB, docs/format.md),
# the merge from the window, the workload's functions named there (its
# maps from the carry shard) at 75% within 10 points (a window of a few
# rounds, in the smp boot's host-timed cycles), perf reads it clean.
# Seconds long, so that the workload's maps are synthesized again (at most
# once a second) before the window: the smp boot's free-running clock.
# The kernel's perf core (6.1) has once warned at the workload's exec that
# the CPU's task context was not the task's (ctx_sched_out, from
# perf_event_exec: enable_on_exec), and the events then counted nothing:
# a recording that fails where the kernel warned so is made once more,
# said on a note line, the warning named (kwarn).
maxdisk_once() {
	rec prec maxdisk -m 64K --max-disk 4M -e cycles -c 200000 --call-graph dwarf,2048 -- \
		pmusplit "$((N * 20))" && script_clean "$OUT/maxdisk.data" && report "$OUT/maxdisk.data"
}
c_maxdisk() {
	local kb win rc
	begin maxdisk
	maxdisk_once
	rc=$?
	if [ $rc != 0 ] && kwarn | grep -q ' at kernel/events/'; then
		echo "note maxdisk: recording failed (exit $RC) where the kernel warned: $(kwarn | tr '\n' ';' | sed 's/;$//'); once more"
		begin maxdisk
		maxdisk_once
		rc=$?
	fi
	if [ $rc = 0 ]; then
		kb=$(du -sk "$OUT/maxdisk" | cut -f1)
		win=$(grep -c 'max-disk window' "$OUT/maxdisk.merge.err")
		export_file maxdisk "$OUT/maxdisk.data"
		echo "FIG maxdisk kept=$KEPT dir_kb=$kb hot/cold=$HOT/$COLD ($(pct "$SPLIT"))"
		[ "$kb" -le $((5 * 1024)) ] && [ "$win" = 1 ] && split_ok "$SPLIT" 1000
		verdict maxdisk "--max-disk 4M: directory $kb KiB, $(sed -n 's/.* \([0-9.]* MB\) written.*/\1/p' "$ERR") written, merge: $win window line, kept $KEPT, hot/cold $HOT/$COLD ($(pct "$SPLIT"))"
	else
		bad maxdisk "record exit $RC or perf's stderr: $(cat /tmp/script.err /tmp/report.err)$(hung)"
	fi
	lap maxdisk
}

# 9. The unit tests, built for arm64, in this kernel: one lane of them
# per CPU at once (a lane's tests one after another); a failed test's log
# goes to the export. FIG lines name the slowest.
c_unit() {
	local t lane p f s names
	begin unit
	mkdir -p "$OUT/unit"
	export PREC_BUILD=/opt/prec PREC=/usr/bin/prec TMPDIR=$OUT/unit
	rm -f /tmp/unit.res
	lane=0
	while [ $lane -lt "$NCPU" ]; do
		(
			i=0
			for t in /opt/prec/tests/unit/*; do
				i=$((i + 1))
				[ $((i % NCPU)) = $lane ] || continue
				t0=$(now_ms)
				step "unit ${t##*/}" "$t" >"$OUT/unit/${t##*/}.log" 2>&1
				echo "${t##*/} $? $(($(now_ms) - t0))" >>/tmp/unit.res
			done
		) &
		lane=$((lane + 1))
	done
	wait
	p=$(awk '$2 == 0 { n++ } END { print n + 0 }' /tmp/unit.res)
	s=$(awk '$2 == 77 { n++ } END { print n + 0 }' /tmp/unit.res)
	f=$(awk '$2 != 0 && $2 != 77 { n++ } END { print n + 0 }' /tmp/unit.res)
	names=$(awk '$2 != 0 && $2 != 77 { printf " %s(%s)", $1, $2 }' /tmp/unit.res)
	# shellcheck disable=SC2013 # names, a word each
	for t in $(awk '$2 != 0 && $2 != 77 { print $1 }' /tmp/unit.res); do
		cp "$OUT/unit/$t.log" "$EXPORT/unit-$t.log"
		tail -5 "$OUT/unit/$t.log" | sed "s/^/     | $t: /"
	done
	for t in $(awk '$2 == 77 { print $1 }' /tmp/unit.res); do
		echo "     | $t skipped: $(tail -1 "$OUT/unit/$t.log")"
	done
	echo "FIG unit slowest (ms): $(sort -k3 -n -r /tmp/unit.res | head -5 | awk '{ printf "%s %s ", $1, $3 }')"
	ERR=/dev/null
	check unit "unit tests (arm64): $p passed, $s skipped, $f failed$names" "$f" = 0 -a "$p" -gt 0
	lap unit
}

# 10. Two vCPUs: -a with a workload pinned on each: samples of both
# workloads from both CPUs, nothing lost, hot() the larger share in each
# tool's (75% within 10 points). Free-running vCPUs count cycles in the host's time, so
# the host's load moves the counts and the split (a vCPU the host
# preempts goes on counting): prec's and perf's counts are figures here,
# the icount boot compares them.
c_all() {
	cat >/tmp/two.sh <<-EOS
	taskset -c 0 pmusplit "$N" &
	taskset -c 1 pmusplit "$N" &
	wait
	EOS
	pair all -a -e cycles -c 250000 -- sh /tmp/two.sh || return
	# shellcheck disable=SC2046 # the CPUs, a word each
	set -- $(perf script -i "$OUT/all_prec.data" -F comm,cpu 2>/dev/null | awk '$1 == "pmusplit" { print $2 }' | sort -u)
	export_file all "$OUT/all_prec.data" "$OUT/all_perf.data"
	echo "FIG -a samples prec=$P_KEPT perf=$F_KEPT hot/cold prec=$P_HOT/$P_COLD ($(pct "$P_SPLIT")) perf=$F_HOT/$F_COLD ($(pct "$F_SPLIT"))"
	[ "$#" = 2 ] && [ "$P_LOST" = 0 ] && split_ok "$P_SPLIT" 1000 && split_ok "$F_SPLIT" 1000
	verdict all "-a: the workloads' samples on CPUs $*, split prec $(pct "$P_SPLIT") perf $(pct "$F_SPLIT"), lost $P_LOST"
	same_attrs all_attr "$OUT/all_prec.data" "$OUT/all_perf.data"
	lap all
}

# The kernel lowers the sample rate it allows when an interrupt takes
# long, and the emulator's do (slow for the host's load under smp, long in
# instructions under icount): that would cut one recording's samples and
# not the other's.
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
if [ "$CHECKS" = all ]; then
	CHECKS=cycles,group,mods,pmu,callgraph,sample,refuse,default,flight
	[ "$MODE" = smp ] && CHECKS=all,maxdisk,unit
fi
for c in $(echo "$CHECKS" | tr , ' '); do
	"c_$c"
done
cat /proc/kallsyms >"$EXPORT/kallsyms"
# init powers off without unmounting what a process still holds: the
# host reads the export off the disk
sync
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
