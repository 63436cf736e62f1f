#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A ^C while `prec record -o FILE` merges its recording into FILE (the
# terminal's, to the whole process group: an impatient second ^C, or the
# one that stops a recording as an epoch's merge runs) leaves FILE whole,
# as perf record writes its file to the end whatever ^C comes; prec then
# dies of the SIGINT, as perf does. Before, the merge child died of it:
# "merging ... failed", no FILE.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir mergeint
cd "$tmp" || exit 1
H=$PREC_BUILD/tests/helpers
N=2000000

# prec in a session of its own; once its `prec merge` child runs, SIGINT
# to the whole group; prints how prec ended and whether the merge was seen
python3 - "$PREC" "$H/storm" "$N" >run.out 2>run.err <<'EOF'
import os, signal, subprocess, sys, time
prec, storm, n = sys.argv[1:4]
p = subprocess.Popen([prec, "record", "-q", "-o", "f.data", "-e", "raw_syscalls:sys_enter",
                      "--filter", "id == 110", "--", storm, n],
                     stdout=subprocess.DEVNULL, stderr=open("rec.err", "w"),
                     start_new_session=True)
def merging():
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = open("/proc/%s/stat" % d).read()
            argv = open("/proc/%s/cmdline" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if int(st.rsplit(")", 1)[1].split()[1]) == p.pid and b"merge" in argv[1:2]:
            return True
    return False
seen = False
while p.poll() is None:
    if merging():
        seen = True
        time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)
        break
    time.sleep(0.002)
rc = p.wait()
print("merge seen" if seen else "merge not seen")
print(("signaled %d" % -rc) if rc < 0 else ("exited %d" % rc))
EOF
cat run.out rec.err
grep -qx 'merge seen' run.out || fail "the merge child was never seen: $(cat run.err)"
grep -qx 'signaled 2' run.out || fail "prec did not die of the SIGINT: $(tail -n 1 run.out)"
grep -q 'merging' rec.err && fail "the merge failed: $(cat rec.err)"
[ -f f.data ] || fail "no f.data after a ^C during its merge"
[ ! -e f.data.prec ] || fail "the recording is left in f.data.prec"
perf script -i f.data -F event >script.out 2>script.err || fail_rc script.err "perf script"
[ ! -s script.err ] || fail "perf script said: $(head -3 script.err)"
got=$(grep -c 'raw_syscalls:sys_enter' script.out)
[ "$got" = "$N" ] || fail "f.data holds $got of the storm's $N getppid() calls"
echo "PASS: ^C during the merge: f.data whole ($got samples), prec died of SIGINT"
