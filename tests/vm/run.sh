#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make vmtest: boots Debian's 6.1 cloud kernel under qemu (TCG) with NCPU
# vCPUs (default 8), runs tests/vm/suite.sh in the guest on an ext4 disk,
# prints its results; exits non-zero if a guest check failed or the guest
# did not finish (the console log is printed then).
# Usage: tests/vm/run.sh [NCPU] [STORM_N]   (env: BUILD=build, where prec
# is; VM_JOB=tests/vm/diag.sh, another guest job, whose argument is STORM_N;
# VM_LOG=NAME: the console log VM_CACHE/NAME.log, for boots side by side)
set -u
. "$(dirname "$0")/lib.sh"
NCPU=${1:-${NCPU:-8}}
STORM_N=${2:-${STORM_N:-10000}}
# The whole boot's limit: a hung guest fails instead of hanging CI.
LIMIT=${VM_TIMEOUT:-$((300 + 10 * NCPU))}

for f in prec tests/helpers/storm tests/helpers/pingpong tests/helpers/mfdump tests/helpers/xcpu; do
	[ -x "$VM_BUILD/$f" ] || { vm_log "$VM_BUILD/$f missing (make vmtest builds it)"; exit 1; }
done
vm_deps || exit 1
vm_kernel || exit 1
mkdir -p "$VM_CACHE"
initrd=$VM_CACHE/suite-$$.cpio
log=$VM_CACHE/${VM_LOG:-suite-$NCPU}.log
vm_initramfs "$initrd" "${VM_JOB:-$VM_ROOT/tests/vm/suite.sh}" "$STORM_N" || exit 1
vm_log "booting $(basename "$VM_KERNEL") with $NCPU vCPUs (limit ${LIMIT}s), console: $log"
t0=$(date +%s)
vm_boot "$NCPU" "$initrd" "$log" "$LIMIT"
qrc=$?
rm -f "$initrd"
vm_log "guest done in $(( $(date +%s) - t0 )) s (qemu exit $qrc)"
vm_result "$log" "$qrc" "$LIMIT" || exit 1
