#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The stream's reader leaves (prec record | head -c 100): perf dies of
# SIGPIPE at its next write (status 141). prec's follower, the stream's
# writer, dies of it the same way; the recorder must stop then and end by
# SIGPIPE too, where it recorded on to the command's end, or for ever with
# -a (no command), filling $TMPDIR. Both the pipe on stdout without -o
# (perf's default) and -o -.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd timeout
e2e_tmpdir stream-gone
cd "$tmp" || fail "cd $tmp"
export TMPDIR=$tmp # the recording kept after the failed stream goes with $tmp

# perf's own status, the reference (a -a recording, no command)
timeout 30 perf record -q -e cpu-clock -a 2>/dev/null | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 141 ] || skip "perf record -a | head exited $rc here, not SIGPIPE's 141"

# 30 s: ended by the timeout (124) the recorder did not stop
for out in "" "-o -"; do
	# shellcheck disable=SC2086 # $out: no word or two
	timeout 30 "$PREC" record $out -e cpu-clock -a 2>err.a | head -c 100 >/dev/null
	rc=${PIPESTATUS[0]}
	[ "$rc" = 141 ] || fail "prec record $out -a | head -c 100 exited $rc, not perf's 141: $(tail -3 err.a)"
	grep -q "the recording is kept in $tmp/prec-stream" err.a ||
		fail "prec record $out -a: no line naming the recording kept: $(tail -2 err.a)"
done

# with a command: the command is stopped too, prec still ends by SIGPIPE
timeout 30 "$PREC" record -e cpu-clock -- sleep 29.7 2>err.c | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" = 141 ] || fail "prec record -- sleep | head -c 100 exited $rc, not 141: $(tail -3 err.c)"
! pgrep -f '^sleep 29.7$' >/dev/null || fail "the command outlived prec"
echo "ok: the stream's reader gone, prec stops and ends by SIGPIPE (141), as perf"
