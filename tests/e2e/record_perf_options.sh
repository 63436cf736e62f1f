#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's command lines run with prec: perf is the judge.
# - Each option for what a sample carries changes the event's attr as it
#   changes perf's: the fields an option changes (perf evlist -v of a
#   recording with it against one without, prec's and perf's each against
#   its own) hold the same values in prec's merged file as in perf's.
# - -o FILE: FILE is a perf.data (FILE.old as perf, a device or FIFO
#   written into and kept, FILE.prec gone unless
#   --keep-shards, --timestamp-filename), without -d or -o perf.data in the
#   working directory; -o - streams pipe format with the command's stdout
#   kept out of it; perf's writer options are taken with one note.
# - perf's negations: of every long option perf lists, --no-NAME (and
#   --NAME, --no-no-NAME of one named no-NAME) is taken by prec where perf
#   takes it, refused in one line naming it where perf refuses it or
#   crashes; an option and its negation leave the attr as perf's do, -c 0
#   too (in the attr check above).
# - the command's COMM before its exec is perf's perf-exec.
# - -m PAGES not a power of two: rounded up, said in perf's words; -I? and
#   --user-regs=?: perf's list line, byte for byte, on stderr, exit 129.
# - perf's own shell tests pipe_test.sh and buildid.sh (the build-id cache
#   prec record fills) pass with `perf record` played by prec
#   (tests/lib/perf-as-prec); record+zstd_comp_decomp.sh's steps pass, its
#   call graphs compared as folded chains (below).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir perfopts
cd "$tmp" || fail "cd $tmp"

# attr_fields FILE: the cpu-clock attr of perf evlist -v, one field a line,
# flag lists (sample_type, read_format, branch_sample_type) one flag a line.
attr_fields() {
	perf evlist -v -i "$1" 2>/dev/null | awk -F': ' '$1 == "cpu-clock" { print; exit }' |
		sed 's/^cpu-clock: //' | awk 'BEGIN { RS = ", "; FS = ": " } NF >= 2 {
			k = $1; v = $2; gsub(/\n/, "", v)
			if (k == "sample_type" || k == "read_format" || k == "branch_sample_type") {
				n = split(v, f, "|"); for (i = 1; i <= n; i++) print k ":" f[i]
			} else print k "=" v
		}' | sort
}

# with TOOL OUT OPTS...: record `true` under cpu-clock with OPTS into OUT.
with() {
	local tool=$1 out=$2
	shift 2
	if [ "$tool" = perf ]; then
		# -B: perf beside a recording prec leaves its build-id pass alone;
		# --no-bpf-event: perf's BPF side-band thread holds its exit 1 s
		perf record -q -B --no-bpf-event -o "$out" -e cpu-clock "$@" -- true >/dev/null 2>&1
	else
		"$PREC" record -q -o "$out" -e cpu-clock "$@" -- true >/dev/null 2>&1
	fi || fail "$tool record $* exited $?"
}

with perf base.perf
with prec base.prec
attr_fields base.perf >base.perf.f
attr_fields base.prec >base.prec.f
[ -s base.prec.f ] || fail "no cpu-clock attr in prec's file"
checked=0
for opts in "-R" "-W" "-I" "--user-regs=ip,sp" "--phys-data" "--data-page-size" \
	"--code-page-size" "-n" "-s" "--running-time" "--no-buffering" \
	"-g --kernel-callchains" "-g --user-callchains" "-T --sample-cpu --sample-identifier" \
	"-R --no-raw-samples" "-W --no-weight" "-s --no-stat" "--running-time --no-running-time" \
	"-n --samples" "-n --no-no-samples" "--no-buffering --buffering" "-g --no-call-graph" \
	"--no-call-graph" "--data --no-data" "--phys-data --no-phys-data" \
	"--data-page-size --no-data-page-size" "-c 1000 --no-count" "-c 0" "-c 1000 -P --no-period" \
	"-i --inherit" "-i --no-no-inherit" "--switch-events --no-switch-events" \
	"--namespaces --no-namespaces" "--all-user --no-all-user" "--all-kernel --no-all-kernel" \
	"--all-cgroups --no-all-cgroups" "-k mono --no-clockid" \
	"--buildid-mmap --no-buildid-mmap" "--no-sample-cpu --no-sample-identifier --no-timestamp-boundary" \
	"--call-graph dwarf -g" "--call-graph dwarf,1024 --call-graph fp" "--no-call-graph -g" \
	"--call-graph dwarf,4096 --no-call-graph" "--call-graph dwarf --no-data" "-k 0x4" "-k 1x" \
	"-g --kernel-callchains --user-callchains" "--call-graph dwarf --user-regs=ip" \
	"--user-regs=ax --call-graph dwarf,1024" "--call-graph dwarf --user-regs"; do
	# shellcheck disable=SC2086 # the options are words
	with perf o.perf $opts
	# shellcheck disable=SC2086
	with prec o.prec $opts
	attr_fields o.perf >o.perf.f
	attr_fields o.prec >o.prec.f
	# the fields the option touched, in either tool: added or removed
	keys=$( { comm -3 base.perf.f o.perf.f; comm -3 base.prec.f o.prec.f; } |
		sed 's/^\t*//' | sed 's/=.*//' | sort -u)
	for k in $keys; do
		# the side-band bits: perf's on its first event, prec's on its
		# tracking dummy (docs/events.md)
		case $k in
		mmap | mmap2 | comm | comm_exec | task | mmap_data | ksymbol | bpf_event | build_id | \
			context_switch | cgroup | namespaces | text_poke) continue ;;
		esac
		pv=$(grep -x -e "$k" -e "$k=.*" o.perf.f)
		cv=$(grep -x -e "$k" -e "$k=.*" o.prec.f)
		[ "$pv" = "$cv" ] ||
			fail "$opts: perf has '${pv:-no $k}', prec '${cv:-no $k}'"
	done
	checked=$((checked + 1))
