# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Host side of the arm64 guest harness, sourced by tests/vm/a64_run.sh:
# Debian's arm64 cloud kernel, busybox-static, coreutils' date, linux-perf
# and the libraries perf loads, all fetched with apt-get download and
# unpacked with dpkg-deb -x into a sysroot (nothing arm64 is installed on
# the host); an initramfs of them with the arm64 build of prec, its unit
# tests, helpers and the workload; qemu-system-aarch64 with an emulated
# PMU. Everything downloaded is cached under $VM_CACHE/arm64.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

A64_CACHE=$VM_CACHE/arm64
A64_SYS=$A64_CACHE/sys
A64_KPKG=${A64_KPKG:-linux-image-cloud-arm64}
A64_MEM=${A64_MEM:-2G}
A64_APT=(-o DPkg::Lock::Timeout=600)

# What the harness runs on the host, installed when missing: qemu, the
# initramfs and disk tools, readelf (the guest binaries' libraries) and
# the host's perf (it reads the guest's files too).
a64_deps() {
	local need=() pair cmd
	for pair in qemu-system-aarch64:qemu-system-arm cpio:cpio mkfs.ext4:e2fsprogs \
		    debugfs:e2fsprogs readelf:binutils timeout:coreutils perf:linux-perf; do
		cmd=${pair%%:*}
		command -v "$cmd" >/dev/null 2>&1 || need+=("${pair#*:}")
	done
	[ ${#need[@]} = 0 ] && return 0
	vm_log "installing ${need[*]}"
	[ "$(id -u)" = 0 ] || { vm_log "need root to install ${need[*]}"; return 1; }
	apt-get "${A64_APT[@]}" update -qq >/dev/null &&
		DEBIAN_FRONTEND=noninteractive apt-get "${A64_APT[@]}" install -y -qq \
			--no-install-recommends "${need[@]}" >/dev/null
}

# The arm64 library packages (lib*, zlib*) the packages $@ need,
# recursively (the Python and Perl interpreters' own modules aside: perf
# loads their libraries only).
a64_libs() {
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$@" 2>/dev/null |
		awk '/^(lib|zlib)[^ ]*:arm64$/ && !/-(stdlib|minimal):/ { print }' | sort -u
}

# Unpacks the guest's Debian packages into $A64_SYS, once: the kernel the
# cloud metapackage names, busybox-static, coreutils (GNU date has
# nanoseconds), linux-perf, binutils' addr2line (perf report runs it for
# inlined frames) and their libraries, and the libraries a dynamic build of
# prec would load.
a64_sysroot() {
	local kdep libs deb tmp
	# the stamp names the package set (2: with binutils): a cache made for
	# another set is made again
	[ "$(cat "$A64_SYS/.complete" 2>/dev/null)" = 2 ] && return 0
	if ! apt-cache show linux-perf:arm64 >/dev/null 2>&1; then
		[ "$(id -u)" = 0 ] || { vm_log "no arm64 package lists (as root: dpkg --add-architecture arm64)"; return 1; }
		dpkg --add-architecture arm64
		apt-get "${A64_APT[@]}" update -qq >/dev/null || return 1
	fi
	kdep=$(apt-cache depends "$A64_KPKG:arm64" | awk '/Depends: linux-image-/ { print $2; exit }')
	[ -n "$kdep" ] || { vm_log "no kernel package behind $A64_KPKG:arm64"; return 1; }
	libs=$(a64_libs linux-perf:arm64 binutils-aarch64-linux-gnu:arm64)
	[ -n "$libs" ] || { vm_log "no library packages found for linux-perf:arm64"; return 1; }
	tmp=$A64_CACHE/unpack
	rm -rf "$tmp" "$A64_CACHE/deb"
	mkdir -p "$tmp" "$A64_CACHE/deb"
	vm_log "downloading $kdep, busybox-static, coreutils, linux-perf, binutils and $(echo "$libs" | wc -l) libraries (arm64)"
	# shellcheck disable=SC2086 # one word per package
	if ! (cd "$A64_CACHE/deb" && apt-get download -q "$kdep" busybox-static:arm64 coreutils:arm64 \
		linux-perf:arm64 binutils-aarch64-linux-gnu:arm64 liburing2:arm64 liblz4-1:arm64 \
		$libs >../download.log 2>&1); then
		vm_log "apt-get download failed:"
		grep -v 'unsandboxed as root' "$A64_CACHE/download.log" >&2
		return 1
	fi
	for deb in "$A64_CACHE"/deb/*.deb; do
		dpkg-deb -x "$deb" "$tmp" || return 1
	done
	rm -rf "$A64_SYS" "$A64_CACHE/deb"
	mv "$tmp" "$A64_SYS"
	echo 2 >"$A64_SYS/.complete"
}

# The path, in the sysroot, of the file $1 (a guest path) names: symbolic
# links are followed inside the sysroot, never into the host's tree.
a64_resolve() {
	local p=$1 t n=0
	while [ -L "$A64_SYS$p" ] && [ $n -lt 20 ]; do
		t=$(readlink "$A64_SYS$p")
		case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
		n=$((n + 1))
	done
	[ -e "$A64_SYS$p" ] && echo "$A64_SYS$p"
}

# The guest path of the library SONAME $1, where the guest's loader finds it.
a64_find_lib() {
	local d
	for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib /usr/lib; do
		[ -e "$A64_SYS$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# Copies the arm64 ELF file $2 into the tree $1 at the guest path $3, and
# its program interpreter and the libraries it needs (recursively) from
# the sysroot, at their guest paths.
a64_copy_elf() {
	local root=$1 src=$2 dst=$3
	mkdir -p "$root$(dirname "$dst")"
	cp -L "$src" "$root$dst" || return 1
	a64_copy_needed "$root" "$root$dst"
}

a64_copy_needed() {
	local root=$1 f=$2 so p real
	for p in $(readelf -l "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'); do
		[ -e "$root$p" ] && continue
		real=$(a64_resolve "$p") || { vm_log "$f: interpreter $p not in $A64_SYS"; return 1; }
		mkdir -p "$root$(dirname "$p")"
		cp "$real" "$root$p"
	done
	for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		p=$(a64_find_lib "$so") || { vm_log "$f: $so not in $A64_SYS"; return 1; }
		[ -e "$root$p" ] && continue
		real=$(a64_resolve "$p") || { vm_log "$f: $p is a dangling link in $A64_SYS"; return 1; }
		mkdir -p "$root$(dirname "$p")"
		cp "$real" "$root$p"
		a64_copy_needed "$root" "$root$p" || return 1
	done
}

# Packs the guest tree $1 (kept: the host reads the guest's files with
# it as --symfs) and its initramfs $2, with the guest job $3 (run by init
# with the words of /job.args: a64_args adds that file).
a64_initramfs() {
	local root=$1 out=$2 job=$3 f t strip
	strip=$(command -v aarch64-linux-gnu-strip || command -v strip)
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,mnt,etc,root,lib}
	cp "$A64_SYS/bin/busybox" "$root/bin/busybox"
	for f in sh mount mkdir; do ln -s busybox "$root/bin/$f"; done
	a64_copy_elf "$root" "$(a64_resolve /usr/bin/perf)" /usr/bin/perf || return 1
	a64_copy_elf "$root" "$(a64_resolve /bin/date)" /usr/bin/gdate || return 1
	# the unit tests map and parse /bin/true as a real ELF file with a
	# build-id (busybox's link would not do): coreutils'
	a64_copy_elf "$root" "$(a64_resolve /bin/true)" /bin/true || return 1
	# perf report runs addr2line; unit tests run readelf
	for f in addr2line readelf; do
		a64_copy_elf "$root" "$(a64_resolve /usr/bin/aarch64-linux-gnu-$f)" /usr/bin/$f || return 1
	done
	a64_copy_elf "$root" "$VM_BUILD/prec" /usr/bin/prec || return 1
	a64_copy_elf "$root" "$VM_BUILD/tests/vm/pmusplit" /usr/bin/pmusplit || return 1
	# The unit tests and helpers where the unit tests look for them
	# (PREC_BUILD=/opt/prec), the helpers on PATH as well.
	for f in "$VM_BUILD"/tests/unit/* "$VM_BUILD"/tests/helpers/*; do
		if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
		case $f in *.o | *.d) continue ;; esac
		t=/opt/prec/tests/${f#"$VM_BUILD"/tests/}
		a64_copy_elf "$root" "$f" "$t" || return 1
		# their debug info is most of their size, and of the boot's time
		# unpacking them
		"$strip" --strip-debug "$root$t" || return 1
		case $f in */helpers/*) ln -sf "$t" "$root/usr/bin/${f##*/}" ;; esac
	done
	vm_guest_files "$root" "$job"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
}

# Writes the initramfs $3: $1's with /job.args holding the words $2 (the
# kernel unpacks concatenated archives in turn).
a64_args() {
	local dir
	dir=$(mktemp -d "$A64_CACHE/args.XXXXXX")
	printf '%s\n' "$2" >"$dir/job.args"
	cat "$1" - >"$3" < <(cd "$dir" && echo job.args | cpio -o -H newc --quiet)
	rm -rf "$dir"
}

# The kernel image in the sysroot.
a64_kernel() {
	A64_KERNEL=$(ls "$A64_SYS"/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
	[ -n "$A64_KERNEL" ] || { vm_log "no kernel in $A64_SYS/boot"; return 1; }
}

# Boots the arm64 guest in mode $1 on initramfs $2 and the fresh ext4
# disk $5 (kept for the host to read), console to $3, giving up after $4
# seconds; qemu's status (124: timed out). Modes: icount, one vCPU whose
# clock is its instruction count (-icount shift=0: a cycle is an
# instruction, counts are exact and repeat); smp, two vCPUs running free
# (multi-threaded TCG; icount would make every vCPU follow one count).
a64_boot() {
	local mode=$1 initrd=$2 log=$3 limit=$4 disk=$5 cpu=(-smp 1 -icount shift=0 -accel tcg)
	[ "$mode" = smp ] && cpu=(-smp 2 -accel "tcg,thread=multi")
	rm -f "$disk"
	truncate -s "${A64_DISK_SIZE:-2G}" "$disk"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$disk" || return 1
	timeout -k 10 "$limit" nice -n "$VM_NICE" qemu-system-aarch64 \
		-M virt,gic-version=3 -cpu max,pmu=on,pauth-impdef=on "${cpu[@]}" -m "$A64_MEM" \
		-kernel "$A64_KERNEL" -initrd "$initrd" \
		-append "console=ttyAMA0 quiet panic=-1${VM_APPEND:+ $VM_APPEND}" \
		-drive "file=$disk,if=none,id=d0,format=raw" -device nvme,drive=d0,serial=prec \
		-nic none -nographic -no-reboot -monitor none </dev/null >"$log" 2>&1
}
