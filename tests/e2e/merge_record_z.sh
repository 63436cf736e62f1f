#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record -z -d DIR, then prec merge DIR: the perf.data is zstd
# compressed at the recorded level, as perf record -z's is (the manifest
# keeps the level, its COMPRESSION section). -z alone is level 1,
# --compression-level=5 level 5, as perf's header says for perf record
# with the same options: PERF_RECORD_COMPRESSED records carry every data
# record, perf report --header-only says "Zstd, level = N", and perf
# script prints byte for byte what it prints on the merge that
# --no-compression-level leaves plain, file and pipe format. merge -zN
# still chooses its own level; a recording without -z merges plain; prec
# info names the level; each --switch-output epoch keeps it; -z5 -o -
# streams at level 5, as perf's.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3 "no python3 (walks the records)"
e2e_tmpdir recz
cd "$tmp" || fail "cd $tmp"

# level FILE: the level of FILE's "# compressed : Zstd, level = N" line,
# "none" without one; FILE's records walked: with a level, COMPRESSED
# (81) ones and (prec's, not perf's, whose start's COMM is not) no SAMPLE,
# MMAP2 or COMM outside them; without, no COMPRESSED record.
level() {
	local l
	python3 "$PREC_TOP/tests/lib/record_types.py" "$1" >"$1.types" || fail "$1: walking the records"
	perf report --header-only -i "$1" >"$1.hdr" 2>&1 || fail_rc "$1.hdr" "$1: perf report --header-only"
	l=$(sed -n 's/^# compressed : Zstd, level = \([0-9]*\), ratio = [0-9]*$/\1/p' "$1.hdr")
	if [ -n "$l" ]; then
		grep -q '^81 ' "$1.types" || fail "$1: level $l, no PERF_RECORD_COMPRESSED: $(cat "$1.types")"
		case $1 in perf*) ;; *)
			grep -Eq '^(3|9|10) ' "$1.types" && fail "$1: records left uncompressed: $(cat "$1.types")"
		esac
		echo "$l"
	else
		grep -q '^81 ' "$1.types" && fail "$1: COMPRESSED records, no compressed header line"
		echo none
	fi
}

# same_script A B: perf script on both, identical, nothing on stderr.
same_script() {
	perf script -i "$1" >"$1.script" 2>"$1.err" || fail_rc "$1.err" "perf script $1"
	perf script -i "$2" >"$2.script" 2>"$2.err" || fail_rc "$2.err" "perf script $2"
	[ -s "$1.err" ] && fail "perf script $1 says: $(head -3 "$1.err")"
	[ -s "$2.err" ] && fail "perf script $2 says: $(head -3 "$2.err")"
	[ "$(wc -l <"$1.script")" -ge 100 ] || fail "perf script $1: $(wc -l <"$1.script") lines, the test shows nothing"
	cmp "$1.script" "$2.script" || fail "perf script differs between $1 and $2"
}

# expect FILE WANT: FILE's level is WANT
expect() {
	local got
	got=$(level "$1") || { echo "$got"; exit 1; }
	[ "$got" = "$2" ] || fail "$1: compressed at level $got, want $2"
}

# perf record's own header lines for the same options: the judge
perf record -q -z -e cpu-clock -o perf1.data -- "$H/callchain" 50 >/dev/null 2>&1 || fail "perf record -z"
perf record -q --compression-level=5 -e cpu-clock -o perf5.data -- "$H/callchain" 50 >/dev/null 2>&1 ||
	fail "perf record --compression-level=5"
expect perf1.data 1
expect perf5.data 5

for opt in -z --compression-level=5; do
	want=1
	[ "$opt" = -z ] || want=5
	d=d$want
	"$PREC" record -q "$opt" -d "$d" -e cpu-clock -F 2000 -- "$H/callchain" 200 2>err ||
		fail_rc err "record $opt -d"
	"$PREC" merge -q "$d" -o "$d.z" 2>err || fail_rc err "merge $d"
	expect "$d.z" "$want"
	"$PREC" merge -q "$d" --no-compression-level -o "$d.plain" 2>err || fail_rc err "merge --no-compression-level $d"
	expect "$d.plain" none
	"$PREC" info "$d" | grep -qx "compressed:  zstd level $want when merged (record -z; prec merge --no-compression-level: not)" ||
		fail "prec info $d: no level $want line: $("$PREC" info "$d" | grep -i compress)"
	same_script "$d.plain" "$d.z"
	# the pipe format, as merge writes it to a pipe
	"$PREC" merge -q "$d" | cat >"$d.pz" || fail "merge $d | cat"
	"$PREC" merge -q "$d" --no-compression-level | cat >"$d.pplain" || fail "merge --no-compression-level $d | cat"
	expect "$d.pz" "$want"
	same_script "$d.pplain" "$d.pz"
	cmp "$d.plain.script" "$d.pz.script" || fail "$d: perf script differs between the file and the pipe merges"
	echo "record $opt -d: merged at level $want as perf's, perf script identical to the plain merge (file, pipe)"
done

# merge's own level still wins; a recording without -z merges plain
"$PREC" merge -q d5 -z3 -o d5.z3 2>err || fail_rc err "merge -z3"
expect d5.z3 3
same_script d5.plain d5.z3
"$PREC" record -q -d d0 -e cpu-clock -- "$H/callchain" 20 2>err || fail_rc err "record without -z"
"$PREC" merge -q d0 -o d0.data 2>err || fail_rc err "merge d0"
expect d0.data none
"$PREC" info d0 | grep -q '^compressed:' && fail "prec info of a recording without -z names a level"

# -o -: the stream at the level, as perf record -z5 -o -'s (prec gave 1)
"$PREC" record -q -z5 -e cpu-clock -o - -- "$H/callchain" 30 2>err | cat >stream.data ||
	fail_rc err "record -z5 -o -"
perf record -q -z5 -e cpu-clock -o - -- "$H/callchain" 30 2>/dev/null | cat >perfstream.data ||
	fail "perf record -z5 -o -"
expect perfstream.data 5
expect stream.data 5

# each --switch-output epoch keeps the level
# shellcheck disable=SC2016 # $0 and $PPID are the inner shell's
"$PREC" record -q --compression-level=4 -d sw --switch-output -e cpu-clock -F 2000 -- \
	sh -c '"$0" 100; kill -USR2 $PPID; sleep 0.2; "$0" 100' "$H/callchain" 2>err ||
	fail_rc err "record -z4 --switch-output"
n=0
for e in sw/epoch.*; do
	n=$((n + 1))
	"$PREC" merge -q "$e" -o "$e.data" 2>err || fail_rc err "merge $e"
	expect "$e.data" 4
done
[ "$n" = 2 ] || fail "--switch-output: $n epochs, want 2"
echo "PASS: record -z/-zN -d merges compressed at its level (as perf record), identical perf script; -zN, no -z, epochs"
