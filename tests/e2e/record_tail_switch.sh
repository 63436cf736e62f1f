#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --tail-synthesize with --switch-output, perf is the judge: a bash
# spinning (one process, its maps never change) recorded with -p and cut
# into files. perf 6.1 writes each file's tail at its switch: the spinner's
# COMM and one MMAP2 per executable map, read from /proc then; its last
# file has the tail twice (written at the exit, then again by the final
# switch). prec gives each epoch one tail, the same records, stamped
# before the epoch's first: with -d DIR and SIGUSR2 (each epoch merged by
# prec merge), with -o FILE and --switch-output=TIME (the files it writes),
# with -d DIR and --switch-output=SIZE. In every file of prec's perf
# report names every sample's comm and DSO, with nothing on stderr (in
# perf's own, the samples of the rounds sorted before its tail are not).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir tailswitch
cd "$tmp" || fail "cd $tmp"
spin="" rec=""
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$spin" ] && kill "$spin" 2>/dev/null
}
at_exit cleanup
bash -c 'while :; do :; done' & spin=$!
sleep 0.3

# tail FILE: the spinner's COMM and MMAP2 records in FILE, as
# "NCOMM NMMAP2 NAME,NAME,..." (the names sorted, once each).
tail_of() {
	local s
	s=$(perf script -i "$1" --show-task-events --show-mmap-events 2>/dev/null | grep -v ' cpu-clock:')
	printf '%s %s %s\n' \
		"$(grep -c "PERF_RECORD_COMM: bash:$spin/$spin\$" <<<"$s")" \
		"$(grep -c "PERF_RECORD_MMAP2 $spin/$spin:" <<<"$s")" \
		"$(grep "PERF_RECORD_MMAP2 $spin/$spin:" <<<"$s" | awk '{ print $NF }' | sort -u | paste -sd,)"
}

# named FILE: perf report of FILE says nothing on stderr, and every
# sample of the spinner has its comm and a DSO.
named() {
	perf report -i "$1" --stdio --sort comm,dso >"$tmp/rep" 2>"$tmp/rerr" ||
		fail "$1: perf report failed: $(cat "$tmp/rerr")"
	[ -s "$tmp/rerr" ] && fail "$1: perf report says: $(head -3 "$tmp/rerr")"
	grep -q "^ .*% *bash " "$tmp/rep" || fail "$1: no sample named bash: $(grep '%' "$tmp/rep")"
	grep -E "% +(:$spin +|bash +\[unknown\])" "$tmp/rep" &&
		fail "$1: samples of the spinner unnamed"
	return 0
}

# ---- perf: two SIGUSR2 a second apart, three files ----
mkdir p
perf record -q --tail-synthesize --switch-output -e cpu-clock -p "$spin" -o p/perf.data -- sleep 3 \
	>/dev/null 2>perr & rec=$!
sleep 1
kill -USR2 "$rec"
sleep 1
kill -USR2 "$rec"
wait "$rec" || fail_rc perr "perf record --tail-synthesize --switch-output"
rec=
mapfile -t pf < <(ls p/perf.data.*)
[ "${#pf[@]}" = 3 ] || fail "perf wrote ${#pf[@]} files, want 3: ${pf[*]}"
one=$(tail_of "${pf[0]}")
read -r c m names <<<"$one"
echo "perf: a tail of $c COMM, $m MMAP2 ($names); the last file's: $(tail_of "${pf[2]}")"
{ [ "$c" = 1 ] && [ "$m" -ge 3 ]; } || fail "perf's first file: $one (the test shows nothing)"
[ "$(tail_of "${pf[1]}")" = "$one" ] || fail "perf's second file: $(tail_of "${pf[1]}"), its first $one"
[ "$(tail_of "${pf[2]}")" = "$((2 * c)) $((2 * m)) $names" ] ||
	fail "perf's last file: $(tail_of "${pf[2]}"), want the tail twice (perf 6.1)"
# perf's own samples are not all named: its tail, at the file's end with
# time 0, reaches perf report after the rounds before it were sorted out.
for f in "${pf[@]}"; do
	perf report -i "$f" --stdio --sort comm,dso 2>/dev/null | grep -E '% +(:[0-9]+|bash +\[unknown\])' |
		sed "s|^|$f: perf's own, unnamed: |"
done

# ---- prec -d, SIGUSR2: three epochs, each merged ----
"$PREC" record -q -d d --tail-synthesize --switch-output -e cpu-clock -p "$spin" 2>err & rec=$!
for k in 1 2 3; do
	wait_manifest "d/epoch.00000$k" 10
	sleep 1
	if [ "$k" -lt 3 ]; then kill -USR2 "$rec"; else kill -INT "$rec"; fi
