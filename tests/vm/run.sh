#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make vmtest: boots Debian's 6.1 cloud kernel under qemu (TCG) with NCPU
# vCPUs (default 8), runs tests/vm/suite.sh in the guest on an ext4 disk,
# prints its results; exits non-zero if a guest check failed or the guest
# did not finish (the console log is printed then).
# Usage: tests/vm/run.sh [NCPU] [STORM_N]   (env: BUILD=build, where prec
# is; VM_JOB=tests/vm/diag.sh, another guest job, whose argument is STORM_N)
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
log=$VM_CACHE/suite-$NCPU.log
vm_initramfs "$initrd" "${VM_JOB:-$VM_ROOT/tests/vm/suite.sh}" "$STORM_N" || exit 1
vm_log "booting $(basename "$VM_KERNEL") with $NCPU vCPUs (limit ${LIMIT}s), console: $log"
t0=$(date +%s)
vm_boot "$NCPU" "$initrd" "$log" "$LIMIT"
qrc=$?
rm -f "$initrd"
vm_log "guest done in $(( $(date +%s) - t0 )) s (qemu exit $qrc)"
tr -d '\r' <"$log" | sed -n 's/.*\(suite: \)/\1/; /^suite: /,/^VM-EXIT /p' | grep -v '^VM-EXIT '
rc=$(tr -d '\r' <"$log" | sed -n 's/^VM-EXIT \([0-9]*\).*/\1/p' | tail -1)
if [ "$qrc" != 0 ] || [ "$rc" != 0 ]; then
	[ "$qrc" = 124 ] && vm_log "the guest did not finish in ${LIMIT}s"
	vm_log "FAILED (guest suite exit ${rc:-none}); console log:"
	tr -d '\r' <"$log" | sed 's/^/console| /' >&2
	exit 1
fi
