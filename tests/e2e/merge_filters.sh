#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec merge --time and --cpu choose samples the way perf's own --time and
# --cpu do, and keep the side band the kept samples need. A shell exec'd
# on CPU 0 moves itself to CPU 1 and loops there: its COMM and MMAPs are in
# CPU 0's shard and before the middle of the recording. perf script of
# `prec merge --time MID,` must print exactly what `perf script --time MID,`
# prints of the whole merge (comm, pid, time, symbol and DSO of every
# sample), and `--cpu 1` exactly what `perf script --cpu 1` prints, in file
# and pipe format, with nothing on stderr; the loop's samples are sh's, in
# dash or libc, not prec's or taskset's in [unknown].
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
e2e_tmpdir mfilt
F=comm,pid,tid,cpu,time,ip,sym,dso

# shellcheck disable=SC2016 # $$ and $i are the inner shell's
"$PREC" record -q -d "$tmp/d" -e cpu-clock -F 4000 -- taskset -c 0 sh -c \
	'taskset -p -c 1 $$ >/dev/null; i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done' ||
	fail "record: exit $?"
"$PREC" merge "$tmp/d" -o "$tmp/full.data" 2>"$tmp/err" || fail "merge: $(cat "$tmp/err")"
perf script -i "$tmp/full.data" -F time 2>/dev/null | tr -d ' :' >"$tmp/times"
n=$(wc -l <"$tmp/times")
[ "$n" -ge 100 ] || fail "only $n samples in the whole merge"
mid=$(sed -n "$((n / 2))p" "$tmp/times")

# same WHAT PRECARGS PERFARGS: perf script of prec merge PRECARGS (file,
# then pipe) equals perf script PERFARGS of the whole merge
same() {
	local what=$1 prec_args=$2 perf_args=$3
	# shellcheck disable=SC2086 # the args are words
	perf script -i "$tmp/full.data" $perf_args -F $F >"$tmp/want" 2>/dev/null
	[ -s "$tmp/want" ] || fail "$what: perf script $perf_args printed nothing"
	grep -qE '^ *sh .*(dash|libc)' "$tmp/want" || fail "$what: no sample of sh in dash or libc"
	rm -f "$tmp/cut.data"
	# shellcheck disable=SC2086
	"$PREC" merge "$tmp/d" $prec_args -o "$tmp/cut.data" 2>"$tmp/err" || fail "$what: merge: $(cat "$tmp/err")"
	perf script -i "$tmp/cut.data" -F $F >"$tmp/got" 2>"$tmp/perr"
	[ -s "$tmp/perr" ] && fail "$what: perf script complained: $(head -3 "$tmp/perr")"
	cmp -s "$tmp/want" "$tmp/got" ||
		fail "$what (file): differs from perf's own filter: $(diff "$tmp/want" "$tmp/got" | head -6)"
	# shellcheck disable=SC2086
	"$PREC" merge "$tmp/d" $prec_args 2>/dev/null | perf script -i - -F $F >"$tmp/got" 2>"$tmp/perr"
	[ -s "$tmp/perr" ] && fail "$what (pipe): perf script complained: $(head -3 "$tmp/perr")"
	cmp -s "$tmp/want" "$tmp/got" ||
		fail "$what (pipe): differs from perf's own filter: $(diff "$tmp/want" "$tmp/got" | head -6)"
	echo "$what: $(wc -l <"$tmp/want") samples, as perf's own filter"
}
same "--time $mid," "--time $mid," "--time $mid,"
same "--cpu 1" "--cpu 1" "--cpu 1"
same "--time $mid, --cpu 1" "--time $mid, --cpu 1" "--time $mid, --cpu 1"

# A pipe's header goes out before the samples: its sample times are the
# shards' record times within --time's window, never outside it.
last=$(tail -n 1 "$tmp/times")
"$PREC" merge "$tmp/d" --time "$mid," 2>/dev/null | perf report --header-only -i - 2>/dev/null |
	awk -F': ' '/time of first sample/ { f = $2 } /time of last sample/ { l = $2 }
		END { print f, l }' >"$tmp/hdr"
read -r hf hl <"$tmp/hdr"
awk -v f="$hf" -v l="$hl" -v m="$mid" -v e="$last" \
	'BEGIN { exit !(f != "" && f + 0 >= m - 0.000001 && l + 0 >= e - 0.000001 && f + 0 <= l + 0) }' ||
	fail "pipe header sample times $hf..$hl, want within $mid.. and up to $last"
echo "pipe header: samples $hf .. $hl (window from $mid)"
echo "ok"
