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

# the cases: NAME, run|skip, exit status, args
$PY list "$D" "$(uname -m)" >"$tmp/cases" || fail "cannot read $D"
declare -A ret args
pairs=() skipped=0
while IFS=$'\t' read -r c run want a; do
	if [ "$run" = skip ]; then
		skipped=$((skipped + 1))
		continue
	fi
	ret[$c]=$want args[$c]=$a
	# the case's args, word-split (and quoted) as perf's test runs them
	(cd "$tmp" && eval "\"\$PREC\" record -vv -o \"\$tmp/$c.data\" $a") >"$tmp/$c.out" 2>&1
	echo "$?" >"$tmp/$c.rc"
	pairs+=("$D/test-record-$c" "$tmp/$c.out")
done <"$tmp/cases"
[ "${#pairs[@]}" -gt 0 ] || fail "no case of $D for $(uname -m)"

bad=0 opened=0 dumped=0
$PY compare "${pairs[@]}" >"$tmp/results" || fail "attr_cases.py compare failed"
while IFS=$'\t' read -r c mode status why; do
	if [ "$status" != equal ]; then
		echo "$c (${args[$c]}): $mode: $why"
		[ "$status" = noattrs ] && grep -v '^  \|^---\|^perf_event_attr' "$tmp/$c.out" | head -5 | sed 's/^/    /'
		bad=$((bad + 1))
		continue
	fi
	if [ "$mode" = opened ]; then
		rc=$(cat "$tmp/$c.rc")
		if [ "$rc" != "${ret[$c]}" ]; then
			echo "$c (${args[$c]}): exit $rc, the case expects ${ret[$c]}"
			bad=$((bad + 1))
			continue
		fi
		# the merged file carries the attrs of the dump
		awk -f "$AWK" -v skip=1 "$tmp/$c.out" >"$tmp/$c.dump"
		perf evlist -v -i "$tmp/$c.data" 2>/dev/null | awk -v evlist=1 -f "$AWK" |
			grep -v '^[0-9]* name ' >"$tmp/$c.evlist"
		if ! diff -u "$tmp/$c.dump" "$tmp/$c.evlist" >"$tmp/$c.diff"; then
			echo "$c (${args[$c]}): perf evlist -v of the merged file differs from the -vv dump:"
			sed 's/^/    /' "$tmp/$c.diff"
			bad=$((bad + 1))
			continue
		fi
		opened=$((opened + 1))
	else
		dumped=$((dumped + 1))
	fi
	echo "$c: $mode: equal"
done <"$tmp/results"
[ "$bad" = 0 ] || fail "$bad of perf's attr cases differ"
echo "perf's attr cases: $opened opened and equal, $dumped equal by the -vv dump, $skipped for another architecture"
