#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/man against the binary. For every command `prec --help` lists, the
# page docs/man/prec-CMD.1 exists, has the house sections, and every option
# `prec CMD --help` prints (each -x and --xxx at the start of its option
# lines, --xxx[=V] too) is in the tag of an OPTIONS entry (.TP), after \-
# is read as -, in the order of --help, the names of one --help line (-d,
# --dir) in one tag, and no tag names an option --help does not print (an
# option removed, its entry left); prec.1 has a COMMANDS entry and a SEE
# ALSO for each.
# Every page renders with no message from `man --warnings` (that check is
# skipped with a note when man or groff is missing). Every check runs, one
# FAIL line each, before the verdict.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
mandir=$PREC_TOP/docs/man
bad=0
# problem MESSAGE: one FAIL line, counted; the checks go on.
problem() { echo "FAIL: $*"; bad=$((bad + 1)); }

[ -x "$PREC" ] || fail "$PREC is not executable (build first)"
[ -d "$mandir" ] || fail "no directory $mandir"

# Man source as plain text: font escapes dropped, \- as -, \& and \% gone,
# a leading macro name (.B, .BI ...) and quotes removed.
plain() {
	sed -E -e 's/\\f(\[[^]]*\]|\(..|.)//g' -e 's/\\-/-/g' -e 's/\\[&%]//g' \
		-e 's/^\.[A-Za-z]+[[:space:]]*//' -e 's/"//g'
}

# The lines of section $2 of page $1 (without the .SH line), or with $3 =
# tags only the tag lines of its .TP entries.
section() {
	awk -v want="$2" -v tags="${3:-}" '
		/^\.SH/ { s = $0; sub(/^\.SH[[:space:]]+/, "", s); gsub(/"/, "", s)
			in_s = (s == want); prev = ""; next }
		in_s && (tags == "" || prev ~ /^\.TP([[:space:]]|$)/) { print }
		{ prev = $0 }' "$1" | plain
}

# The option names at the start of --help's option lines, in order:
# "  -d, --dir DIR   text" gives -d and --dir, "  -z, --level[=N]  text"
# -z and --level; with $1 = lines, one line of names per option line
# ("-d --dir").
help_options() {
	awk -v lines="${1:-}" '/^[[:space:]]+-/ {
		names = ""
		for (i = 1; i <= NF; i++) {
			t = $i; sub(/,$/, "", t)
			value = sub(/\[?=.*$/, "", t)
			if (t !~ /^--?[A-Za-z][A-Za-z0-9-]*$/) break
			if (lines == "") print t
			names = names (names == "" ? "" : " ") t
			if (value) break
		}
		if (lines != "" && names != "") print names
	}'
}

# Option-like words of text on stdin, one a line, in order.
option_words() {
	tr -c 'A-Za-z0-9\n-' ' ' | tr ' ' '\n' | grep -E '^--?[A-Za-z][A-Za-z0-9-]*$'
}

# The option-like words of each line on stdin, space-separated, a line each.
option_words_per_line() {
	local line
	while IFS= read -r line; do
		option_words <<<"$line" | tr '\n' ' '
		echo
	done
}

need_sections() { # PAGE SECTION...: each is a .SH of PAGE
	local page=$1 s
	shift
	for s in "$@"; do
		grep -Eq "^\.SH[[:space:]]+\"?$s\"?[[:space:]]*$" "$page" ||
			problem "$(basename "$page"): no section $s"
	done
}

# Each --help option in a tag of the page's OPTIONS, in --help's order.
check_options() { # CMD PAGE
	local cmd=$1 page=$2 help opt i last=-1 n=0 found
	local -a tags
	help=$("$PREC" "$cmd" --help 2>&1) || { problem "prec $cmd --help: exit $?"; return; }
	mapfile -t tags < <(section "$page" OPTIONS tags | option_words)
	while IFS= read -r opt; do
		n=$((n + 1))
		found=-1
		for i in "${!tags[@]}"; do
			if [ "${tags[i]}" = "$opt" ]; then found=$i; break; fi
		done
		if [ "$found" -lt 0 ]; then
			problem "$(basename "$page"): option $opt of 'prec $cmd --help' is not in OPTIONS"
		elif [ "$found" -lt "$last" ]; then
			problem "$(basename "$page"): option $opt is out of the order of 'prec $cmd --help'"
		else
			last=$found
		fi
	done < <(help_options <<<"$help")
	[ "$n" -gt 0 ] || problem "prec $cmd --help: no option lines found (format changed?)"
	# The names of one --help line together in one tag.
	local names tag_line hit name
	local -a tag_lines
	mapfile -t tag_lines < <(section "$page" OPTIONS tags | option_words_per_line)
	while IFS= read -r names; do
		hit=0
		for tag_line in "${tag_lines[@]}"; do
			hit=1
			for name in $names; do
				[[ " $tag_line " == *" $name "* ]] || { hit=0; break; }
			done
			[ "$hit" = 1 ] && break
		done
		[ "$hit" = 1 ] ||
			problem "$(basename "$page"): no OPTIONS tag holds all of '$names' (one line of 'prec $cmd --help')"
	done < <(help_options lines <<<"$help")
	# No tag names an option --help does not print.
	local -A in_help=()
	while IFS= read -r opt; do in_help[$opt]=1; done < <(help_options <<<"$help")
	for opt in "${tags[@]}"; do
		[ -n "${in_help[$opt]:-}" ] ||
			problem "$(basename "$page"): OPTIONS has $opt, which 'prec $cmd --help' does not print"
	done
	echo "prec $cmd --help: $n option names, ${#tags[@]} in the page's OPTIONS tags"
}

render=1
if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	render=0
	echo "note: man or groff missing: the rendering check is skipped"
fi
check_render() { # PAGE: man --warnings says nothing
	local out
	[ "$render" = 1 ] || return 0
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l -E UTF-8 "$1" 2>&1 >/dev/null)
	[ -z "$out" ] || problem "$(basename "$1") renders with messages: $(head -n 5 <<<"$out")"
}

cmds=$("$PREC" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || problem "prec --help: no commands found (format changed?)"

top_page=$mandir/prec.1
if [ -f "$top_page" ]; then
	need_sections "$top_page" NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" "SEE ALSO"
	check_render "$top_page"
	top_tags=$(section "$top_page" COMMANDS tags)
	see_also=$(section "$top_page" "SEE ALSO")
else
	problem "no page $top_page"
	top_tags="" see_also=""
fi
for cmd in $cmds; do
	grep -Eq "(^|[ ,])$cmd([ ,]|$)" <<<"$top_tags" || problem "prec.1: no COMMANDS entry for $cmd"
	grep -Eq "prec-$cmd ?\(1\)" <<<"$see_also" || problem "prec.1: SEE ALSO lacks prec-$cmd(1)"
	page=$mandir/prec-$cmd.1
	if [ ! -f "$page" ]; then
		problem "no page $page for 'prec $cmd'"
		continue
	fi
	need_sections "$page" NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"
	check_options "$cmd" "$page"
	check_render "$page"
done

[ "$bad" = 0 ] || fail "$bad problems in $mandir"
echo "PASS: $(wc -w <<<"$cmds") command pages and prec.1 match --help$([ "$render" = 1 ] && echo ", and render clean")"
