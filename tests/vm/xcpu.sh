#!/bin/sh
# SPDX-License-Identifier: MIT
# A guest job timing one cross-CPU operation on this many vCPUs (run with
# VM_JOB=tests/vm/xcpu.sh tests/vm/run.sh NCPU ROUNDS): tests/helpers/xcpu
# from CPU 0 to every other CPU (perf_event_open of a CPU's event, its
# enable and disable ioctls, a thread created there, a pipe round trip),
# medians, means and maxima in microseconds. On a real machine each is a
# few microseconds; under the emulator it is how long the host takes to
# run the other vCPU, which is what prec's and perf's starts and stops
# wait on once per CPU (bench/results/vm.md).
. /guest_lib.sh
echo "suite: xcpu, $NCPU CPUs, kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime) s"
xcpu "${1:-3}"
# The stop's syncs: a file per CPU, fsynced by a thread on each at once or
# by one syncfs (on the ext4 disk).
mkdir -p /mnt/xsync
xcpu sync /mnt/xsync "${1:-3}"
# The same with every other vCPU busy (a storm on each): the vCPUs the
# host runs in turn are all runnable.
c=1
pids=
while [ $c -lt "$NCPU" ]; do
	taskset -c $c storm 2000000000 >/dev/null 2>&1 &
	pids="$pids $!"
	c=$((c + 1))
done
sleep 1
echo "busy: $(xcpu "${1:-3}")"
kill $pids 2>/dev/null
exit 0
