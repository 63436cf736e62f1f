#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -G/--cgroup and --all-cgroups, against perf record's own:
# 1. -a -G CG -e cpu-clock with one busy loop inside a test cgroup and one
#    outside: every sample is the inside loop's, as with perf record -G,
#    in the file and the pipe format.
# 2. -e cpu-clock -e task-clock -G ,CG: perf's one-name-per-event rule:
#    cpu-clock everywhere (the outside loop too), task-clock only inside.
# 3. --all-cgroups: perf report --sort cgroup names CG for the inside
#    loop, and CG/sub, made during the recording, for the command that
#    moved itself there (the kernel's CGROUP record), file and pipe; perf
#    record --all-cgroups names CG the same way; prec dump shows the side
#    band's CGROUP record of CG.
# 4. Bad names: '..' and a cgroup that does not exist are one line and exit
#    2; -G without -a/-C is refused as perf refuses it (system-wide only).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir cgroup

# The hierarchy perf (and prec) use: perf_event's v1 one, else cgroup2.
mnt=$(awk '{ for (i = 7; $i != "-"; i++); t = $(i + 1); o = $(i + 3) }
	t == "cgroup" && ("," o ",") ~ /,perf_event,/ { v1 = $5 }
	t == "cgroup2" && !v2 { v2 = $5 }
	END { print v1 ? v1 : v2 }' /proc/self/mountinfo)
if [ -z "$mnt" ] || ! [ -d "$mnt" ]; then skip "no cgroup2 mount"; fi
name=prec-test.$$
cg=$mnt/$name
mkdir "$cg" || skip "cannot create a cgroup under $mnt"
pids=()
cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	[ -d "$cg/sub" ] && rmdir "$cg/sub"
	rmdir "$cg" 2>/dev/null
}
at_exit cleanup

# A busy loop inside the test cgroup, one outside.
sh -c "echo \$\$ >'$cg/cgroup.procs' && exec sh -c 'while :; do :; done'" &
in=$!
sh -c 'while :; do :; done' &
out=$!
pids=("$in" "$out")
sleep 0.2
grep -q "^$in\$" "$cg/cgroup.procs" || fail "the inside loop is not in $cg"

# perf_rec OUT ARGS...: perf record -o OUT ARGS into a file perf can read,
# else 1 after a note. perf 6.1 aborts on its own file when the kernel
# marked MMAP2 records of perf's events with another recorder's
# PERF_RECORD_MISC_MMAP_BUILD_ID (any prec recording on the machine makes
# that happen; record_data.sh says more): 3 tries, then the comparison
# with perf is skipped.
perf_rec() {
	local out=$1 _
	shift
	for _ in 1 2 3; do
		perf record -q -B -o "$out" "$@" 2>"$tmp/perr" || fail_rc "$tmp/perr" "perf record $*"
		perf script -i "$out" -F pid >/dev/null 2>"$tmp/perr" && ! [ -s "$tmp/perr" ] && return 0
	done
	echo "note: perf could not read its own file ($(head -1 "$tmp/perr")): perf record $* not compared"
	return 1
}

# pids_of FILE [EVENT]: the distinct pids of FILE's samples (of EVENT).
pids_of() {
	perf script -i "$1" -F event,pid 2>/dev/null |
		awk -v ev="${2:-}" '{ e = $2; sub(":", "", e) } ev == "" || e == ev { print $1 }' |
		sort -un
}

# 1. One cgroup for the one event.
"$PREC" record -q -d "$tmp/g1" -a -e cpu-clock -G "$name" -F 1000 -- sleep 1 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record -G"
"$PREC" merge "$tmp/g1" -o "$tmp/g1.data" >/dev/null 2>"$tmp/err" || fail_rc "$tmp/err" "merge"
n=$(perf script -i "$tmp/g1.data" -F pid 2>/dev/null | wc -l)
# ~1000 on an idle machine; the loop shares its CPU on a loaded one.
[ "$n" -ge 20 ] || fail "-G: only $n samples of a loop busy for 1 s at 1000 Hz"
[ "$(pids_of "$tmp/g1.data")" = "$in" ] ||
	fail "-G: samples of pids $(pids_of "$tmp/g1.data" | tr '\n' ' ')(want only $in)"
"$PREC" merge "$tmp/g1" -o - 2>/dev/null >"$tmp/g1.pipe" || fail "merge -G's recording to a pipe"
[ "$(pids_of "$tmp/g1.pipe")" = "$in" ] ||
	fail "-G, pipe: samples of pids $(pids_of "$tmp/g1.pipe" | tr '\n' ' ')(want only $in)"
[ "$(perf script -i "$tmp/g1.pipe" -F pid 2>/dev/null | wc -l)" = "$n" ] || fail "-G: the pipe and the file differ"
if perf_rec "$tmp/p1.data" -a -e cpu-clock -G "$name" -F 1000 -- sleep 1; then
	[ "$(pids_of "$tmp/p1.data")" = "$in" ] || fail "perf record -G: not only $in (the test is wrong)"