done
echo "attrs: $checked option sets change prec's attr as they change perf's"
# the data maps go with the data addresses: --call-graph dwarf's, unless
# a later --no-data (perf's mmap_data on its first event, prec's on its
# tracking dummy)
for opts in "--call-graph dwarf" "--call-graph dwarf --no-data" "--no-data --call-graph dwarf" "--data"; do
	# shellcheck disable=SC2086 # the options are words
	with perf o.perf $opts
	# shellcheck disable=SC2086
	with prec o.prec $opts
	pm=$(perf evlist -v -i o.perf 2>/dev/null | grep -c 'mmap_data: 1')
	cm=$(perf evlist -v -i o.prec 2>/dev/null | grep -c 'mmap_data: 1')
	[ "$pm" = "$cm" ] || fail "$opts: $pm of perf's events have mmap_data, $cm of prec's"
done

# perf's negations: what perf takes, prec takes; what perf refuses (or
# crashes on: 139), prec refuses in one line naming it, exit 2
forms=0
for o in $(perf record --list-opts 2>/dev/null); do
	n=${o#--}
	names="--no-$n"
	case $n in no-*) names="$names --${n#no-} --no-$n" ;; esac
	for f in $names; do
		# perf parses (and crashes on a negation) before its --dry-run
		# exits; the shell that waits says a crash: its stderr dropped too
		prc=$({ perf record --dry-run "$f" -o neg.perf -e cpu-clock -- true >/dev/null 2>&1; echo $?; } 2>/dev/null)
		"$PREC" record --dry-run "$f" -o neg.prec -e cpu-clock -- true >/dev/null 2>neg.err
		crc=$?
		if [ "$prc" = 0 ]; then
			[ $crc = 0 ] || fail "$f: perf takes it, prec exits $crc: $(cat neg.err)"
		else
			[ $crc = 2 ] && [ "$(wc -l <neg.err)" = 1 ] && grep -q -- "$f" neg.err ||
				fail "$f: perf refuses it (exit $prc), prec exits $crc: $(cat neg.err)"
		fi
		forms=$((forms + 1))
	done
done
[ $forms -gt 80 ] || fail "perf record --list-opts gave $forms negations to try"
echo "negations: $forms, prec takes those perf takes"
# taken, said: what perf drops, prec's merge keeps
"$PREC" record --no-timestamp --no-period -o nt.data -e cpu-clock -- true 2>nt.err || fail_rc nt.err "--no-timestamp --no-period"
grep -q 'note: --no-timestamp:' nt.err && grep -q 'note: --no-period:' nt.err || fail "--no-timestamp --no-period: no note: $(cat nt.err)"

# --synth: the lists perf takes, prec takes; those it refuses ('' too),
# prec refuses in one line
for v in '' no none NO all task TASK mmap cgroup task,no no,bogus cgroup,task \
	bogus 'task,' ,task task,,mmap bogus,all; do
	perf record --dry-run --synth "$v" -o syn.perf -e cpu-clock -- true >/dev/null 2>&1
	prc=$?
	"$PREC" record --dry-run --synth "$v" -o syn.prec -e cpu-clock -- true >/dev/null 2>syn.err
	crc=$?
	if [ $prc = 0 ]; then
		[ $crc = 0 ] || fail "--synth '$v': perf takes it, prec exits $crc: $(cat syn.err)"
	else
		[ $crc = 2 ] && [ "$(wc -l <syn.err)" = 1 ] ||
			fail "--synth '$v': perf refuses it (exit $prc), prec exits $crc: $(cat syn.err)"
	fi
done
# sizes as perf's parse_tag_value reads them (B, K, M or G in capitals,
# found anywhere, right after the number at the start; what follows it
# ignored) for --max-size, --switch-output (and its s, m, h, d) and -m
# (else a whole number of pages): what perf takes, prec takes
for l in '-m 1MB' '-m 1Mx' '-m 4k' '-m 4KiB' '-m 1m' '-m  1M' '-m +1M' '-m 5M5' '-m 4096B' \
	'-m 8,4k' '-m ,1MB' '-m -1M' '-m 4294967296' '-m 2147483649' '-m 9223372036854775808' \
	'-m 1,4294967296' '-m 1,-2' '--max-size 1MB' '--max-size 1Mx' '--max-size 4k' \
	'--max-size 4KiB' '--max-size  1M' '--max-size +1M' '--max-size 5M5' '--max-size 0B' \
	'--max-size 100' '--max-size 4M,' '--switch-output=1k' '--switch-output=1MB' \
	'--switch-output=1M5' '--switch-output=+1M' '--switch-output=5sx' '--switch-output=1KiB' \
	'--switch-output=10S' '--switch-output=1m'; do
	o=${l%% *} v=${l#* }
	[ "$o" = "$l" ] && o=$l v=
	args=("$o")
	case $o in --switch-output=*) ;; *) args+=("$v") ;; esac
	perf record --dry-run "${args[@]}" -o sz.perf -e cpu-clock -- true >/dev/null 2>&1
	prc=$?
	"$PREC" record --dry-run "${args[@]}" -o sz.prec -e cpu-clock -- true >/dev/null 2>sz.err
	crc=$?
	if [ $prc = 0 ]; then
		[ $crc = 0 ] || fail "${args[*]}: perf takes it, prec exits $crc: $(cat sz.err)"
	else
		[ $crc = 2 ] && [ "$(wc -l <sz.err)" = 1 ] ||
			fail "${args[*]}: perf refuses it (exit $prc), prec exits $crc: $(cat sz.err)"
	fi
