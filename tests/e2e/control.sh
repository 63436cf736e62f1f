#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --control and -D: a system-wide recording started disabled (-D -1) and
# driven through fifos. Storms of known size run before 'enable', between
# 'enable' and 'disable', and after 'disable'; 'stop' ends it. Exactly the
# enabled storm's getppid() calls are recorded, every command is acked.
# Then the fd: form with 'ping', the fd: form read from a file (a line too
# long dropped whole), and -D MS with a workload; with -D (MS or
# -1) the workload's samples are named and resolved (its exec's side band is
# recorded during the wait). A writer sending 'switch' faster than the cuts
# take holds no recording: it ends with its command, and on SIGTERM.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir control
rec="" yes_pid=""
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	[ -n "$yes_pid" ] && kill "$yes_pid" 2>/dev/null
}
at_exit cleanup
EV=(-m 32M -e raw_syscalls:sys_enter --filter 'id == 110')
# -a sees every getppid() on the machine (other tests run storms too): a
# big ring keeps a busy neighbour from costing us records.

cmd() { # command, ctl fifo, ack fifo
	echo "$1" >"$2"
	local a=
	read -r -t 10 a <"$3" || fail "no ack for '$1'"
	[ "$a" = ack ] || fail "ack for '$1' was '$a'"
}
storm() { # n -> pid in $spid
	"$H/storm" "$1" & spid=$!
	wait $spid || fail "storm $1 failed"
}
samples_of() { # dir pid
	"$PREC" dump "$1" | awk -v p="$2" '$4 == "SAMPLE" && index($3, p "/") == 1' | wc -l
}

# ---- fifo form, -D -1 ----
mkfifo "$tmp/ctl" "$tmp/ack"
"$PREC" record -a -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -d "$tmp/a" "${EV[@]}" \
	2>"$tmp/err" & rec=$!
wait_manifest "$tmp/a" 10
storm 1111; p0=$spid
cmd enable "$tmp/ctl" "$tmp/ack"
storm 5000; p1=$spid
cmd disable "$tmp/ctl" "$tmp/ack"
storm 2222; p2=$spid
cmd stop "$tmp/ctl" "$tmp/ack"
wait $rec || fail_rc "$tmp/err" "record"
cat "$tmp/err"
rec=
"$H/mfdump" "$tmp/a" | grep -q '^state complete' || fail "manifest not complete after 'stop'"
n0=$(samples_of "$tmp/a" $p0) n1=$(samples_of "$tmp/a" $p1) n2=$(samples_of "$tmp/a" $p2)
echo "before enable: $n0, enabled: $n1, after disable: $n2"
[ "$n0" = 0 ] || fail "$n0 samples recorded before 'enable' (-D -1)"
[ "$n1" = 5000 ] || fail "$n1 samples while enabled, want 5000"
[ "$n2" = 0 ] || fail "$n2 samples recorded after 'disable'"

# ---- fd form, ping, an unknown command ----
mkfifo "$tmp/ctl2" "$tmp/ack2"
exec 7<>"$tmp/ctl2" 8<>"$tmp/ack2"
"$PREC" record -a -D -1 --control fd:7,8 -d "$tmp/b" "${EV[@]}" 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/b" 10
echo bogus >&7
cmd ping "$tmp/ctl2" "$tmp/ack2"
cmd enable "$tmp/ctl2" "$tmp/ack2"
storm 777; p3=$spid
cmd stop "$tmp/ctl2" "$tmp/ack2"
wait $rec || fail_rc "$tmp/err" "record (fd:)"
rec=
exec 7>&- 8>&-
grep -q "unknown command 'bogus'" "$tmp/err" || fail "no warning for an unknown command"
n3=$(samples_of "$tmp/b" $p3)
[ "$n3" = 777 ] || fail "fd form: $n3 samples, want 777"

