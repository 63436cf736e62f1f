#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/walk/walk.sh [TREE]: the two walks of issue 37 through the
# recorder's files, measured: a --switch-output cut (prec_session__cut,
# whole) and the stop (cmd_record.c's stop(), its first 400 calls). Builds
# TREE (default: this checkout) with -finstrument-functions and
# scripts/walk/tracer.c into TREE/build-walk, records twice, and prints
# walk.py's counts for each, through every file, within src/record, and
# within src/record with a getter read where it is used (walk.py
# --getters). Needs root (perf events) and nm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "${1:-$here/../..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -c -fPIC "$here/tracer.c" -o "$tmp/tracer.o"
# the objects, then the link line make would run, with the tracer added
mk=(make -C "$tree" -s BUILD=build-walk EXTRA_CFLAGS="-finstrument-functions")
"${mk[@]}" -j2 -k build-walk/prec >/dev/null 2>&1 || true
link=$("${mk[@]}" -n -B build-walk/prec | grep -- ' -o build-walk/prec ' | tail -1)
(cd "$tree" && eval "$link $tmp/tracer.o")
bin=$tree/build-walk/prec
cd "$tmp"
PREC_WALK_OUT=$tmp/cut.trace "$bin" record -q -d cut --switch-output -e cpu-clock -- \
	sh -c 'sleep 0.5; kill -USR2 $PPID; sleep 0.5' >/dev/null 2>&1
python3 "$here/walk.py" "$bin" cut.trace prec_session__cut
echo "within src/record (another layer's calls stay in their caller):"
python3 "$here/walk.py" "$bin" cut.trace prec_session__cut 0 --layer src/record/
echo "within src/record, a getter read where it is used:"
python3 "$here/walk.py" "$bin" cut.trace prec_session__cut 0 --layer src/record/ --getters
PREC_WALK_OUT=$tmp/stop.trace "$bin" record -q -d stop -e cpu-clock -- sleep 0.2 >/dev/null 2>&1
python3 "$here/walk.py" "$bin" stop.trace stop 400
echo "within src/record (another layer's calls stay in their caller):"
python3 "$here/walk.py" "$bin" stop.trace stop 400 --layer src/record/
echo "within src/record, a getter read where it is used:"
python3 "$here/walk.py" "$bin" stop.trace stop 400 --layer src/record/ --getters
