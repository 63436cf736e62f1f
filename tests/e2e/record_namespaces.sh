#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --namespaces, perf is the judge: perf synthesizes a NAMESPACES record
# for every task it names at the start (the kernel's records name only the
# tasks made later), the 7 kinds' dev and inode as stat() of
# /proc/TID/ns/* gives them; prec the same.
# 1. The command (sh -c 'ls /'): as many NAMESPACES records as perf's, one
#    of them at time 0 for the command's pid, the same 7 pairs as perf's
#    and as this shell's /proc/self/ns; perf report --sort cgroup_id,comm
#    names sh's cgroup namespace as perf's file does (not 0/0x0), with
#    nothing on stderr.
# 2. -p of a process in its own uts, ipc and net namespaces: its record
#    has its namespaces (not prec's), the same as perf's.
# 3. -a: one NAMESPACES at time 0 for each task with a COMM at time 0, in
#    perf's file and in prec's; the process of 2 has the same pairs in both.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd unshare
e2e_tmpdir namespaces
cd "$tmp" || fail "cd $tmp"

# perf_rec OUT ARGS...: perf record -o OUT ARGS into a file perf can read,
# else 1 after a note. perf 6.1 aborts on its own file when the kernel
# marked MMAP2 records of perf's events with another recorder's
# PERF_RECORD_MISC_MMAP_BUILD_ID (record_data.sh says more): 3 tries.
perf_rec() {
	local out=$1 _
	shift
	for _ in 1 2 3; do
		perf record -q -B -o "$out" "$@" >/dev/null 2>perr || fail_rc perr "perf record $*"
		perf script -i "$out" -F pid >/dev/null 2>perr && ! [ -s perr ] && return 0
	done
	echo "note: perf could not read its own file ($(head -1 perr)): perf record $* not compared"
	return 1
}

# ns FILE: one line per NAMESPACES record, "TIME PID/TID DEV/INO x7", as
# perf script prints them (TIME 0.000000: synthesized).
ns() {
	perf script -i "$1" --show-namespace-events 2>/dev/null | awk '
		/PERF_RECORD_NAMESPACES/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "PERF_RECORD_NAMESPACES") id = $(i + 1)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1)
			}
			getline a; getline b
			s = a " " b
			gsub(/[][,]/, " ", s)
			n = split(s, f, " ")
			out = t " " id
			for (i = 1; i <= n; i++) if (f[i] ~ /^[0-9]+\/[0-9a-fx]+$/) out = out " " f[i]
			print out
		}'
}

# synth FILE: the synthesized ones, "PID/TID DEV/INO x7", sorted.
synth() {
	ns "$1" | awk '$1 == "0.000000" { $1 = ""; sub(/^ /, ""); print }' | sort
}

# own PID: the 7 pairs of PID's namespaces as perf prints them, kernel order.
own() {
	local k out="" st
	for k in net uts ipc pid user mnt cgroup; do
		st=$(stat -L -c '%d %i' "/proc/$1/ns/$k") || fail "stat /proc/$1/ns/$k"
		# shellcheck disable=SC2086 # dev and inode
		out="$out $(printf '%d/0x%x' $st)"
	done
	echo "${out# }"
}

# exec_pid FILE: the pid of the command's exec (its COMM exec record).
exec_pid() {
	perf script -i "$1" --show-task-events 2>/dev/null |
		awk '/PERF_RECORD_COMM exec:/ { n = split($NF, a, ":"); split(a[n], p, "/"); print p[1]; exit }'
}

# cgid FILE COMM: the cgroup_id column of COMM's line in perf report.
cgid() {
	perf report --stdio --sort cgroup_id,comm -i "$1" 2>/dev/null |
		awk -v c="$2" '!/^#/ && NF == 3 && $3 == c { print $2; exit }'
}

# 1. The command.
cmd=(-e cpu-clock -- sh -c 'ls / >/dev/null')
"$PREC" record -q -o c.prec --namespaces "${cmd[@]}" >/dev/null 2>err || fail_rc err "prec record"
mine=$(own self)
p=$(exec_pid c.prec)
[ -n "$p" ] || fail "prec: no COMM exec of the command"
s=$(synth c.prec)
[ "$s" = "$p/$p $mine" ] ||
	fail "prec: synthesized NAMESPACES '$s', want one for the command: '$p/$p $mine'"
