#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge of a --kcore recording (mkshards --kcore: the manifest's
# KCORE section, kcore_dir made here) into a named file: perf's directory
# layout, FILE/data plus a copy of kcore_dir (0700, files 0400, the same
# bytes), which perf script reads as a perf.data directory (every sample);
# an existing FILE refused without -f, replaced with it (a directory or a
# file, nothing left beside it); to stdout the perf.data alone with one
# note; a symlink in kcore_dir refused, nothing left; a kcore whose size
# is not the manifest's refused in one line, nothing left. (The real kcore_dir,
# against perf's own, is the x86 guest's check: tests/vm/suite.sh.)
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd perf
e2e_tmpdir kcore-layout
cd "$tmp" || fail "cd $tmp"

"$H/mkshards" rec --shards 2 --records-per-shard 100 --sideband 0 --kcore >/dev/null ||
	fail "mkshards"
mkdir -m 700 rec/kcore_dir
printf 'ffffffff81000000 T _stext\n' >rec/kcore_dir/kallsyms
: >rec/kcore_dir/modules
head -c 8192 /dev/urandom >rec/kcore_dir/kcore
chmod 400 rec/kcore_dir/*
want=". ./data ./kcore_dir ./kcore_dir/kallsyms ./kcore_dir/kcore ./kcore_dir/modules "
tree() { (cd "$1" && find . | sort | tr '\n' ' '); }
samples() { perf script -i "$1" -F tid 2>/dev/null | wc -l; }
no_temp() {
	local left
	left=$(find . -maxdepth 1 -name '*.prec-*')
	[ -z "$left" ] || fail "$1: left behind: $left"
}

# the manifest says it is there
got=$("$PREC" info rec | grep '^kcore: ')
[ "$got" = "kcore:       kcore_dir/kcore, 1 code segments, 8192 bytes (with kallsyms, modules)" ] ||
	fail "prec info: kcore line: '$got'"
"$PREC" info --json rec | grep -q '"kcore": {"segments": 1, "bytes": 8192}' ||
	fail "prec info --json: no kcore object"

"$PREC" merge rec -o out.data 2>err || fail_rc err "prec merge -o out.data"
[ "$(tree out.data)" = "$want" ] || fail "out.data: want $want, got $(tree out.data)"
[ "$(stat -c %a out.data)" = 700 ] || fail "out.data: mode $(stat -c %a out.data)"
for f in kallsyms modules kcore; do
	cmp -s "rec/kcore_dir/$f" "out.data/kcore_dir/$f" || fail "out.data/kcore_dir/$f: not the recording's"
	[ "$(stat -c %a "out.data/kcore_dir/$f")" = 400 ] || fail "kcore_dir/$f: mode $(stat -c %a "out.data/kcore_dir/$f")"
done
n=$(samples out.data)
[ "$n" = 200 ] || fail "perf script -i out.data: $n samples, want 200"
no_temp "merge -o"
echo "merge -o out.data: $(tree out.data), perf script: $n samples"

# an existing output: refused without -f, untouched
ino=$(stat -c %i out.data)
"$PREC" merge rec -o out.data 2>err && fail "merge over out.data without -f exited 0"
grep -q "output exists" err || fail "merge without -f: $(cat err)"
[ "$(stat -c %i out.data)" = "$ino" ] && [ "$(tree out.data)" = "$want" ] || fail "out.data changed without -f"
no_temp "merge without -f"
# -f: the directory replaced, then a regular file replaced
"$PREC" merge -f rec -o out.data 2>err || fail_rc err "prec merge -f over a directory"
[ "$(stat -c %i out.data)" != "$ino" ] && [ "$(tree out.data)" = "$want" ] ||
	fail "merge -f over the directory: $(tree out.data)"
[ "$(samples out.data)" = 200 ] || fail "after -f: $(samples out.data) samples"
no_temp "merge -f over a directory"
echo plain >file.data
"$PREC" merge -f rec -o file.data 2>err || fail_rc err "prec merge -f over a file"
[ "$(tree file.data)" = "$want" ] || fail "merge -f over a file: $(tree file.data)"
no_temp "merge -f over a file"

# a stream: the perf.data alone, one note naming --kallsyms
"$PREC" merge rec >stream.data 2>err || fail_rc err "prec merge to stdout"
grep -c "note: stdout: perf.data alone" err | grep -qx 1 &&
	grep -q -- "--kallsyms rec/kcore_dir/kallsyms" err || fail "merge to stdout: $(cat err)"
[ "$(samples stream.data)" = 200 ] || fail "stream.data: $(samples stream.data) samples"
echo "stdout: $(grep note err)"

# a kcore_dir/kcore of another size than the manifest's: one line naming
# both sizes before any merge, nothing made (it was copied as it was);
# to stdout (no copy, perf given the kallsyms only) merged as before
cp -a rec short || fail "copy"
chmod 600 short/kcore_dir/kcore || fail "chmod"
truncate -s 4096 short/kcore_dir/kcore || fail "truncate"
"$PREC" merge short -o short.data 2>err && fail "merge with a 4096-byte kcore exited 0: $(cat err)"
want="prec: error: merge short: kcore_dir/kcore: 4096 bytes, the manifest says 8192"
[ "$(cat err)" = "$want" ] || fail "short kcore: not '$want': $(cat err)"
[ ! -e short.data ] || fail "short kcore: short.data made"
no_temp "short kcore"
"$PREC" merge short >/dev/null 2>err || fail_rc err "merge of a short kcore to stdout"
echo "short kcore: $want"

# a symlink in the recording's kcore_dir: refused, nothing made
ln -sf /etc/passwd rec/kcore_dir/link
mv rec/kcore_dir/kcore rec/kcore_dir/kcore.real
ln -s kcore.real rec/kcore_dir/kcore
"$PREC" merge rec -o bad.data 2>err && fail "merge with kcore_dir/kcore a symlink exited 0"
grep -q "kcore_dir/kcore" err || fail "symlinked kcore: $(cat err)"
[ ! -e bad.data ] || fail "symlinked kcore: bad.data made"
no_temp "symlinked kcore"
echo "symlinked kcore: $(cat err)"
