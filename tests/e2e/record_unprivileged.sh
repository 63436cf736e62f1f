#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The e2e basics as an ordinary user (nobody, no capabilities) at
# kernel.perf_event_paranoid 2 (Debian's default), with perf record as the
# same user for comparison:
# 1. prec record -e page-faults -c C -- faults K as nobody works, says once
#    that it falls back to user space, and nothing else goes wrong; merge,
#    info and dump work as nobody; perf script and perf report read the file
#    with nothing on stderr.
# 2. Exactly K / C samples of the faults helper, as perf record as nobody
#    takes; every sample a user-space address; the event is page-faults:u
#    with exclude_kernel and exclude_hv in both files (prec's tracking dummy
#    too), as perf sets them.
# 3. cpu-clock on a workload that spends time in the kernel (storm's system
#    calls): only user-space samples. -p of one's own process works.
# 4. -a, -C, a tracepoint and :k as nobody: a non-zero exit and one line naming
#    kernel.perf_event_paranoid, its value and CAP_PERFMON.
# 5. Without -m, a user's rings fit a small RLIMIT_MEMLOCK (1 MiB), as
#    perf's do.
# 6. The command's children are followed (inherit, per-task events on each
#    CPU, as perf): two faults children of sh, 2K / C samples between them
#    as perf record as nobody takes.
# 7. Names through the pipe: perf report -i - names page-faults:u as on the
#    file; perf evlist -i - (which reads only a pipe's attrs, no names)
#    shows what it shows for perf record -o - as nobody.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd setpriv
e2e_tmpdir unpriv
chmod 0711 "$tmp"
K=5000 C=100

pfile=/proc/sys/kernel/perf_event_paranoid
old=$(cat $pfile) || skip "no $pfile"
at_exit "echo $old > $pfile"
echo 2 >$pfile || skip "cannot set $pfile"

