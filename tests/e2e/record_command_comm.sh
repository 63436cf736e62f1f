#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The command a recording forks is named in the side band as perf 6.1
# names it, whatever the target: perf writes a COMM "perf-exec" for it
# (and its NAMESPACES with --namespaces) after everything it synthesizes,
# for every command it forks, even with -p or -t (where the command only
# times the recording and is not recorded), -a, and --synth=no. The same
# records, in the same order, by perf and by prec in the same run: each
# task record of the command and of the -p/-t target as perf script shows
# them (the pids, times and CPU column set aside). Before, prec named the
# command with -p, -t and --synth=no not at all, and with -a once (the
# scan of /proc) where perf names it twice.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir cmdcomm
tp=""
cleanup() { [ -n "$tp" ] && kill "$tp" 2>/dev/null; }
at_exit cleanup
sleep 60 & tp=$!

# tasks FILE CMDPID: the task records (COMM, NAMESPACES, FORK, EXIT) of
# the command and of the target, pids as C and T, times, CPU and a
# parent's pid (perf's or prec's own) dropped.
tasks() {
	perf script -i "$1" --show-task-events --show-namespace-events 2>/dev/null |
		grep -E "PERF_RECORD_(COMM|NAMESPACES|FORK|EXIT)" |
		grep -E "(^|[^0-9])($2|$tp)([^0-9]|$)" |
		sed -E "s/ \[[0-9]+\]//; s/ [0-9]+\.[0-9]+: / TIME: /; s/(^|[^0-9])$2([^0-9]|$)/\1C\2/g; s/(^|[^0-9])$2([^0-9]|$)/\1C\2/g; s/(^|[^0-9])$tp([^0-9]|$)/\1T\2/g; s/(^|[^0-9])$tp([^0-9]|$)/\1T\2/g; s/:\([0-9]+:[0-9]+\)$/:(P:P)/; s/^ +//"
}

# both NAME ARGS...: perf and prec record ARGS -- a shell that writes its
# pid; their command's and target's task records must be the same.
both() {
	local name=$1 tool c
	shift
	for tool in perf "$PREC"; do
		t=$([ "$tool" = perf ] && echo p || echo q)
		# shellcheck disable=SC2016 # the command's own shell expands it
		"$tool" record -q -o "$tmp/$t.data" -e cpu-clock "$@" -- sh -c 'echo $$ >"$0"' "$tmp/cpid" \
			>/dev/null 2>"$tmp/$t.err" || fail_rc "$tmp/$t.err" "$name: $tool record $*"
		c=$(cat "$tmp/cpid")
		tasks "$tmp/$t.data" "$c" >"$tmp/$t.tasks"
	done
	diff -u "$tmp/p.tasks" "$tmp/q.tasks" >"$tmp/diff" || {
		cat "$tmp/diff"
		fail "$name: the task records differ from perf's (- perf, + prec)"
	}
	grep -q "perf-exec:C/C" "$tmp/q.tasks" || fail "$name: no perf-exec COMM (perf's has one?)"
	echo "$name: $(grep -c . "$tmp/q.tasks") records as perf's"
}

both "-p" -p "$tp"
# after the target's records, as perf writes it
[ "$(grep -n 'PERF_RECORD_COMM: perf-exec' "$tmp/q.tasks" | cut -d: -f1)" -gt 1 ] ||
	fail "-p: the command's COMM is not after the target's"
both "-t" -t "$tp"
both "-p --synth=no" -p "$tp" --synth=no
both "-p --namespaces" -p "$tp" --namespaces
both "command --synth=no" --synth=no
both "command --namespaces" --namespaces

# -a: the scan of /proc names it (perf-exec, held before its exec), and
# the COMM after the synthesis again; other tasks of the machine make the
# rest of the file differ: only the command's two COMMs are compared.
for tool in perf "$PREC"; do
	t=$([ "$tool" = perf ] && echo p || echo q)
	# shellcheck disable=SC2016 # the command's own shell expands it
	"$tool" record -q -a -o "$tmp/$t.data" -e cpu-clock -- sh -c 'echo $$ >"$0"' "$tmp/cpid" \
		>/dev/null 2>"$tmp/$t.err" || fail_rc "$tmp/$t.err" "-a: $tool record"
	c=$(cat "$tmp/cpid")
	tasks "$tmp/$t.data" "$c" | grep -c "TIME: PERF_RECORD_COMM: perf-exec:C/C" >"$tmp/$t.n"
done
[ "$(cat "$tmp/p.n")" = 2 ] || fail "-a: perf's file names the command $(cat "$tmp/p.n") times, not 2"
[ "$(cat "$tmp/q.n")" = 2 ] || fail "-a: prec's file names the command $(cat "$tmp/q.n") times, perf's 2"
echo "PASS: the forked command's perf-exec COMM (and NAMESPACES) as perf's with -p, -t, --synth=no, --namespaces and -a"
