#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's build-id cache filled by root at the end of a recording, attacked
# by the workload (run as nobody) through the paths it maps and by another
# user through the cache's directory. prec must put in the cache only the
# very file that was mapped (its device, inode and build-id), never read
# through a link another user made, never write outside the cache nor
# into a directory of another user's, and still end the recording:
#   link   the program's directory, while it runs (its id is read through
#          the path or, once swapped, its mapping), swapped for nobody's link
#          to a root-only directory whose program has the same build-id
#          (a build-id is only bytes: cc --build-id=0x... chooses it);
#   swap   the program, while it runs, replaced by another file of nobody's with the same
#          build-id (no link: only the inode tells them apart);
#   long   a program under a 3,900-byte path: cached below the cache;
#   dir    the cache is a root directory others may write (as /tmp):
#          nobody planted .build-id as a link to a root directory and the
#          program's first component as a directory of their own.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd cc
id nobody >/dev/null 2>&1 || skip "no user nobody"
e2e_tmpdir abidc
chmod 711 "$tmp"
cd "$tmp" || fail "cd $tmp"
sid=0123456789abcdef0123456789abcdef01234567

# build OUT MARK: an ELF of build-id $sid holding the string MARK.
build() {
	printf '#include <unistd.h>\nconst char mark[] = "%s";\nint main(void) { usleep(1500000); return mark[0] == 0; }\n' "$2" >"$tmp/m.c"
	cc -Wl,--build-id=0x$sid -o "$1" "$tmp/m.c" || fail "cc $1"
}

# record HOME CMD: prec record as root of CMD run as nobody, HOME's cache.
record() {
	local home=$1
	shift
	HOME=$home timeout -k 5 60 "$PREC" record -q -d "$tmp/rec" -f -e cpu-clock --user nobody -- "$@" \
		>rec.log 2>&1 || fail_rc rec.log "prec record"
	complete "$tmp/rec" || fail "the recording did not complete"
	# the attack needs the table to hold the id (read while it ran)
	"$H/mfdump" "$tmp/rec" | grep -q "^buildid $sid $tmp/w/d/prog\$" ||
		fail "the table lacks $sid for $tmp/w/d/prog (read before the swap): $("$H/mfdump" "$tmp/rec" | grep "^buildid")"
}

# no_mark DIR MARK: no file below DIR holds MARK.
no_mark() {
	! grep -rqs -- "$2" "$1" || fail "$(grep -rls -- "$2" "$1" | head -1) holds $2"
}

mkdir -m 700 secret && mkdir -m 755 secret/d
build secret/d/prog ROOT-SECRET-BYTES
chmod 700 secret/d/prog
mkdir -m 755 w && chown nobody w
nobody mkdir w/d
build w/d/prog NOBODY-OWN
build w/other NOBODY-REPLACED
chown nobody w/d/prog w/other

# link: the directory swapped for a link to root's secret one
mkdir -m 700 h.link
record "$tmp/h.link" sh -c "$tmp/w/d/prog & sleep 0.3; mv $tmp/w/d $tmp/w/d.old && ln -s $tmp/secret/d $tmp/w/d; wait"
no_mark h.link ROOT-SECRET-BYTES
[ ! -e "h.link/.debug/${tmp#/}/w/d/prog/$sid/elf" ] || fail "link: an entry for the swapped path"
echo "link: the secret not read"
nobody sh -c "rm $tmp/w/d && mv $tmp/w/d.old $tmp/w/d"

# swap: another file of nobody's, same build-id, at the path
mkdir -m 700 h.swap
record "$tmp/h.swap" sh -c "$tmp/w/d/prog & sleep 0.3; cp $tmp/w/other $tmp/w/d/prog.new && mv $tmp/w/d/prog.new $tmp/w/d/prog; wait"
no_mark h.swap NOBODY-REPLACED
echo "swap: the replacement not taken for the mapped file"
build w/d/prog NOBODY-OWN
chown nobody w/d/prog

# long: a 3,900-byte path
long=$tmp/w
for i in $(seq 19); do long=$long/$(printf "%0200d" "$i"); done
nobody mkdir -p "$long"
cp w/d/prog "$long/prog" && chown nobody "$long/prog"
mkdir -m 700 h.long
HOME=$tmp/h.long "$PREC" record -q -d "$tmp/rec" -f -e cpu-clock --user nobody -- "$long/prog" \
	>rec.log 2>&1 || fail_rc rec.log "prec record (long)"
[ -f "h.long/.debug/${long#/}/prog/$sid/elf" ] || fail "long: no entry under the cache"
cmp -s "h.long/.debug/${long#/}/prog/$sid/elf" "$long/prog" || fail "long: the entry is not the program"
echo "long: a ${#long}-byte path cached below the cache"

# dir: a cache others may write, with nobody's plants
top=${tmp#/}
top=${top%%/*}
mkdir -m 1777 shared && mkdir -m 755 victim
nobody ln -s "$tmp/victim" shared/.build-id
nobody mkdir -m 777 "shared/$top"
HOME=$tmp/nohome PERF_BUILDID_DIR=$tmp/shared timeout -k 5 60 "$PREC" record -q -d "$tmp/rec" -f \
	-e cpu-clock -- "$tmp/w/d/prog" >rec.log 2>&1 || fail_rc rec.log "prec record (dir)"
complete "$tmp/rec" || fail "dir: the recording did not complete"
[ -z "$(ls -A victim)" ] || fail "dir: wrote through nobody's .build-id link: $(ls victim)"
[ -z "$(ls -A "shared/$top")" ] || fail "dir: root wrote into nobody's directory: $(ls -A "shared/$top")"
[ -d "shared/[vdso]" ] || fail "dir: not even the vDSO cached (the test's fault?)"
echo "dir: nothing written through nobody's link or into nobody's directory"
echo "PASS: the build-id cache takes only the mapped file, writes only below itself"