done
# -D as perf reads it: a number -1..INT_MAX but 0, else ranges (blanks
# around their parts, each after the end of the one before); what perf
# refuses, prec refuses in one line
for v in 0 00 +0 5 ' 5' +5 -1 -2 0x10 '5 ' 2147483647 2147483648 0-5 1-2147483647 \
	1-2147483648 '1 - 5 , 6 - 7 ' +1-5 1-+5 1-5,5-7 1-5,6-7 1-5x '1-5,' '' 5- 10-20,15-30 \
	-5-6 4294967291-6 -10--5 -5-6,7-8 ' -5 - 6 ' 99999999999999999999-5 5-4294967301; do
	perf record --dry-run -D "$v" -o d.perf -e cpu-clock -- true >/dev/null 2>&1
	prc=$?
	"$PREC" record --dry-run -D "$v" -o d.prec -e cpu-clock -- true >/dev/null 2>d.err
	crc=$?
	if [ $prc = 0 ]; then
		[ $crc = 0 ] || fail "-D '$v': perf takes it, prec exits $crc: $(cat d.err)"
	else
		[ $crc = 2 ] && [ "$(wc -l <d.err)" = 1 ] ||
			fail "-D '$v': perf refuses it (exit $prc), prec exits $crc: $(cat d.err)"
	fi
done
# values perf takes (its defaults for what it does not know, its highest
# zstd level above it, --switch-max-files alone or 0): prec takes them
for o in '--affinity bogus' '--affinity NODE' '--switch-max-files 3' \
	'--switch-max-files 0' '--compression-level=23' -z100; do
	# shellcheck disable=SC2086 # the option and its value are words
	perf record --dry-run $o -o take.perf -e cpu-clock -- true >/dev/null 2>&1 ||
		fail "perf refused $o (the test is wrong)"
	# shellcheck disable=SC2086
	"$PREC" record --dry-run $o -o take.prec -e cpu-clock -- true >/dev/null 2>take.err ||
		fail "$o: perf takes it, prec: $(cat take.err)"
done
# values perf checks before recording (some after its --dry-run): what
# perf takes, prec takes; what it refuses, prec refuses in one line.
# --threads' masks (CPU lists, MAPS/AFFINITY, none empty among the
# recording's CPUs, none twice), --num-thread-synthesize's number,
# --vmlinux's file, -c 0 or --no-count with -F (a period given too)
for o in --threads=0/0 --threads=0/1:1/0 --threads=0 --threads=0:0 --threads=0/0:0/1 \
	--threads=x/x --threads=0/ --threads=0//1 --threads=99999/0 --threads=0,0/0 --threads=cpux \
	'-C 0 --threads=0-1/0-1' '--threads=bogus --no-threads' '--num-thread-synthesize=x' \
	'--num-thread-synthesize=-1' '--num-thread-synthesize=' '--num-thread-synthesize=3 ' \
	'--vmlinux=' --vmlinux=/nonexistent --vmlinux=/etc/passwd '-c 0 -F 100' '-F 100 --no-count' \
	'-c 0' '-c 5 --no-count' --aio=-1 --aio=4294967295 --aio=0x10 --aio=5 --aio=2x; do
	# shellcheck disable=SC2086 # the options are words
	perf record -q -B --no-bpf-event $o -o chk.perf -e cpu-clock -- true >/dev/null 2>&1
	prc=$?
	# shellcheck disable=SC2086
	"$PREC" record -q $o -o chk.prec -e cpu-clock -- true >/dev/null 2>chk.err
	crc=$?
	if [ $prc = 0 ]; then
		[ $crc = 0 ] || fail "$o: perf takes it, prec exits $crc: $(cat chk.err)"
	else
		[ $crc = 2 ] && [ "$(wc -l <chk.err)" = 1 ] ||
			fail "$o: perf refuses it (exit $prc), prec exits $crc: $(cat chk.err)"
	fi
