#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec archive: a recording's binaries in perf's ~/.debug layout. A C
# workload built here (in a directory whose path is too long for a plain
# ustar name) is recorded with its samples in a named function, merged and
# archived, then deleted. Under a fresh HOME, `perf report` cannot name the
# function without the archive and names it, with nothing on stderr, once
# the archive is unpacked in ~/.debug. With --all, a binary rebuilt after
# the recording and files that an unprivileged user swaps for symlinks
# afterwards (to /etc/shadow, to a copy of the same binary, a directory on
# the way) are each listed as left out, all for the same reason (never the
# id on disk), and not in the tar; no name in it is absolute or has a `..`
# component. By default (the files samples hit) the workload is in the tar. The running kernel's kallsyms and the recording's
# vdso.so are in it, wherever the kernel has a build-id and a vDSO.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd tar
cc=${CC:-cc}
need_cmd "$cc" "no C compiler ($cc)"
e2e_tmpdir archive
on_fail() { cat "$tmp/err" 2>/dev/null; }

cat >"$tmp/burn.c" <<'EOF'
volatile unsigned long sink;
__attribute__((noinline)) void prec_archive_burn(void)
{
	for (unsigned long i = 0; i < LOOPS; i++)
		sink += i * i;
}
int main(void)
{
	prec_archive_burn();
	return VARIANT;
}
EOF
build() { # OUT VARIANT [LOOPS]: each VARIANT its own code, so its own build-id
	"$cc" -O1 -Wl,--build-id=sha1 -DVARIANT="$2" -DLOOPS="${3:-1000}ul" -o "$1" "$tmp/burn.c" ||
		fail "cannot build $1"
}
# The workload's directory: three components of 90 bytes, so its tar names
# (over 255 bytes) need a pax header, and so do its .build-id links' targets.
long=$tmp/$(printf 'd%.0s' {1..90})/$(printf 'e%.0s' {1..90})/$(printf 'f%.0s' {1..90})
mkdir -p "$long" "$tmp/bin" "$tmp/swap/dir" "$tmp/elsewhere"
chmod 755 "$tmp"
build "$long/burn" 0 300000000
build "$tmp/bin/rebuilt" 1
build "$tmp/swap/shadow" 2
build "$tmp/swap/copy" 3
build "$tmp/swap/dir/inner" 4
burn_id=$(elf_id "$long/burn")
[ -n "$burn_id" ] || skip "$cc writes no build-id note"
# The side binaries run through a symlink: the table names the file itself.
ln -s shadow "$tmp/swap/via-link"
"$PREC" record -d "$tmp/rec" -e cpu-clock -- sh -c \
	"'$long/burn'; '$tmp/bin/rebuilt'; '$tmp/swap/via-link'; '$tmp/swap/copy'; '$tmp/swap/dir/inner'; true" \
	2>"$tmp/err" || fail_rc "$tmp/err" "record"
"$PREC" merge "$tmp/rec" -o "$tmp/merged.data" 2>"$tmp/err" || fail_rc "$tmp/err" "merge"
perf buildid-list -i "$tmp/merged.data" >"$tmp/ids" 2>&1
grep -qF "$burn_id $long/burn" "$tmp/ids" || { cat "$tmp/ids"; fail "the workload is not in the build-id table"; }
for f in bin/rebuilt swap/shadow swap/copy swap/dir/inner; do
	grep -qF " $tmp/$f" "$tmp/ids" || { cat "$tmp/ids"; fail "$f is not in the build-id table"; }
done

# After the recording: one binary rebuilt; three paths made to lead
# elsewhere through a symlink by the user (nobody) whose directory holds them.
rebuilt_id=$(elf_id "$tmp/bin/rebuilt")
build "$tmp/bin/rebuilt" 5
[ "$(elf_id "$tmp/bin/rebuilt")" != "$rebuilt_id" ] || fail "the rebuild kept its build-id"
chown -R 65534:65534 "$tmp/swap" "$tmp/elsewhere"
nobody sh -c "set -e; cd '$tmp'
	rm swap/shadow && ln -s /etc/shadow swap/shadow
	mv swap/copy elsewhere/copy && ln -s '$tmp/elsewhere/copy' swap/copy
	mv swap/dir elsewhere/dir && ln -s '$tmp/elsewhere/dir' swap/dir" || fail "nobody's swaps"

