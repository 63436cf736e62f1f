#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A recording to a stream (-o -, or a pipe on stdout without -o, perf's
# default) makes a directory under $TMPDIR for its shards before its
# events are parsed and its command is looked up. Refused then (an unknown
# event, a command not found, a CPU not online), prec must leave nothing
# there: each refused `prec record ... | cmd` left an empty
# prec-stream.XXXXXX behind. The same for -o /dev/null, whose shards go
# there too.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
e2e_tmpdir stream-refused
cd "$tmp" || fail "cd $tmp"
mkdir t
export TMPDIR=$tmp/t

# refused ARGS...: prec record ARGS must fail, and leave $TMPDIR empty
refused() {
	"$PREC" record "$@" 2>err >out.data
	rc=$?
	[ "$rc" != 0 ] || fail "prec record $* exited 0"
	[ -z "$(ls -A t)" ] || fail "prec record $* (exit $rc) left in \$TMPDIR: $(ls -A t)"
}
for out in "-o -" "-o /dev/null"; do
	# shellcheck disable=SC2086 # $out: two words
	refused $out -e no_such_event_here -- true
	# shellcheck disable=SC2086
	refused $out -e cpu-clock -- /nonexistent/command
done
# the pipe on stdout without -o
"$PREC" record -e no_such_event_here -- true 2>err | cat >out.data
[ -z "$(ls -A t)" ] || fail "prec record -e no_such_event_here | cat left in \$TMPDIR: $(ls -A t)"
"$PREC" record -e cpu-clock -- /nonexistent/command 2>err | cat >out.data
[ -z "$(ls -A t)" ] || fail "prec record -- /nonexistent/command | cat left in \$TMPDIR: $(ls -A t)"
echo "ok: refused stream recordings leave \$TMPDIR empty"
