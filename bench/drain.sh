#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Drain throughput benchmark: zero-copy vs copy-then-write, 512 KiB and
# 8 MiB rings, shard on /var/tmp (or $1). Prints GB/s and CPU seconds.
# Usage: bench/drain.sh [DIR [MiB-per-run [reps]]]; env BUILD (build dir).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
make --no-print-directory BUILD="$BUILD" -j"$(nproc)" "$BUILD/bench/drain" >&2
exec "$BUILD/bench/drain" "${1:-/var/tmp}" "${2:-512}" "${3:-5}"