# ---- fd form read from a file: a line over 255 bytes is dropped whole with
# one warning (its tail is no command), the last line needs no newline and
# the end of the file stops the polling ----
{ printf 'x%.0s' $(seq 300); printf ' ping\nping\nstop'; } >"$tmp/cmds"
timeout 30 "$PREC" record -a -d "$tmp/h" "${EV[@]}" --control fd:3 3<"$tmp/cmds" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record (fd: a file)"
n=$(grep -c "control fd:3: command longer than 255 bytes: dropped" "$tmp/err")
[ "$n" = 1 ] || { cat "$tmp/err"; fail "fd: a file: $n warnings for one long line"; }
grep -q 'unknown command' "$tmp/err" && { cat "$tmp/err"; fail "fd: a file: a piece of the long line was parsed"; }
"$H/mfdump" "$tmp/h" | grep -q '^state complete' || fail "fd: a file: manifest not complete after 'stop'"

# ---- -D MS with a workload: the first storm runs before the enable ----
"$PREC" record -q -D 400 -d "$tmp/c" "${EV[@]}" -- \
	sh -c "\"$H/storm\" 3333; sleep 1; \"$H/storm\" 4444" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record -D 400"
"$PREC" merge "$tmp/c" -o "$tmp/c.data" 2>/dev/null || fail "merge c"
n=$(perf script -i "$tmp/c.data" 2>/dev/null | grep -c '^ *storm ')
[ "$n" = 4444 ] || fail "-D 400: $n storm samples, want 4444 (only the second storm)"

# ---- -a -D MS: the workload execs during the wait; the tracking events run
# from the start, so its samples after the enable carry its name and its
# binary (they went to "prec", the forked child's name, with no binary) ----
"$PREC" record -q -a -D 200 -e cpu-clock -F 1000 -d "$tmp/e" -- "$H/storm" 10000000 \
	2>"$tmp/err" || fail_rc "$tmp/err" "record -a -D 200"
"$PREC" merge "$tmp/e" -o "$tmp/e.data" 2>/dev/null || fail "merge e"
perf report -i "$tmp/e.data" --stdio --sort comm,dso 2>/dev/null >"$tmp/e.report"
grep -Eq '^ +[0-9.]+% +storm +storm *$' "$tmp/e.report" ||
	fail "-a -D 200: no samples of comm storm in the storm binary: $(grep -E '^ +[0-9]' "$tmp/e.report" | head -5)"