done
# numbers as perf's option types read them: OPT_INTEGER (-r,
# --switch-max-files) and OPT_UINTEGER/OPT_U64 (--proc-map-timeout, -c)
# strtol's with blanks and a sign before them ('' is 0; no '-' for the
# unsigned; an int's 32 bits kept, 4294967297 is 1; past their bits, no errno looked at: strtoull's ULLONG_MAX,
# strtol's LONG_MAX), -k sscanf's %d, -F atoi into an unsigned rate
# (negative: above the maximum; all bits set: perf's "no -F", its
# default), -c's all 64 bits set likewise perf's "no -c"
for o in "-r ' 5'" "-r ''" '-r -1' '-r 5x' "--switch-max-files=' 3'" "--switch-max-files=''" \
	--switch-max-files=3x "--proc-map-timeout=' 5'" --proc-map-timeout=99999999999 \
	--proc-map-timeout=99999999999999999999 '-c 18446744073709551615' \
	'-c 99999999999999999999' '-F 100 -c 18446744073709551615' '-r 4294967297' \
	--switch-max-files=4294967297 '-r 99999999999999999999' \
	'--switch-max-files=1000001 --switch-output=1M' '--switch-max-files=2147483647 --switch-output=1M' \
	'--switch-max-files=2147483648 --switch-output=1M' \
	"--proc-map-timeout=''" --proc-map-timeout=-1 "-c ' 5'" '-c +5' "-c ''" '-c -5' "-k ' 1'" \
	'-k +1' '-k -1' "-F ' 99'" '-F +99' "-F ''" '-F -0'; do
	eval "perf record -q -B --no-bpf-event $o -o num.perf -e cpu-clock -- true" >/dev/null 2>&1
	prc=$?
	eval "\"\$PREC\" record -q $o -o num.prec -e cpu-clock -- true" >/dev/null 2>num.err
	crc=$?
	if [ $prc = 0 ]; then
		[ $crc = 0 ] || fail "$o: perf takes it, prec exits $crc: $(cat num.err)"
	else
		[ $crc = 2 ] && [ "$(wc -l <num.err)" = 1 ] ||
			fail "$o: perf refuses it (exit $prc), prec exits $crc: $(cat num.err)"
	fi
done
for v in -5 99999999999999999999 4294967294; do
	with perf fq.perf -F "$v"
	with prec fq.prec -F "$v"
	pf=$(perf evlist -v -i fq.perf 2>/dev/null | grep -o 'sample_freq }: [0-9]*' | head -1)
	cf=$(perf evlist -v -i fq.prec 2>/dev/null | grep -o 'sample_freq }: [0-9]*' | head -1)
	[ -n "$pf" ] && [ "$pf" = "$cf" ] || fail "-F $v: perf's '$pf', prec's '$cf'"
done
# -c all 64 bits, or past them: perf's default frequency (before, prec
# opened cpu-clock with that period, refused by the kernel, exit 1, or
# refused the option, exit 2)
for v in 18446744073709551615 99999999999999999999; do
	with perf fc.perf -c "$v"
	with prec fc.prec -c "$v"
	pf=$(perf evlist -v -i fc.perf 2>/dev/null | grep -o 'sample_\(freq\|period\) }*: [0-9]*' | head -1)
	cf=$(perf evlist -v -i fc.prec 2>/dev/null | grep -o 'sample_\(freq\|period\) }*: [0-9]*' | head -1)
	[ -n "$pf" ] && [ "$pf" = "$cf" ] || fail "-c $v: perf's '$pf', prec's '$cf'"
done
# perf's abbreviations of its long options, which prec's own options
# beside them (--compress, --max-disk, --keep-shards, --aux-size) made
# ambiguous to prec: taken as perf takes them
for o in --comp=5 --compres=5 '--max-s 1M' '--ma=1M' '--ke -g'; do
	# shellcheck disable=SC2086 # the option and its value are words
	perf record -q -B --no-bpf-event $o -o ab.perf -e cpu-clock -- true >/dev/null 2>&1 ||
		fail "perf refused $o (the test is wrong)"
	# shellcheck disable=SC2086
	"$PREC" record -q $o -o ab.prec -e cpu-clock -- true >/dev/null 2>ab.err ||
		fail "$o: perf takes it, prec: $(cat ab.err)"
done
perf report --header-only -i ab.prec 2>/dev/null | grep -q 'exclude_callchain_user = 1' ||
	fail "--ke -g: not --kernel-callchains: $(perf evlist -v -i ab.prec 2>/dev/null | head -1)"
"$PREC" record -q --comp=5 -o ab.prec -e cpu-clock -- true 2>/dev/null
perf report --header-only -i ab.prec 2>/dev/null | grep -q '^# compressed : Zstd, level = 5,' ||
	fail "--comp=5: not level 5: $(perf report --header-only -i ab.prec 2>/dev/null | grep compressed)"
# -z's level as perf reads it (strtol's number in C's bases, the rest
# ignored, in its unsigned int's 32 bits: none or 0 its default, negative
# or above 22 its highest, 2^32 + 5 is 5, 2^32 its default, -(2^32 - 1)
# is 1): the merged file's level is perf's
for v in -3 x 5x 0x5 '' 0 010 99 ' 7' 4294967301 4294967296 -4294967295 99999999999999999999; do
	perf record -q --compression-level="$v" -o zl.perf -e cpu-clock -- true 2>/dev/null ||
		fail "perf refused --compression-level='$v' (the test is wrong)"
	"$PREC" record -q --compression-level="$v" -o zl.prec -e cpu-clock -- true 2>zl.err ||
		fail_rc zl.err "--compression-level='$v': perf takes it"
	pl=$(perf report --header-only -i zl.perf 2>/dev/null | grep -o '^# compressed : Zstd, level = [0-9]*')
	cl=$(perf report --header-only -i zl.prec 2>/dev/null | grep -o '^# compressed : Zstd, level = [0-9]*')
	[ -n "$pl" ] && [ "$pl" = "$cl" ] || fail "--compression-level='$v': perf's '$pl', prec's '$cl'"
