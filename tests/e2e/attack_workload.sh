#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The recorded workload as an adversary (prec runs as root from a root
# shell on a terminal):
# 1. --user nobody -- tiocsti: the workload may not type a command into the
#    terminal (TIOCSTI) for root's shell to run after prec exits: it is in a
#    session of its own, the terminal is not its controlling one (TIOCSTI
#    EPERM, /dev/tty ENXIO, TIOCSCTTY EPERM), and the shell reads nothing.
#    Its output still reaches the terminal and its exit status is prec's.
# 2. --user: the workload's environment is a clean one (TERM, PATH, LANG,
#    LC_*, TZ, DISPLAY, COLORTERM kept; HOME, USER, LOGNAME, SHELL from
#    the password database), nothing else of root's (LD_LIBRARY_PATH, a
#    secret); without --user the environment is passed as it is.
# 3. kill -9 of prec: the workload (sleep 60, with and without --user)
#    dies with it, within a second.
# 4. Ctrl-C at the terminal with --user (the signal reaches prec only):
#    prec stops the workload and writes a complete recording.
# 6. --user nobody stops the terminal's output (tcflow TCOOFF, IXON off so
#    ^Q and ^C do not restart it): prec's next status line or message
#    waited for ever, its main thread with it, so SIGINT went unread and
#    prec never stopped. Now it stops within 10 s, the recording complete.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3 "needs python3 (for a pty)"
e2e_tmpdir attack-wl
left= old_paranoid=
cleanup() {
	for p in $left; do kill -9 "$p" 2>/dev/null; done
	[ -n "$old_paranoid" ] && sysctl -qw kernel.perf_event_paranoid="$old_paranoid"
}
at_exit cleanup
cd "$tmp" || exit 1
mkdir pub && chmod 755 "$tmp" pub && cp "$H/tiocsti" pub/
nobody_home=$(getent passwd nobody | cut -d: -f6)
nobody_shell=$(getent passwd nobody | cut -d: -f7)

# inpty SCRIPT: bash -c SCRIPT as the leader of a new session on a fresh
# pty (its controlling terminal, as a login shell's is); prints what the
# terminal showed, exits with bash's status. INTR_WHEN=FILE: type Ctrl-C
# once FILE exists.
inpty() {
	python3 - "$1" <<-'EOF'
	import os, pty, select, sys, time
	intr = os.environ.get("INTR_WHEN")
	pid, fd = pty.fork()
	if pid == 0:
	    os.execvp("bash", ["bash", "-c", sys.argv[1]])
	out, st, sent, end = b"", None, False, time.time() + 60
	while time.time() < end:
	    if intr and not sent and os.path.exists(intr):
	        time.sleep(0.3)
	        os.write(fd, b"\x03")
	        sent = True
	    r, _, _ = select.select([fd], [], [], 0.05)
	    d = b""
	    if r:
	        try:
	            d = os.read(fd, 4096)
	        except OSError:
	            pass
	        out += d
	    if st is None:
	        p, s = os.waitpid(pid, os.WNOHANG)
	        if p:
	            st = s
	    if st is not None and not d:
	        break
	if st is None:
	    os.kill(pid, 9)
	    st = os.waitpid(pid, 0)[1]
	sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
	sys.exit(os.waitstatus_to_exitcode(st) & 255)
	EOF
}

# 1. TIOCSTI into root's terminal.
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ]; then
	echo "tiocsti: skipped (dev.tty.legacy_tiocsti is 0: no TIOCSTI without CAP_SYS_ADMIN)"