done
wait_signaled "$rec" INT "prec record -d --tail-synthesize --switch-output" err
rec=
n=0
for e in d/epoch.*; do
	n=$((n + 1))
	"$PREC" merge "$e" -o "$e.data" 2>merr || fail_rc merr "prec merge $e"
	[ "$(tail_of "$e.data")" = "$one" ] || fail "$e: a tail of $(tail_of "$e.data"), perf's $one"
	named "$e.data"
done
[ "$n" = 3 ] || fail "prec -d: $n epochs, want 3"
echo "prec -d, SIGUSR2: 3 epochs, each with perf's tail, every sample named"

# ---- prec -o FILE, --switch-output=1s: the files it writes ----
mkdir o
"$PREC" record -q -o o/r.data --tail-synthesize --switch-output=1s -e cpu-clock -p "$spin" 2>err & rec=$!
sleep 3.5
kill -INT "$rec"
wait_signaled "$rec" INT "prec record -o --tail-synthesize --switch-output=1s" err
rec=
mapfile -t of < <(ls o/r.data.*)
[ "${#of[@]}" -ge 3 ] || fail "prec -o, 1s: ${#of[@]} files in 3.5 s, want 3 or more: $(ls o)"
for f in "${of[@]}"; do
	[ "$(tail_of "$f")" = "$one" ] || fail "$f: a tail of $(tail_of "$f"), perf's $one"
	named "$f"
done
echo "prec -o, 1s: ${#of[@]} files, each with perf's tail, every sample named"

# ---- prec -d, --switch-output=SIZE ----
"$PREC" record -q -d s --tail-synthesize --switch-output=16K -e cpu-clock -p "$spin" 2>err & rec=$!
wait_manifest s/epoch.000003 10
kill -INT "$rec"
wait_signaled "$rec" INT "prec record -d --tail-synthesize --switch-output=16K" err
rec=
n=0
for e in s/epoch.*; do
	n=$((n + 1))
	"$PREC" merge "$e" -o "$e.data" 2>merr || fail_rc merr "prec merge $e"
	[ "$(tail_of "$e.data")" = "$one" ] || fail "$e: a tail of $(tail_of "$e.data"), perf's $one"
	named "$e.data"
done
echo "prec -d, 16K: $n epochs, each with perf's tail, every sample named"
# ---- a command: the last file's tail names it, gone but not yet reaped
# (its COMM, no maps), as perf's (once: perf's second tail at its exit
# comes after its wait, and a -p target is no zombie). perf arms its
# SIGUSR2 once the command runs: the command waits before it asks. ----
# shellcheck disable=SC2016 # $PPID is the inner shell's
wl=(sh -c 'sleep 0.3; kill -USR2 $PPID; sleep 0.5; true')
mkdir w
perf record -q --tail-synthesize --switch-output -e cpu-clock -o w/perf.data -- "${wl[@]}" \
	>/dev/null 2>perr || fail_rc perr "perf record --tail-synthesize --switch-output -- sh"
"$PREC" record -q --tail-synthesize --switch-output -e cpu-clock -d wd -- "${wl[@]}" 2>err ||
	fail_rc err "prec record --tail-synthesize --switch-output -- sh"
"$PREC" merge -q wd/epoch.000002 -o wd.data 2>merr || fail_rc merr "prec merge wd/epoch.000002"
# the tail's COMMs of the command (no exec's) and its MMAP2s
zombie() {
	perf script -i "$1" --show-task-events --show-mmap-events 2>/dev/null | grep -v ' cpu-clock:' |
		awk '/PERF_RECORD_COMM: sh:/ { split($NF, a, "[:/]"); c[a[2]]++ }
		     /PERF_RECORD_MMAP2 / { split($0, b, "PERF_RECORD_MMAP2 "); split(b[2], t, "/"); m[t[1]]++ }
		     END { for (p in c) print c[p], m[p] + 0 }'
}
mapfile -t wf < <(ls w/perf.data.*)
[ "${#wf[@]}" = 2 ] || fail "perf wrote ${#wf[@]} files for the command, want 2"
[ "$(zombie "${wf[1]}")" = "1 0" ] || fail "perf's last file: $(zombie "${wf[1]}") (COMMs, MMAP2s of sh), want 1 0"
[ "$(zombie wd.data)" = "1 0" ] || fail "prec's last epoch: $(zombie wd.data) (COMMs, MMAP2s of sh), want 1 0"
echo "a command: its last file's tail names it, no maps, as perf's"
echo "PASS: --tail-synthesize --switch-output: one tail per file as perf's (perf's last file has it twice)"
