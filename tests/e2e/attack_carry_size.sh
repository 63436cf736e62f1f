#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Any user's process against root's --max-disk window (issue 35, hole 4):
# a process of nobody's maps one page of its own file 2,500 times under a
# 4,000-byte path, so that every synthesis of its maps is about 10 MB.
# 1. Started before root records every CPU (-a) under a 10M budget: the
#    start's side band keeps within its bound (an eighth of the budget),
#    the directory within the budget, and prec record says what was left
#    out.
# 2. Started once the recording (-a, 10M, a getppid storm on each CPU) is
#    under way: the carry (docs/format.md "The carry") keeps within its
#    bound, carry.shard an eighth of the budget at every look, and with the
#    carry.shard.tmp being written a quarter; the directory within the
#    budget plus the documented slack; the CPU shards keep at least half
#    the budget of data (the storm wrote many times that), the merge's
#    window holds storm samples, and prec record says what the carry left
#    out.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd taskset
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir attack-carry
N=${STORM_N:-500000}
budget=$((10 * 1024 * 1024))
bound=$((budget / 8))
# docs/format.md, "Trimmed shards": per CPU shard 8 KiB and the file
# system's extent blocks; 1 MiB covers them.
slack=$((1024 * 1024))
hostile=
on_fail() { cat "$tmp/at-max" 2>/dev/null; }
cleanup() {
	[ -n "$hostile" ] && kill "$hostile" 2>/dev/null
}
at_exit cleanup
mkdir "$tmp/pub" "$tmp/pub2" || fail "mkdir"
chmod 755 "$tmp" || fail "chmod"
chown nobody:nogroup "$tmp/pub" "$tmp/pub2" || fail "chown"

# 1. The start's side band.
# setpriv itself (not e2e.sh's nobody, a function): $! is the process.
setpriv --reuid=65534 --regid=65534 --clear-groups "$H/manymaps" "$tmp/pub" 2500 60 &
hostile=$!
i=0
while [ ! -e "$tmp/pub/ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$tmp/pub/ready" ] || fail "nobody's process never mapped its file"
# (nobody's maps read whole however loaded the machine: the default
# --proc-map-timeout, 500 ms, cut them short under load, below the bound)
"$PREC" record -d "$tmp/s" -a --max-disk 10M --proc-map-timeout 60000 -e cpu-clock -- sleep 0.5 2>"$tmp/s.err" ||
	fail_rc "$tmp/s.err" "record (side band)"
cat "$tmp/s.err"
kill "$hostile"
wait "$hostile" 2>/dev/null
sb=$(du -B1 "$tmp/s/sideband.shard" | cut -f1) all=$(du -s -B1 "$tmp/s" | cut -f1)
echo "side band: $sb bytes (bound $bound), directory $all bytes"
[ "$sb" -le "$bound" ] || fail "the side band is $sb bytes, over its bound $bound"
[ "$all" -le "$budget" ] || fail "directory at $all bytes, budget $budget"
grep -q '^prec: warning: sideband.shard: [0-9]* records .* left out' "$tmp/s.err" ||
	fail "prec record does not say what the side band left out"

# 2. The carry.

# The workload: waits for nobody's process to have its maps, then a storm
# on every CPU (pinned: left to the scheduler, both could run one after the
# other on one CPU, and the older one's data be dropped), then a second
# more for the carry after the last drop.
cat >"$tmp/work.sh" <<EOF
: >"$tmp/started"
i=0
while [ ! -e "$tmp/pub2/ready" ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
storms=
for c in \$(seq 0 $(($(nproc) - 1))); do taskset -c \$c "$H/storm" $N & storms="\$storms \$!"; done
wait \$storms
sleep 1.5
EOF
"$PREC" record -d "$tmp/r" -a --max-disk 10M -e cpu-clock \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- sh "$tmp/work.sh" 2>"$tmp/err" &
rec=$!
i=0
while [ ! -e "$tmp/started" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
setpriv --reuid=65534 --regid=65534 --clear-groups "$H/manymaps" "$tmp/pub2" 2500 60 &
hostile=$!
max=0 cmax=0 tmax=0
while kill -0 "$rec" 2>/dev/null; do
	s=$(du -s -B1 "$tmp/r" 2>/dev/null | cut -f1)
	[ -n "$s" ] && [ "$s" -gt "$max" ] && max=$s && ls -ls "$tmp/r" >"$tmp/at-max"
	c=$(du -B1 -c "$tmp"/r/carry.shard* 2>/dev/null | tail -1 | cut -f1)
	[ -n "$c" ] && [ "$c" -gt "$tmax" ] && tmax=$c
	c=$(du -B1 "$tmp/r/carry.shard" 2>/dev/null | cut -f1)
	[ -n "$c" ] && [ "$c" -gt "$cmax" ] && cmax=$c
	sleep 0.05
done
wait "$rec" || fail_rc "$tmp/err" "record"
[ -e "$tmp/pub2/ready" ] || fail "nobody's process never mapped its file"
cat "$tmp/err"
carry=$(du -B1 "$tmp/r/carry.shard" 2>/dev/null | cut -f1)
data=$(du -B1 -c "$tmp"/r/cpu*.shard* | tail -1 | cut -f1)
echo "carry: $carry bytes at the end, largest $cmax (bound $bound), with the one being written $tmax; CPU data kept: $data bytes; directory at most $max (budget $budget)"
"$PREC" info "$tmp/r" >"$tmp/info" || fail "prec info"
grep -A1 '^max disk:' "$tmp/info"
segs=$(awk '/^max disk:/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "segments,") { print $i; exit } }' "$tmp/info")
[ "${segs:-0}" -gt 0 ] || fail "nothing dropped: the storm did not pass the budget"
[ -n "$carry" ] || fail "no carry written: $(ls "$tmp/r")"
[ "$cmax" -le "$bound" ] || fail "carry.shard reached $cmax bytes, over its bound $bound"
[ "$tmax" -le $((2 * bound)) ] || fail "the carry with the one being written reached $tmax bytes, over $((2 * bound))"
[ "$data" -ge $((budget / 2)) ] || fail "the CPU shards keep $data bytes, under half the $budget budget"
[ "$max" -le $((budget + slack)) ] || fail "directory at $max bytes, budget $budget + slack $slack"
grep -q '^prec: warning: --max-disk: the carry left out [0-9]* records' "$tmp/err" ||
	fail "prec record does not say what the carry left out"

"$PREC" merge "$tmp/r" -o "$tmp/perf.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
cat "$tmp/merge.err"
# The storm's samples by event: whether each is named (its comm) depends
# on a carry taken while it ran (docs/format.md "The carry", what is lost).
perf script -i "$tmp/perf.data" -F comm,event 2>/dev/null | awk '$2 == "raw_syscalls:sys_enter:"' >"$tmp/storm"
n=$(wc -l <"$tmp/storm") named=$(awk '$1 == "storm"' "$tmp/storm" | wc -l)
[ "$n" -gt 0 ] || fail "the window holds no storm samples"
echo "PASS: carry $carry bytes (bound $bound), $data bytes of CPU data kept, $n storm samples in the window ($named named storm)"
