#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How prec record ends, beside perf record in the same run, as waitpid sees
# it (a death by a signal, not an exit of 128 + signal): SIGINT, SIGTERM
# and SIGHUP to -a, SIGUSR2 (ignored without snapshots or epochs) then
# SIGINT; a command killed by SIGKILL or SIGTERM, one exiting 3
# or 0; SIGINT to the recorder alone while its command runs (the command's
# SIGTERM); -o - on SIGINT, its stream whole. And what that is for: a bash
# loop of recordings, Ctrl-C (SIGINT to the process group) stops the loop
# at the first, as bash stops on a child that died of SIGINT.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
e2e_tmpdir exitsig
cd "$tmp" || exit 1

# outcome NAME SIGNALS TARGET READY ARGV...: run ARGV in a process group of
# its own; once the file READY has bytes (and 0.3 s more), send SIGNALS
# (numbers, comma-separated, 0.5 s apart; 0 for none) to TARGET (self,
# group); print "NAME signaled N" or "NAME exited N" as waitpid saw it.
outcome() {
	python3 - "$@" <<-'EOF'
	import os, signal, sys, time
	name, target, ready, argv = sys.argv[1], sys.argv[3], sys.argv[4], sys.argv[5:]
	sigs = [int(s) for s in sys.argv[2].split(",") if s != "0"]
	pid = os.fork()
	if pid == 0:
	    os.setpgid(0, 0)
	    os.execvp(argv[0], argv)
	try:
	    os.setpgid(pid, pid)  # the child's too: whichever runs first
	except OSError:
	    pass
	try:
	    if sigs:
	        for _ in range(400):
	            if os.path.exists(ready) and os.path.getsize(ready) or \
	               os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
	                break
	            time.sleep(0.05)
	        time.sleep(0.3)
	    for i, sig in enumerate(sigs):
	        if i:
	            time.sleep(0.5)
	        try:
	            (os.killpg if target == "group" else os.kill)(pid, sig)
	        except ProcessLookupError:
	            pass
	    st = os.waitpid(pid, 0)[1]
	except BaseException:
	    os.killpg(pid, signal.SIGKILL)  # nothing left running on our stdout
	    raise
	print(name, "signaled %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exited %d" % os.WEXITSTATUS(st))
	EOF
}

# rec TOOL OUT ARGS...: TOOL's record into OUT (a perf.data), quiet, with
# its stderr in OUT.err; prec's shards are in OUT.prec until the merge.
rec() {
	local tool=$1 out=$2
	shift 2
	if [ "$tool" = perf ]; then
		echo perf record -q -e cpu-clock -o "$out" "$@"
	else
		echo "$PREC" record -e cpu-clock -o "$out" "$@"
	fi
}
# ready TOOL OUT: the file whose first bytes say TOOL is recording into OUT
ready() {
	if [ "$1" = perf ]; then echo "$2"; else echo "$2.prec/manifest"; fi
}

# name  signal target  record's arguments
cases=(
	"-a,SIGINT       2 self  -a"
	"-a,SIGTERM     15 self  -a"
	"-a,SIGHUP       1 self  -a"
	"-a,SIGUSR2,INT  12,2 self -a"
	"cmd-SIGKILL     0 -     -- sh -c 'kill -KILL \$\$'"
	"cmd-SIGTERM     0 -     -- sh -c 'kill -TERM \$\$'"
	"cmd-exit-3      0 -     -- sh -c 'exit 3'"
	"cmd-exit-0      0 -     -- true"
	"cmd,SIGINT     2 self  -- sleep 30"
)
: >want
: >prec.got
for c in "${cases[@]}"; do
	read -r name sig target args <<<"$c"
	for tool in perf prec; do
		out=$tool.$name.data
		eval "set -- $args"
		# shellcheck disable=SC2046 # rec's words
		line=$(outcome "$name" "$sig" "$target" "$(ready $tool "$out")" $(rec $tool "$out") "$@" 2>"$out.err")
		echo "$tool $line"
		[ $tool = perf ] && echo "$line" >>want
		[ $tool = prec ] && echo "$line" >>prec.got
	done
	# prec ended after its stop, not before: the summary said, the
	# merged file whole
	grep -q '^\[ prec record: .*manifest in' "prec.$name.data.err" ||
		fail "$name: prec's stop summary missing: $(cat "prec.$name.data.err")"
	perf report -i "prec.$name.data" --stats >/dev/null 2>&1 || fail "$name: perf cannot read prec's file"
done
diff want prec.got || fail "prec record does not end as perf record does (perf's outcomes, then prec's)"
grep -qx -- '-a,SIGINT signaled 2' want || fail "perf: SIGINT to -a did not end it by SIGINT (is this perf 6.1?)"

# -o - (perf's pipe format on stdout): SIGINT, and every sample of the
# stream is in what stdout received before prec died.
# (signaled once its events are enabled: pipe.ready, after the ack of a
# ping; the stream's header comes before)
mkfifo pipe.ctl pipe.ack
(wait_enabled pipe.ctl pipe.ack "-o -" && echo >pipe.ready) &
# shellcheck disable=SC2046
line=$(outcome pipe 2 self pipe.ready sh -c 'exec "$@" >pipe.data 2>pipe.err' sh \
	"$PREC" record -e cpu-clock -o - -a --control fifo:pipe.ctl,pipe.ack)
echo "prec $line"
[ "$line" = "pipe signaled 2" ] || fail "-o -: $line, want signaled 2: $(cat pipe.err)"
said=$(sed -n 's/.* records (\([0-9]*\) samples).*-> stdout.*/\1/p' pipe.err)
got=$(perf script -i pipe.data -F ip 2>/dev/null | wc -l)
echo "-o -: $said samples said, $got read by perf script"
if [ -z "$said" ] || [ "$said" = 0 ] || [ "$said" != "$got" ]; then
	fail "-o -: said '$said' samples, perf script read $got: $(cat pipe.err)"
fi

# A bash loop of three recordings: Ctrl-C stops it at the first.
for tool in perf prec; do
	mkdir "loop.$tool"
	r=$(rec $tool "loop.$tool/x\$i" -a -- sleep 5)
	outcome loop 2 group "$(ready $tool "loop.$tool/x1")" \
		bash -c "for i in 1 2 3; do $r 2>/dev/null; echo next \$i; done" >"loop.$tool.out"
	echo "$tool bash loop: $(tr '\n' ' ' <"loop.$tool.out")"
	[ "$(cat "loop.$tool.out")" = "loop signaled 2" ] ||
		fail "$tool: the bash loop did not stop at the first recording's Ctrl-C: $(cat "loop.$tool.out")"
done
perf report -i loop.prec/x1 --stats >/dev/null 2>&1 || fail "the loop's first prec recording: perf cannot read it"
echo PASS