fi

# 2. -G ,CG: the first event in no cgroup, the second in CG.
"$PREC" record -q -d "$tmp/g2" -a -e cpu-clock -e task-clock -G ",$name" -F 1000 -- sleep 1 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record -G ,CG"
"$PREC" merge "$tmp/g2" -o "$tmp/g2.data" >/dev/null 2>"$tmp/err" || fail_rc "$tmp/err" "merge"
[ "$(pids_of "$tmp/g2.data" task-clock)" = "$in" ] || fail "-G ,CG: task-clock not only in $in"
pids_of "$tmp/g2.data" cpu-clock | grep -qx "$out" || fail "-G ,CG: cpu-clock missed the outside loop $out"
if perf_rec "$tmp/p2.data" -a -e cpu-clock -e task-clock -G ",$name" -F 1000 -- sleep 1; then
	[ "$(pids_of "$tmp/p2.data" task-clock)" = "$in" ] || fail "perf -G ,CG: task-clock not only in $in"
	pids_of "$tmp/p2.data" cpu-clock | grep -qx "$out" || fail "perf -G ,CG: cpu-clock missed $out"
fi

# 3. --all-cgroups, and a cgroup made after the start.
"$PREC" record -q -d "$tmp/all" -a --all-cgroups -e cpu-clock -F 1000 -- \
	sh -c "mkdir '$cg/sub' && echo \$\$ >'$cg/sub/cgroup.procs' &&
	       echo \$\$ >'$tmp/sub.pid' &&
	       exec bash -c 'SECONDS=0; while [ \$SECONDS -lt 2 ]; do :; done'" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record --all-cgroups"
sub=$(cat "$tmp/sub.pid")
"$PREC" merge "$tmp/all" -o "$tmp/all.data" >/dev/null 2>"$tmp/err" || fail_rc "$tmp/err" "merge"
# cgroup_of REPORT PID: the cgroups of PID's samples in a perf report
# --sort pid,cgroup, one a line.
cgroup_of() {
	awk -v p="$2" '$2 ~ "^" p ":" { print $3 }' "$1" | sort -u
}
report_checks() {
	local f=$tmp/report what=$2
	perf report -i "$1" --sort pid,cgroup --stdio >"$f" 2>"$tmp/rerr" ||
		{ cat "$tmp/rerr"; fail "$what: perf report"; }
	[ -s "$tmp/rerr" ] && { cat "$tmp/rerr"; fail "$what: perf report warned"; }
	[ "$(cgroup_of "$f" "$in")" = "/$name" ] ||
		fail "$what: the inside loop's cgroup is '$(cgroup_of "$f" "$in")', want /$name"
	# (it ran in the cgroup it was started in until it moved itself)
	cgroup_of "$f" "$sub" | grep -qx "/$name/sub" ||
		fail "$what: the command's cgroups are '$(cgroup_of "$f" "$sub" | tr '\n' ' ')', want /$name/sub among them"
}
report_checks "$tmp/all.data" "--all-cgroups (file)"
# prec dump shows the side band's records, the test cgroup's among them.
"$PREC" dump "$tmp/all" 2>/dev/null | grep -q "^0\.000000000 *sb .*CGROUP id [0-9]* path /$name\$" ||
	fail "prec dump: no synthesized CGROUP record for /$name"
"$PREC" merge "$tmp/all" -o - 2>/dev/null >"$tmp/all.pipe" || fail "merge to a pipe"
report_checks "$tmp/all.pipe" "--all-cgroups (pipe)"
rmdir "$cg/sub"
if perf_rec "$tmp/pall.data" -a --all-cgroups -e cpu-clock -F 1000 -- sleep 0.5; then
	perf report -i "$tmp/pall.data" --sort pid,cgroup --stdio >"$tmp/preport" 2>/dev/null
	[ "$(cgroup_of "$tmp/preport" "$in")" = "/$name" ] || fail "perf --all-cgroups: not /$name (the test is wrong)"
fi

# 4. Bad input: one line, exit 2.
bad() {
	local want=$1
	shift
	"$PREC" record -q -d "$tmp/bad" "$@" -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || { cat "$tmp/err"; fail "$*: exit $rc, want 2"; }
	[ "$(wc -l <"$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "$*: not one line"; }
	grep -q -- "$want" "$tmp/err" || { cat "$tmp/err"; fail "$*: no '$want'"; }
	[ -e "$tmp/bad" ] && fail "$*: left a directory"
	return 0
}
bad "'\.\.'" -a -e cpu-clock -G ../../etc
bad "$name/nosuch: No such file" -a -e cpu-clock -G "$name/nosuch"
bad "only available in system-wide mode" -e cpu-clock -G "$name"
bad "must define events before cgroups" -a -G "$name" -e cpu-clock
bad "has no event" -a -e cpu-clock -G "$name,$name"
echo "PASS"
