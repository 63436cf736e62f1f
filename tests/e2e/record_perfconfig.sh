#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's config files hold for prec record as for perf record: for each
# ~/.perfconfig of the table (with options after a '|'), `prec record -vv`
# and `perf record -vv` under it open the same attrs (tests/lib/
# attr_blocks.awk, as e2e/record_attr_perf): call-graph.record-mode and
# record.call-graph choose -g's mode (dwarf without data addresses, as
# perf's -g), call-graph.dump-size its stack, in the file's order; perf's
# syntax (a section's case, a key's first letter, quotes, comments, [x
# "sub"], a bad line ending the file), $PERF_CONFIG, PERF_CONFIG_NOGLOBAL.
# Then record.build-id's skip (no build-ids, as -B) and no-cache (the cache
# left alone), mmap (the kernel's ids asked), a value perf refuses (one line
# naming the file, the line and the key, exit 2, nothing recorded) and a
# file of another user (ignored with perf's warning).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir perfconfig
AWK=$PREC_TOP/tests/lib/attr_blocks.awk
home=$tmp/home
mkdir -p "$home"
export HOME=$home
unset PERF_CONFIG PERF_CONFIG_NOSYSTEM PERF_CONFIG_NOGLOBAL PERF_BUILDID_DIR
[ ! -e /etc/perfconfig ] || skip "/etc/perfconfig exists: its settings would mix in"

