#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what prec's build and tests need on Debian 12; quick when all is present.
# `deps.sh deb`: what `make deb` needs instead (the build's -dev packages and
# the packaging tools).
# `deps.sh arm64`: what `make ARCH=arm64` needs: on an amd64 host the cross
# compiler, the :arm64 -dev packages (after dpkg --add-architecture arm64) and
# qemu-user-static to run the arm64 unit tests; on an arm64 host the native
# build's packages and glibc's static libraries.
set -euo pipefail
pkgs=(gcc make pkg-config liburing-dev libelf-dev liblz4-dev libzstd-dev libpfm4-dev linux-perf binutils strace util-linux python3)
target=deps
foreign=
case "${1:-}" in
deb)
	target=deb
	pkgs=(build-essential pkg-config liburing-dev libelf-dev liblz4-dev libzstd-dev libpfm4-dev dpkg-dev debhelper lintian)
	;;
arm64)
	target="deps ARCH=arm64"
	if [ "$(dpkg --print-architecture)" = arm64 ]; then
		pkgs+=(libc6-dev)
	else
		foreign=arm64
		pkgs=(make pkg-config gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
		      liburing-dev:arm64 libelf-dev:arm64 liblz4-dev:arm64 libzstd-dev:arm64 zlib1g-dev:arm64)
	fi
	;;
"") ;;
*)
	echo "deps: unknown target '$1' (deb or arm64)" >&2
	exit 1
	;;
esac
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run 'make $target' as root)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Other apt users (a CI job's neighbours) may hold the lock for a while.
apt_opts=(-o DPkg::Lock::Timeout=600)
if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
	dpkg --add-architecture "$foreign"
fi
apt-get "${apt_opts[@]}" update -qq
# The :arm64 -dev packages pull the same version of a few shared amd64
# libraries; without this option apt would upgrade every package built from
# the same source as well.
apt-get "${apt_opts[@]}" -o APT::Get::Upgrade-By-Source-Package=false \
	install -y -qq "${missing[@]}" >/dev/null
