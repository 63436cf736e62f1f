#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb builds the Debian package (lintian passing it: make deb fails on
# a warning or error), which unpacked into a throwaway root (dpkg -x) holds
# the binary, every man page, the completion and the docs; the installed
# binary's --version names the commit, compiler and libraries, and it
# records a tiny workload and merges it into a perf.data that perf script
# reads with nothing on stderr. Skipped only when the packaging tools are
# missing and cannot be installed.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
e2e_tmpdir pkgdeb

# The tools, as make deb would install them (scripts/deps.sh deb).
if ! "$PREC_TOP/scripts/deps.sh" deb >"$tmp/deps.log" 2>&1; then
	cat "$tmp/deps.log"
	skip "packaging tools (debhelper, dpkg-dev, lintian) missing and not installable: $(tail -n 1 "$tmp/deps.log")"
fi

make -C "$PREC_TOP" --no-print-directory deb DEB_DIR="$tmp/deb" >"$tmp/make.log" 2>&1 ||
	fail_rc "$tmp/make.log" "make deb"
cat "$tmp/make.log"
debs=("$tmp"/deb/prec_*.deb)
deb=${debs[0]}
[ -f "$deb" ] || fail "make deb left no prec_*.deb in $tmp/deb"
ls "$tmp"/deb/prec_*.changes >/dev/null 2>&1 || fail "make deb left no .changes"
[ ! -e "$tmp/deb/prec-src" ] || fail "make deb left its source copy behind"

# Depends from the shared libraries the binary links.
dep=$(dpkg-deb -f "$deb" Depends)
for lib in liburing2 liblz4-1 libzstd1 libc6; do
	grep -q "$lib" <<<"$dep" || fail "Depends lacks $lib: $dep"
done
# libpfm4 is loaded when a recording names an event through it
# (src/record/pfm.c): recommended, never a Depends.
grep -q libpfm <<<"$dep" && fail "Depends has libpfm4 (prec loads it on demand): $dep"
rec=$(dpkg-deb -f "$deb" Recommends)
[ "$rec" = 'linux-perf, libpfm4' ] || fail "Recommends is not 'linux-perf, libpfm4': $rec"

root=$tmp/root
dpkg -x "$deb" "$root" || fail "dpkg -x $deb"
bin=$root/usr/bin/prec
[ -x "$bin" ] || fail "no /usr/bin/prec in the package"
for m in "$PREC_TOP"/docs/man/*.1; do
	[ -f "$root/usr/share/man/man1/$(basename "$m").gz" ] || fail "no man page $(basename "$m") in the package"
done
comp=$root/usr/share/bash-completion/completions/prec
[ -f "$comp" ] || fail "no bash completion in the package"
reg=$(bash --norc --noprofile -c '. "$1" && complete -p prec' _ "$comp") || fail "the installed completion does not load"
[[ $reg == *"-F _prec"* ]] || fail "the installed completion does not register _prec: $reg"
for f in copyright README.md changelog.gz; do
	[ -f "$root/usr/share/doc/prec/$f" ] || fail "no /usr/share/doc/prec/$f"
done

# --version: what was built.
"$bin" --version >"$tmp/version" 2>"$tmp/version.err" || fail_rc "$tmp/version.err" "prec --version"
cat "$tmp/version"
[ ! -s "$tmp/version.err" ] || fail "prec --version printed on stderr"
grep -Eqx 'prec [0-9]+\.[0-9]+' <(head -n 1 "$tmp/version") || fail "--version's first line"
if [ "$(git -C "$PREC_TOP" rev-parse --show-toplevel 2>/dev/null)" = "$PREC_TOP" ]; then
	commit=$(git -C "$PREC_TOP" rev-parse --short HEAD)
	grep -Eq "^  git: +$commit" "$tmp/version" || fail "--version does not name commit $commit"
fi
grep -Eq '^  compiler: +(gcc|.*[Cc]lang) [0-9]' "$tmp/version" || fail "--version names no compiler"
built=$(grep '^  built against:' "$tmp/version")
for p in liburing:liburing libelf:libelf lz4:liblz4 zstd:libzstd; do
	v=$(pkg-config --modversion "${p#*:}")
	grep -q " ${p%%:*} $v\(,\|$\)" <<<"$built" || fail "--version lacks ${p%%:*} $v: $built"
done

# A tiny record and merge with the installed binary.
need_root
need_cmd perf "no perf: the installed binary's record and merge are not checked"
# shellcheck disable=SC2016 # the workload's own shell expands it
"$bin" record -q -d "$tmp/rec" -e cpu-clock -F 1000 -- \
	sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done' 2>"$tmp/rec.err" ||
	fail_rc "$tmp/rec.err" "installed prec record"
"$bin" merge "$tmp/rec" -o "$tmp/flat.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "installed prec merge"
perf script -i "$tmp/flat.data" >"$tmp/script" 2>"$tmp/script.err" || fail_rc "$tmp/script.err" "perf script"
[ ! -s "$tmp/script.err" ] || { cat "$tmp/script.err"; fail "perf script printed on stderr"; }
n=$(grep -c 'cpu-clock' "$tmp/script")
[ "$n" -gt 0 ] || fail "no cpu-clock sample in perf script's output"
echo "PASS: $(basename "$deb") built lintian-clean, unpacked, --version says what was built, $n samples recorded and merged"