dwarf='[call-graph]\n\trecord-mode = dwarf\n'
cases=(
	"$dwarf|-g"
	"$dwarf|"
	"$dwarf|--call-graph fp"
	"$dwarf|--no-call-graph -g"
	"$dwarf|--call-graph dwarf"
	"$dwarf\tdump-size = 1000\n|-g"
	"[call-graph]\ndump-size = 1000\nrecord-mode = dwarf\n|-g"
	"[call-graph]\ndump-size = 0x100\n[record]\ncall-graph = dwarf,2048\n|-g"
	"[record]\n\tcall-graph = fp,3\n|-g"
	"[record]\n\tcall-graph = dwarf\n[call-graph]\n\tdump-size = 512\n|-e page-faults -g"
	"# perf's\n[Call-Graph]\n  record-mode = \"dwarf,2048\" ; a comment\n|-g"
	"[call-graph]\nRecord-mode = dwarf\n|-g"
	"[call-graph]\nrecord-Mode = dwarf\n|-g"
	"[call-graph \"x\"]\nrecord-mode = dwarf\n|-g"
	"$dwarf\tgarbage\n[call-graph]\nrecord-mode = fp\n|-g"
	"record-mode = dwarf\n|-g"
	"${dwarf}[call-graph]\nrecord-mode = fp\n|-g"
)
i=0 bad=0
for c in "${cases[@]}"; do
	i=$((i + 1))
	# shellcheck disable=SC2059 # the table's \n and \t are printf's
	printf "${c%%|*}" >"$home/.perfconfig"
	opts=${c#*|}
	# shellcheck disable=SC2086 # the options, word-split on purpose
	perf record -B -N --no-bpf-event -vv -o "$tmp/perf.data" -e cpu-clock $opts -- true >"$tmp/$i.perf" 2>&1 ||
		fail "perf record under case $i exited non-zero: $(grep -v '^ ' "$tmp/$i.perf" | head -3)"
	# shellcheck disable=SC2086
	"$PREC" record -vv -N --no-bpf-event -f -d "$tmp/p.d" -e cpu-clock $opts -- true >"$tmp/$i.prec" 2>&1 ||
		fail "prec record under case $i exited non-zero: $(grep -v '^ ' "$tmp/$i.prec" | head -3)"
	awk -f "$AWK" -v skip=1 "$tmp/$i.prec" >"$tmp/$i.b"
	awk -f "$AWK" "$tmp/$i.perf" >"$tmp/$i.a"
	if [ ! -s "$tmp/$i.a" ] || ! diff -u "$tmp/$i.a" "$tmp/$i.b" >"$tmp/$i.diff"; then
		echo "attrs differ under case $i ($c) (- perf, + prec):"
		sed 's/^/    /' "$tmp/$i.diff"
		bad=$((bad + 1))
	fi
	# perf's warnings about the file (a bad line) are prec's too
	w="bad config file line [0-9]* in $home/.perfconfig"
	if grep -q "$w" "$tmp/$i.perf" && ! grep -q "$w" "$tmp/$i.prec"; then
		echo "case $i: perf warns '$(grep -o "$w" "$tmp/$i.perf")', prec does not"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || fail "$bad of ${#cases[@]} configs differ from perf"
{ grep -q 'STACK_USER' "$tmp/1.b" && ! grep -q 'ADDR' "$tmp/1.b"; } ||
	fail "case 1 (record-mode dwarf, -g) is no dwarf without data addresses: $(cat "$tmp/1.b")"
echo "${#cases[@]} configs: prec's attrs equal perf's"

# $PERF_CONFIG alone; PERF_CONFIG_NOGLOBAL leaves ~/.perfconfig out
attrs() { # OUT: prec -g's and perf -g's attrs in OUT.a, OUT.b
	perf record -B -N --no-bpf-event -vv -o "$tmp/perf.data" -e cpu-clock -g -- true 2>&1 |
		awk -f "$AWK" >"$1.a"
	"$PREC" record -vv -N --no-bpf-event -f -d "$tmp/p.d" -e cpu-clock -g -- true 2>&1 |
		awk -f "$AWK" -v skip=1 >"$1.b"
	diff -u "$1.a" "$1.b" || fail "$1: prec's attrs differ from perf's"
}
printf '[call-graph]\nrecord-mode = fp\n' >"$home/.perfconfig"
printf %b "$dwarf" >"$tmp/only.cfg"
PERF_CONFIG=$tmp/only.cfg attrs "$tmp/env"
grep -q STACK_USER "$tmp/env.b" || fail "PERF_CONFIG's dwarf not taken"
printf %b "$dwarf" >"$home/.perfconfig"
PERF_CONFIG_NOGLOBAL=1 attrs "$tmp/noglobal"
grep -q STACK_USER "$tmp/noglobal.b" && fail "PERF_CONFIG_NOGLOBAL: ~/.perfconfig's dwarf taken"
echo "PERF_CONFIG read alone, PERF_CONFIG_NOGLOBAL leaves ~/.perfconfig out, as perf"

# Another user's ~/.perfconfig: ignored, with perf's warning
chown nobody "$home/.perfconfig"
attrs "$tmp/owner"
grep -q STACK_USER "$tmp/owner.b" && fail "another user's ~/.perfconfig was taken"
"$PREC" record -f -d "$tmp/p.d" -e cpu-clock -g -- true 2>"$tmp/owner.err"
# once, as perf's one reading says it (prec reads the files at the start
# and, for the build-id cache's place, at the end)
[ "$(grep -c "File $home/.perfconfig not owned by current user or root, ignoring it" "$tmp/owner.err")" = 1 ] ||
	fail "want one warning of another user's ~/.perfconfig: $(cat "$tmp/owner.err")"
chown root "$home/.perfconfig"
echo "another user's ~/.perfconfig ignored with perf's warning, said once"

# A file over 64 KiB: ignored, as prec reads no more, but said in one
# line (a bad value in it is not refused; it was ignored in silence)
{ printf '[record]\n\tbuild-id = foo\n'; head -c 70000 /dev/zero | tr '\0' '#'; echo; } >"$home/.perfconfig"
"$PREC" record -q -f -d "$tmp/p.d" -e cpu-clock -- true 2>"$tmp/big.err" ||
	fail "prec record under a ~/.perfconfig over 64 KiB: $(cat "$tmp/big.err")"
[ "$(cat "$tmp/big.err")" = "prec: warning: File $home/.perfconfig is over 64 KiB, ignoring it." ] ||
	fail "a ~/.perfconfig over 64 KiB: want one warning naming it, got: $(cat "$tmp/big.err")"
echo "a ~/.perfconfig over 64 KiB ignored, in one line"

# Values perf refuses: so does prec, before recording
refused() { # CONFIG KEY LINE
	printf %b "$1" >"$home/.perfconfig"
	perf record -o "$tmp/perf.data" -e cpu-clock -- true >/dev/null 2>&1 && fail "perf took $2 in: $1"
	rm -rf "$tmp/r.d"
	"$PREC" record -q -d "$tmp/r.d" -e cpu-clock -- true >"$tmp/r.out" 2>"$tmp/r.err"
	local rc=$?
	[ "$rc" = 2 ] || fail "prec record with a bad $2: exit $rc, want 2 ($(cat "$tmp/r.err"))"
	{ [ "$(wc -l <"$tmp/r.err")" = 1 ] && grep -q "^prec: error: $home/.perfconfig line $3: $2 = " "$tmp/r.err"; } ||
		fail "prec record with a bad $2: want one line naming the file, line $3 and $2: $(cat "$tmp/r.err")"
	[ ! -e "$tmp/r.d" ] || fail "prec record with a bad $2 left a recording"
	echo "refused: $(cat "$tmp/r.err")"
}
refused '[record]\n\tbuild-id = foo\n' record.build-id 2
refused '# x\n[call-graph]\n\trecord-mode = dwarf,100000\n' call-graph.record-mode 3
refused '[call-graph]\n\trecord-mode = frames\n' call-graph.record-mode 2
refused '[record]\n\tcall-graph = \n' record.call-graph 2
refused '[call-graph]\n\tdump-size = 70000\n' call-graph.dump-size 2
refused '[call-graph]\n\tdump-size = 12abc\n' call-graph.dump-size 2
# the value escaped once, by the log line (a tab is \t, not \\t)
refused '[record]\n\tbuild-id = "a\\tb"\n' record.build-id 2
grep -qF "record.build-id = 'a\\tb': " "$tmp/r.err" || fail "the tab of a refused value not shown as \\t: $(cat "$tmp/r.err")"

# record.build-id: skip is -B (names, no ids), no-cache is -N, mmap is
# --buildid-mmap (the kernel's ids: attr.build_id on the tracking event)
ids() { perf buildid-list -i "$1" 2>/dev/null | awk 'length($1) == 40' | wc -l; }
printf '[buildid]\n\tdir = %s/cache\n[record]\n\tbuild-id = skip\n' "$tmp" >"$home/.perfconfig"
"$PREC" record -q -o "$tmp/skip.data" -e cpu-clock -- true || fail "prec record (build-id = skip)"
[ "$(ids "$tmp/skip.data")" = 0 ] || fail "build-id = skip: the merged file has build-ids: $(perf buildid-list -i "$tmp/skip.data")"
printf '[buildid]\n\tdir = %s/cache\n[record]\n\tbuild-id = no-cache\n' "$tmp" >"$home/.perfconfig"
"$PREC" record -q -o "$tmp/nocache.data" -e cpu-clock -- true || fail "prec record (build-id = no-cache)"
[ "$(ids "$tmp/nocache.data")" -gt 0 ] || fail "build-id = no-cache: no build-ids in the merged file"
[ ! -e "$tmp/cache" ] || fail "build-id = no-cache: the cache was filled: $(ls "$tmp/cache")"
printf '[buildid]\n\tdir = %s/cache\n[record]\n\tbuild-id = cache\n' "$tmp" >"$home/.perfconfig"
"$PREC" record -q -o "$tmp/cache.data" -e cpu-clock -- true || fail "prec record (build-id = cache)"
[ -d "$tmp/cache/.build-id" ] || fail "build-id = cache: buildid.dir's cache not filled"
printf '[record]\n\tbuild-id = mmap\n' >"$home/.perfconfig"
"$PREC" record -vv -f -d "$tmp/p.d" -e cpu-clock -- true 2>&1 | grep -q '^  build_id  *1$' ||
	fail "build-id = mmap: no attr.build_id"
printf '' >"$home/.perfconfig"
"$PREC" record -vv -f -d "$tmp/p.d" -e cpu-clock -- true 2>&1 | grep -q '^  build_id ' &&
	fail "attr.build_id without build-id = mmap"
echo "record.build-id: skip, no-cache, cache and mmap as perf's -B, -N, the default and --buildid-mmap"
