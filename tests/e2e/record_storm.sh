#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record on a workload with an exactly known event count: the storm
# helper makes N getppid() calls (syscall 110); with a tracepoint filter on
# id == 110 the shards must hold exactly N samples of the storm's pid, and
# nothing lost. Counted with the shard reader (tests/helpers/shardcount),
# the storm's pid taken from the manifest's id table (per-task events).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-100000}
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir storm

# The exact-count recordings use a ring that holds the whole workload (-m 16M)
# (all but one, below):
# a count must not depend on how a loaded CI machine schedules the drainer
# (loss against ring size is bench/record_ring.sh's business).
check_run() { # dir, extra options...
	local dir=$1; shift
	"$PREC" record -d "$dir" -m 16M "$@" -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- "$H/storm" "$N" 2>"$tmp/err" || fail_rc "$tmp/err" "record"
	cat "$tmp/err"
	grep -q '^\[ prec record: 3 shards\|^\[ prec record: [0-9]* shards' "$tmp/err" || fail "no summary line"
	grep -q ', 0 lost,' "$tmp/err" || fail "summary reports losses"
	"$H/mfdump" "$dir" >"$tmp/mf" || fail "manifest unreadable"
	grep -q '^state complete' "$tmp/mf" || fail "manifest not complete"
	grep -q '^tracepoint raw_syscalls:sys_enter' "$tmp/mf" || fail "no tracepoint format"
	pid=$(awk '/^id 1 /{sub("tid=","",$5); print $5; exit}' "$tmp/mf")
	[ -n "$pid" ] && [ "$pid" -gt 0 ] || fail "no per-task ids in the manifest"
	awk '/^shard/ && ($7 != "lost=0" || $8 != "lost_samples=0") { bad = 1 } END { exit bad }' \
		"$tmp/mf" || fail "manifest shard totals report losses"
	"$H/shardcount" "$dir" "$pid" >"$tmp/count" || { cat "$tmp/count"; fail "a shard is corrupt"; }
	cat "$tmp/count"
	got=$(awk '/^total/ { sub("pid_samples=", "", $5); print $5 }' "$tmp/count")
	all=$(awk '/^total/ { sub("samples=", "", $4); print $4 }' "$tmp/count")
	[ "$got" = "$N" ] || fail "$got samples of pid $pid, want $N"
	[ "$all" = "$N" ] || fail "$all samples in all, want $N"
	# Manifest record totals equal what the shards hold.
	mrec=$(awk '/^shard/ { sub("records=", "", $5); s += $5 } END { print s }' "$tmp/mf")
	srec=$(awk '/^total/ { sub("records=", "", $3); print $3 }' "$tmp/count")
	[ "$mrec" = "$srec" ] || fail "manifest says $mrec records, shards hold $srec"
	# The read side agrees, once it exists: merged dump and info --check.
	if "$PREC" dump "$dir" >"$tmp/dump" 2>/dev/null; then
		d=$(awk -v p="$pid" '$4 == "SAMPLE" && index($3, p "/") == 1' "$tmp/dump" | wc -l)
		[ "$d" = "$N" ] || fail "prec dump shows $d samples of pid $pid, want $N"
	else
		echo "note: prec dump not available, shard reader counts only"
	fi
	if "$PREC" info --check "$dir" >"$tmp/info" 2>&1; then
		grep -q ': ok' "$tmp/info" || fail "prec info --check: $(cat "$tmp/info")"
	elif ! grep -q 'not built' "$tmp/info"; then
		fail "prec info --check: $(cat "$tmp/info")"
	fi
}

check_run "$tmp/copy" -v
# Copy mode writes with O_DIRECT where the file system takes it (it says so
# with -v), and through the page cache with --no-direct-io.
if dd if=/dev/zero of="$tmp/dio" bs=4096 count=1 oflag=direct 2>/dev/null; then
	grep -q 'shards: O_DIRECT writes' "$tmp/err" || fail "default copy mode: not O_DIRECT"
else
	echo "note: no O_DIRECT in $tmp"
fi
check_run "$tmp/buffered" -v --no-direct-io
grep -q 'shards: page-cache writes' "$tmp/err" || fail "--no-direct-io: not page-cache writes"
check_run "$tmp/zero" --no-copy
check_run "$tmp/rt" -r 10
# Except here: by default (as root) a drainer runs SCHED_FIFO on its ring's
# own CPU, so the task filling the ring waits while it is drained, and an
# 8-page (32 KiB) ring loses nothing either (under the fair scheduler,
# -r 0, such a ring loses thousands: bench/record_ring.sh, bench/results/record_ring.md).
check_run "$tmp/small" -m 8
# Tracepoint events are released by a child after prec exits (the kernel's
# RCU wait): a caller capturing prec's output is not held up by it, and the
# child is gone soon after.
out=$(timeout 10 "$PREC" record -d "$tmp/late" -e raw_syscalls:sys_enter -- true 2>&1) ||
	fail "capture of prec record's output: exit $?: $out"
for _ in $(seq 60); do
	pgrep -f "record -d $tmp/late" >/dev/null || break
	sleep 0.05
done
pgrep -f "record -d $tmp/late" >/dev/null && fail "the event-releasing child is still there after 3 s"
# A tracepoint glob, as perf takes it: raw_syscalls:sys_e* is sys_enter and
# sys_exit, and --filter applies to both (perf applies it to every event
# of the -e before it): exactly N of each.
"$PREC" record -q -d "$tmp/glob" -m 16M -e 'raw_syscalls:sys_e*' --filter 'id == 110' \
	-- "$H/storm" 3000 || fail "record with a glob: exit $?"
"$PREC" merge "$tmp/glob" 2>/dev/null | perf script -i - 2>/dev/null |
	awk '{ print $5 }' | sort | uniq -c >"$tmp/glob.count"
want=$(printf '   3000 raw_syscalls:sys_enter:\n   3000 raw_syscalls:sys_exit:')
[ "$(cat "$tmp/glob.count")" = "$want" ] ||
	fail "glob raw_syscalls:sys_e*: perf script counts $(tr '\n' ' ' <"$tmp/glob.count")"
echo "PASS: $N samples, 0 lost: copy (default, O_DIRECT), buffered copy, zero-copy, SCHED_FIFO drainers; events released after exit; a glob with a filter"
