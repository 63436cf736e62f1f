#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec record's status line on a terminal (script(1) gives it a pty): drawn
# over itself with \r while recording, at least twice, with figures that
# change; erased (\r ESC[K) before the summary, so the summary's line on
# the last screen holds nothing else, and nothing of it comes after; erased
# before a message printed while recording (--max-size's). None
# with -q, and none when stderr is a file, even with a terminal on stdout.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-100000}
need_root
need_tracepoint raw_syscalls/sys_enter
need_cmd script "no script (util-linux)"
e2e_tmpdir record-status
esc=$(printf '\033')
cr=$(printf '\r')

# on_tty FILE CMD: run the shell command CMD on a 200-column pty, its
# output (every byte the terminal got) in FILE.
on_tty() { # OUT CMD [STATUS]: CMD's status must be STATUS (default 0)
	script -qfec "stty cols 200; $2" /dev/null >"$1" </dev/null
	local rc=$?
	[ "$rc" = "${3:-0}" ] || fail "script: $2: exit $rc"
}
storms="sh -c '$H/storm $N; sleep 1.2; $H/storm $N; sleep 1.2; $H/storm $N; sleep 1.2'"
rec="$PREC record -m 16M -e raw_syscalls:sys_enter --filter 'id == 110'"

on_tty "$tmp/tty" "$rec -d $tmp/a -- $storms"
# The draws: what follows each \r up to ESC[K, that starts as the status does.
tr '\r' '\n' <"$tmp/tty" | sed -n "s/^\(prec record [0-9]* s: .*\)${esc}\[K\$/\1/p" >"$tmp/draws"
cat -v "$tmp/draws"
n=$(wc -l <"$tmp/draws")
[ "$n" -ge 2 ] || fail "$n status lines drawn in a recording of 3 s or more"
[ "$(sort -u "$tmp/draws" | wc -l)" -ge 2 ] || fail "the status line never changed"
grep -q ' records, ' "$tmp/draws" && grep -q ' on disk' "$tmp/draws" && grep -q '0 lost' "$tmp/draws" ||
	fail "status line lacks records, disk use or lost"
awk '{ print $3 }' "$tmp/draws" | sort -n -c 2>/dev/null || fail "elapsed seconds go backwards"
# The last screen: the summary's line, as the terminal shows it, is the
# summary alone: its last \r piece starts with the erase, then the summary.
piece=$(tr '\r' '\n' <"$tmp/tty" | grep -a '\[ prec record: ' | tail -1)
case "$piece" in
"${esc}[K[ prec record: "*) ;;
*) fail "the summary is not printed on an erased line: $(printf '%s' "$piece" | cat -v)" ;;
esac
# and no status text comes after it
tr '\r' '\n' <"$tmp/tty" | sed -n '/\[ prec record: /,$p' | grep -aq 'prec record [0-9]* s: ' &&
	fail "status text after the summary"
grep -aq ', 0 lost, ' "$tmp/tty" || fail "summary: records lost"

# A message while the line is drawn (--max-size's) gets a line of its own:
# the status is erased in the message's own write.
# (the command stopped by --max-size's SIGTERM: its 143, as perf's)
on_tty "$tmp/max" "$rec --max-size 20M -d $tmp/m -- sh -c '$H/storm $N; sleep 1.5; $H/storm $((N * 10))'" 143
tr '\r' '\n' <"$tmp/max" | grep -aq '^prec record [0-9]* s: ' || fail "--max-size: no status line before the limit"
piece=$(tr '\r' '\n' <"$tmp/max" | grep -a 'max-size reached')
case "$piece" in
"${esc}[Kprec: record: --max-size reached"*) ;;
*) fail "--max-size's message is not on an erased line: $(printf '%s' "$piece" | cat -v)" ;;
esac

# -q: no status line.
on_tty "$tmp/q" "$rec -q -d $tmp/b -- $storms"
grep -aq 'prec record [0-9]* s: ' "$tmp/q" && fail "a status line with -q"
# stderr to a file: none, there or on the terminal.
on_tty "$tmp/redir" "$rec -d $tmp/c -- $storms 2>$tmp/err"
cat -v "$tmp/err"
grep -q "$cr" "$tmp/err" && fail "a carriage return in redirected stderr"
grep -aq 'prec record [0-9]* s: ' "$tmp/err" "$tmp/redir" && fail "a status line with stderr redirected"
grep -q '^\[ prec record: ' "$tmp/err" || fail "no summary in redirected stderr"
echo "PASS: $n status lines drawn, changing, erased before the summary; none with -q or stderr redirected"
