#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Root's build-id cache fill copies a mapped file that is on another file
# system than the cache (here /dev/shm's tmpfs, or a FUSE mount), and the
# workload chose that file:
#   sparse  a copy of true grown by a 1 GiB hole (36 KiB of memory) was
#           written out whole: 874 MB of zeros in the stop's 5 s, then
#           left as a temporary (.elf.XXXXXXXX) when the recorder exited
#           mid-copy. Now its holes stay holes: the entry is whole, the
#           same bytes, and takes about what the file takes.
#   stall   a FUSE file whose reads past 64 KiB are never answered
#           (tests/helpers/fusestall): the copy waits for ever. While it
#           does, no name of it is in the cache (an unnamed O_TMPFILE,
#           named once whole), so a recorder that ends there leaves
#           nothing; the old copy had a named temporary from its start.
#           And prec exits meanwhile: the copy is a child process's (it
#           was a thread's, and prec's exit waited as long as the server).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd truncate
e2e_tmpdir bidcopy "${TMPDIR:-/var/tmp}"
cd "$tmp" || fail "cd $tmp"
shm=$(mktemp -d /dev/shm/prec-bidcopy.XXXXXX) || skip "no /dev/shm"
at_exit "rm -rf '$shm'"
[ "$(stat -c %d "$shm")" != "$(stat -c %d "$tmp")" ] || skip "/dev/shm and $tmp are one file system"
true_id=$(perf buildid-list -i /bin/true 2>/dev/null | cut -d' ' -f1)

temps() { find "$1" -name '.elf.*' | head -3; }

case_sparse() {
	{ cp /bin/true "$shm/t" && truncate -s 1G "$shm/t"; } || fail "sparse: make $shm/t"
	"$shm/t" || skip "sparse: $shm/t does not run"
	mkdir bc1
	PERF_BUILDID_DIR=$tmp/bc1 timeout 120 "$PREC" record -q -d rec1 -e cpu-clock -- "$shm/t" \
		2>err1 || fail_rc err1 "sparse: record"
	local e
	e=$(find bc1 -path "*${shm#/}/t/*/elf")
	[ -n "$e" ] || fail "sparse: no cache entry: $(find bc1 | head -5) $(temps bc1)"
	[ "$(stat -c %s "$e")" = 1073741824 ] || fail "sparse: the entry has $(stat -c %s "$e") bytes"
	[ "$(du -k "$e" | cut -f1)" -lt 1024 ] || fail "sparse: the entry takes $(du -k "$e" | cut -f1) KiB of disk"
	cmp -s -n 1048576 "$e" "$shm/t" || fail "sparse: the entry's first MiB differs"
	[ -z "$(temps bc1)" ] || fail "sparse: a temporary left: $(temps bc1)"
	echo "sparse: 1 GiB of holes cached in $(du -k "$e" | cut -f1) KiB"
}

case_stall() {
	local fpid rpid i
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	mkdir -m 755 fz bc2
	"$H/fusestall" "$tmp/fz" /bin/true >fz.out 2>&1 &
	fpid=$!
	at_exit "kill $fpid 2>/dev/null; umount -l '$tmp/fz' 2>/dev/null"
	for _ in $(seq 100); do grep -q ready fz.out && break; sleep 0.05; done
	grep -q ready fz.out || { cat fz.out; skip "no FUSE mount here"; }
	fz/stall.so || skip "stall: the FUSE file does not run"
	PERF_BUILDID_DIR=$tmp/bc2 "$PREC" record -d rec2 -e cpu-clock -- "$tmp/fz/stall.so" \
		>out2 2>err2 &
	rpid=$!
	# the summary: the stop's wait for the fill is over; the copy is stuck
	for i in $(seq 600); do grep -q 'prec record:' err2 && break; sleep 0.1; done
	grep -q 'prec record:' err2 || { kill -9 $rpid; fail "stall: no summary in 60 s: $(cat err2)"; }
	sleep 0.5
	left=$(temps bc2)
	# prec exits while the copy still waits: the copy is a child's, not
	# a thread of prec's (a process whose thread waits in a FUSE read the
	# server took is never reaped: the shell waited as long as the server)
	for i in $(seq 100); do kill -0 $rpid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $rpid 2>/dev/null; then
		kill $fpid
		umount -l "$tmp/fz" 2>/dev/null
		wait $rpid
		fail "stall: prec record not gone 10 s after its summary, while the server hangs"
	fi
	wait $rpid || fail_rc err2 "stall: record"
	kill $fpid # the stuck read fails: the copy's child ends
	umount -l "$tmp/fz" 2>/dev/null
	[ -z "$left" ] || fail "stall: a named temporary in the cache while the copy waits: $left"
	[ -n "$true_id" ] && [ -n "$(find bc2 -path "*/$true_id/elf")" ] &&
		fail "stall: an entry for the file that never answered"
	echo "stall: no name of the stuck copy in the cache"
}

# CASES="sparse" runs only those (to see each fail on an old build).
for c in ${CASES:-sparse stall}; do
	"case_$c"
done
echo PASS
