#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what prec's build and tests need on Debian 12; quick when all is present.
# `deps.sh deb`: what `make deb` needs instead (the build's -dev packages and
# the packaging tools).
set -euo pipefail
pkgs=(gcc make pkg-config liburing-dev libelf-dev liblz4-dev libzstd-dev libpfm4-dev linux-perf binutils strace util-linux python3)
target=deps
if [ "${1:-}" = deb ]; then
	target=deb
	pkgs=(build-essential pkg-config liburing-dev libelf-dev liblz4-dev libzstd-dev libpfm4-dev dpkg-dev debhelper lintian)
fi
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
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
