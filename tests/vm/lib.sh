# SPDX-License-Identifier: MIT
# Host side of the VM harness, sourced by tests/vm/run.sh and bench/vm.sh:
# installs what a boot needs (Debian packages, the 6.1 cloud kernel), packs
# an initramfs (busybox, prec, perf, test helpers, their libraries and a guest
# job), makes an ext4 disk on an emulated NVMe drive, and boots qemu (TCG).
# Everything downloaded or built is cached under $VM_CACHE.

VM_CACHE=${VM_CACHE:-/var/tmp/prec-vm}
VM_KPKG=${VM_KPKG:-linux-image-cloud-amd64}
VM_MEM=${VM_MEM:-4G}
VM_DISK_SIZE=${VM_DISK_SIZE:-4G}
# qemu's niceness: 10 leaves the host's other work room; on a shared host
# whose other work starves the guest, VM_NICE=0.
VM_NICE=${VM_NICE:-10}
# TCG's threads: "single" runs every vCPU on one host thread. Under
# "multi" (a host thread per vCPU) this Debian 12 qemu (7.2) hangs the
# 6.1 guest when a tracepoint is switched on or off while CPUs schedule:
# the patching CPU waits in text_poke_bp_batch for an IPI that another
# vCPU never answers (soft lockup; tests/vm/tptoggle.sh shows it with
# tracefs alone, no prec or perf, within a few dozen switches).
VM_TCG_THREAD=${VM_TCG_THREAD:-single}
VM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_BUILD=${BUILD:-build}
case $VM_BUILD in /*) ;; *) VM_BUILD=$VM_ROOT/$VM_BUILD ;; esac

vm_log() { echo "vm: $*" >&2; }

# Debian packages the harness runs on the host, installed when missing.
vm_deps() {
	local need=() cmd pkg
	for pair in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		    cpio:cpio mkfs.ext4:e2fsprogs timeout:coreutils strace:strace \
		    file:file; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
	done
	# The guest needs a static busybox: a dynamic one would miss its libraries.
	if command -v busybox >/dev/null && ! file -L "$(command -v busybox)" 2>/dev/null |
		grep -q 'statically linked'; then
		need+=(busybox-static)
	fi
	command -v perf >/dev/null 2>&1 || need+=(linux-perf)
	[ ${#need[@]} = 0 ] && return 0
	vm_log "installing ${need[*]}"
	[ "$(id -u)" = 0 ] || { vm_log "need root to install ${need[*]}"; return 1; }
	apt-get update -qq >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"${need[@]}" >/dev/null
}

# The kernel image: the newest Debian cloud kernel the package names,
# downloaded once (apt-get download) and extracted under $VM_CACHE.
vm_kernel() {
	local dep deb
	VM_KERNEL=$(ls "$VM_CACHE"/k/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
	[ -n "$VM_KERNEL" ] && return 0
	mkdir -p "$VM_CACHE/k"
	dep=$(apt-cache depends "$VM_KPKG" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
	if [ -z "$dep" ]; then
		apt-get update -qq >/dev/null
		dep=$(apt-cache depends "$VM_KPKG" | awk '/Depends: linux-image-/ { print $2; exit }')
	fi
	[ -n "$dep" ] || { vm_log "no kernel package behind $VM_KPKG"; return 1; }
	vm_log "downloading $dep"
	(cd "$VM_CACHE" && apt-get download -q "$dep" 2>/dev/null) || return 1
	deb=$(ls "$VM_CACHE/$dep"_*.deb | tail -1)
	dpkg-deb -x "$deb" "$VM_CACHE/k" || return 1
	VM_KERNEL=$(ls "$VM_CACHE"/k/boot/vmlinuz-* | sort -V | tail -1)
	[ -n "$VM_KERNEL" ]
}

# perf's real binary: Debian's /usr/bin/perf is either the binary or a
# wrapper script that runs perf_<version>.
vm_perf_bin() {
	local p
	p=$(command -v perf) || return 1
	if file -L "$p" | grep -q ELF; then
		readlink -f "$p"
		return
	fi
	p=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1)
	[ -n "$p" ] && readlink -f "$p"
}

# Copies a binary and the libraries ldd names into the tree $1 at $3 (the
# guest path; default: the same path as on the host).
vm_copy_bin() {
	local root=$1 src=$2 dst=${3:-$2} lib
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst"
	for lib in $(ldd "$src" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# Packs the initramfs $1 with the guest job script $2 (run by init as
# /job.sh with the words of $3 as its arguments).
vm_initramfs() {
	local out=$1 job=$2 args=$3 root perfbin h
	root=$(mktemp -d "$VM_CACHE/root.XXXXXX")
	mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,mnt,etc,root}
	cp -L "$(command -v busybox)" "$root/bin/busybox"
	for a in sh mount mkdir; do ln -s busybox "$root/bin/$a"; done
	vm_copy_bin "$root" "$VM_BUILD/prec" /usr/bin/prec
	# VM_PREC_OLD=path: a second prec (e.g. before a change) as prec.old,
	# for before/after runs in one boot.
	[ -n "${VM_PREC_OLD:-}" ] && vm_copy_bin "$root" "$VM_PREC_OLD" /usr/bin/prec.old
	perfbin=$(vm_perf_bin) || { vm_log "no perf binary"; rm -rf "$root"; return 1; }
	vm_copy_bin "$root" "$perfbin" /usr/bin/perf
	# libtraceevent's plugins, where perf looks for them.
	for h in /usr/lib/*/traceevent /usr/lib/traceevent; do
		[ -d "$h" ] && mkdir -p "$root$h" && cp -r "$h/." "$root$h/"
	done
	vm_copy_bin "$root" "$(command -v strace)" /usr/bin/strace
	# readelf: the kcore check compares kcore_dir/kcore's program headers.
	command -v readelf >/dev/null && vm_copy_bin "$root" "$(command -v readelf)" /usr/bin/readelf
	# A module without dependencies, loaded by the kcore check: kcore's
	# modules segment then exists.
	h=$(ls "$VM_CACHE"/k/lib/modules/*/kernel/drivers/net/dummy.ko 2>/dev/null | head -1)
	[ -n "$h" ] && mkdir -p "$root/lib/modules" && cp "$h" "$root/lib/modules/dummy.ko"
	# A clock with nanoseconds: busybox date has none.
	vm_copy_bin "$root" /bin/date /usr/bin/gdate
	for h in storm pingpong shardcount mfdump xcpu; do
		vm_copy_bin "$root" "$VM_BUILD/tests/helpers/$h" "/usr/bin/$h"
	done
	vm_guest_files "$root" "$job"
	printf '%s\n' "$args" >"$root/job.args"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
	rm -rf "$root"
}

# What every guest tree $1 has beside its binaries: init, the job $2 (as
# /job.sh), guest_lib.sh, root's passwd and group entries, the console
# and null devices.
vm_guest_files() {
	local root=$1 job=$2
	cp "$VM_ROOT/tests/vm/init" "$root/init"
	cp "$job" "$root/job.sh"
	cp "$VM_ROOT/tests/vm/guest_lib.sh" "$root/guest_lib.sh"
	chmod +x "$root/init" "$root/job.sh"
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
}

# Prints the suite's lines from the console log $1 of a boot whose qemu
# exited with $2 (124: after the limit of $3 s); returns 1, with the whole
# console on stderr, if qemu or the guest's job failed.
vm_result() {
	local log=$1 qrc=$2 limit=$3 rc
	tr -d '\r' <"$log" | sed -n 's/.*\(suite: \)/\1/; /^suite: /,/^VM-EXIT /p' | grep -v '^VM-EXIT '
	rc=$(tr -d '\r' <"$log" | sed -n 's/^VM-EXIT \([0-9]*\).*/\1/p' | tail -1)
	[ "$qrc" = 0 ] && [ "$rc" = 0 ] && return 0
	[ "$qrc" = 124 ] && vm_log "the guest did not finish in ${limit}s"
	vm_log "FAILED (guest suite exit ${rc:-none}); console log:"
	tr -d '\r' <"$log" | sed 's/^/console| /' >&2
	return 1
}

# Boots the guest with $1 vCPUs on initramfs $2, a fresh ext4 disk, and
# writes the console to $3; gives up after $4 seconds. Returns qemu's status
# (124: timed out).
vm_boot() {
	local ncpu=$1 initrd=$2 log=$3 limit=$4 disk
	disk=$VM_CACHE/disk-$$.img
	rm -f "$disk"
	truncate -s "$VM_DISK_SIZE" "$disk"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$disk" || return 1
	timeout -k 10 "$limit" nice -n "$VM_NICE" qemu-system-x86_64 \
		-accel tcg,thread=$VM_TCG_THREAD -cpu "${VM_CPU:-max}" -smp "$ncpu" -m "$VM_MEM" \
		-kernel "$VM_KERNEL" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 no_timer_check${VM_APPEND:+ $VM_APPEND}" \
		-drive "file=$disk,if=none,id=d0,format=raw" -device nvme,drive=d0,serial=prec \
		-nic none -nographic -no-reboot -monitor none </dev/null >"$log" 2>&1
	local rc=$?
	rm -f "$disk"
	return $rc
}
