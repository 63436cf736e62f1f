#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make vmtest ARCH=arm64: boots Debian's arm64 6.1 cloud kernel under
# qemu-system-aarch64 with an emulated PMU, twice: one vCPU under -icount
# (exact counts), then two vCPUs running free; runs tests/vm/a64_suite.sh
# in each (prec beside perf), prints its lines; then the host's perf reads
# the guest's merged files (--symfs: the guest's tree) with nothing on
# stderr and reports what the guest's perf reported. Exits non-zero if a
# check failed or a guest did not finish (its console is printed then).
# Usage: tests/vm/a64_run.sh [MODES [CHECKS]]   (MODES: "icount smp" by
# default; CHECKS: a64_suite.sh's; env: BUILD=build-arm64, where the arm64
# prec, tests and tests/vm/pmusplit are)
set -u
BUILD=${BUILD:-build-arm64}
# shellcheck source=tests/vm/a64_lib.sh
. "$(dirname "$0")/a64_lib.sh"
MODES=${1:-icount smp}
CHECKS=${2:-all}
# A boot's limit: a hung guest fails instead of hanging CI.
LIMIT=${VM_TIMEOUT:-900}

for f in prec tests/vm/pmusplit tests/unit/crc32c tests/helpers/mkshards; do
	[ -x "$VM_BUILD/$f" ] || { vm_log "$VM_BUILD/$f missing (make vmtest ARCH=arm64 builds it)"; exit 1; }
done
a64_deps || exit 1
a64_sysroot || exit 1
a64_kernel || exit 1

# host_perf FILE OUT DIR ROOT: the host's perf report and script of FILE
# (as the guest's export_file ran them) into OUT.report, OUT.script and
# their stderr, sorted and counted, into OUT.err.
host_perf() {
	local f=$1 out=$2 dir=$3 root=$4
	perf report -i "$f" --symfs "$root" --kallsyms "$dir/kallsyms" --stdio --no-children -g none \
		-n --sort comm,dso,sym -q >"$out.report" 2>"$out.err.all"
	perf script -i "$f" --symfs "$root" --kallsyms "$dir/kallsyms" -G \
		-F comm,tid,time,ip,sym,dso >"$out.script" 2>>"$out.err.all"
	sort "$out.err.all" | uniq -c >"$out.err"
	rm -f "$out.err.all"
}

# same_but_vdso A B: files A and B the same but for their [vdso] lines:
# the guest's perf finds the guest's vdso in its own memory, the host's
# has no arm64 one to find (its symbols show as addresses).
same_but_vdso() {
	cmp -s <(grep -v '\[vdso\]' "$1") <(grep -v '\[vdso\]' "$2")
}

# host_read DIR ROOT: the host's perf reads every merged file of DIR (the
# guest's export) with the guest's tree ROOT as --symfs and the guest's
# kallsyms: nothing on stderr but what it also says of perf's own
# recordings there (NAME.perf.data: the same commands recorded by perf in
# the same boot), and perf report and perf script print what the guest's
# perf printed of the same file.
host_read() {
	local dir=$1 root=$2 f name bad=0 n=0
	: >"$dir/perf-says"
	for f in "$dir"/*.perf.data; do
		[ -e "$f" ] || continue
		host_perf "$f" "${f%.data}.host" "$dir" "$root"
		cat "${f%.data}.host.err" >>"$dir/perf-says"
	done
	# the messages without their counts (files of other sizes)
	sed 's/^ *[0-9]* //' "$dir/perf-says" | sort -u >"$dir/perf-says.msgs"
	[ -s "$dir/perf-says.msgs" ] &&
		echo "note host_read: the host's perf says of perf's own arm64 recordings: $(tr '\n' ';' <"$dir/perf-says.msgs")"
	for f in "$dir"/*.data; do
		case $f in *.perf.data) continue ;; esac
		name=${f##*/}
		name=${name%.data}
		n=$((n + 1))
		host_perf "$f" "$dir/$name.host" "$dir" "$root"
		sed 's/^ *[0-9]* //' "$dir/$name.host.err" | sort -u |
			comm -23 - "$dir/perf-says.msgs" >"$dir/$name.host.new"
		if [ -s "$dir/$name.host.new" ]; then
			echo "FAIL host_read: host perf on $name: stderr not empty:"
			sed 's/^/     | /' "$dir/$name.host.new" | head -10
			bad=1
		elif ! same_but_vdso "$dir/$name.report" "$dir/$name.host.report"; then
			echo "FAIL host_read: host perf report of $name differs from the guest's:"
			diff "$dir/$name.report" "$dir/$name.host.report" | head -10 | sed 's/^/     | /'
			bad=1
		elif ! same_but_vdso "$dir/$name.script" "$dir/$name.host.script"; then
			echo "FAIL host_read: host perf script of $name differs from the guest's:"
			diff "$dir/$name.script" "$dir/$name.host.script" | head -10 | sed 's/^/     | /'
			bad=1
		fi
	done
	[ $bad = 0 ] && echo "ok   host_read: the host's $(perf --version) read $n merged files as the guest's perf did, nothing on stderr but the above"
	[ $bad = 0 ] && [ $n -gt 0 ]
}

fail=0
root=$A64_CACHE/root
base=$A64_CACHE/suite.cpio
t0=$(date +%s)
a64_initramfs "$root" "$base" "$VM_ROOT/tests/vm/a64_suite.sh" || exit 1
vm_log "initramfs $(($(du -k "$base" | cut -f1) / 1024)) MiB in $(($(date +%s) - t0)) s"
for mode in $MODES; do
	initrd=$A64_CACHE/suite-$mode.cpio
	log=$A64_CACHE/suite-$mode.log
	disk=$A64_CACHE/disk-$mode.img
	a64_args "$base" "$mode $CHECKS" "$initrd" || exit 1
	vm_log "booting $(basename "$A64_KERNEL") ($mode) (limit ${LIMIT}s), console: $log"
	t1=$(date +%s)
	a64_boot "$mode" "$initrd" "$log" "$LIMIT" "$disk"
	qrc=$?
	t2=$(date +%s)
	rm -f "$initrd"
	vm_result "$log" "$qrc" "$LIMIT" || fail=1
	# The guest's export, read off its disk without mounting it.
	rm -rf "$A64_CACHE/export-$mode"
	if debugfs -R "rdump /export $A64_CACHE" "$disk" >/dev/null 2>&1 && [ -d "$A64_CACHE/export" ]; then
		mv "$A64_CACHE/export" "$A64_CACHE/export-$mode"
		host_read "$A64_CACHE/export-$mode" "$root" || fail=1
	else
		echo "FAIL host_read: no /export on the $mode guest's disk"
		fail=1
	fi
	rm -f "$disk"
	vm_log "$mode: guest $((t2 - t1)) s (qemu exit $qrc), host reads $(($(date +%s) - t2)) s"
done
rm -f "$base"
exit $fail
