#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge -z: zstd-compressed perf.data (PERF_RECORD_COMPRESSED records
# and the COMPRESSED header feature), as perf record -z writes it. On a
# --call-graph dwarf recording, a plain one and one whose samples are bigger
# than a compression batch (dwarf,65528): perf script on the -z merge prints
# byte for byte what it prints on the plain merge, in the file format and
# through a pipe, with nothing on stderr; every record but the header ones
# travels compressed; perf report --header-only shows the compression line
# as it does for perf record -z; the DWARF merge is at least 3x smaller.
# Bad levels: one line, exit 2, no output.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3 "no python3 (walks the records)"
e2e_tmpdir zmerge

# same_script WHAT A B: perf script on both (file or pipe-format files),
# identical and nothing on stderr.
same_script() {
	perf script -i "$2" >"$2.script" 2>"$2.err" || fail_rc "$2.err" "$1: perf script (plain)"
	perf script -i "$3" >"$3.script" 2>"$3.err" || fail_rc "$3.err" "$1: perf script (-z)"
	[ ! -s "$2.err" ] || { head "$2.err"; fail "$1: perf script on the plain merge printed on stderr"; }
	[ ! -s "$3.err" ] || { head "$3.err"; fail "$1: perf script on the -z merge printed on stderr"; }
	[ -s "$2.script" ] || fail "$1: perf script printed nothing"
	cmp "$2.script" "$3.script" || fail "$1: perf script differs between the plain and the -z merge"
}

# compressed WHAT FILE LEVEL: COMPRESSED records (81) carry the data: no
# SAMPLE, MMAP2 or COMM outside them; the header says Zstd at LEVEL.
compressed() {
	python3 "$PREC_TOP/tests/lib/record_types.py" "$2" >"$2.types" || fail "$1: walking the records"
	grep -q '^81 ' "$2.types" || { cat "$2.types"; fail "$1: no PERF_RECORD_COMPRESSED"; }
	! grep -Eq '^(3|9|10) ' "$2.types" || { cat "$2.types"; fail "$1: records left uncompressed"; }
	perf report --header-only -i "$2" >"$2.hdr" 2>&1 || { cat "$2.hdr"; fail "$1: perf report --header-only"; }
	grep -Eq "^# compressed : Zstd, level = $3, ratio = [0-9]+\$" "$2.hdr" ||
		{ grep -i compress "$2.hdr"; fail "$1: no '# compressed : Zstd, level = $3' header line"; }
}

# check WHAT DIR: plain and -z merges of DIR, file and pipe format.
check() {
	local w=$1 d=$2
	"$PREC" merge "$d" -o "$d.plain" 2>"$tmp/m.err" || fail_rc "$tmp/m.err" "$w: merge"
	"$PREC" merge "$d" -z -o "$d.z" 2>"$tmp/m.err" || fail_rc "$tmp/m.err" "$w: merge -z"
	same_script "$w, file" "$d.plain" "$d.z"
	compressed "$w, file" "$d.z" 1
	grep -Eq "^# compressed : Zstd, level = 1, ratio = [1-9]" "$d.z.hdr" || fail "$w: file ratio 0"
	"$PREC" merge "$d" 2>/dev/null | cat >"$d.pplain" || fail "$w: merge | cat"
	"$PREC" merge "$d" --compression-level 3 2>"$tmp/m.err" | cat >"$d.pz" ||
		fail "$w: merge --compression-level 3 | cat"
	grep -q '(pipe format)' "$tmp/m.err" || { cat "$tmp/m.err"; fail "$w: not the pipe format"; }
	same_script "$w, pipe" "$d.pplain" "$d.pz"
	compressed "$w, pipe" "$d.pz" 3
	echo "$w: $(stat -c %s "$d.plain") bytes plain, $(stat -c %s "$d.z") with -z; perf script identical, file and pipe"
}

"$PREC" record -q -d "$tmp/dw" -e cpu-clock -F 2000 --call-graph dwarf -- "$H/callchain" 400 ||
	fail "record --call-graph dwarf"
check "dwarf" "$tmp/dw"
plain=$(stat -c %s "$tmp/dw.plain") z=$(stat -c %s "$tmp/dw.z")
[ $((z * 3)) -le "$plain" ] || fail "dwarf: -z merge is $z bytes, plain $plain: not 3x smaller"
# The same stacks at a high level (22 would take zstd hundreds of MB): smaller
# still, read the same.
"$PREC" merge "$tmp/dw" --compression-level=19 -o "$tmp/dw.z19" 2>/dev/null || fail "merge --compression-level=19"
same_script "dwarf, level 19" "$tmp/dw.plain" "$tmp/dw.z19"
compressed "dwarf, level 19" "$tmp/dw.z19" 19
[ "$(stat -c %s "$tmp/dw.z19")" -le "$z" ] || fail "level 19 is bigger than level 1"

"$PREC" record -q -d "$tmp/pl" -e cpu-clock -F 2000 -- "$H/callchain" 200 || fail "record"
check "plain" "$tmp/pl"

# Samples of ~64 KiB, bigger than a batch: cut across two COMPRESSED
# records, which perf joins again.
"$PREC" record -q -d "$tmp/big" -e cpu-clock -F 500 --call-graph dwarf,65528 -- "$H/callchain" 200 ||
	fail "record --call-graph dwarf,65528"
check "dwarf,65528" "$tmp/big"

# perf record -z itself: the same header line.
perf record -q -z -o "$tmp/perf.z" -e cpu-clock -- "$H/callchain" 50 >/dev/null 2>&1 ||
	fail "perf record -z"
perf report --header-only -i "$tmp/perf.z" 2>/dev/null | grep -Eq '^# compressed : Zstd, level = 1, ratio = [0-9]+$' ||
	fail "perf record -z's header line is not the one checked above"

# Bad levels: one line, exit 2, no output file.
for arg in --compression-level=0 --compression-level=23 "--compression-level=-1" \
	--compression-level=x --compression-level= -z0 -z23 -zz; do
	"$PREC" merge "$tmp/pl" "$arg" -o "$tmp/never" 2>"$tmp/opt.err"
	rc=$?
	[ $rc = 2 ] || { cat "$tmp/opt.err"; fail "$arg exited $rc, want 2"; }
	[ "$(wc -l <"$tmp/opt.err")" = 1 ] || { cat "$tmp/opt.err"; fail "$arg: not one line"; }
	[ ! -e "$tmp/never" ] || fail "$arg wrote an output"
done
echo "PASS: -z merges read as the plain ones (file and pipe), dwarf $plain -> $z bytes, bad levels refused"
