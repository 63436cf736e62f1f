#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A shard name is the manifest's, whoever wrote it: a recording whose
# shard is named with an OSC title sequence (ESC ] 2 ; PWN BEL) and a
# segment file of that name planted as a symbolic link (tests/lib/mfedit.py
# shardname). Every reader's line about it shows the name escaped
# (\x1b, \x07) and no output holds a control byte. Before, `prec info
# --check` printed the segment file's name raw ("segment file
# c<ESC>]2;PWN<BEL>.shard.N: ... is a symbolic link").
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd python3
need_cmd taskset
e2e_tmpdir shardnames
cd "$tmp" || exit 1

# A --max-disk recording: cpu000.shard then its segment files.
"$PREC" record -q -d rec -C 0 --max-disk 5M -e cpu-clock -c 2000 -- \
	taskset -c 0 sh -c 'timeout 1 sh -c "while :; do :; done"; exit 0' 2>rec.err || fail_rc rec.err "record --max-disk"
segs=(rec/cpu000.shard.*)
[ -e "${segs[0]}" ] || fail "no segment file: $(ls rec)"
last=${segs[${#segs[@]} - 1]##*.}

name=$'c\e]2;PWN\a'
shown='c\x1b]2;PWN\x07'
mv rec/cpu000.shard "rec/$name.shard" || fail "rename"
for f in "${segs[@]}"; do mv "$f" "rec/$name.shard.${f##*.}" || fail "rename $f"; done
# the segment after the last: where the data would go on
ln -s /etc/passwd "rec/$name.shard.$((last + 1))" || fail "link"
python3 "$PREC_TOP/tests/lib/mfedit.py" rec/manifest "shardname.0=$name.shard" || fail "mfedit"

raw() { LC_ALL=C grep -c -e $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; }
"$PREC" info --check rec >out 2>&1
rc=$?
[ $rc = 1 ] || { cat -A out | tail -3; fail "info --check exited $rc, not 1"; }
[ "$(raw out)" = 0 ] || fail "info --check: a control byte: $(LC_ALL=C grep -a $'\e' out | cat -A | head -2)"
grep -qF "shard $shown.shard: segment file $shown.shard.$((last + 1)): offset " out ||
	fail "info --check: no escaped line naming the segment file: $(tail -2 out)"
for cmd in "info" "info --timeline" "dump" "merge -o $tmp/out.data" "archive -o $tmp/out.tar"; do
	# shellcheck disable=SC2086
	"$PREC" $cmd rec >out 2>&1
	[ "$(raw out)" = 0 ] || fail "prec $cmd: a control byte: $(LC_ALL=C grep -a $'\e' out | cat -A | head -2)"
done
echo "ok: a hostile shard name and its segment file reach no output raw"
