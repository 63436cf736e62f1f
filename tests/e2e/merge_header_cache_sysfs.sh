#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU caches as sysfs may show them, from a copy of cpu0's cache/index0
# of the test's own bound over it in a private mount namespace: a type
# with blanks after it, then a directory without its size file. perf
# report --header-only -I prints the same caches for prec's file as for
# perf's own (the blanks trimmed), then lists CACHE as missing for both
# (perf writes none when a file is missing). Blanks before it perf 6.1
# cannot take: it frees the trimmed pointer and aborts.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd unshare
e2e_tmpdir cache_sysfs
idx=/sys/devices/system/cpu/cpu0/cache/index0
[ -d "$idx" ] || skip "no CPU caches in sysfs"

mkdir "$tmp/index0" || fail "mkdir"
for f in level coherency_line_size number_of_sets ways_of_associativity size shared_cpu_list; do
	cat "$idx/$f" >"$tmp/index0/$f" || fail "copy of $idx/$f"
done
printf '%s   \n' "$(cat "$idx/type")" >"$tmp/index0/type"

# record NAME: perf and prec in a namespace where index0 is the copy
record() {
	cat >"$tmp/inner.sh" <<'EOF'
set -u
t=$1 n=$2
mount --bind "$t/index0" /sys/devices/system/cpu/cpu0/cache/index0 || exit 2
perf record -q -o "$t/$n.p.data" -e cpu-clock -- sleep 0.1 >/dev/null 2>"$t/$n.p.err" || exit 3
"$PREC" record -q -d "$t/$n.q" -e cpu-clock -- sleep 0.1 >/dev/null 2>"$t/$n.q.err" || exit 4
EOF
	unshare -m bash "$tmp/inner.sh" "$tmp" "$1" >"$tmp/ns.out" 2>&1 ||
		fail_rc "$tmp/ns.out" "$1: the recordings in a mount namespace (see $tmp/$1.*.err)"
	"$PREC" merge -q "$tmp/$1.q" -o "$tmp/$1.q.data" || fail "$1: prec merge"
}

feats() {
	perf report --header-only -I -i "$1" 2>"$2" | awk '
		/^# CPU cache info:/ || /^#  L[0-9]/ { print; next }
		/^# missing features:/ {
			for (i = 4; i <= NF; i++)
				if ($i == "CACHE") print "missing " $i
		}'
}

# compare NAME: prec's header lines as perf's
compare() {
	feats "$tmp/$1.p.data" "$tmp/$1.p.rerr" >"$tmp/$1.p.feats"
	feats "$tmp/$1.q.data" "$tmp/$1.q.rerr" >"$tmp/$1.q.feats"
	for f in p q; do
		[ ! -s "$tmp/$1.$f.rerr" ] || fail "$1: perf report on $f said: $(head -3 "$tmp/$1.$f.rerr")"
	done
	diff -u "$tmp/$1.p.feats" "$tmp/$1.q.feats" >"$tmp/d" ||
		fail "$1: the caches differ from perf's (- perf, + prec): $(cat "$tmp/d")"
}

record blanks
compare blanks
grep -q "^#  L[0-9] $(cat "$idx/type") " "$tmp/blanks.p.feats" ||
	fail "blanks: perf's own header has not the cache: $(cat "$tmp/blanks.p.feats")"
rm "$tmp/index0/size"
record nosize
compare nosize
grep -qx 'missing CACHE' "$tmp/nosize.p.feats" ||
	fail "nosize: perf wrote caches: $(cat "$tmp/nosize.p.feats")"
echo "PASS: $(grep -c . "$tmp/blanks.q.feats") cache lines as perf's with a blank-padded type; none without a size, as perf"
