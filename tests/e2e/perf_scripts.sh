#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's bundled scripts with perf record played by prec: each script's
# -record file (/usr/lib/perf-core/scripts/*/bin/NAME-record, run as perf
# script record runs it: sh FILE ARGS) calls `perf record` with its own
# events, and tests/lib/perf-as-prec makes that prec record; the -report
# file (perf script -s) reads what it wrote as it reads perf's own. Cases:
# - the file: syscall-counts (python) and failed-syscalls (perl), their
#   reports for the workload's comm prec's as perf's, with nothing on stderr;
# - the pipe perf script's live mode builds (NAME-record -q -o - | NAME-report
#   -i -);
# - the pipe without -o: perf record's output is stdout when no -o names
#   a path and stdout is a FIFO (perf's data file, check_pipe), so
#   `NAME-record CMD | NAME-report -i -` works with perf. prec wrote
#   perf.data there and the report read an empty pipe. A refusal of that
#   pipe (--switch-output) names stdout and writes nothing to it.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
need_tracepoint raw_syscalls/sys_exit
exec_path=/usr/lib/perf-core
[ -f "$exec_path/scripts/python/bin/syscall-counts-record" ] || skip "no perf scripts in $exec_path (linux-perf's)"
perf version --build-options | grep -q 'libpython: \[ on' || skip "perf built without python"
perf version --build-options | grep -q 'libperl: \[ on' || skip "perf built without perl"
e2e_tmpdir perfscripts
# The -report files find their script under PERF_EXEC_PATH, which perf
# script sets for them; so does the test, running them by hand.
export PERF_EXEC_PATH=$exec_path
py=$exec_path/scripts/python/bin
pl=$exec_path/scripts/perl/bin
asprec=$PREC_TOP/tests/lib/perf-as-prec
# a report table's rows: syscall-counts' "NR COUNT", failed-syscalls'
# "COMM COUNT"
rows='^([0-9]+|[a-z]+) +[0-9]+$'
# dd's reads and writes of one byte, and no status (its lines are
# written in a varying number of writes): counts the workload fixes
work=(dd if=/dev/zero of=/dev/null bs=1 count=1000 status=none)

# run WHO DIR CMD...: CMD in a fresh DIR, perf record being WHO's (perf,
# or prec through perf-as-prec), stdout in DIR/out, stderr in DIR/err
run() {
	local who=$1 dir=$tmp/$2
	shift 2
	mkdir "$dir" || fail "mkdir $dir"
	if [ "$who" = prec ]; then
		(cd "$dir" && PATH=$asprec:$PATH "$@" >out 2>err)
	else
		(cd "$dir" && "$@" >out 2>err)
	fi
}

# same CASE: the report of prec's run as perf's: the same lines but the
# table's rows (perf's own run may lose events under load, and each run
# has its own pids), and no word on the report's stderr
same() {
	local p=$tmp/$1.perf q=$tmp/$1.prec
	[ -s "$p/out" ] || fail "$1: nothing from perf's own recording: $(head -3 "$p/err")"
	[ -s "$q/out" ] || fail "$1: nothing from prec's recording: $(head -3 "$q/err")"
	grep -Ev "$rows" "$p/out" >"$p/text"
	grep -Ev "$rows" "$q/out" >"$q/text"
	cmp -s "$p/text" "$q/text" || fail "$1: prec's report differs from perf's: $(diff "$p/text" "$q/text" | head -8)"
	[ ! -s "$q/err" ] || fail "$1: the report on prec's recording said: $(head -3 "$q/err")"
}

# counted CASE: in prec's syscall-counts report, read (0) and write (1)
# each at least the workload's 1000 (dd's own few more)
counted() {
	local n

	n=$(awk '$1 == 0 || $1 == 1 { n++; if ($2 < 1000) bad = 1 } END { print bad ? -1 : n + 0 }' "$tmp/$1.prec/out")
	[ "$n" = 2 ] || fail "$1: syscall-counts on prec's recording: read and write not 1000 times each: $(cat "$tmp/$1.prec/out")"
}

# 1. The file, python: syscall-counts of dd alone
for who in perf prec; do
	run "$who" file.$who sh -c "sh $py/syscall-counts-record -- ${work[*]} 2>rec.err &&
		sh $py/syscall-counts-report dd"
done
same file
counted file

# 2. The file, perl: failed-syscalls of ls on a missing file
for who in perf prec; do
	run "$who" perl.$who sh -c "sh $pl/failed-syscalls-record -- ls /nonexistent-$$ 2>/dev/null;
		sh $pl/failed-syscalls-report ls"
done
same perl
grep -Eq '^ls +[1-9]' "$tmp/perl.prec/out" || fail "failed-syscalls on prec's file: no failure of ls: $(cat "$tmp/perl.prec/out")"

# 3. perf script's live mode: -q -o - into the report's -i -
for who in perf prec; do
	run "$who" live.$who sh -c "sh $py/syscall-counts-record -q -o - -- ${work[*]} 2>rec.err |
		sh $py/syscall-counts-report dd -i -"
done
same live
counted live

# 4. No -o, stdout a pipe: the pipe format, as perf's
for who in perf prec; do
	run "$who" fifo.$who sh -c "sh $py/syscall-counts-record -- ${work[*]} 2>rec.err |
		sh $py/syscall-counts-report dd -i -"
done
same fifo
counted fifo
[ ! -e "$tmp/fifo.prec/perf.data" ] || fail "no -o, stdout a pipe: prec wrote perf.data instead of the pipe"
# and prec's own file through the pipe: what a regular stdout would get
mkdir "$tmp/reg" || fail "mkdir $tmp/reg"
cd "$tmp/reg" || fail "cd $tmp/reg"
"$PREC" record -q -e raw_syscalls:sys_enter -- "${work[@]}" 2>err | cat >piped || fail_rc err "prec record | cat"
[ -s piped ] || fail "prec record | cat: nothing on the pipe"
[ ! -e perf.data ] || fail "prec record | cat: a perf.data beside the pipe"
perf script -i piped -F event 2>perr | sort | uniq -c >events || fail_rc perr "perf script on prec's stream"
[ ! -s perr ] || fail "perf script on prec's stream said: $(head -3 perr)"
grep -q 'raw_syscalls:sys_enter' events || fail "prec record | cat: no sys_enter in the stream: $(cat events)"
"$PREC" record -q -e raw_syscalls:sys_enter -- true >file 2>err || fail_rc err "prec record > file"
[ -s perf.data ] || fail "prec record > file: stdout not a pipe, yet no perf.data"
[ ! -s file ] || fail "prec record > file: stdout not a pipe, yet written to"

# A refusal of the pipe: --switch-output has no file to switch to there
rm -f perf.data
"$PREC" record -q --switch-output -e raw_syscalls:sys_enter -- true 2>err | cat >piped
rc=${PIPESTATUS[0]}
[ "$rc" != 0 ] || fail "--switch-output, stdout a pipe: taken (perf fails at the first switch)"
grep -q 'stdout is a pipe' err || fail "--switch-output, stdout a pipe: not said as such: $(cat err)"
[ ! -s piped ] || fail "--switch-output, stdout a pipe: refused, yet the pipe was written"
[ ! -e perf.data ] || fail "--switch-output, stdout a pipe: refused, yet a perf.data was written"
echo "PASS: syscall-counts and failed-syscalls read prec's file, its -o - stream and its stdout pipe without -o as perf's"