# Binaries and the output directory where nobody reaches them.
mkdir "$tmp/bin" "$tmp/w"
cp "$PREC" "$H/faults" "$H/storm" "$tmp/bin/" || fail "copying the binaries"
chmod 0755 "$tmp/bin" "$tmp"/bin/*
chown 65534:65534 "$tmp/w"
cd "$tmp/w" || fail "cd"
# A HOME nobody can use for perf's ~/.debug. perf record as nobody runs with
# --buildid-mmap (build-ids from the kernel's MMAP2, as prec takes them):
# perf 6.1 here aborts at times ("assertion failed at util/build-id.c:1010",
# stack smashing) when it reads build-ids itself, at the end of perf record
# or in perf script on a file without them. The attrs compared are the same.
export HOME=$tmp/w
P=$tmp/bin/prec
# kernel_ips FILE: lines of perf script -F comm,ip whose ip is a kernel
# address (x86_64: from 0xffff800000000000; user space ends below 2^47,
# twelve hex digits at most).
kernel_ips() {
	awk 'length($NF) > 12' "$1" | wc -l
}
on_fail() { for f in "$tmp"/w/*.err; do [ -s "$f" ] && { echo "== $f"; cat "$f"; }; done; }

# 1. Record, merge, read, as nobody.
nobody "$P" record -d pf -e page-faults -c $C -- "$tmp/bin/faults" $K 2>rec.err ||
	fail_rc rec.err "prec record as nobody"
n=$(grep -c '^prec: note: kernel.perf_event_paranoid=2 and no CAP_PERFMON: falling back to excluding kernel and hypervisor samples' rec.err)
[ "$n" = 1 ] || fail "the fall-back note $n times, want once"
others=$(grep -v '^prec: note: kernel.perf_event_paranoid=2' rec.err | grep -v '^\[ prec record: ')
[ -z "$others" ] || fail "prec record said more: $others"
nobody "$P" merge pf -o "$tmp/w/prec.data" 2>merge.err || fail_rc merge.err "prec merge as nobody"
nobody "$P" info pf >info.out 2>info.err || fail_rc info.err "prec info as nobody"
grep -q 'page-faults:u' info.out || fail "prec info names no page-faults:u"
nobody "$P" dump pf >dump.out 2>dump.err || fail_rc dump.err "prec dump as nobody"
nobody "$P" info --check pf >/dev/null 2>check.err || fail_rc check.err "prec info --check as nobody"

nobody perf record -q --buildid-mmap -o "$tmp/w/perf.data" -e page-faults -c $C -- "$tmp/bin/faults" $K \
	>/dev/null 2>perf.err || fail_rc perf.err "perf record as nobody"

# 2. The same samples and attrs as perf's, user space only.
for f in prec perf; do
	nobody perf script -i "$f.data" -F comm,ip >"$f.script" 2>"$f.script.err" ||
		fail_rc "$f.script.err" "perf script on $f.data"
	[ -s "$f.script.err" ] && { cat "$f.script.err"; fail "perf script on $f.data: stderr"; }
	nobody perf report -i "$f.data" --stdio >/dev/null 2>"$f.report.err" ||
		fail_rc "$f.report.err" "perf report on $f.data"
	[ -s "$f.report.err" ] && { cat "$f.report.err"; fail "perf report on $f.data: stderr"; }
	n=$(awk '$1 == "faults"' "$f.script" | wc -l)
	[ "$n" = $((K / C)) ] || fail "$f.data: $n samples of faults, want $((K / C))"
	# x86_64 user addresses are below 0x0000800000000000.
	kern=$(kernel_ips "$f.script")
	[ "$kern" = 0 ] || fail "$f.data: $kern kernel-space samples"
	nobody perf evlist -v -i "$f.data" >"$f.evlist" 2>/dev/null || fail "perf evlist on $f.data"
	line=$(grep '^page-faults:u: ' "$f.evlist") || fail "$f.data: no page-faults:u event"
	case $line in
	*"exclude_kernel: 1, exclude_hv: 1"*) ;;
	*) fail "$f.data: page-faults:u without exclude_kernel and exclude_hv: $line" ;;
	esac
done
grep -q '^dummy: .*exclude_kernel: 1, exclude_hv: 1' prec.evlist || fail "prec's dummy: $(grep '^dummy' prec.evlist)"
echo "page-faults -c $C over $K faults as nobody: $((K / C)) samples from prec and from perf, user space only, page-faults:u with exclude_kernel, exclude_hv"

# 3. Time spent in the kernel is not sampled; -p of one's own process.
nobody "$P" record -q -d cc -e cpu-clock -F 2000 -- "$tmp/bin/storm" 2000000 2>cc.err ||
	fail_rc cc.err "prec record cpu-clock as nobody"
nobody "$P" merge cc -o "$tmp/w/cc.data" 2>>cc.err || fail_rc cc.err "merge cc"
nobody perf script -i cc.data -F comm,ip >cc.script 2>cc.script.err || fail_rc cc.script.err "perf script cc"
[ -s cc.script.err ] && fail "perf script cc.data: $(cat cc.script.err)"
n=$(awk '$1 == "storm"' cc.script | wc -l)
kern=$(kernel_ips cc.script)
[ "$n" -ge 20 ] || fail "cpu-clock: $n samples of storm"
[ "$kern" = 0 ] || fail "cpu-clock: $kern kernel-space samples"
# (nobody is a function: $! would be its subshell, root's, not storm)
# shellcheck disable=SC2016 # $$ and $0 are the inner shell's
nobody sh -c 'echo $$ >storm.pid; exec "$0" 100000000 >/dev/null' "$tmp/bin/storm" &
bg=$!
for ((i = 0; i < 100; i++)); do [ -s storm.pid ] && break; sleep 0.05; done
sp=$(cat storm.pid) || fail "no storm pid"
at_exit "kill $sp 2>/dev/null"
sleep 0.2
nobody timeout -s INT 1 "$P" record -q -d pid -e cpu-clock -p "$sp" 2>pid.err
kill "$sp" 2>/dev/null
wait "$bg" 2>/dev/null
nobody "$P" merge pid 2>>pid.err | nobody perf script -i - -F comm >pid.script 2>>pid.err ||
	fail_rc pid.err "merge -p"
n=$(grep -c storm pid.script)
[ "$n" -ge 20 ] || { cat pid.err; fail "-p $sp as nobody: $n samples"; }
echo "cpu-clock as nobody: $n samples of -p, storm's $(awk '$1 == "storm"' cc.script | wc -l) all in user space"

# 4. What a user may not record: one line, naming the setting and CAP_PERFMON.
refused() { # ARGS...
	nobody "$P" record -d no "$@" -- true >/dev/null 2>no.err && fail "record $* as nobody succeeded"
	[ "$(wc -l <no.err)" = 1 ] || fail "record $*: $(wc -l <no.err) lines: $(cat no.err)"
	grep -q '^prec: error: .*kernel.perf_event_paranoid <= -\?[0-9] (it is 2) or CAP_PERFMON' no.err ||
		fail "record $*: $(cat no.err)"
	[ ! -e no ] || fail "record $*: left a directory"
	cat no.err
}
refused -a
refused -C 0
refused -e sched:sched_switch
refused -e cpu-clock:k

# 5. Locked memory: without -m a user's rings fit what the kernel lets a
# user lock beside the shard writers' io_urings (prec's own default would
# not fit in 1 MiB), as perf's fit.
(
	ulimit -l 1024
	nobody "$P" record -q -d ml -- "$tmp/bin/faults" 0 2>ml.err || fail_rc ml.err "record under ulimit -l 1024"
	nobody perf record -q --buildid-mmap -o "$tmp/w/ml.data" -- "$tmp/bin/faults" 0 >/dev/null 2>ml.perf.err ||
		fail "perf record under ulimit -l 1024"
) || exit 1
echo "ulimit -l 1024: prec and perf record as nobody"

# 6. Children. With inherit the children's samples fall 46..54 to one
# child and the rest to the other (the same with perf record); the two
# together are 2K / C, give or take the pages sh faults in before exec.
kids="'$tmp/bin/faults' $K & '$tmp/bin/faults' $K; wait"
nobody "$P" record -q -d kids -e page-faults -c $C -- sh -c "$kids" 2>kids.err ||
	fail_rc kids.err "record of a forking command as nobody"
nobody "$P" merge kids 2>>kids.err | nobody perf script -i - -F comm,pid >kids.script 2>>kids.err ||
	fail_rc kids.err "merge kids"
read -r npid n < <(awk '$1 == "faults" { n[$2]++; t++ } END { print length(n), t + 0 }' kids.script)
if [ "$npid" != 2 ] || [ "$n" -lt $((2 * K / C - 2)) ] || [ "$n" -gt $((2 * K / C + 2)) ]; then
	fail "sh -c 'faults & faults': $n samples in $npid faults processes, want $((2 * K / C)) in 2"
fi
echo "the command's children as nobody: $n samples of 2 faults processes"

# 7. Names through the pipe.
nobody "$P" merge pf 2>/dev/null | nobody perf report -i - --stdio >pipe.report 2>pipe.report.err ||
	fail_rc pipe.report.err "perf report -i - as nobody"
grep -q "^# Samples: .* of event 'page-faults:u'\$" pipe.report ||
	fail "perf report -i -: $(grep '^# Samples' pipe.report)"
nobody "$P" merge pf 2>/dev/null | nobody perf evlist -i - >pipe.evlist 2>&1 || fail "perf evlist -i - as nobody"
perf_ok=0
for _ in 1 2 3; do
	nobody perf record -q --buildid-mmap -o - -e page-faults -c $C -- "$tmp/bin/faults" $K \
		>perf.pipe 2>perf.pipe.err && nobody perf evlist -i - <perf.pipe >perf.pipe.evlist 2>&1 &&
		perf_ok=1 && break
done
[ $perf_ok = 1 ] || fail_rc perf.pipe.err "perf record -o - as nobody"
[ "$(head -1 pipe.evlist)" = "$(cat perf.pipe.evlist)" ] ||
	fail "perf evlist -i -: prec's pipe '$(head -1 pipe.evlist)', perf's '$(cat perf.pipe.evlist)'"
echo "pipe as nobody: perf report names page-faults:u; perf evlist -i - '$(head -1 pipe.evlist)' as on perf's own pipe"

echo "PASS"
