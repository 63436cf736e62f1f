#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make install PREFIX=... DESTDIR=... puts the binary, every man page and the
# bash completion in place (the completion loads and registers prec), the
# installed binary runs; make uninstall then removes exactly those files.
# An absolute BUILD names the objects as a relative one does, through a
# symlink to the tree too.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
e2e_tmpdir install
root=$tmp/root
cd "$PREC_TOP" || fail "no tree at $PREC_TOP"
# BUILD given by its absolute path (as here) names the objects as a plain
# make does: else their .d files name them otherwise, and a plain make
# after reads none of their header dependencies (a stale object linked).
abs=$(make -s -n -B install BUILD="$PREC_BUILD" PREFIX=/usr DESTDIR="$root" 2>&1 |
	grep -o -- ' -o /[^ ]*\.o' | head -3)
[ -z "$abs" ] || fail "make BUILD=$PREC_BUILD names objects by their absolute path:$abs"
# The same through a symlink to the tree ($PWD/build where $PWD reached
# the tree through one: make's CURDIR is getcwd's, without it); before,
# those objects kept their absolute names.
case $PREC_BUILD in
"$PREC_TOP"/*)
	ln -s "$PREC_TOP" "$tmp/tree" || fail "ln -s $PREC_TOP"
	abs=$(cd "$tmp/tree" && make -s -n -B install BUILD="$tmp/tree/${PREC_BUILD#"$PREC_TOP"/}" \
		PREFIX=/usr DESTDIR="$root" 2>&1 | grep -o -- ' -o /[^ ]*\.o' | head -3)
	[ -z "$abs" ] || fail "make BUILD=$tmp/tree/... (a symlink to the tree) names objects by their absolute path:$abs"
	;;
esac
make -s install BUILD="$PREC_BUILD" PREFIX=/usr DESTDIR="$root" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "make install"
[ -x "$root/usr/bin/prec" ] || fail "no /usr/bin/prec in DESTDIR"
cmp -s "$root/usr/bin/prec" "$PREC_BUILD/prec" || fail "the installed binary is not the build's"
for m in docs/man/*.1; do
	[ -f "$root/usr/share/man/man1/$(basename "$m")" ] || fail "man page $(basename "$m") not installed"
done
comp=$root/usr/share/bash-completion/completions/prec
[ -f "$comp" ] || fail "no bash completion installed"
bash -c ". '$comp' && complete -p prec" >"$tmp/comp" 2>&1 || fail_rc "$tmp/comp" "loading the completion"
"$root/usr/bin/prec" --version >"$tmp/ver" 2>&1 || fail_rc "$tmp/ver" "installed prec --version"
head -n 1 "$tmp/ver" | grep -q '^prec ' || fail "--version: $(head -n 1 "$tmp/ver")"
n=$(find "$root" -type f | wc -l)
echo "installed $n files"
make -s uninstall PREFIX=/usr DESTDIR="$root" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "make uninstall"
left=$(find "$root" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "PASS"
