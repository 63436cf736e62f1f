#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Safe files: the output directory is 0700 and every file in it 0600 even
# under umask 000; symlinks planted in or as the output directory are never
# followed; an empty directory of another user is refused; -f keeps the old
# recording renamed aside (DIR.old.XXXXXXXX, random) until the final manifest is written
# (kill -9 before then leaves it intact) and removes it after; --user runs
# the command as another user (exact sample count of its getppid calls,
# its exit status, no write access to the recording) while prec records.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir safe
cd "$tmp" || exit 1

# 1. Modes, whatever the umask.
(umask 000 && "$PREC" record -q -d modes -e cpu-clock -- true) || fail "modes: record"
[ "$(stat -c %a modes)" = 700 ] || fail "modes: directory is $(stat -c %a modes), want 700"
for f in modes/*; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "modes: $f is $(stat -c %a "$f"), want 600"
done
[ -z "$(find modes -mindepth 1 ! -type f)" ] || fail "modes: something other than regular files"
echo "modes: 0700 directory, $(ls modes | wc -l) files all 0600 under umask 000"

# 2. The output path is a symlink to someone's directory.
mkdir victim && echo precious >victim/file
ln -s "$tmp/victim" link
"$PREC" record -q -d link -e cpu-clock -- true 2>err && fail "symlink as the output: accepted"
grep -q 'link: exists' err || fail "symlink as the output: message: $(cat err)"
"$PREC" record -q -f -d link -e cpu-clock -- true || fail "symlink as the output, -f: record"
[ -d link ] && [ ! -L link ] && complete link || fail "symlink as the output, -f: no real directory made"
[ "$(ls victim)" = file ] && [ "$(cat victim/file)" = precious ] || fail "symlink as the output: the target was touched"
echo "symlink as the output: refused, and -f replaces the link, not its target"

# 3. An empty directory owned by another user is refused (they could plant
# files in it while we record).
mkdir theirs && chown 65534 theirs
"$PREC" record -q -d theirs -e cpu-clock -- true 2>err && fail "someone else's directory: accepted"
grep -q 'theirs: exists and belongs to another user' err || fail "someone else's directory: message: $(cat err)"
[ -z "$(ls -A theirs)" ] || fail "someone else's directory: written to"
echo "empty directory of another user: refused"

# 4. Symlinks planted in the output directory mid-recording: manifest and
# its temp file pointing at a victim. Neither victim may change.
echo keep >victim/m && echo keep >victim/t
"$PREC" record -q -d plant -a -e cpu-clock -F 100 2>err &
pid=$!
wait_manifest plant
ln -sf "$tmp/victim/m" plant/manifest
ln -s "$tmp/victim/t" plant/manifest.tmp
kill -INT $pid
# SIGINT's end whether or not the manifest could be written, as perf's
wait_signaled $pid INT "planted symlinks: record" err
cat err
[ "$(cat victim/m)" = keep ] && [ "$(cat victim/t)" = keep ] || fail "planted symlinks: a victim file changed"
[ ! -L plant/manifest ] || grep -q 'error' err || fail "planted symlinks: a symlink as the manifest, and no error said"
echo "planted symlinks: not followed"

# 5. -f: the old recording stays aside until the final manifest is written.
mkdir old && echo precious >old/file
"$PREC" record -q -f -d old -a -e cpu-clock -F 100 &
pid=$!
wait_manifest old
aside=$(ls -d old.old.* 2>/dev/null)
[ "$(echo "$aside" | grep -c '^old\.old\.[A-Za-z0-9]\{8\}$')" = 1 ] ||
	fail "-f: want one old.old.XXXXXXXX during the recording, got: $aside"
[ "$(cat "$aside/file" 2>/dev/null)" = precious ] || fail "-f: the old directory is not kept aside as $aside during the recording"
kill -9 $pid
wait $pid 2>/dev/null
[ "$(cat "$aside/file" 2>/dev/null)" = precious ] || fail "-f then kill -9: the old recording is lost"
rm -rf old && mv "$aside" old
"$PREC" record -q -f -d old -a -e cpu-clock -F 100 &
pid=$!
wait_manifest old
sleep 0.2
kill -INT $pid
wait_signaled $pid INT "-f: record"
complete old && [ ! -e old/file ] || fail "-f: not replaced"
ls -d old.old.* >/dev/null 2>&1 && fail "-f: old directory left behind after the final manifest: $(ls -d old.old.*)"
echo "-f: old recording kept aside until the final manifest, survives kill -9, then removed"

# 6. --user: the command runs as nobody, prec records it as root.
mkdir pub && chmod 755 "$tmp" pub && cp "$H/storm" pub/ && chmod 1777 pub
N=20000
# A ring that holds all of it: the count must not depend on scheduling.
"$PREC" record -q -d asuser -m 16M --user nobody -e raw_syscalls:sys_enter --filter 'id == 110' \
	-- "$tmp/pub/storm" $N || fail "--user: record exit $?"
complete asuser || fail "--user: manifest"
pid=$("$H/mfdump" asuser | awk '/^id 1 /{ sub("tid=", "", $5); print $5; exit }')
"$H/shardcount" asuser "$pid" >count || { cat count; fail "--user: corrupt shard"; }
got=$(awk '/^total/ { sub("pid_samples=", "", $5); print $5 }' count)
[ "$got" = "$N" ] || { cat count; fail "--user: $got samples of the command, want $N"; }
"$PREC" record -q -d asuser2 --user nobody -e cpu-clock -- \
	sh -c "id -u >$tmp/pub/uid; touch $tmp/asuser2/x 2>/dev/null && echo wrote >$tmp/pub/wrote; exit 3"
[ $? = 3 ] || fail "--user: the command's exit status is not prec's"
[ "$(cat pub/uid)" = "$(id -u nobody)" ] || fail "--user: the command ran as uid $(cat pub/uid)"
[ ! -e pub/wrote ] || fail "--user: the command could write into the recording"
complete asuser2 || fail "--user: manifest"
"$PREC" record -q -d asuser3 --user no-such-user-here -e cpu-clock -- true 2>err
[ $? = 2 ] && grep -q "option --user 'no-such-user-here': no such user" err || fail "--user: unknown user: $(cat err)"
[ ! -e asuser3 ] || fail "--user: unknown user: created the directory"
echo "--user: ran as nobody, $N samples recorded, exit status passed through"
echo "PASS"