done
# sizes are whole numbers, perf's and prec's: a fraction refused
for o in --max-size=1.5M '-m 1.5M' --switch-output=1.5M; do
	# shellcheck disable=SC2086 # the option and its value are words
	perf record --dry-run $o -o frac.perf -e cpu-clock -- true >/dev/null 2>&1 &&
		fail "perf took $o (the test is wrong)"
	# shellcheck disable=SC2086
	"$PREC" record --dry-run $o -o frac.prec -e cpu-clock -- true >/dev/null 2>frac.err
	[ $? = 2 ] && [ "$(wc -l <frac.err)" = 1 ] || fail "$o: perf refuses it, prec: $(cat frac.err)"
done
# -m: pages rounded up to a power of two, in perf's words (0 to one page)
for m in 3 5,3 12K 2049K 1000 4 010 010K 8,010 0 00 0K 0B 0,0 ,0 1,0 0,4 128, , '' \
	5M5 6000B ' 3' +3 3,5K -1 18446744073709551616 9223372036854775809 18014398509481983K \
	1,-1 1,2147483648 1,2G 1K2 1G 524288; do
	perf record --dry-run -m "$m" -o m.perf -e cpu-clock -- true >/dev/null 2>m.perf.err || fail_rc m.perf.err "perf record -m '$m'"
	"$PREC" record --dry-run -m "$m" -o m.prec -e cpu-clock -- true >/dev/null 2>m.prec.err || fail_rc m.prec.err "prec record -m '$m'"
	grep '^rounding' m.perf.err >m.perf.said
	sed -n 's/^prec: rounding/rounding/p' m.prec.err >m.prec.said
	cmp -s m.perf.said m.prec.said || fail "-m $m: perf says '$(cat m.perf.said)', prec '$(cat m.prec.said)'"
done
# -m past 2G of data: perf 6.1 takes it, but its ring's mask is an int
# there, its rings map no data page and it records no sample; prec
# refuses it in one line
for m in 2147483648 2147483647 4G 1048576 4194304; do
	perf record --dry-run -m "$m" -o m.perf -e cpu-clock -- true >/dev/null 2>m.perf.err || fail_rc m.perf.err "perf record -m '$m'"
	"$PREC" record --dry-run -m "$m" -o m.prec -e cpu-clock -- true >/dev/null 2>m.prec.err
	[ $? = 2 ] && [ "$(wc -l <m.prec.err)" = 1 ] && grep -q "option -m '$m': ring too large" m.prec.err ||
		fail "-m $m: want one line refusing a ring past 2G, got: $(cat m.prec.err)"
done
# -C and -p lists as perf reads them: the CPUs and pids of the opens
# (-vv) where perf takes the list, refused in one line where it refuses it
# (a CPU twice, a range backwards, an empty pid, a file:// list that
# cannot be read)
opens() { # TOOL FIELD ARGS...: the sorted distinct FIELD (cpu, pid) of TOOL's -vv opens
	local tool=$1 field=$2
	shift 2
	if [ "$tool" = perf ]; then
		perf record -vv -B --no-bpf-event -o l.perf "$@" -e cpu-clock -- sleep 0.01 >l.out 2>&1
	else
		"$PREC" record -vv -f -o l.prec "$@" -e cpu-clock -- sleep 0.01 >l.out 2>&1
	fi
	echo "rc=$?"
	grep -o "sys_perf_event_open: pid [-0-9]*  cpu [-0-9]*" l.out |
		awk -v f="$field" '{ print f == "cpu" ? $5 : $3 }' | sort -un | tr '\n' ' '
}
sleep 30 &
target=$!
lists=()
for c in '0,' '0,1,' '0-1,' 1,0 0- 0-,1 '0- 1' 0x1 01 0,,1 1,,0 0,x 0,0 ,0 1-0 0-1-2; do
	lists+=("-C $c")
done
for p in "$target," "$target,$target" " $target" "+$target" "0$target" "$target,,$target" \
	",$target" "$target,," "$target "; do
	lists+=("-p $p")
done
# perf's lists take file://PATH, an id a line (perf 6.1 fails on a file
# of two lines, its strlist's bug: one here)
echo "$target" >pid.list
lists+=("-p file://$PWD/pid.list" "-t file://$PWD/pid.list" "-p $target,file://$PWD/pid.list"
	"-p file://$PWD/no.list" "-p file://")
for l in "${lists[@]}"; do
	o=${l%% *} v=${l#* } f=cpu
	[ "$o" = -p ] && f=pid
	want=$(opens perf $f "$o" "$v")
	got=$(opens prec $f "$o" "$v")
	case $want in
	rc=0*)
		[ "$got" = "$want" ] || fail "$o '$v': perf: ${want//$'\n'/ }; prec: ${got//$'\n'/ }: $(head -3 l.out)" ;;
	*)
		[ "${got%%$'\n'*}" = rc=2 ] && [ "$(grep -c 'prec: error' l.out)" = 1 ] ||
			fail "$o '$v': perf refuses it, prec: ${got//$'\n'/ }: $(head -3 l.out)" ;;
	esac
