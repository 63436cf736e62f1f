#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's build-id cache as `perf record` fills it, perf the judge (each
# tool in a private HOME):
# - every entry perf record leaves in ~/.debug for the same command
#   (program, loader, [kernel.kallsyms]/ID/kallsyms, [vdso]/ID/vdso, their
#   .build-id links) prec record leaves too, but perf's `probes` and
#   `debug` files (its SDT and debuginfo extras); the program's elf holds
#   the program's bytes, whether linked (same file system) or copied (the
#   program on /dev/shm, another one), as perf links or copies;
# - `perf buildid-cache -l` lists the program; `perf report` of a copy of
#   the merged file, the program deleted, resolves its function from the
#   cache, as it does from perf's own;
# - -N, -B and --switch-output (as perf) leave ~/.debug as it was; buildid.dir of ~/.perfconfig
#   moves the cache, as it moves perf's; a second recording adds nothing.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd cc
need_cmd readelf
e2e_tmpdir bidcache
cd "$tmp" || fail "cd $tmp"

# prog DIR: DIR/prog, which spends its time in prec_cache_spin().
prog() {
	mkdir -p "$1"
	printf '%s\n' '__attribute__((noinline)) void prec_cache_spin(void)' \
		'{ for (volatile unsigned long i = 0; i < 300000000ul; i++) ; }' \
		'int main(void) { prec_cache_spin(); return 0; }' >"$tmp/prog.c"
	cc -O1 -Wl,--build-id=sha1 -o "$1/prog" "$tmp/prog.c" || fail "cc"
}

# tree HOME: the cache's files and links, less perf's extras.
tree() {
	(cd "$1/.debug" && find . \( -name probes -o -name debug \) -prune -o -print) | sort
}

# resolves HOME DATA: perf report of DATA in HOME names prec_cache_spin.
resolves() {
	HOME=$1 perf report -i "$2" --stdio --sort sym 2>/dev/null | grep -q prec_cache_spin
}

