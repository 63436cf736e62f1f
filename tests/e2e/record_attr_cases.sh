#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's own attr test cases, one by one, with prec as the recorder: for
# each /usr/lib/perf-core/tests/attr/test-record-* case, `prec record -vv
# -o DIR/perf.data ARGS` (the case's args, its output redirections cut) and
# the attrs prec opened must equal the case's expected events as perf's
# tests/attr.py compares them (tests/lib/attr_cases.py: every term, '*'
# and 'a|b', both ways, group leaders), but for prec's design, normalized
# in one place (attr_cases.py's DESIGN notes, docs/events.md). A case
# whose events this machine opens is compared by prec's opens, its exit
# status must be the case's, and perf evlist -v of the merged file must
# show the attrs of the -vv dump; a case it cannot open (hardware events,
# branch stacks) by prec's -vv dump, printed before the first open fails.
# Cases for another architecture are skipped as attr.py skips them.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
D=/usr/lib/perf-core/tests/attr
[ -d "$D" ] || skip "no $D (linux-perf's tests)"
e2e_tmpdir attrcases
PY="python3 $PREC_TOP/tests/lib/attr_cases.py"
AWK=$PREC_TOP/tests/lib/attr_blocks.awk
arch=$(uname -m)

bad=0 opened=0 dumped=0 skipped=0
for f in "$D"/test-record-*; do
	c=${f##*/test-record-}
	want_arch=$(sed -n 's/^arch *= *//p' "$f")
	case "$want_arch" in
	'' | "!"*) [ "$want_arch" = "!$arch" ] && { skipped=$((skipped + 1)); continue; } ;;
	*) [ "$want_arch" = "$arch" ] || { skipped=$((skipped + 1)); continue; } ;;
	esac
	args=$($PY args "$f") || fail "$c: cannot read its args"
	rm -rf "$tmp/perf.data" "$tmp/perf.data.prec"
	# shellcheck disable=SC2086 # the case's args, word-split as perf's test does
	(cd "$tmp" && eval "\"\$PREC\" record -vv -o \"\$tmp/perf.data\" $args") >"$tmp/$c.out" 2>&1
	rc=$?
	res=$($PY compare "$f" "$tmp/$c.out")
	crc=$?
	mode=${res%%:*}
	if [ "$crc" = 2 ]; then
		echo "$c: $res"
		grep -v '^  ' "$tmp/$c.out" | grep -v '^---\|^perf_event_attr' | head -5 | sed 's/^/    /'
		bad=$((bad + 1))
		continue
	fi
	if [ "$crc" != 0 ]; then
		echo "$c ($args): $res"
		bad=$((bad + 1))
		continue
	fi
	if [ "$mode" = opened ]; then
		want=$($PY ret "$f")
		if [ "$rc" != "$want" ]; then
			echo "$c ($args): exit $rc, the case expects $want"
			bad=$((bad + 1))
			continue
		fi
		# the merged file carries the attrs of the dump
		awk -f "$AWK" -v skip=1 "$tmp/$c.out" >"$tmp/$c.dump"
		perf evlist -v -i "$tmp/perf.data" 2>/dev/null | awk -v evlist=1 -f "$AWK" |
			grep -v '^[0-9]* name ' >"$tmp/$c.evlist"
		if ! diff -u "$tmp/$c.dump" "$tmp/$c.evlist" >"$tmp/$c.diff"; then
			echo "$c ($args): perf evlist -v of the merged file differs from the -vv dump:"
			sed 's/^/    /' "$tmp/$c.diff"
			bad=$((bad + 1))
			continue
		fi
		opened=$((opened + 1))
	else
		dumped=$((dumped + 1))
	fi
	echo "$c: $res"
done
[ "$bad" = 0 ] || fail "$bad of perf's attr cases differ"
echo "perf's attr cases: $opened opened and equal, $dumped compared by the -vv dump, $skipped for another architecture"
