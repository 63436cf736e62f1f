#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids of binaries deleted before the recording ends, as a build's
# temporary programs are. prec does not ask the kernel for build-ids in
# MMAP2 (no --buildid-mmap): it reads them from the files, soon after their
# MMAP2 is drained, by device and inode. Two binaries run, each under a
# path of its own, and are deleted before the stop:
#   after  a copy of sleep, deleted once it has exited (its path named it
#          for 0.6 s);
#   while  selfrm, which deletes its own binary as it starts and lives on
#          for 0.6 s: only /proc/PID/map_files names the file then.
# Both must be in the manifest with the id readelf reads, and in the merged
# file's build-id table (perf buildid-list).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd readelf
need_cmd perf
e2e_tmpdir bdel
sleep_bin=$(command -v sleep)
mkdir "$tmp/bin"
cp "$H/selfrm" "$tmp/bin/while"
declare -A want=([after]=$(elf_id "$sleep_bin") [while]=$(elf_id "$tmp/bin/while"))
if [ -z "${want[after]}" ] || [ -z "${want[while]}" ]; then
	skip "$sleep_bin or selfrm has no build-id note"
fi

# shellcheck disable=SC2016 # expanded by the workload's shell
"$PREC" record -d "$tmp/out" -e cpu-clock -- sh -c '
	cp "$1" "$2/after" && "$2/after" 0.6 && rm "$2/after" || exit 1
	"$2/while" 0.6 || exit 1
	sleep 0.3' sh "$sleep_bin" "$tmp/bin" 2>"$tmp/err" || fail_rc "$tmp/err" "record"
cat "$tmp/err"
if [ -e "$tmp/bin/after" ] || [ -e "$tmp/bin/while" ]; then
	fail "the workload left its binaries"
fi
"$H/mfdump" "$tmp/out" >"$tmp/mf" || fail "manifest unreadable"
"$PREC" merge -o "$tmp/merged.data" "$tmp/out" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
perf buildid-list -i "$tmp/merged.data" >"$tmp/ids" 2>"$tmp/ids.err" ||
	fail_rc "$tmp/ids.err" "perf buildid-list"
for b in after while; do
	got=$(awk -v p="$tmp/bin/$b" '$1 == "buildid" && $3 == p { print $2; exit }' "$tmp/mf")
	[ "$got" = "${want[$b]}" ] || { grep '^buildid' "$tmp/mf"; fail "$b: manifest build-id '$got', readelf said '${want[$b]}'"; }
	grep -qxF "${want[$b]} $tmp/bin/$b" "$tmp/ids" || { cat "$tmp/ids"; fail "$b: not in perf buildid-list of the merged file"; }
done
echo "PASS: both deleted binaries have their build-ids"
