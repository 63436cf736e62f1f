#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output with file output, as perf: each epoch, once closed (at a
# SIGUSR2, the last at the end), becomes FILE.<timestamp> (perf.data by
# default, or -o FILE), named as perf names it (16 digits: %Y%m%d%H%M%S
# and hundredths), with perf's "[ perf record: Dump FILE.<timestamp> ]"
# line, and no directory is left. A storm of exactly N getppid() calls
# cut by SIGUSR2 into K files: each read by perf script with nothing on
# stderr, the samples over the files exactly N. --switch-max-files 2
# leaves the newest 2; -o - is refused (perf fails at the first switch);
# -d DIR keeps the epoch directories. perf does the same beside it.
# Switches in one hundredth (a frozen wall clock) take the next
# hundredths' names, where perf's would collide. A merge that fails (a
# full tmpfs) keeps its epoch, names it, exit 1.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir switchfiles
rec="" kicker="" fs=""
cleanup() {
	[ -n "$kicker" ] && kill "$kicker" 2>/dev/null
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$fs" ] && umount "$fs" 2>/dev/null
}
at_exit cleanup
EV=(-m 64M -e raw_syscalls:sys_enter --filter 'id == 110')
TS='[0-9]\{16\}'

# check_files DIR BASE N MIN: DIR holds only BASE.<16 digits> files (at
# least MIN), each read clean by perf script; the storm's samples add up
# to exactly N.
check_files() {
	local dir=$1 base=$2 n=$3 min=$4 k=0 sum=0 f got
	for f in "$dir"/*; do
		basename "$f" | grep -qx "$base\.$TS" || fail "$dir: $(basename "$f") is not $base.<16 digits>"
		[ -f "$f" ] || fail "$f: not a file"
		perf script -i "$f" >"$tmp/script" 2>"$tmp/perr" || fail "$f: perf script failed: $(cat "$tmp/perr")"
		[ -s "$tmp/perr" ] && fail "$f: perf script says: $(head -3 "$tmp/perr")"
		got=$(awk '$1 == "storm" && /raw_syscalls:sys_enter:/' "$tmp/script" | wc -l)
		echo "$f: $got samples of the storm"
		k=$((k + 1))
		sum=$((sum + got))
	done
	[ "$k" -ge "$min" ] || fail "$dir: $k files, want at least $min"
	[ "$sum" = "$n" ] || fail "$dir: $sum samples over $k files, want exactly $n"
	echo "$dir: $k files, $sum samples"
}

# ---- the default perf.data: SIGUSR2 during a storm ----
N=${STORM_N:-1000000}
mkdir "$tmp/def"
(cd "$tmp/def" && exec "$PREC" record --switch-output "${EV[@]}" -- "$H/storm" "$N") 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/def/perf.data.prec/epoch.000001" 10
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.25; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/err" "record --switch-output"
rec=
wait "$kicker" 2>/dev/null
kicker=
cat "$tmp/err"
check_files "$tmp/def" perf.data "$N" 3
nfiles=$(find "$tmp/def" -mindepth 1 -maxdepth 1 | wc -l)
ndump=$(grep -c "^\[ perf record: Dump perf\.data\.$TS \]\$" "$tmp/err")
[ "$ndump" = "$nfiles" ] || fail "$ndump Dump lines for $nfiles files: $(cat "$tmp/err")"
for f in "$tmp"/def/*; do
	grep -qx "\[ perf record: Dump $(basename "$f") \]" "$tmp/err" || fail "no Dump line for $f"
done

# ---- perf beside it: the same names and the same Dump lines ----
mkdir "$tmp/perf"
(cd "$tmp/perf" && exec perf record --switch-output -e cpu-clock -- \
	sh -c 'sleep 0.3; kill -USR2 $PPID; sleep 0.3') >/dev/null 2>"$tmp/perr" ||
	fail "perf record --switch-output: $(cat "$tmp/perr")"
[ "$(grep -c "^\[ perf record: Dump perf\.data\.$TS \]\$" "$tmp/perr")" = 2 ] ||
	fail "perf's Dump lines are not as expected: $(cat "$tmp/perr")"
[ "$(find "$tmp/perf" -mindepth 1 -maxdepth 1 -name 'perf.data.*' | grep -c "/perf\.data\.$TS\$")" = 2 ] ||
	fail "perf's files: $(ls "$tmp/perf")"
mkdir "$tmp/prec"
(cd "$tmp/prec" && exec "$PREC" record --switch-output -e cpu-clock -- \
	sh -c 'sleep 0.3; kill -USR2 $PPID; sleep 0.3') >/dev/null 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record --switch-output, as perf"
[ "$(grep -c "^\[ perf record: Dump perf\.data\.$TS \]\$" "$tmp/err")" = 2 ] ||
	fail "prec's Dump lines are not perf's: $(cat "$tmp/err")"
[ "$(find "$tmp/prec" -mindepth 1 -maxdepth 1 | grep -c "/perf\.data\.$TS\$")" = 2 ] ||
	fail "prec's files are not perf's: $(ls "$tmp/prec")"

# ---- -o x.data and --switch-max-files 2: the newest 2 x.data.<ts> ----
mkdir "$tmp/max"
(cd "$tmp/max" && exec "$PREC" record --switch-output --switch-max-files=2 -o x.data -e cpu-clock -- \
	sh -c 'for i in 1 2 3 4; do sleep 0.15; kill -USR2 $PPID; done; sleep 0.2') 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record --switch-max-files 2 -o x.data"
cat "$tmp/err"
ls "$tmp/max"
[ "$(grep -c "^\[ perf record: Dump x\.data\.$TS \]\$" "$tmp/err")" = 5 ] || fail "want 5 Dump lines"
[ "$(find "$tmp/max" -mindepth 1 -maxdepth 1 | grep -c "/x\.data\.$TS\$")" = 2 ] ||
	fail "--switch-max-files 2 left: $(ls "$tmp/max")"
[ "$(find "$tmp/max" -mindepth 1 -maxdepth 1 | wc -l)" = 2 ] || fail "more is left: $(ls "$tmp/max")"
# the newest two: the last two Dump lines
for f in $(grep -o "x\.data\.$TS" "$tmp/err" | tail -2); do
	[ -f "$tmp/max/$f" ] || fail "$f (one of the newest two) is gone"
	perf script -i "$tmp/max/$f" >/dev/null 2>"$tmp/perr" && [ ! -s "$tmp/perr" ] ||
		fail "$f: perf script: $(cat "$tmp/perr")"
done

# ---- switches in one hundredth: the next hundredths' names, none lost ----
# A wall clock frozen (tests/preload/frozentime.so) puts every switch in
# the same hundredth, where perf's names collide (perf writes over the
# file): prec names the later files by the next hundredths, in order.
so=$PREC_BUILD/tests/preload/frozentime.so
[ -f "$so" ] || fail "no $so (make unit builds it)"
mkdir "$tmp/frozen"
(cd "$tmp/frozen" && FROZENTIME_SEC=1700000000 LD_PRELOAD=$so exec "$PREC" record --switch-output \
	-o f.data -e cpu-clock -- sh -c 'for i in 1 2; do sleep 0.15; kill -USR2 $PPID; done; sleep 0.15') \
	2>"$tmp/err" || fail_rc "$tmp/err" "record --switch-output, the clock frozen"
stamp=$(TZ=${TZ:-} date -d @1700000000 +%Y%m%d%H%M%S)
want=$(printf 'f.data.%s%s\n' "$stamp" 00 "$stamp" 01 "$stamp" 02)
[ "$(ls "$tmp/frozen")" = "$want" ] || fail "frozen clock: files $(ls "$tmp/frozen" | tr '\n' ' '), want $(echo $want)"
[ "$(grep -o "f\.data\.$TS" "$tmp/err" | tr '\n' ' ')" = "$(echo $want) " ] ||
	fail "frozen clock: Dump lines out of order: $(cat "$tmp/err")"
echo "the clock frozen: $(echo $want)"

# ---- -o -: refused in one line (perf fails at the first switch) ----
"$PREC" record --switch-output -o - -e cpu-clock -- true >/dev/null 2>"$tmp/err" &&
	fail "-o - with --switch-output succeeded"
grep -q 'option -o -: --switch-output writes a file per switch' "$tmp/err" || fail "-o -: $(cat "$tmp/err")"

# ---- -d DIR: the epoch directories, as before ----
mkdir "$tmp/dir"
(cd "$tmp/dir" && exec "$PREC" record -d d --switch-output -e cpu-clock -- \
	sh -c 'sleep 0.2; kill -USR2 $PPID; sleep 0.2') 2>"$tmp/err" || fail_rc "$tmp/err" "record -d --switch-output"
[ "$(ls "$tmp/dir")" = d ] || fail "-d: $(ls "$tmp/dir")"
[ -d "$tmp/dir/d/epoch.000001" ] && [ -d "$tmp/dir/d/epoch.000002" ] || fail "-d: $(ls "$tmp/dir/d")"
grep -q "perf record: Dump" "$tmp/err" && fail "-d printed Dump lines"

# ---- a failed merge: its epoch kept and named, exit 1 ----
# The shards (~3.7 MB) fit in 6 MiB, the merged file beside them does not.
mkdir "$tmp/fs"
mount -t tmpfs -o size=6m,mode=0755 prec-switchfiles "$tmp/fs" || skip "cannot mount a tmpfs"
fs=$tmp/fs
(cd "$fs" && exec "$PREC" record --switch-output "${EV[@]}" -- "$H/storm" 30000) 2>"$tmp/err" &&
	fail "a failed merge exited 0: $(cat "$tmp/err")"
cat "$tmp/err"
grep -q "^prec: error: perf.data.prec/epoch.000001: merging it into perf\.data\.$TS failed .*: the epoch is kept there" \
	"$tmp/err" || fail "no line naming the kept epoch"
"$H/mfdump" "$fs/perf.data.prec/epoch.000001" | grep -q '^state complete' || fail "the kept epoch is not complete"
umount "$fs"
fs=
echo ok