"$PREC" archive "$tmp/rec" -o "$tmp/hits.tar" 2>"$tmp/err" || fail_rc "$tmp/err" "archive"
cat "$tmp/err"
tar tf "$tmp/hits.tar" | grep -qxF "${long#/}/burn/$burn_id/elf" ||
	fail "the workload its samples hit is not in the default archive"
grep -Eq "^prec: archive $tmp/rec: [0-9]+ files?, .* left out(, [0-9]+ not hit by a sample \(--all adds them\))?\$" \
	"$tmp/err" || fail "no summary line (default archive)"
"$PREC" archive --all "$tmp/rec" 2>"$tmp/err" || fail_rc "$tmp/err" "archive --all"
cat "$tmp/err"
ar=$tmp/rec.tar
[ -f "$ar" ] || fail "no $ar (the default name: DIR.tar)"
left() { # PATH REASON: one "left out" line for PATH, saying REASON
	[ "$(grep -cF "left out $1 (" "$tmp/err")" = 1 ] || fail "no single 'left out $1' line"
	grep -F "left out $1 (" "$tmp/err" | grep -qF "$2" || fail "$1: left out, but not for '$2'"
}
not_there="no file the recording's owner may read holds this build-id there"
left "$tmp/bin/rebuilt" "$not_there"
left "$tmp/swap/shadow" "$not_there"
left "$tmp/swap/copy" "$not_there"
left "$tmp/swap/dir/inner" "$not_there"
! grep -qF "$(elf_id "$tmp/bin/rebuilt")" "$tmp/err" || fail "a message tells the rebuilt file's id on disk"
n_left=$(grep -c ": left out " "$tmp/err")
grep -Eq "^prec: archive $tmp/rec: [0-9]+ files?, [0-9]+ bytes \([0-9]+ KiB of tar\) -> $ar, $n_left left out\$" \
	"$tmp/err" || fail "no summary line"

tar tf "$ar" >"$tmp/names" 2>"$tmp/tarerr" || fail_rc "$tmp/tarerr" "tar tf"
[ ! -s "$tmp/tarerr" ] || { cat "$tmp/tarerr"; fail "tar tf says something"; }
! grep -E '^/|(^|/)\.\.(/|$)' "$tmp/names" || fail "an absolute name or a .. component in the tar"
grep -qxF "${long#/}/burn/$burn_id/elf" "$tmp/names" || fail "no ${long#/}/burn/$burn_id/elf"
grep -qxF ".build-id/${burn_id:0:2}/${burn_id:2}" "$tmp/names" || fail "no .build-id link for the workload"
! grep -E 'rebuilt|swap/' "$tmp/names" || fail "a left-out file is in the tar"
tar tvf "$ar" | grep -F ".build-id/${burn_id:0:2}/${burn_id:2} -> ../../${long#/}/burn/$burn_id" >/dev/null ||
	fail "the workload's .build-id link does not name ../../PATH/ID"
# kallsyms and the vDSO are required wherever the running kernel has a
# build-id and a vDSO (any x86_64 kernel perf is tested on): the recording
# is made here, so its table names both.
kid=$(perf buildid-list -i "$tmp/merged.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
running=$(perf buildid-list -k 2>/dev/null)
if [ -n "$running" ]; then
	[ "$kid" = "$running" ] || fail "the table's kernel is '$kid', the running kernel's $running"
	grep -qxF "[kernel.kallsyms]/$kid/kallsyms" "$tmp/names" || fail "no kallsyms of the running kernel"
	echo "kallsyms $kid archived"
else
	echo "note: the running kernel has no build-id: kallsyms not tried"
fi

# The vDSO: [vdso]/ID/vdso, the bytes of the recording's vdso.so.
vid=$(awk '$2 == "[vdso]" { print $1 }' "$tmp/ids")
if grep -q '\[vdso\]' /proc/self/maps; then
	[ -n "$vid" ] || fail "no [vdso] in the merged file's build-id table"
	[ -f "$tmp/rec/vdso.so" ] || fail "the recording keeps no vdso.so"
	tar xOf "$ar" "[vdso]/$vid/vdso" | cmp -s - "$tmp/rec/vdso.so" ||
		fail "[vdso]/$vid/vdso is not the recording's vdso.so"
	grep -qxF ".build-id/${vid:0:2}/${vid:2}" "$tmp/names" || fail "no .build-id link for the vDSO"
	echo "vDSO $vid archived"
else
	echo "note: this kernel maps no vDSO: its part is not tried"
fi

# The layout is perf's own: `perf buildid-cache -a` puts the workload and
# libc in a fresh build-id cache (perf record would too, but perf 6.1's
# record sometimes aborts while it fills a fresh cache, "assertion failed at
# util/build-id.c"). Each .build-id link both have names the same
# directory, holding the same file with the same bytes.
libc=$(awk '$2 ~ /\/libc\.so\.6$/ { print $2; exit }' "$tmp/ids")
mkdir -p "$tmp/perfhome" "$tmp/ours"
for f in "$long/burn" "$libc"; do
	HOME=$tmp/perfhome perf buildid-cache -a "$f" 2>"$tmp/perf.err" ||
		fail_rc "$tmp/perf.err" "perf buildid-cache -a $f"
done
tar xf "$ar" -C "$tmp/ours" || fail "tar xf"
compared=""
for l in "$tmp/perfhome/.debug/.build-id"/*/*; do
	rel=${l#"$tmp/perfhome/.debug/"}
	[ -L "$tmp/ours/$rel" ] || continue
	[ "$(readlink "$l")" = "$(readlink "$tmp/ours/$rel")" ] ||
		fail "$rel: perf's link names $(readlink "$l"), ours $(readlink "$tmp/ours/$rel")"
	cmp -s "$l/elf" "$tmp/ours/$rel/elf" || fail "$rel/elf differs from perf's"
	compared+=" $rel"
done
echo "in perf's layout, as perf buildid-cache puts them:$compared"
[ "$(wc -w <<<"$compared")" = 2 ] || fail "'$compared' compared with perf's cache, want 2"

# Refused over an existing file without -f; replaced with it.
"$PREC" archive --all "$tmp/rec" 2>"$tmp/err" && fail "archive over an existing file without -f"
grep -q "output exists" "$tmp/err" || fail "no 'output exists' message"
"$PREC" archive --all -f "$tmp/rec" -o "$ar" 2>"$tmp/err" || fail_rc "$tmp/err" "archive -f"

# The workload goes; a fresh HOME has no build-id cache.
rm -rf "${tmp:?}/$(printf 'd%.0s' {1..90})" "${tmp:?}/bin"
mkdir -p "$tmp/home/.debug" "$tmp/home2/.debug"
HOME=$tmp/home2 perf report -i "$tmp/merged.data" --stdio --sort sym >"$tmp/without" 2>/dev/null
! grep -q prec_archive_burn "$tmp/without" || fail "perf report names the function without the archive"
tar xf "$ar" -C "$tmp/home/.debug" || fail "tar xf"
HOME=$tmp/home perf report -i "$tmp/merged.data" --stdio --sort sym >"$tmp/with" 2>"$tmp/perferr"
[ ! -s "$tmp/perferr" ] || { cat "$tmp/perferr"; fail "perf report says something on stderr"; }
grep -q '\[\.\] prec_archive_burn' "$tmp/with" || { head -20 "$tmp/with"; fail "perf report does not name the function from the archive"; }
! tar xOf "$ar" | grep -qF "$(head -n 1 /etc/shadow)" || fail "/etc/shadow's content is in the archive"
echo "PASS"
