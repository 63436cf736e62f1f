#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Each shard is fsynced once, by whoever writes its last chunk (a drainer
# at its stop, the main thread for the side band), never again at close:
# the manifest is written after them all (docs/reliability.md), and each
# fsync of an already durable file is one more wait at the close (on many
# CPUs: docs/many-cpus.md). strace -f -y of record -a -- true: one fsync
# per shard, and the recording is complete and merges.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd strace
e2e_tmpdir fsync

# LeakSanitizer cannot run under ptrace (sanitizer builds): not in the
# traced run.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
strace -f -qq -y -e trace=fsync,fdatasync -o "$tmp/trace" \
	"$PREC" record -q -d "$tmp/out" -a -e cpu-clock -F 99 -- true 2>"$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc = 0 ] || fail "record exited $rc"
complete "$tmp/out" || fail "manifest not complete"
"$PREC" merge "$tmp/out" -o "$tmp/out.data" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge"

# Lines like "123 fsync(5</tmp/.../cpu000.shard>) = 0".
grep -o 'fsync([0-9]*<[^>]*\.shard>' "$tmp/trace" | sed 's/.*<//; s/>$//' |
	sort | uniq -c >"$tmp/counts"
cat "$tmp/counts"
shards=$(ls "$tmp/out" | grep -c '\.shard$')
[ "$(wc -l <"$tmp/counts")" = "$shards" ] ||
	fail "$(wc -l <"$tmp/counts") of $shards shards fsynced"
awk '$1 != 1 { bad = bad " " $2 " (" $1 ")" } END { if (bad) { print "fsynced more than once:" bad; exit 1 } }' \
	"$tmp/counts" || fail "a shard fsynced more than once"
echo "PASS: $shards shards, each fsynced once"
