#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build-id table is bounded (docs/manifest-format.md, BUILDIDS): a
# workload maps one ELF file under N distinct long paths (hard links,
# mapmany), more path bytes than the table keeps. The recording must end
# with a manifest within the bounds, every pair either kept or counted as
# dropped (kept + dropped == N exactly), `prec info` (text and JSON) saying
# how many were dropped, and a merge perf reads, whose build-id table holds
# the kept paths. Without the bounds, the manifest grows with N (issue 35:
# 72,000 such paths made 285 MB, which every reader refuses).
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir bbound
N=${N:-9000}
# The bounds, as store.h has them: 32 MiB of mapped files' paths.
BYTES_MAX=$((32 << 20))

cp /bin/true "$tmp/elf"
d=$tmp
comp=$(printf 'x%.0s' $(seq 250))
for i in $(seq 15); do d=$d/$comp$i; done
mkdir -p "$d" || fail "mkdir of a ${#d}-byte path"
# N paths of this length hold more bytes than the table keeps.
[ $((N * (${#d} + 9))) -gt "$BYTES_MAX" ] || fail "N=$N paths of ${#d} bytes fit the bound: no test"

# A HOME of its own: the stop fills perf's build-id cache with every
# path kept, up to its 5 s bound (then one warning), never root's ~/.debug.
mkdir "$tmp/home"
start=$(date +%s.%N)
HOME=$tmp/home "$PREC" record -q -d "$tmp/out" -m 16M -e cpu-clock -- "$H/mapmany" "$tmp/elf" "$d" "$N" \
	>"$tmp/rec.out" 2>"$tmp/rec.err" || fail_rc "$tmp/rec.err" "record"
end=$(date +%s.%N)
cat "$tmp/rec.out" "$tmp/rec.err"
grep -q "mapmany: $N names mapped" "$tmp/rec.out" || fail "the workload did not map its $N names"
complete "$tmp/out" || fail "the manifest is not complete"

size=$(stat -c %s "$tmp/out/manifest")
"$H/mfdump" "$tmp/out" >"$tmp/mf" || fail "manifest unreadable"
kept=$(awk -v d="$d/" '$1 == "buildid" && index($3, d) == 1' "$tmp/mf" | wc -l)
bytes=$(awk '$1 == "buildid" && $3 ~ /^\// { n += length($3) + 1 } END { print n + 0 }' "$tmp/mf")
[ "$bytes" -le "$BYTES_MAX" ] || fail "the table holds $bytes bytes of paths, over $BYTES_MAX"
"$PREC" info "$tmp/out" >"$tmp/info" 2>&1 || fail_rc "$tmp/info" "prec info"
dropped=$(sed -n 's/^  (\([0-9]*\) (path, build-id) pairs over the table.s bounds: dropped)$/\1/p' "$tmp/info")
[ -n "$dropped" ] || { grep -A2 build-ids "$tmp/info"; fail "prec info does not say how many pairs were dropped"; }
[ $((kept + dropped)) = "$N" ] || fail "kept $kept + dropped $dropped != $N"
"$PREC" info --json "$tmp/out" | grep -q "\"buildids_dropped\": $dropped," ||
	fail "prec info --json does not say buildids_dropped $dropped"

"$PREC" merge -o "$tmp/merged.data" "$tmp/out" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
perf buildid-list -i "$tmp/merged.data" >"$tmp/ids" 2>"$tmp/ids.err" || fail_rc "$tmp/ids.err" "perf buildid-list"
id=$(elf_id "$tmp/elf")
got=$(grep -cF "$id $d/" "$tmp/ids")
[ "$got" = "$kept" ] || fail "perf buildid-list lists $got of the $kept kept paths"
echo "PASS: $N paths of ${#d} bytes: $kept kept, $dropped dropped, manifest $size bytes, recording $(echo "$end - $start" | bc) s"
