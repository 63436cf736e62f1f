#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Root's prec archive of a recording another user made (uid 65534), its
# build-id table written by that user (tests/helpers/mkshards --map: in the
# table and mapped where the samples hit; --buildid: in the table only):
#   kmsg    the table maps /proc/kmsg and tracefs's trace_pipe, files whose
#           read consumes what the kernel keeps and then blocks: the
#           archive must end within 20 s, read neither (strace -y) and put
#           neither in the tar;
#   sparse  four ELF files of the user's, each extended by a 64 MiB hole:
#           the tar must stay under 4 MiB (holes not written out) and
#           unpack to the same bytes; a file that would pass --max-size is
#           left out; a file in the table that no sample hit is left out
#           unless --all;
#   owner   a root-only ELF (0700 directory) named with its real id stays
#           out; /etc/shadow, a missing path, the user's own ELF under a
#           wrong id and the root-only ELF under a wrong id are each left
#           out with one and the same message, and no message holds the
#           real id of a file that did not match;
#   trunc   the user truncates their mapped file (64 MiB of data) as the
#           archive opens it: the archive goes on, says so, puts no
#           .build-id link to that entry, and archives the other file;
#   stall   a mapped file on a FUSE mount whose server stops answering
#           after its first 64 KiB (tests/helpers/fusestall): the archive
#           ends within 30 s, says so, puts no .build-id link to that
#           entry, and archives the other file (an old build waits in the
#           read until the server is killed).
# The archive is run with -f (besides replacing its output, the force a
# reader wants for a recording another user owns). CASES="..." runs only
# the cases named.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
need_cmd tar
need_cmd readelf
need_cmd strace
id nobody >/dev/null 2>&1 || skip "no user nobody"
e2e_tmpdir aarch
chmod 755 "$tmp"
on_fail() { :; }

true_id=$(elf_id /bin/true)
[ -n "$true_id" ] || skip "/bin/true has no build-id"
# The user's recording: mkshards run as 65534 in a directory of its own.
mkrec() { # NAME ARGS...: $tmp/u/NAME
	local name=$1
	shift
	nobody "$H/mkshards" "$tmp/u/$name" --shards 1 --records-per-shard 400 "$@" \
		>/dev/null 2>"$tmp/mk.err" || fail_rc "$tmp/mk.err" "mkshards $name"
}
if ! mkdir -m 755 "$tmp/u" || ! chown 65534:65534 "$tmp/u"; then
	fail "the user's directory"
fi

case_kmsg() {
	local maps=(--map "$true_id:/proc/kmsg")
	[ -e /sys/kernel/tracing/trace_pipe ] && maps+=(--map "$true_id:/sys/kernel/tracing/trace_pipe")
	[ -e /sys/kernel/debug/tracing/trace_pipe ] &&
		maps+=(--map "$true_id:/sys/kernel/debug/tracing/trace_pipe")
	mkrec kmsg "${maps[@]}"
	# strace -y names each read's file; LeakSanitizer cannot run under
	# ptrace (sanitizer builds).
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	timeout -k 5 20 strace -f -qq -y -o "$tmp/kmsg.strace" \
		-e trace=read,pread64,readv,preadv,preadv2 -- \
		"$PREC" archive -f "$tmp/u/kmsg" -o "$tmp/kmsg.tar" 2>"$tmp/kmsg.err"
	rc=$?
	cat "$tmp/kmsg.err"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		fail "kmsg: the archive did not end in 20 s (it read /proc/kmsg)"
	fi
	! grep -E '<(/proc/kmsg|[^>]*trace_pipe)>' "$tmp/kmsg.strace" | head -3 | grep . ||
		fail "kmsg: the archive read /proc/kmsg or trace_pipe"
	[ $rc = 0 ] || fail "kmsg: the archive exited $rc"
	grep -qF "left out /proc/kmsg ($true_id): no file the recording's owner may read holds this build-id there" \
		"$tmp/kmsg.err" || fail "kmsg: no 'left out /proc/kmsg' line"
	[ "$(tar tf "$tmp/kmsg.tar" | wc -l)" = 0 ] || fail "kmsg: the tar is not empty"
	echo "kmsg: /proc/kmsg and trace_pipe left out, unread, at once"
}

