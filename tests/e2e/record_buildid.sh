#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids in the manifest: the workload binary (seen only in the kernel's
# MMAP2 records after exec) and libc must carry the ids `readelf -n` reads
# from the files; so must every other readable ELF file in the table. prec
# itself is not in it: its fork of the command is synthesized before the
# exec, with a COMM alone (as perf's perf-exec), not prec's own mappings.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd readelf
need_cmd perf
e2e_tmpdir buildid

# A copy of the workload, so its path is unique to this test.
cp "$H/storm" "$tmp/storm-bid"
"$PREC" record -d "$tmp/out" -e cpu-clock -- "$tmp/storm-bid" 200000 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record"
cat "$tmp/err"
"$H/mfdump" "$tmp/out" >"$tmp/mf" || fail "manifest unreadable"
grep '^buildid' "$tmp/mf"

want=$(elf_id "$tmp/storm-bid")
[ -n "$want" ] || skip "the helper has no build-id note"
got=$(awk -v p="$tmp/storm-bid" '$1 == "buildid" && $3 == p { print $2; exit }' "$tmp/mf")
[ "$got" = "$want" ] || fail "workload build-id '$got', readelf says '$want'"

libc=$(awk '$1 == "buildid" && $3 ~ /\/libc\.so\.6$/ { print $3; exit }' "$tmp/mf")
[ -n "$libc" ] || fail "no libc in the build-id table"
want=$(elf_id "$libc")
got=$(awk -v p="$libc" '$1 == "buildid" && $3 == p { print $2; exit }' "$tmp/mf")
[ "$got" = "$want" ] || fail "libc build-id '$got', readelf says '$want'"

prec_bin=$(readlink -f "$PREC")
! awk '$1 == "buildid" { print $3 }' "$tmp/mf" | grep -qxF "$prec_bin" ||
	fail "prec's own binary $prec_bin is in the build-id table"

while read -r _ id path; do
	[ -f "$path" ] || continue
	w=$(elf_id "$path")
	[ -z "$w" ] || [ "$w" = "$id" ] || fail "$path: manifest $id, readelf $w"
done < <(grep '^buildid' "$tmp/mf")

# attr.build_id only with --buildid-mmap (perf's option): as perf evlist
# shows the merged file's attrs. The ids are the same either way.
evlist() { # DIR: perf evlist -v of its merge
	"$PREC" merge -o "$1.data" "$1" 2>"$1.err" || fail_rc "$1.err" "merge $1"
	perf evlist -v -i "$1.data" 2>&1
}
! evlist "$tmp/out" | grep -q 'build_id: 1' || fail "attr.build_id set without --buildid-mmap"
"$PREC" record -d "$tmp/bm" --buildid-mmap -e cpu-clock -- "$tmp/storm-bid" 200000 2>"$tmp/err" ||
	fail_rc "$tmp/err" "record --buildid-mmap"
evlist "$tmp/bm" | grep -q 'build_id: 1' || fail "--buildid-mmap: no attr.build_id in perf evlist -v"
"$H/mfdump" "$tmp/bm" >"$tmp/mf.bm" || fail "manifest unreadable"
want=$(elf_id "$tmp/storm-bid")
got=$(awk -v p="$tmp/storm-bid" '$1 == "buildid" && $3 == p { print $2; exit }' "$tmp/mf.bm")
[ "$got" = "$want" ] || fail "--buildid-mmap: workload build-id '$got', readelf says '$want'"
echo "PASS"