else
	inpty "'$PREC' record -q -d sti --user nobody -e cpu-clock -- '$tmp/pub/tiocsti' 'touch $tmp/pwned\\n'
		echo \"prec rc=\$?\"
		if read -r -t 1 line; then echo \"GOT:\$line\"; eval \"\$line\"; fi" >sti.out
	cat sti.out
	grep -q '^GOT:' sti.out && fail "tiocsti: root's shell read the workload's injected line"
	[ ! -e pwned ] || fail "tiocsti: the injected command ran as root"
	grep -q 'injected [1-9]' sti.out && fail "tiocsti: the workload injected input into the terminal"
	grep -q '^tiocsti stdin: EPERM' sti.out || fail "tiocsti: TIOCSTI on stdin did not fail with EPERM"
	grep -q '^open /dev/tty: ENXIO' sti.out || fail "tiocsti: the workload has a controlling terminal"
	grep -q '^tiocsctty stdin: EPERM' sti.out || fail "tiocsti: the workload took the terminal (TIOCSCTTY)"
	grep -q '^prec rc=3$' sti.out || fail "tiocsti: prec's exit is not the workload's 3"
	complete sti || fail "tiocsti: manifest"
	echo "tiocsti: EPERM, no controlling terminal, nothing reached root's shell"
fi

# Output to the terminal and the exit status, as before.
inpty "'$PREC' record -q -d hi --user nobody -e cpu-clock -- sh -c 'echo hi; exit 5'; echo \"prec rc=\$?\"" >hi.out
grep -qx hi hi.out && grep -qx 'prec rc=5' hi.out || { cat hi.out; fail "--user on a terminal: want 'hi' and exit 5"; }
out=$("$PREC" record -q -d hi2 --user nobody -e cpu-clock -- sh -c 'echo hi; exit 5')
rc=$?
[ "$out" = hi ] && [ $rc = 5 ] || fail "--user: printed '$out' and exited $rc, want hi and 5"
echo "--user: output shown, exit status passed through"

# 2. The environment.
env -i PATH="$PATH" TERM=xterm-256color LANG=C.UTF-8 LC_TIME=C TZ=UTC DISPLAY=:7 \
	COLORTERM=truecolor HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
	LD_LIBRARY_PATH=/tmp/evil PREC_SECRET=1 FOO_SECRET=hunter2 MAIL=/var/mail/root \
	"$PREC" record -q -d env --user nobody -e cpu-clock -- env >env.out
rc=$?
[ $rc = 0 ] || { cat env.out; fail "env: prec exited $rc"; }
sort env.out
bad=$(grep -v -E '^(TERM|PATH|LANG|LC_[A-Z_]+|TZ|DISPLAY|COLORTERM|HOME|USER|LOGNAME|SHELL)=' env.out)
[ -z "$bad" ] || fail "env: root's variables reached the workload: $bad"
for want in "PATH=$PATH" TERM=xterm-256color LANG=C.UTF-8 LC_TIME=C TZ=UTC DISPLAY=:7 \
	    COLORTERM=truecolor "HOME=$nobody_home" USER=nobody LOGNAME=nobody "SHELL=$nobody_shell"; do
	grep -qxF "$want" env.out || fail "env: want $want"
done
FOO_SECRET=kept "$PREC" record -q -d env2 -e cpu-clock -- env >env2.out
grep -qx FOO_SECRET=kept env2.out || fail "env: without --user the environment should be passed as it is"
echo "env: only TERM PATH LANG LC_* TZ DISPLAY COLORTERM kept; HOME USER LOGNAME SHELL are nobody's"

# 3. kill -9 of prec: the workload does not outlive it.
# starttime PID: field 22 of /proc/PID/stat (tells a reused pid apart)
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
for user in "" nobody; do
	what="kill -9${user:+ --user $user}"
	"$PREC" record -q -d "k9$user" ${user:+--user $user} -e cpu-clock -- sleep 60 2>/dev/null &
	pid=$!
	wait_manifest "k9$user"
	child=
	for _ in $(seq 100); do
		# (prec's other child is its build-id reader, prec-bid)
		child=$(pgrep -P "$pid" -x sleep | head -n 1)
		[ -n "$child" ] && break
		sleep 0.05
	done
	[ "$(cat /proc/$child/comm 2>/dev/null)" = sleep ] || fail "$what: no sleep child of prec $pid"
	left="$left $child"
	st=$(starttime "$child")
	kill -9 $pid
	wait $pid 2>/dev/null
	gone=
	for _ in $(seq 20); do
		s=$(sed 's/.*) //' "/proc/$child/stat" 2>/dev/null | cut -d' ' -f1)
		if [ -z "$s" ] || [ "$s" = Z ] || [ "$(starttime "$child")" != "$st" ]; then gone=1; break; fi
		sleep 0.05
	done
	[ -n "$gone" ] || fail "$what: the workload (pid $child) still runs 1 s after prec died"
	echo "$what: the workload died with prec"