case_sparse() {
	local f ids=() args=() n=0 size
	mkdir -m 755 "$tmp/u/sp" && chown 65534:65534 "$tmp/u/sp"
	for f in storm pingpong faults spinthread; do
		[ -n "$(elf_id "$H/$f")" ] || skip "$H/$f has no build-id"
		nobody sh -c "cp '$H/$f' '$tmp/u/sp/$f' && truncate -s +64M '$tmp/u/sp/$f'" ||
			fail "sparse: the user's copy of $f"
		ids+=("$(elf_id "$H/$f")")
		args+=(--map "${ids[n]}:$tmp/u/sp/$f")
		n=$((n + 1))
	done
	# in the table, never mapped: out unless --all
	args+=(--buildid "$(elf_id "$H/mkshards"):$H/mkshards")
	mkrec sparse "${args[@]}"
	"$PREC" archive -f "$tmp/u/sparse" -o "$tmp/sparse.tar" 2>"$tmp/sparse.err" ||
		fail_rc "$tmp/sparse.err" "sparse: archive"
	cat "$tmp/sparse.err"
	size=$(stat -c %s "$tmp/sparse.tar")
	[ "$size" -lt $((4 << 20)) ] || fail "sparse: a tar of $size bytes for 4 files of 64 MiB holes"
	mkdir "$tmp/sparse.x"
	tar xf "$tmp/sparse.tar" -C "$tmp/sparse.x" 2>"$tmp/tar.err" || fail_rc "$tmp/tar.err" "sparse: tar xf"
	n=0
	for f in storm pingpong faults spinthread; do
		cmp -s "$tmp/u/sp/$f" "$tmp/sparse.x/${tmp#/}/u/sp/$f/${ids[n]}/elf" ||
			fail "sparse: $f unpacks to other bytes"
		n=$((n + 1))
	done
	! tar tf "$tmp/sparse.tar" | grep -q mkshards || fail "sparse: a file no sample hit is in the tar"
	grep -q "1 not hit by a sample" "$tmp/sparse.err" || fail "sparse: the summary does not count the file not hit"
	"$PREC" archive -f --all "$tmp/u/sparse" -o "$tmp/all.tar" 2>"$tmp/all.err" ||
		fail_rc "$tmp/all.err" "sparse: archive --all"
	tar tf "$tmp/all.tar" | grep -q "mkshards/" || fail "sparse: --all leaves out the file no sample hit"
	# the bound: room for the map blocks and the first files, not all
	"$PREC" archive -f --max-size 200K "$tmp/u/sparse" -o "$tmp/bound.tar" 2>"$tmp/bound.err" ||
		fail_rc "$tmp/bound.err" "sparse: archive --max-size 200K"
	cat "$tmp/bound.err"
	size=$(stat -c %s "$tmp/bound.tar")
	[ "$size" -le $((200 << 10)) ] || fail "sparse: a tar of $size bytes under --max-size 200K"
	grep -q "would take the archive past --max-size (204800 bytes)" "$tmp/bound.err" ||
		fail "sparse: no file left out for the bound"
	tar tf "$tmp/bound.tar" >/dev/null 2>&1 || fail "sparse: the bounded tar does not read"
	echo "sparse: 4 x 64 MiB holes in a tar of $(stat -c %s "$tmp/sparse.tar") bytes, same bytes unpacked; bound and hits kept"
}