done
# targets that exclude each other, as perf's target__validate: -p/-t over
# -C, -a and -u, -u over -C, -a or -C over --per-thread; taken, the one
# overridden dropped (the opens: the pid's on every CPU), the first
# override said in perf's words
for l in "-C 0 -p $target" "-a -p $target" "-C 1 -t $target" "-u root -p $target" \
	"-u 0 -a -t $target" "-C 0 --per-thread"; do
	# shellcheck disable=SC2086 # the options are words
	want=$(opens perf pid $l)
	wsaid=$(grep -o 'switch overriding [A-Z/-]*' l.out)
	# shellcheck disable=SC2086
	got=$(opens prec pid $l)
	gsaid=$(grep -o 'switch overriding [A-Z/-]*' l.out)
	[ "${want%%$'\n'*}" = rc=0 ] || fail "perf record $l: ${want//$'\n'/ } (the test is wrong)"
	[ "$got" = "$want" ] || fail "$l: perf: ${want//$'\n'/ }; prec: ${got//$'\n'/ }: $(head -3 l.out)"
	[ -n "$wsaid" ] && [ "$gsaid" = "$wsaid" ] || fail "$l: perf says '$wsaid', prec '$gsaid'"
done
kill $target
# the register lists: perf's line on stderr, exit 129, nothing on stdout
for r in '--user-regs=?' '-I?' '--intr-regs=ip,?'; do
	perf record "$r" >/dev/null 2>r.perf
	prc=$?
	"$PREC" record "$r" >r.out 2>r.prec
	crc=$?
	[ $prc = 129 ] && [ $crc = 129 ] || fail "$r: perf exits $prc, prec $crc"
	head -n 1 r.perf | cmp -s - r.prec || fail "$r: perf says '$(head -n 1 r.perf)', prec '$(cat r.prec)'"
	[ ! -s r.out ] || fail "$r: prec wrote to stdout: $(cat r.out)"
done