done

# 4. Ctrl-C with --user: only prec gets SIGINT; it stops the workload.
start=$(date +%s)
INTR_WHEN=$tmp/int/manifest inpty "'$PREC' record -q -d int --user nobody -e cpu-clock -- sleep 31.7; echo \"prec rc=\$?\"" >int.out
cat int.out
[ $(($(date +%s) - start)) -lt 10 ] || fail "Ctrl-C: took more than 10 s"
# as perf's: prec sends the workload SIGTERM and dies of it (so bash goes on)
grep -qE 'prec rc=143$' int.out || fail "Ctrl-C: want prec to die of SIGTERM (143)"
complete int || fail "Ctrl-C: manifest not complete"
pgrep -u nobody -x sleep -a | grep -q "sleep 31.7$" && fail "Ctrl-C: the workload still runs"
echo "Ctrl-C: the workload stopped, recording complete"

# 5. An ordinary user naming themselves with --user (may not set groups):
# the command runs as them. Needs perf_event_paranoid -1 for a user's
# system-wide tracking event; restored by the trap.
old_paranoid=$(sysctl -n kernel.perf_event_paranoid)
sysctl -qw kernel.perf_event_paranoid=-1 || fail "set perf_event_paranoid"
chmod 1777 "$tmp"
nobody "$PREC" record -q -d "$tmp/self" \
	--user nobody -e task-clock -- id -u >self.out 2>self.err
rc=$?
sysctl -qw kernel.perf_event_paranoid="$old_paranoid"
[ $rc = 0 ] || fail "--user of one's own uid as nobody: exit $rc: $(cat self.err)"
[ "$(cat self.out)" = 65534 ] || fail "--user of one's own uid: ran as $(cat self.out)"
echo "--user naming oneself, unprivileged: runs"
# 6. The workload stops root's terminal: prec, on a pty of its own, gets
# SIGINT 3 s in and must end within 10 s. It dies of its command's SIGTERM, as perf.
cat >stopper.py <<'EOF'
import termios, time
a = termios.tcgetattr(1)
a[0] &= ~termios.IXON
termios.tcsetattr(1, termios.TCSANOW, a)
termios.tcflow(1, termios.TCOOFF)
time.sleep(30)
EOF
chmod 644 stopper.py
python3 - "$PREC" "$tmp/stop" "$tmp/stopper.py" >stop.out <<'EOF'
import os, pty, signal, subprocess, sys, termios, threading, time
master, slave = pty.openpty()
p = subprocess.Popen([sys.argv[1], "record", "-d", sys.argv[2], "-e", "cpu-clock",
                      "--user", "nobody", "--", "python3", sys.argv[3]],
                     stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
def drain():
    while True:
        try:
            if not os.read(master, 4096):
                return
        except OSError:
            return
threading.Thread(target=drain, daemon=True).start()
time.sleep(3)
p.send_signal(signal.SIGINT)
try:
    print("exit", p.wait(10))
except subprocess.TimeoutExpired:
    print("hung")
    termios.tcflow(slave, termios.TCOON)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
EOF
grep -qx 'exit -15' stop.out || fail "stopped terminal: prec $(cat stop.out), not the death by its command's SIGTERM (SIGINT unread: its writes wait on the terminal)"
complete stop || fail "stopped terminal: manifest not complete"
echo "stopped terminal: prec stopped on SIGINT, recording complete"
echo PASS