case_owner() {
	local reason line
	mkdir -m 700 "$tmp/secret" "$tmp/secret2"
	cp "$H/storm" "$tmp/secret/elf"
	cp "$H/pingpong" "$tmp/secret2/elf"
	mkdir -m 755 "$tmp/u/own" && chown 65534:65534 "$tmp/u/own"
	nobody cp "$H/faults" "$tmp/u/own/mine" || fail "owner: the user's copy"
	mkrec owner --map "$(elf_id "$H/storm"):$tmp/secret/elf" \
		--map "$true_id:/etc/shadow" \
		--map "$true_id:$tmp/u/own/missing" \
		--map "$true_id:$tmp/u/own/mine"
	# a second table: the root-only file under a wrong id
	mkrec owner2 --map "$true_id:$tmp/secret2/elf"
	"$PREC" archive -f "$tmp/u/owner" -o "$tmp/owner.tar" 2>"$tmp/owner.err" ||
		fail_rc "$tmp/owner.err" "owner: archive"
	"$PREC" archive -f "$tmp/u/owner2" -o "$tmp/owner2.tar" 2>>"$tmp/owner.err" ||
		fail_rc "$tmp/owner.err" "owner: archive 2"
	cat "$tmp/owner.err"
	! tar tf "$tmp/owner.tar" | grep -q secret || fail "owner: a file its owner could not read is in the tar"
	for f in "$tmp/secret/elf" /etc/shadow "$tmp/u/own/missing" "$tmp/u/own/mine" "$tmp/secret2/elf"; do
		line=$(grep -F "left out $f (" "$tmp/owner.err") || fail "owner: no 'left out $f' line"
		[ -z "${reason:-}" ] || [ "${line##*): }" = "$reason" ] ||
			fail "owner: $f left out for '${line##*): }', another for '$reason'"
		reason=${line##*): }
	done
	for id in "$(elf_id "$H/faults")" "$(elf_id "$H/pingpong")"; do
		! grep -qF "$id" "$tmp/owner.err" || fail "owner: a message tells the build-id on disk ($id)"
	done
	echo "owner: 5 files left out, each for '$reason'"
}

case_trunc() {
	mkdir -m 755 "$tmp/u/tr" && chown 65534:65534 "$tmp/u/tr"
	nobody sh -c "cat '$H/storm' > '$tmp/u/tr/big' && head -c 64M /dev/urandom >> '$tmp/u/tr/big'" ||
		fail "trunc: the user's file"
	mkrec trunc --map "$(elf_id "$H/storm"):$tmp/u/tr/big" --map "$true_id:/bin/true"
	nobody "$H/swapper" -t 30 -T 1048576 "$tmp/u/tr/big" open -- "$tmp/u/tr/big" - \
		>"$tmp/swapper.out" 2>&1 &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	for _ in $(seq 100); do grep -q ready "$tmp/swapper.out" && break; sleep 0.05; done
	grep -q ready "$tmp/swapper.out" || fail "trunc: the watcher is not ready"
	# The tar goes to a pipe read after a second: the copy waits there,
	# the truncation lands in it.
	"$PREC" archive -f "$tmp/u/trunc" -o - 2>"$tmp/trunc.err" | { sleep 1; cat >"$tmp/trunc.tar"; }
	rc=${PIPESTATUS[0]}
	cat "$tmp/trunc.err" "$tmp/swapper.out"
	grep -q swapped "$tmp/swapper.out" || fail "trunc: the user's truncation did not happen"
	[ "$rc" = 0 ] || fail "trunc: the archive exited $rc"
	grep -qF "left out $tmp/u/tr/big ($(elf_id "$H/storm")): changed while being copied" "$tmp/trunc.err" ||
		fail "trunc: no 'changed while being copied' line"
	tar tf "$tmp/trunc.tar" >"$tmp/trunc.names" 2>"$tmp/tar.err" || fail_rc "$tmp/tar.err" "trunc: tar tf"
	grep -qxF "bin/true/$true_id/elf" "$tmp/trunc.names" || fail "trunc: the other file is not in the tar"
	id=$(elf_id "$H/storm")
	! grep -qxF ".build-id/${id:0:2}/${id:2}" "$tmp/trunc.names" || fail "trunc: a .build-id link to the changed file"
	echo "trunc: the archive went on, the changed file has no link"
}

case_stall() {
	local pid secs ls_id
	ls_id=$(elf_id /bin/ls)
	if [ -z "$ls_id" ] || [ "$ls_id" = "$true_id" ]; then
		skip "/bin/ls has no build-id of its own"
	fi
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	mkdir -m 755 "$tmp/fuse"
	"$H/fusestall" "$tmp/fuse" /bin/true >"$tmp/fuse.out" 2>&1 &
	fpid=$!
	at_exit "kill $fpid 2>/dev/null; umount -l '$tmp/fuse' 2>/dev/null"
	for _ in $(seq 100); do grep -q ready "$tmp/fuse.out" && break; sleep 0.05; done
	grep -q ready "$tmp/fuse.out" || { cat "$tmp/fuse.out"; skip "no FUSE mount here"; }
	[ "$(elf_id "$tmp/fuse/stall.so")" = "$true_id" ] || fail "stall: the FUSE file does not read"
	mkrec stall --map "$true_id:$tmp/fuse/stall.so" --map "$ls_id:/bin/ls"
	"$PREC" archive -f "$tmp/u/stall" -o "$tmp/stall.tar" 2>"$tmp/stall.err" &
	pid=$!
	for secs in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 1; done
	if kill -0 $pid 2>/dev/null; then
		kill "$fpid" # ends the stuck read, and so the archive
		wait $pid
		cat "$tmp/stall.err"
		fail "stall: the archive waited 30 s on a FUSE read that never ends"
	fi
	wait $pid
	rc=$?
	cat "$tmp/stall.err"
	[ "$rc" = 0 ] || fail "stall: the archive exited $rc"
	grep -qF "left out $tmp/fuse/stall.so ($true_id): changed while being copied" "$tmp/stall.err" ||
		fail "stall: no 'changed while being copied' line for the stuck file"
	tar tf "$tmp/stall.tar" >"$tmp/stall.names" || fail "stall: tar tf"
	grep -qxF "bin/ls/$ls_id/elf" "$tmp/stall.names" || fail "stall: the other file is not in the tar"
	! grep -qxF ".build-id/${true_id:0:2}/${true_id:2}" "$tmp/stall.names" ||
		fail "stall: a .build-id link to the stuck file"
	echo "stall: the archive ended in about $secs s, the stuck file has no link"
}

# CASES="owner trunc" runs only those (to see each fail on an old build).
for c in ${CASES:-kmsg sparse owner trunc stall}; do
	"case_$c"
done
echo PASS
