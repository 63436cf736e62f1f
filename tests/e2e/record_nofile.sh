#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RLIMIT_NOFILE: record raises its soft fd limit to the hard limit before
# opening events (the command keeps the limit it was given); a hard limit
# below what the recording needs is one line naming how many descriptors,
# exit 1, and no output directory.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
e2e_tmpdir nofile
cd "$tmp" || exit 1

# No CAP_SYS_RESOURCE: the hard limit is the ceiling even for root.
capless() {
	setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource "$@"
}

# A soft limit below what the events need: raised, the recording works.
(ulimit -Sn 16 && capless "$PREC" record -q -d small -- true) >out 2>&1 ||
	fail_rc out "record with ulimit -Sn 16"
complete small || fail "ulimit -Sn 16: recording not complete"

# A soft limit that is enough for the events is raised all the same; the
# command sees the soft limit it was started with. Its parent is prec.
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -gt 300 ] || skip "hard fd limit $hard"
(ulimit -Sn 300 && capless "$PREC" record -q -d mid -- sh -c \
	'echo "cmd $(ulimit -Sn)"; awk "/^Max open files/ { print \"prec\", \$4 }" /proc/$PPID/limits') \
	>out 2>&1 || fail_rc out "record with ulimit -Sn 300"
cat out
grep -qx 'cmd 300' out || fail "the command's soft limit is not the one it was given"
want=$hard
[ "$want" = unlimited ] && want=unlimited
grep -qx "prec $want" out || fail "prec's soft fd limit is not the hard limit ($hard)"

# A hard limit below the need: one line, exit 1, nothing on disk.
(ulimit -n 20 && capless "$PREC" record -d low -- true) >out 2>err
rc=$?
cat err
[ $rc = 1 ] || fail "ulimit -n 20: exit $rc, want 1"
[ "$(wc -l <err)" = 1 ] || fail "ulimit -n 20: not one line"
grep -qE '[0-9]+ fds needed, RLIMIT_NOFILE is 20 ' err || fail "ulimit -n 20: no count in the line"
[ ! -e low ] || fail "ulimit -n 20: created the output directory"
echo "ok"
