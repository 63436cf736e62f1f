#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids of mapped files whose path the workload changed: a workload run
# as nobody (--user) maps a file of its own as code with its pages out of
# the page cache (so the kernel's MMAP2 carries no build-id and prec reads
# the file at the end), then makes the path name something else. prec must
# read only the file that was mapped (same device and inode), open nothing
# else, never through a mapping, and write its final manifest within the
# test's bound, saying how many files it could not read:
#   link   a symlink to a root-only ELF: its build-id must not be recorded
#          for the path (on a reader that follows it, the root-only file's
#          id is in the table);
#   zero   a symlink to /dev/zero;
#   fifo   a FIFO: the attacker's watcher must see no open of it;
#   trunc  the mapped file itself, a sparse ELF of 60000 note sections,
#          truncated by the attacker as soon as prec opens it: a reader
#          through a mapping dies of SIGBUS and leaves the manifest
#          unfinished; strace must show no mmap of the file.
# For link and zero, strace must show no open of the path for reading.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd readelf
id nobody >/dev/null 2>&1 || skip "no user nobody"
e2e_tmpdir abid
cleanup() {
	for p in "$tmp"/w*/watch.pid; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
}
at_exit cleanup

chmod 711 "$tmp"
mkdir -m 700 "$tmp/secret"
cp "$H/storm" "$tmp/secret/elf"
true_id=$(elf_id /bin/true)
secret_id=$(elf_id "$tmp/secret/elf")
[ -n "$true_id" ] && [ -n "$secret_id" ] && [ "$true_id" != "$secret_id" ] ||
	skip "need two ELF files of different build-ids"

# run MODE [TARGET]: the attack in a fresh nobody-owned directory w.MODE;
# sets rc (prec's exit status), out (the recording), w.
run() {
	local mode=$1
	w=$tmp/w.$mode
	out=$tmp/out.$mode
	mkdir -m 700 "$w"
	chown nobody "$w"
	# LeakSanitizer cannot run under ptrace (sanitizer builds).
	[ -z "$STRACE" ] || export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	timeout -k 5 30 $STRACE "$PREC" record -d "$out" -e cpu-clock --user nobody -- \
		"$H/mapswap" "$w" /bin/true "$@" >"$tmp/log.$mode" 2>&1
	rc=$?
	cat "$tmp/log.$mode"
	[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "$mode: prec did not finish in 30 s"
	grep -q 'first page not cached' "$tmp/log.$mode" ||
		skip "the mapped file's pages stayed cached (the kernel read its id)"
	"$H/mfdump" "$out" >"$tmp/mf.$mode" 2>&1
	# The watcher's verdict, if any, lands within a moment of prec's open.
	sleep 0.5
}

# prec opened the swapped path for reading (it may look it up: O_PATH).
check_no_open() {
	! awk -v p="$w/lib.so" 'index($0, "\"" p "\"") && /open(at)?\(/ &&
		!/O_PATH/ && !/O_CREAT/ { print; found = 1 } END { exit !found }' \
		"$tmp/strace" || fail "$1: prec opened what the path named"
}

# The manifest is final and lists no build-id for the swapped path.
check_common() {
	local mode=$1 got
	[ "$rc" = 0 ] || fail "$mode: prec exited $rc"
	grep -q '^state complete' "$tmp/mf.$mode" || fail "$mode: manifest not complete: $(head -3 "$tmp/mf.$mode")"
	got=$(awk -v p="$w/lib.so" '$1 == "buildid" && $3 == p { print $2 }' "$tmp/mf.$mode")
	[ -z "$got" ] || fail "$mode: build-id $got recorded for $w/lib.so (secret's is $secret_id)"
}

check_replaced_note() {
	"$PREC" info "$out" >"$tmp/info.$1" || fail "$1: prec info exited $?"
	grep -q '1 mapped files replaced or unreadable: no build-id' "$tmp/info.$1" ||
		fail "$1: prec info does not say a mapped file was replaced: $(grep -A2 build-ids "$tmp/info.$1")"
}

case_link() {
	run link "$tmp/secret/elf"
	check_no_open link
	check_common link
	check_replaced_note link
	echo "link: no build-id for the path (the root-only target's is $secret_id), info says replaced"
}

case_zero() {
	run zero
	check_no_open zero
	check_common zero
	check_replaced_note zero
	echo "zero: no build-id, info says replaced"
}

case_fifo() {
	# Not under strace: strace -f would wait for the watcher.
	local STRACE=
	run fifo
	! grep -q opened "$w/watch.log" 2>/dev/null || fail "fifo: prec opened the attacker's FIFO"
	check_common fifo
	check_replaced_note fifo
	echo "fifo: never opened, no build-id, info says replaced"
}

case_trunc() {
	run trunc
	grep -q truncated "$w/watch.log" 2>/dev/null || fail "trunc: prec never opened the mapped file"
	check_common trunc
	# No mmap of an fd prec opened on the mapped file, by path or by
	# /proc/self/fd (the workload's own O_CREAT open is not prec's).
	awk -v p="$w/lib.so" '
		/open(at)?\(/ && !/O_CREAT/ && (index($0, "\"" p "\"") || index($0, "\"/proc/self/fd/")) &&
		    match($0, /= [0-9]+$/) { fd[substr($0, RSTART + 2)] = 1 }
		/ close\(/ && match($0, /close\([0-9]+/) { delete fd[substr($0, RSTART + 6, RLENGTH - 6)] }
		/ mmap\(/ { n = split($0, a, ", "); if (n >= 5 && (a[5] in fd)) { print; bad = 1 } }
		END { exit bad }' "$tmp/strace" || fail "trunc: prec mapped the attacker's file"
	echo "trunc: exit 0, manifest complete, the file read without a mapping"
}

need_cmd strace
STRACE="strace -f -qq -o $tmp/strace -e trace=openat,open,mmap,close --"
# ABID_CASES picks cases (to show each one on its own against a binary).
for c in ${ABID_CASES:-link zero fifo trunc}; do
	"case_$c"
done
echo "PASS"
