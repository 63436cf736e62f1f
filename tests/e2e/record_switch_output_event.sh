#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --switch-output-event, perf is the judge: a command that calls syncfs(2)
# three times, 0.3 s apart, recorded with
# --switch-output-event syscalls:sys_enter_syncfs (a rare call on the box:
# the side-band event is system-wide, as perf's): perf writes one file per
# cut, prec one epoch, and both have 4; every epoch is complete and its
# merge reads in perf script. The event's errors are one line, exit 2.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint syscalls/sys_enter_syncfs
e2e_tmpdir swevent
cd "$tmp" || fail "cd $tmp"
work=(sh -c 'sleep 0.3; sync -f .; sleep 0.3; sync -f .; sleep 0.3; sync -f .; sleep 0.3')
SW=(--switch-output-event syscalls:sys_enter_syncfs)

mkdir perf && (cd perf && perf record -q -B -o perf.data "${SW[@]}" -e cpu-clock -- "${work[@]}" \
	>/dev/null 2>&1) || fail "perf record ${SW[*]} exited $?"
"$PREC" record -q -d prec.d "${SW[@]}" -e cpu-clock -- "${work[@]}" 2>err ||
	fail_rc err "prec record ${SW[*]}"
nperf=$(find perf -name 'perf.data.*' | wc -l)
nprec=$(find prec.d -maxdepth 1 -name 'epoch.*' | wc -l)
echo "files: perf $nperf, prec $nprec epochs"
[ "$nperf" = 4 ] || fail "perf wrote $nperf files, want 4 (another process called syncfs?)"
[ "$nprec" = "$nperf" ] || fail "prec cut $nprec epochs, perf $nperf files"
for e in prec.d/epoch.*; do
	complete "$e" || fail "$e: manifest not complete"
	"$PREC" merge -o "$e.data" "$e" 2>/dev/null || fail "$e: merge exited $?"
	perf script -i "$e.data" >/dev/null 2>"$e.err" || fail "$e: perf script exited $?"
	[ ! -s "$e.err" ] || fail "$e: perf script says: $(cat "$e.err")"
done

# --switch-output-event with --switch-output=1M: signal mode, as perf
"$PREC" record -q -d size.d --switch-output=1M "${SW[@]}" -e cpu-clock -- "${work[@]}" 2>err ||
	fail_rc err "prec record --switch-output=1M ${SW[*]}"
n=$(find size.d -maxdepth 1 -name 'epoch.*' | wc -l)
[ "$n" = 4 ] || fail "--switch-output=1M with the event: $n epochs, want 4"

for args in "--switch-output-event no_such_event" "--switch-output-event syscalls:sys_enter_syncfs -o x.data"; do
	# shellcheck disable=SC2086 # the options are words
	"$PREC" record -q -d bad.d $args -- true >out 2>err
	rc=$?
	[ $rc = 2 ] || fail "prec record $args: exit $rc, want 2 ($(cat err))"
	[ "$(wc -l <err)" = 1 ] || fail "prec record $args: want one line, got: $(cat err)"
	[ ! -e bad.d ] || fail "prec record $args: left bad.d"
done
echo "refusals: one line, exit 2"