# -o FILE as perf's
echo old >x.data
"$PREC" record -q -o x.data -e cpu-clock -- true 2>x.err || fail_rc x.err "prec record -o x.data"
# -q: nothing on stderr, the merge's summary neither
[ ! -s x.err ] || fail "prec record -q -o x.data said: $(cat x.err)"
"$PREC" record -q -o - -e cpu-clock -- true 2>xs.err >xs.data || fail_rc xs.err "prec record -q -o -"
[ ! -s xs.err ] || fail "prec record -q -o - said: $(cat xs.err)"
[ "$(cat x.data.old)" = old ] || fail "x.data was not moved to x.data.old"
[ ! -e x.data.prec ] || fail "x.data.prec left after the merge"
perf report -i x.data --stdio >/dev/null 2>rep.err || fail_rc rep.err "perf report -i x.data"
[ ! -s rep.err ] || fail "perf report stderr: $(head -3 rep.err)"
# FILE.old a directory: perf's own (data, data.N, kcore_dir of files) is
# replaced; any other, a prec recording for one, is the user's: refused
# before recording, in one line, by prec as by perf, and left whole
for r in perf prec; do
	cmd=perf
	[ $r = prec ] && cmd=$PREC
	mkdir -p "$r" && echo old >"$r/o.data" && mkdir "$r/o.data.old" "$r/o.data.old/kcore_dir" &&
		echo d >"$r/o.data.old/data" && echo d >"$r/o.data.old/data.1" &&
		echo k >"$r/o.data.old/kcore_dir/kcore" || fail "make $r/o.data.old"
	"$cmd" record -q -o "$r/o.data" -e cpu-clock -- true 2>"$r.err" ||
		fail_rc "$r.err" "$r record -o over a perf data directory FILE.old"
	[ "$(cat "$r/o.data.old")" = old ] || fail "$r: o.data.old is not the old o.data: $(ls -l "$r")"
	"$PREC" record -q -d "$r/p.data.old" -e cpu-clock -- true || fail "prec record -d $r/p.data.old"
	echo old >"$r/p.data"
	(cd "$r/p.data.old" && sha256sum ./*) >"$tmp/$r.sum"
	"$cmd" record -q -o "$r/p.data" -e cpu-clock -- true 2>"$r.err" &&
		fail "$r record -o: a recording directory as FILE.old was removed: $(ls -l "$r")"
	(cd "$r/p.data.old" && sha256sum -c --quiet "$tmp/$r.sum") || fail "$r: the recording in p.data.old changed"
	[ "$(cat "$r/p.data")" = old ] || fail "$r: p.data changed though refused"
done
[ "$(grep -c . prec.err)" = 1 ] && grep -q "p.data.old" prec.err || fail "prec's refusal: $(cat prec.err)"
# perf's rule: only a file that is not empty is moved aside; a device or
# FIFO is written into (perf record -o /dev/null), never replaced, and no
# shards are left beside it (in /dev)
: >empty.data
"$PREC" record -q -o empty.data -e cpu-clock -- true || fail "prec record -o empty.data"
[ ! -e empty.data.old ] && [ -s empty.data ] || fail "-o over an empty file: $(ls -l empty.data*)"
mknod -m 666 nulldev c 1 3 || fail "mknod"
"$PREC" record -q -o nulldev -e cpu-clock -- true 2>null.err || fail_rc null.err "prec record -o a null device"
[ -c nulldev ] || fail "-o a null device replaced it: $(ls -l nulldev)"
[ -z "$(ls -d nulldev?* 2>/dev/null)" ] || fail "-o a device left: $(ls -d nulldev?*)"
mkfifo fifo
perf report -i - --stdio <fifo >fifo.rep 2>fifo.err &
"$PREC" record -q -o fifo -e cpu-clock -- true 2>fifo.rec.err || fail_rc fifo.rec.err "prec record -o a FIFO"
wait $! || fail_rc fifo.err "perf report from the FIFO"
[ -p fifo ] || fail "-o a FIFO replaced it"
[ ! -s fifo.err ] && grep -q 'cpu-clock' fifo.rep || fail "perf report from the FIFO: $(cat fifo.err fifo.rep | head -5)"
"$PREC" record -q -o k.data --keep-shards -e cpu-clock -- true || fail "prec record --keep-shards"
[ -f k.data ] && [ -f k.data.prec/manifest ] || fail "--keep-shards: $(ls)"
mkdir ts && (cd ts && "$PREC" record -q -o t.data --timestamp-filename -e cpu-clock -- true) ||
	fail "--timestamp-filename"
ls ts | grep -qx 't\.data\.[0-9]\{16\}' || fail "--timestamp-filename made: $(ls ts)"
mkdir def && (cd def && "$PREC" record -q -e cpu-clock -- true) || fail "prec record without -o"
[ -f def/perf.data ] && [ "$(ls def)" = perf.data ] || fail "without -o or -d: $(ls def)"
"$PREC" record -q -o y.data -d y -- true 2>od.err && fail "-o with -d taken"
[ "$(wc -l <od.err)" = 1 ] || fail "-o with -d: $(cat od.err)"

# -o -: the stream, the command's stdout kept out of it
"$PREC" record -q -e cpu-clock -o - -- sh -c 'x=STREAM; echo NOT-IN-THE-$x; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' \
	2>stream.err >stream.data || fail_rc stream.err "prec record -o -"
grep -q NOT-IN-THE-STREAM stream.err || fail "the command's stdout did not go to stderr"
grep -q NOT-IN-THE-STREAM stream.data && fail "the command's stdout is in the stream"
[ "$(head -c 8 stream.data)" = PERFILE2 ] || fail "-o - did not write perf.data"
perf script -i stream.data -F comm 2>script.err | awk '$1 == "sh"' | grep -q . || fail "perf script of the stream: no sample of sh"
[ ! -s script.err ] || fail "perf script of the stream: $(head -3 script.err)"

# -B: no build-id table, as perf -B (its header lacks BUILD_ID)
"$PREC" record -q -B -o b.data -e cpu-clock -- true || fail "prec record -B"
perf report -i b.data --header-only 2>/dev/null | grep '^# missing features:' | grep -qw BUILD_ID ||
	fail "-B: the merged file has a build-id table"
perf report -i x.data --header-only 2>/dev/null | grep '^# missing features:' | grep -qw BUILD_ID &&
	fail "without -B: the merged file lacks its build-id table"
# -F above the kernel's maximum: lowered and said, as perf; --strict-freq refuses
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$PREC" record -q -F $((max + 1)) --strict-freq -o sf.data -- true 2>sf.err && fail "--strict-freq took -F above the maximum"
[ "$(wc -l <sf.err)" = 1 ] && grep -q -- '--strict-freq' sf.err || fail "--strict-freq: $(cat sf.err)"
"$PREC" record -F $((max + 1)) -o f.data -e cpu-clock -- true 2>f.err || fail_rc f.err "-F above the maximum"
grep -q "sampling at $max Hz" f.err || fail "-F above the maximum: not lowered to $max: $(cat f.err)"
perf evlist -v -i f.data 2>/dev/null | grep -q "sample_freq }: $max," || fail "-F above the maximum: attr $(perf evlist -v -i f.data | head -1)"

# perf's writer options: taken, one note
"$PREC" record -o w.data --aio --mmap-flush 4 --threads -e cpu-clock -- true 2>w.err || fail_rc w.err "perf's writer options"
[ "$(grep -c 'note: --aio, --mmap-flush, --threads' w.err)" = 1 ] || fail "no note: $(cat w.err)"

# the command's COMM records, perf script --show-task-events: named
# perf-exec until its exec (the side band's COMM), as perf's
for r in perf prec; do
	cmd=perf
	[ $r = prec ] && cmd=$PREC
	"$cmd" record -q -o tc.$r.data -e cpu-clock -- true 2>tc.err || fail_rc tc.err "$r record -- true"
	perf script -i tc.$r.data --show-task-events 2>/dev/null |
		sed -n 's/.*PERF_RECORD_COMM\( exec\)*: \([^:]*\):.*/\2\1/p' >tc.$r
done
[ "$(head -n 1 tc.perf)" = perf-exec ] || fail "perf's first COMM of the command: $(cat tc.perf)"
cmp -s tc.perf tc.prec || fail "the command's COMMs: perf's $(tr '\n' ' ' <tc.perf); prec's $(tr '\n' ' ' <tc.prec)"

# -p with a command, as perf's: the command times the recording and is
# not recorded; the recording ends with it (its exit status prec's), or
# when the target is gone first (the command ended: 143)
sh -c 'while :; do :; done' &
spin=$!
for r in prec perf; do
	cmd=perf
	[ $r = prec ] && cmd=$PREC
	"$cmd" record -q -o pc.$r.data -e cpu-clock -p $spin -- sh -c 'sleep 0.3; exit 3' 2>pc.err
	rc=$?
	[ $rc = 3 ] || { kill $spin; fail "$r record -p PID -- CMD: exit status $rc, not the command's 3: $(cat pc.err)"; }
	perf script -i pc.$r.data -F pid 2>/dev/null | sort -u >pc.$r
done
kill $spin
[ "$(cat pc.prec)" = "$(cat pc.perf)" ] && [ "$(tr -d ' ' <pc.prec)" = "$spin" ] ||
	fail "-p PID -- CMD: sampled pids, prec's: $(cat pc.prec); perf's: $(cat pc.perf); the target $spin"
sleep 30 &
short=$!
"$PREC" record -q -o pg.data -e cpu-clock -p $short -- sleep 30 2>pg.err &
rec=$!
# the target ends once prec has its events open (they are before the
# start manifest, which -o writes into the staging directory pg.data.prec)
wait_manifest pg.data.prec
kill $short
wait $rec
rc=$?
[ $rc = 143 ] || fail "-p PID -- sleep 30, the target gone first: exit status $rc, not 143 (perf's): $(cat pg.err)"

# --per-thread: as perf's, the events do not follow the command's children
# (perf's per-thread rings cannot: inherit 0), so only the shell's own
# openat calls are sampled, not those of the ls it runs
if [ -d /sys/kernel/tracing/events/syscalls/sys_enter_openat ]; then
	for r in prec perf; do
		cmd=perf
		[ $r = prec ] && cmd=$PREC
		"$cmd" record -q -o pt.$r.data --per-thread -e syscalls:sys_enter_openat -- \
			sh -c 'ls / >/dev/null' 2>pt.err || fail_rc pt.err "$r record --per-thread"
		perf script -i pt.$r.data -F comm 2>/dev/null | sort | uniq -c >pt.$r
	done
	[ -s pt.perf ] || fail "--per-thread: perf's own recording has no samples"
	cmp -s pt.prec pt.perf || fail "--per-thread: samples by comm, prec's: $(cat pt.prec); perf's: $(cat pt.perf)"
fi

# perf's own tests, perf record played by prec
PATH=$PREC_TOP/tests/lib/perf-as-prec:$PATH
export PATH
s=/usr/lib/perf-core/tests/shell/pipe_test.sh
[ -f "$s" ] || skip "no $s (linux-perf's tests)"
need_cmd cc "perf's pipe_test.sh compiles its workload"
sh "$s" >pipe_test.log 2>&1 || fail "perf's pipe_test.sh with prec record: $(tail -5 pipe_test.log)"
# perf's record+zstd_comp_decomp.sh, its steps: a -z -g recording, its
# compression seen by perf report, and perf inject's decompressed copy
# reported as the original. perf's script diffs the two call graphs as
# drawn, where branches of equal share are ordered by their dsos' heap
# addresses (callchain.c, match_chain_dso_addresses): prec's file has
# build-ids (perf -z drops them), perf inject drops them, and the two
# reports allocate their dsos in another order, which swaps tied branches
# in about one run in five. Here the graphs are compared as folded chains,
# sorted: every chain with its share, in any order.
perf record -o z.data -g -z -F 5000 -- dd count=500 if=/dev/urandom of=/dev/null >z.log 2>&1 ||
	fail_rc z.log "prec record -z -g"
perf report -i z.data --header --stats >z.stats 2>&1 || fail_rc z.stats "perf report --stats"
grep -q '^# compressed : Zstd,' z.stats || fail "perf report --header: no '# compressed : Zstd': $(head -5 z.stats)"
grep -Eq '^ *COMPRESSED events: +[1-9]' z.stats || fail "perf report --stats: no COMPRESSED events"
perf inject -i z.data -o z.data.decomp 2>z.err || fail_rc z.err "perf inject (decompress)"
for f in z.data z.data.decomp; do
	perf report -i "$f" --stdio -F comm,dso,sym -g folded 2>"$f.err" |
		grep -v '^# (Tip:' | sort >"$f.folded" || fail_rc "$f.err" "perf report -g folded $f"
done
grep -q ';' z.data.folded || fail "perf report -g folded: no call chain: $(head -20 z.data.folded)"
cmp -s z.data.folded z.data.decomp.folded ||
	fail "perf report -g of the -z file and of its perf inject copy differ: $(diff z.data.folded z.data.decomp.folded | head -8)"
# buildid.sh is bash (${id:0:2}, &>): dash stops it before its first check,
# with perf too. Its `perf record` runs with --buildid-dir, which the
# wrapper hands to prec as PERF_BUILDID_DIR.
s=/usr/lib/perf-core/tests/shell/buildid.sh
[ -f "$s" ] || skip "no $s (linux-perf's tests)"
need_cmd readelf "perf's buildid.sh reads the build-ids with readelf"
bash "$s" >buildid.log 2>&1 || fail "perf's buildid.sh with prec record: $(tail -5 buildid.log)"
[ "$(grep -c '^OK for ' buildid.log)" -ge 4 ] || fail "perf's buildid.sh checked less than its 4 cases: $(grep '^OK for ' buildid.log)"
echo "PASS: perf's options, -o FILE and -o -, perf's pipe_test.sh, record+zstd_comp_decomp.sh's steps and buildid.sh"