# ---- -D MS and -D -1 with a command alone: only the sampling events wait;
# the tracking event starts with the command (on exec) as without -D, so
# the samples after the wait carry comm sh and resolve to the shell's
# binary or libc (they went to comm "prec", the forked child's name, with
# [unknown] DSOs: the exec's COMM and MMAPs came during the wait) ----
sh_bin=$(basename "$(readlink -f /bin/sh)")
W='sleep 0.5; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'
named() { # dir label: sh's samples in its binary or libc; none of "prec" or [unknown]
	local good bad
	"$PREC" merge "$1" -o "$1.data" 2>/dev/null || fail "$2: merge"
	perf script -i "$1.data" -F comm,ip,dso 2>/dev/null | awk '{ print $1, $NF }' |
		sort | uniq -c >"$1.dsos"
	good=$(awk -v b="/$sh_bin)" '$2 == "sh" && (index($3, b) || $3 ~ /\/libc[.-]/) { n += $1 }
		END { print n + 0 }' "$1.dsos")
	bad=$(awk '$2 == "prec" || $3 ~ /unknown/ { n += $1 } END { print n + 0 }' "$1.dsos")
	[ "$good" -ge 50 ] && [ "$bad" = 0 ] ||
		fail "$2: $good samples of sh in $sh_bin or libc (want >= 50), $bad of prec or [unknown]: $(tr '\n' ';' <"$1.dsos")"
	echo "$2: $good samples of sh in $sh_bin or libc, none of prec or [unknown]"
}
"$PREC" record -q -D 100 -e cpu-clock -d "$tmp/f" -- sh -c "$W" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record -D 100 -- sh"
named "$tmp/f" "-D 100"
"$PREC" record -q -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -e cpu-clock -d "$tmp/g" -- sh -c "$W" \
	2>"$tmp/err" & rec=$!
wait_manifest "$tmp/g" 10
sleep 0.1 # the command has exec'd: its COMM and MMAPs come before 'enable'
cmd enable "$tmp/ctl" "$tmp/ack"
wait $rec || fail_rc "$tmp/err" "record -D -1 -- sh"
rec=
named "$tmp/g" "-D -1"

# ---- a writer faster than its commands (each 'switch' makes an epoch):
# the recording still ends with its command, and on SIGTERM, at once, each
# epoch complete (the loop ran the flood's commands for as long as they
# came, the command's end and the signal unseen) ----
flood() { # fifo: 'switch' as fast as it is read, until prec is gone (SIGPIPE)
	yes switch >"$1" 2>/dev/null & yes_pid=$!
}
ended_clean() { # dir label: every epoch's manifest complete
	local e
	for e in "$1"/epoch.*; do
		"$H/mfdump" "$e" | grep -q '^state complete' || fail "$2: $e not complete"
	done
}
mkfifo "$tmp/fl1" "$tmp/fl2"
flood "$tmp/fl1"
SECONDS=0
timeout -s KILL 30 "$PREC" record -q -d "$tmp/fl1.d" --switch-output --switch-max-files 2 \
	--control "fifo:$tmp/fl1" "${EV[@]}" -- sleep 1 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record under a flood of 'switch' (-- sleep 1)"
wait $yes_pid 2>/dev/null
[ $SECONDS -le 10 ] || fail "-- sleep 1 under a flood of 'switch' took $SECONDS s"
ended_clean "$tmp/fl1.d" "flood, -- sleep 1"
flood "$tmp/fl2"
"$PREC" record -q -a -d "$tmp/fl2.d" --switch-output --switch-max-files 2 \
	--control "fifo:$tmp/fl2" "${EV[@]}" 2>"$tmp/err" & rec=$!
# cutting: an epoch after the first (any: with --switch-max-files 2 under
# the flood, each lives only until the next but one, shorter than a poll)
for _ in $(seq 200); do
	compgen -G "$tmp/fl2.d/epoch.*[1-9]*/manifest" >/dev/null && break
	sleep 0.05
done
compgen -G "$tmp/fl2.d/epoch.*[1-9]*/manifest" >/dev/null ||
	fail "record -a under a flood of 'switch': no second epoch after 10 s"
sleep 0.5
kill -TERM $rec
SECONDS=0
( sleep 30; kill -KILL $rec 2>/dev/null ) & guard=$!
wait_signaled $rec TERM "record -a under a flood of 'switch', SIGTERM" "$tmp/err"
rec=
kill $guard 2>/dev/null
wait $yes_pid 2>/dev/null
[ $SECONDS -le 10 ] || fail "SIGTERM under a flood of 'switch' took $SECONDS s"
ended_clean "$tmp/fl2.d" "flood, SIGTERM"

# Bad specs are refused on the command line.
"$PREC" record --control nonsense -d "$tmp/x" true 2>/dev/null; [ $? = 2 ] || fail "--control nonsense accepted"
"$PREC" record --control "fifo:$tmp/missing" -d "$tmp/x" true 2>"$tmp/err"; [ $? = 1 ] || fail "missing fifo accepted"
grep -q mkfifo "$tmp/err" || fail "missing fifo: $(cat "$tmp/err")"
[ -e "$tmp/x" ] && fail "a refused recording left its directory"
echo "PASS: -D -1 + control fifo: exactly the enabled storm recorded, acks, fd form, -D MS, -a -D names the workload, -D and -D -1 with a command record its side band, a flood of commands ends with the command and on SIGTERM"