for where in disk shm; do
	if [ $where = shm ]; then
		d=$(mktemp -d /dev/shm/prec-bidcache.XXXXXX) || fail "mktemp /dev/shm"
		at_exit "rm -rf '$d'"
	else
		d=$tmp/bin.$where
	fi
	prog "$d"
	id=$(elf_id "$d/prog")
	[ -n "$id" ] || fail "no build-id in $d/prog"
	mkdir "$tmp/hperf.$where" "$tmp/hprec.$where"
	HOME=$tmp/hperf.$where perf record -q -o perf.$where.data -- "$d/prog" >/dev/null 2>&1 ||
		fail "perf record ($where)"
	HOME=$tmp/hprec.$where "$PREC" record -q -o prec.$where.data -- "$d/prog" 2>rec.err ||
		fail_rc rec.err "prec record ($where)"
	! grep -q 'warning' rec.err || fail "prec record ($where) said: $(cat rec.err)"
	tree "$tmp/hperf.$where" >perf.tree
	tree "$tmp/hprec.$where" >prec.tree
	missing=$(comm -23 perf.tree prec.tree)
	[ -z "$missing" ] || fail "$where: perf's cache has what prec's lacks: $missing"
	h=$tmp/hprec.$where/.debug
	link=$h/.build-id/${id:0:2}/${id:2}
	[ -L "$link" ] || fail "$where: no link $link"
	[ "$(readlink "$link")" = "../../${d#/}/prog/$id" ] || fail "$where: $link -> $(readlink "$link")"
	cmp -s "$h/${d#/}/prog/$id/elf" "$d/prog" || fail "$where: the cached elf is not the program"
	# linked where it can be (perf links too), else copied
	same=$([ "$(stat -c %d:%i "$h/${d#/}/prog/$id/elf")" = "$(stat -c %d:%i "$d/prog")" ] && echo link || echo copy)
	[ "$same" = "$([ $where = disk ] && echo link || echo copy)" ] || fail "$where: the elf is a $same"
	[ -x "$h/${d#/}/prog/$id/elf" ] || fail "$where: the cached elf lost its execute bit"
	HOME=$tmp/hprec.$where perf buildid-cache -l | grep -qx "$id ${d}/prog" ||
		fail "$where: perf buildid-cache -l: $(HOME=$tmp/hprec.$where perf buildid-cache -l)"
	# the program gone, copies of the files: resolved from each cache
	cp perf.$where.data perf.copy && cp prec.$where.data prec.copy
	rm -f "$d/prog"
	resolves "$tmp/hperf.$where" perf.copy || fail "$where: perf's own cache does not resolve (the test's fault)"
	resolves "$tmp/hprec.$where" prec.copy || fail "$where: perf report does not resolve prec_cache_spin from prec's cache"
	resolves "$tmp/hprec.$where" perf.copy || fail "$where: prec's cache does not serve perf's own recording"
	echo "$where: $(wc -l <prec.tree) cache names, perf's $(wc -l <perf.tree) all there"
done

# -N, -B: ~/.debug as it was; a second recording changes nothing either
prog "$tmp/bin2"
mkdir hN
HOME=$tmp/hN "$PREC" record -q -o n.data -- "$tmp/bin2/prog" || fail "prec record"
tree "$tmp/hN" >before
prog "$tmp/bin3" # another build-id
for opt in -N -B ""; do
	touch stamp
	sleep 0.01
	# shellcheck disable=SC2086 # "" is no option
	HOME=$tmp/hN "$PREC" record -q $opt -o n.data -- "$tmp/bin2/prog" || fail "prec record $opt"
	tree "$tmp/hN" >after
	cmp -s before after || fail "record ${opt:-again}: the cache changed: $(diff before after | head -5)"
	[ -z "$(find "$tmp/hN/.debug" -newer stamp)" ] || fail "record ${opt:-again}: wrote $(find "$tmp/hN/.debug" -newer stamp | head -3)"
done
[ -z "$(find "$tmp/hN" -maxdepth 1 -name '*.data.prec')" ] || fail "shards left"
mkdir hN2
HOME=$tmp/hN2 "$PREC" record -q -N -o n2.data -- "$tmp/bin3/prog" || fail "prec record -N"
[ ! -e "$tmp/hN2/.debug" ] || fail "-N made $tmp/hN2/.debug"
# --switch-output: as perf, which leaves the cache alone there
HOME=$tmp/hN2 "$PREC" record -q --switch-output -d sw -- "$tmp/bin3/prog" || fail "prec record --switch-output"
[ ! -e "$tmp/hN2/.debug" ] || fail "--switch-output made $tmp/hN2/.debug"

# buildid.dir in ~/.perfconfig, as perf reads it (tests/run.sh leaves it out)
unset PERF_CONFIG_NOGLOBAL
for tool in perf prec; do
	mkdir "hc.$tool"
	printf '[buildid]\n\tdir = %s\n' "$tmp/hc.$tool/cache" >"hc.$tool/.perfconfig"
	if [ $tool = perf ]; then
		HOME=$tmp/hc.$tool perf record -q -o c.$tool.data -- "$tmp/bin3/prog" >/dev/null 2>&1
	else
		HOME=$tmp/hc.$tool "$PREC" record -q -o c.$tool.data -- "$tmp/bin3/prog"
	fi || fail "$tool record with buildid.dir"
	[ ! -e "hc.$tool/.debug" ] || fail "$tool: buildid.dir set, yet ~/.debug made"
done
id=$(elf_id "$tmp/bin3/prog")
[ -L "hc.perf/cache/.build-id/${id:0:2}/${id:2}" ] || fail "perf did not use buildid.dir (the test's fault)"
[ -L "hc.prec/cache/.build-id/${id:0:2}/${id:2}" ] || fail "prec did not use buildid.dir of ~/.perfconfig"
echo "PASS: prec record fills perf's build-id cache as perf record does"
