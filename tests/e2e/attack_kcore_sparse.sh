#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A --kcore recording's kcore_dir is copied into the merged perf.data
# directory; its files are whatever the recording's writer put there. A
# kallsyms of one line extended by a 1 GiB hole (and a kcore with a hole
# in its middle) takes a few blocks of disk: the copy must keep the holes
# (the same size and bytes, about as little disk), where the old copy
# wrote every zero out (root's merge wrote 1 GiB for 4 KiB; a terabyte
# hole fills the disk).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd truncate
e2e_tmpdir kcore-sparse "${TMPDIR:-/var/tmp}"
cd "$tmp" || fail "cd $tmp"

"$H/mkshards" rec --shards 1 --records-per-shard 10 --sideband 0 --kcore >/dev/null ||
	fail "mkshards"
mkdir -m 700 rec/kcore_dir
printf 'ffffffff81000000 T _stext\n' >rec/kcore_dir/kallsyms
truncate -s 1G rec/kcore_dir/kallsyms || fail "truncate"
: >rec/kcore_dir/modules
head -c 4096 /dev/urandom >rec/kcore_dir/kcore
truncate -s 8192 rec/kcore_dir/kcore
# no hole on this file system: nothing to test
[ "$(du -k rec/kcore_dir/kallsyms | cut -f1)" -lt 1024 ] || skip "no sparse files in $tmp"

"$PREC" merge rec -o out.data 2>err || fail_rc err "merge"
for f in kallsyms modules kcore; do
	[ "$(stat -c %s "out.data/kcore_dir/$f")" = "$(stat -c %s "rec/kcore_dir/$f")" ] ||
		fail "kcore_dir/$f: $(stat -c %s "out.data/kcore_dir/$f") bytes, not $(stat -c %s "rec/kcore_dir/$f")"
done
kb=$(du -k out.data/kcore_dir/kallsyms | cut -f1)
[ "$kb" -lt 1024 ] || fail "kcore_dir/kallsyms: the copy takes $kb KiB of disk"
cmp -s rec/kcore_dir/kcore out.data/kcore_dir/kcore || fail "kcore_dir/kcore: not the same bytes"
cmp -s -n 1048576 rec/kcore_dir/kallsyms out.data/kcore_dir/kallsyms ||
	fail "kcore_dir/kallsyms: its first MiB differs"
[ "$(tail -c 4096 out.data/kcore_dir/kallsyms | tr -d '\0' | wc -c)" = 0 ] ||
	fail "kcore_dir/kallsyms: its end is not zeros"
echo "ok: kcore_dir's holes stay holes in the merged copy ($kb KiB for 1 GiB)"
