#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# completion/prec.bash, sourced in a fresh bash and its _prec called as bash
# calls it (COMP_LINE, COMP_POINT, COMP_WORDS split at whitespace and at ':'
# and '=', COMP_CWORD): subcommands, options, values, recordings, events;
# every option `prec CMD --help` lists is completed, and each one --help
# shows with a value is known to take one; a copy of the script with an
# option taken out must fail that check. Every check runs, one FAIL line
# each, before the verdict.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
script=$PREC_TOP/completion/prec.bash
bad=0
problem() { echo "FAIL: $*"; bad=$((bad + 1)); }

[ -x "$PREC" ] || fail "$PREC is not executable (build first)"
[ -f "$script" ] || fail "no $script"
bash -n "$script" || fail "$script: syntax error"
e2e_tmpdir completion

# comp SCRIPT < LINES: for each line (the cursor at its end), "LINE<TAB>REPLY"
# per completion _prec gives, in one bash that sourced SCRIPT and runs in $tmp.
comp() {
	(cd "$tmp/cwd" && bash --norc --noprofile -c '
		. "$1" || exit 1
		while IFS= read -r line; do
			COMP_LINE=$line COMP_POINT=${#line}
			COMP_WORDS=() w=""
			for ((k = 0; k < ${#line}; k++)); do
				ch=${line:k:1}
				if [ "$ch" = " " ]; then
					[ -n "$w" ] && COMP_WORDS+=("$w")
					w=""
				elif [[ -n $w && ( ($ch == [:=] && ${w: -1} != [:=]) ||
					($ch != [:=] && ${w: -1} == [:=]) ) ]]; then
					COMP_WORDS+=("$w")
					w=$ch
				else
					w+=$ch
				fi
			done
			COMP_WORDS+=("$w")
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=()
			_prec prec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}"
			for r in "${COMPREPLY[@]}"; do printf "%s\t%s\n" "$line" "$r"; done
		done' _ "$1")
}
mkdir -p "$tmp/cwd/rec1" "$tmp/cwd/notrec" "$tmp/cwd/deep/rec2"
: >"$tmp/cwd/rec1/manifest"
: >"$tmp/cwd/deep/rec2/manifest"
: >"$tmp/cwd/afile"

# expect LINE WANT...: each WANT is among LINE's completions.
# expect_not LINE NOT...: none is.
declare -A got
replies() { # LINE: its completions, one a line
	printf '%s\n' "${got[$1]-}"
}
expect() {
	local line=$1 w
	shift
	for w in "$@"; do
		replies "$line" | grep -qxF -- "$w" ||
			problem "'$line<TAB>' does not offer '$w' (offers: $(replies "$line" | head -n 8 | tr '\n' ' '))"
	done
}
expect_not() {
	local line=$1 w
	shift
	for w in "$@"; do
		replies "$line" | grep -qxF -- "$w" && problem "'$line<TAB>' offers '$w'"
	done
	return 0
}
ask() { # SCRIPT LINE...: fill got[] with the completions of each LINE
	local l r
	for l in "${@:2}"; do got[$l]=""; done
	while IFS=$'\t' read -r l r; do
		got[$l]+="${got[$l]:+$'\n'}$r"
	done < <(printf '%s\n' "${@:2}" | comp "$1")
}

# The options --help prints at the start of its option lines ("  -d, --dir
# DIR  text" gives -d and --dir), and those of them followed by a value
# (a word in capitals, or choices a|b).
help_options() { # CMD
	"$PREC" "$1" --help | awk '/^[[:space:]]+-/ {
		for (i = 1; i <= NF; i++) {
			t = $i; sub(/,$/, "", t)
			if (t !~ /^--?[A-Za-z][A-Za-z0-9-]*$/) break
			print t
		}
	}'
}
help_valued() { # CMD
	"$PREC" "$1" --help | awk '/^[[:space:]]+-/ {
		n = 0
		for (i = 1; i <= NF; i++) {
			t = $i; sub(/,$/, "", t)
			if (t !~ /^--?[A-Za-z][A-Za-z0-9-]*$/) break
			o[++n] = t
		}
		if (i <= NF && ($i ~ /^[A-Z][A-Z0-9_|,.\[\]]*$/ || $i ~ /\|/))
			for (j = 1; j <= n; j++) print o[j]
	}'
}

cmds=$("$PREC" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || fail "prec --help: no commands found (format changed?)"

# check_help SCRIPT: every --help option completes as itself; after a valued
# one, '-' gets no option (a value goes there), after the others it does.
# Prints one line per miss; returns the number of misses.
check_help() {
	local s=$1 cmd opt misses=0
	local -a lines=()
	for cmd in $cmds; do
		while IFS= read -r opt; do lines+=("prec $cmd $opt" "prec $cmd $opt -"); done < <(help_options "$cmd")
	done
	ask "$s" "${lines[@]}"
	for cmd in $cmds; do
		local valued n=0
		valued=$(help_valued "$cmd")
		while IFS= read -r opt; do
			n=$((n + 1))
			if ! replies "prec $cmd $opt" | grep -qxF -- "$opt"; then
				echo "prec $cmd: option $opt of --help is not completed"
				misses=$((misses + 1))
			fi
			if grep -qxF -- "$opt" <<<"$valued"; then
				if [ -n "${got["prec $cmd $opt -"]}" ]; then
					echo "prec $cmd: $opt takes a value (--help), the completion offers options after it"
					misses=$((misses + 1))
				fi
			elif [ -z "${got["prec $cmd $opt -"]}" ]; then
				echo "prec $cmd: $opt takes no value (--help), the completion offers none of the options after it"
				misses=$((misses + 1))
			fi
		done < <(help_options "$cmd")
		[ "$n" -gt 0 ] || { echo "prec $cmd --help: no option lines (format changed?)"; misses=$((misses + 1)); }
	done
	return "$misses"
}

# 1. Registered for prec.
reg=$(bash --norc --noprofile -c '. "$1" && complete -p prec' _ "$script")
[[ $reg == *"-F _prec"*" prec" ]] || problem "complete -p prec: '$reg'"

# 2. Subcommands, options, values.
ask "$script" "prec " "prec rec" "prec --v" "prec record --ca" "prec record --call-graph " \
	"prec record --call-graph=d" "prec record -e cpu-cl" "prec record -e dum" \
	"prec record -d " "prec merge " "prec info " "prec dump r" "prec merge de" \
	"prec merge -o a" "prec mark -d " "prec record -k mono" "prec record --affinity o" \
	"prec record -e cpu-clock,task-c" "prec info --j" "prec record -a -- tru"
# shellcheck disable=SC2086
expect "prec " $cmds
expect "prec rec" record
expect_not "prec rec" merge
expect "prec --v" --version
expect "prec record --ca" --call-graph
expect "prec record --call-graph " fp dwarf
expect "prec record --call-graph=d" dwarf dwarf,
expect "prec record -e cpu-cl" cpu-clock
expect "prec record -e dum" dummy
expect "prec record -e cpu-clock,task-c" cpu-clock,task-clock
expect "prec record -d " rec1 notrec deep
expect_not "prec record -d " afile
expect "prec merge " rec1
expect_not "prec merge " notrec afile deep
expect "prec info " rec1
expect "prec dump r" rec1
expect "prec merge de" deep/
expect "prec merge -o a" afile
expect "prec mark -d " rec1
expect "prec record -k mono" monotonic monotonic_raw
expect "prec record --affinity o" others
expect "prec info --j" --json
expect "prec record -a -- tru" true

# 3. Tracepoints, read from tracefs when this user can.
events=""
for d in /sys/kernel/tracing/events /sys/kernel/debug/tracing/events; do
	[ -d "$d/sched/sched_switch" ] && { events=$d; break; }
done
if [ -z "$events" ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/sched/sched_switch ] && events=/sys/kernel/tracing/events
fi
if [ -n "$events" ]; then
	# After ':' readline replaces only what follows it: the reply is the
	# tracepoint's name; a system alone ends in ':' (typing goes on).
	ask "$script" "prec record -e sched:sched_sw" "prec record -e sch" \
		"prec record --event=sched:sched_sw" "prec record -e cpu-clock,sched:sched_sw"
	expect "prec record -e sched:sched_sw" sched_switch
	expect "prec record -e sch" sched:
	expect "prec record --event=sched:sched_sw" sched_switch
	expect "prec record -e cpu-clock,sched:sched_sw" sched_switch
else
	echo "note: no sched tracepoints in tracefs: the -e sched:sched_sw case is skipped"
fi

# 4. Every --help option, against the script; then the check itself on a
# copy with --call-graph removed, which it must catch.
if ! out=$(check_help "$script"); then
	while IFS= read -r l; do problem "$l"; done <<<"$out"
fi
sed 's/ --call-graph / /' "$script" >"$tmp/broken.bash"
out=$(check_help "$tmp/broken.bash")
grep -q -- "option --call-graph of --help is not completed" <<<"$out" ||
	problem "the --help check does not catch a missing --call-graph: '$out'"
echo "checked: $(for c in $cmds; do help_options "$c"; done | wc -l) --help options of: ${cmds//$'\n'/ }"

[ "$bad" = 0 ] || fail "$bad problems in $script"
echo "PASS: completion of commands, options, values, recordings$([ -n "$events" ] && echo ", tracepoints"); every --help option known"