perf report --stdio --sort cgroup_id,comm -i c.prec >report.txt 2>rerr ||
	fail_rc rerr "perf report --sort cgroup_id,comm"
[ -s rerr ] && fail "perf report --sort cgroup_id,comm: $(head -3 rerr)"
c=$(cgid c.prec sh)
[ "$c" = "${mine##* }" ] || fail "perf report: sh in cgroup namespace '$c', want ${mine##* }"
if perf_rec c.perf --namespaces "${cmd[@]}"; then
	np=$(ns c.perf | wc -l) nc=$(ns c.prec | wc -l)
	[ "$nc" = "$np" ] || fail "the command: $nc NAMESPACES records, perf $np"
	pp=$(exec_pid c.perf)
	[ "$(synth c.perf)" = "$pp/$pp $mine" ] ||
		fail "perf's synthesized NAMESPACES: '$(synth c.perf)' (the test's reading of them is wrong)"
	[ "$(cgid c.perf sh)" = "$c" ] || fail "perf report: sh in $(cgid c.perf sh), prec's $c"
	echo "the command: $nc NAMESPACES records as perf's, sh in $c"
fi

# 2. -p of a process in namespaces of its own (a thread of prec's own
# and the shell's would read the same pairs).
unshare -u -i -n -- sleep 30 &
u=$!
at_exit "kill $u 2>/dev/null; wait $u 2>/dev/null"
for _ in $(seq 50); do
	[ "$(readlink "/proc/$u/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.05
done
theirs=$(own "$u")
[ "${theirs%% *}" != "${mine%% *}" ] || skip "unshare -n made no network namespace"
"$PREC" record -q -o p.prec --namespaces -e cpu-clock -p "$u" 2>err &
r=$!
sleep 0.5
kill -INT $r
wait_signaled $r INT "prec record -p" err
s=$(synth p.prec)
[ "$s" = "$u/$u $theirs" ] || fail "prec -p: synthesized '$s', want '$u/$u $theirs'"
if perf_rec p.perf --namespaces -e cpu-clock -p "$u" -- sleep 0.3; then
	ps=$(synth p.perf | grep "^$u/")
	[ "$ps" = "$s" ] || fail "-p: prec '$s', perf '$ps'"
fi
echo "-p: the process's own namespaces, as perf's"

# 3. -a: every task it names.
# per_task FILE: the tids with a COMM at time 0 and those with a
# NAMESPACES at time 0, each sorted: the same list twice, or fail.
per_task() {
	perf script -i "$1" --show-task-events 2>/dev/null |
		awk '/ 0\.000000: PERF_RECORD_COMM: / { n = split($NF, a, ":"); print a[n] }' | sort >"$1.comm"
	synth "$1" | awk '{ print $1 }' >"$1.ns"
	[ -s "$1.comm" ] || fail "$1: no task synthesized"
	cmp -s "$1.comm" "$1.ns" ||
		fail "$1: $(wc -l <"$1.comm") tasks, $(wc -l <"$1.ns") NAMESPACES: $(diff "$1.comm" "$1.ns" | head -5)"
	wc -l <"$1.comm"
}
"$PREC" record -q -o a.prec --namespaces -a -e cpu-clock -- sleep 0.05 >/dev/null 2>err ||
	fail_rc err "prec record -a"
na=$(per_task a.prec)
s=$(synth a.prec | grep "^$u/$u ")
[ "$s" = "$u/$u $theirs" ] || fail "prec -a: '$s', want '$u/$u $theirs'"
if perf_rec a.perf --namespaces -a -e cpu-clock -- sleep 0.05; then
	np=$(per_task a.perf)
	[ "$(synth a.perf | grep "^$u/$u ")" = "$s" ] ||
		fail "-a: prec '$s', perf '$(synth a.perf | grep "^$u/$u ")'"
	echo "-a: a NAMESPACES for each of the $na tasks prec names (perf: $np of $np)"
fi
