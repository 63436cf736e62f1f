#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's tools that run perf record with a command line of their own, that
# command line given to prec record, and the tool's reader on prec's file
# (perf sched has its own test, perf_sched.sh). The argv is perf 6.1's, as
# each tool builds it (its source; perf kwork -v prints it):
#   perf trace record     -R -m 1024 -c 1 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit
#                         --filter 'common_pid != PERF'      (perf trace -i)
#   perf lock record      -R -m 1024 -c 1 --synth task -e lock:contention_begin
#                         -e lock:contention_end --call-graph fp,8   (perf lock)
#   perf kmem record      -a -R -c 1 -e kmem:kmalloc ...       (perf kmem stat)
#   perf kwork record     -a -R -m 1024 -c 1 -e irq:... -e workqueue:...   (perf kwork)
#   perf timechart record -I   -a -R -c 1, each I/O syscall's tracepoint with
#                         its own --filter                   (perf timechart)
# Each reader exits 0, says nothing that is a warning, and finds what the
# workload did: dd's 1000 reads and writes of one byte, counted by perf
# trace -s exactly as dd made them.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir perftools
cd "$tmp" || fail "cd $tmp"
dd=(dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none)
work=(perf bench sched messaging -g 1 -l 5)
# perf's words for a file it reads with a doubt (lost chunks, a zero data
# size, no call chains ...) or fails on
warned='warning|lost|failed|error:|problem|unexpected|missing|not found|cannot|can.t|do not have'

# rec NAME ARGS... -- CMD...: prec record -o NAME.data with that argv
rec() {
	local name=$1
	shift
	"$PREC" record -q -o "$name.data" "$@" >/dev/null 2>"$name.rec.err" ||
		fail_rc "$name.rec.err" "prec record for perf $name"
}

# read NAME CMD...: the reader, stdout and stderr in NAME.out, NAME.err;
# exit 0 and no warning in either
read_ok() {
	local name=$1
	shift
	"$@" >"$name.out" 2>"$name.err" || fail_rc "$name.err" "$* on prec's file"
	if grep -Eiq "$warned" "$name.out" "$name.err"; then
		fail "$* on prec's file warned: $(grep -Eih "$warned" "$name.out" "$name.err" | head -3)"
	fi
}

# perf trace: the syscalls, both of the comma list under the one filter
rec trace -R -m 1024 -c 1 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--filter "common_pid != $$" -- "${dd[@]}"
read_ok trace perf trace -i trace.data -s
for sc in read write; do
	n=$(awk -v sc="$sc" '$1 == sc { print $2 }' trace.err)
	[ "${n:-0}" -ge 1000 ] ||
		fail "perf trace -s on prec's file: dd's $sc calls '$n', not 1000 or more: $(cat trace.err)"
done
[ "$(awk '$1 == "write" { print $2 }' trace.err)" = 1000 ] ||
	fail "perf trace -s on prec's file: dd's writes are its 1000 bytes: $(cat trace.err)"

# perf lock: the contention tracepoints with their call chains
need_tracepoint lock/contention_begin
rec lock -R -m 1024 -c 1 --synth task -e lock:contention_begin -e lock:contention_end \
	--call-graph fp,8 -- "${work[@]}"
read_ok lock.report perf lock report -i lock.data
read_ok lock.cont perf lock contention -i lock.data
grep -q 'contended' lock.cont.err || fail "perf lock contention on prec's file: no table: $(head -3 lock.cont.err)"

# perf kmem: slab and page events, system-wide
need_tracepoint kmem/kmalloc
rec kmem -a -R -c 1 -e kmem:kmalloc -e kmem:kfree -e kmem:kmem_cache_alloc \
	-e kmem:kmem_cache_free -e kmem:mm_page_alloc -e kmem:mm_page_free -- "${work[@]}"
read_ok kmem perf kmem -i kmem.data --slab --page stat
[ ! -s kmem.err ] || fail "perf kmem stat on prec's file said: $(head -3 kmem.err)"
grep -Eq '^Total bytes requested: [1-9]' kmem.out ||
	fail "perf kmem stat on prec's file: no allocation: $(head -12 kmem.out)"
grep -Eq '^Total allocation requests +: +[1-9]' kmem.out ||
	fail "perf kmem stat on prec's file: no page allocation: $(sed -n '/page allocator/,+4p' kmem.out)"

# perf kwork: irq, softirq and workqueue, system-wide
need_tracepoint workqueue/workqueue_execute_start
rec kwork -a -R -m 1024 -c 1 -e irq:irq_handler_entry -e irq:irq_handler_exit \
	-e irq:softirq_raise -e irq:softirq_entry -e irq:softirq_exit \
	-e workqueue:workqueue_activate_work -e workqueue:workqueue_execute_start \
	-e workqueue:workqueue_execute_end -- "${work[@]}"
read_ok kwork perf kwork report -i kwork.data -S
[ ! -s kwork.err ] || fail "perf kwork report on prec's file said: $(head -3 kwork.err)"
grep -Eq 'Total count +: +[1-9]' kwork.out || fail "perf kwork report on prec's file: no work: $(tail -6 kwork.out)"
read_ok kwork.lat perf kwork latency -i kwork.data

# perf timechart -I: 48 tracepoints, each with its own filter
io=()
for d in enter exit; do
	for sc in read pread64 readv preadv write pwrite64 writev pwritev sync sync_file_range \
		fsync msync recvfrom recvmmsg recvmsg sendto sendmsg sendmmsg epoll_pwait \
		epoll_wait poll ppoll pselect6 select; do
		[ -d "/sys/kernel/tracing/events/syscalls/sys_${d}_$sc" ] &&
			io+=(-e "syscalls:sys_${d}_$sc" --filter "common_pid != $$")
	done
done
[ ${#io[@]} -gt 0 ] || skip "no syscalls tracepoints"
rec tc -a -R -c 1 "${io[@]}" -- "${dd[@]}"
read_ok tc perf timechart -i tc.data -o tc.svg
grep -q '^Written .* seconds of trace to tc.svg' tc.err || fail "perf timechart on prec's file: $(head -3 tc.err)"
[ "$(perf script -i tc.data --comm dd -F event 2>/dev/null | grep -c 'sys_exit_write')" -ge 1000 ] ||
	fail "timechart -I events on prec's file: dd's 1000 writes not there"
echo "PASS: perf trace, lock, kmem, kwork and timechart read prec's files of their own command lines"
