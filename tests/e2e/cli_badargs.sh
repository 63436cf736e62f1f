#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Wrong command lines for every subcommand: each must print exactly one line
# on stderr starting with "prec", exit 2, and create no file or directory;
# a bad -m / --aux-size value is quoted whole in that line,
# and -S's and --aux-sample's OPTS; a negation perf refuses (or crashes
# on) is named in it.
# Every case runs (one line of result each) before the verdict.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
e2e_tmpdir badargs
src=$tmp/src        # a valid recording, so only the arguments are wrong
work=$tmp/work      # the cwd of every case: must stay empty
mkdir -p "$work"
"$H/mkshards" "$src" --shards 1 --records-per-shard 10 --seed 1 >/dev/null ||
	fail "mkshards"

# One case per line: the arguments after "prec", split on blanks.
# @DIR@ is the valid recording, @OUT@ a path inside the cwd; (none) is
# "prec" alone.
cases=$(cat <<'EOF'
(none)
frobnicate
frobnicate @DIR@
--bogus
-Z
record --bogus -- true
record -Z -- true
record -e
record -d
record -d -e cpu-clock -- true
record -d -- true
record --dir=-x -- true
record -o
record -d @OUT@ -F abc -- true
record -d @OUT@ -F
record -d @OUT@ -c abc -- true
record -d @OUT@ -c -1 -- true
record -d @OUT@ -c 0x10 -- true
record -d @OUT@ -F 0x10 -- true
record -d @OUT@ --no-count=5 -- true
record -d @OUT@ --no-event -- true
record -d @OUT@ --no-freq -- true
record -d @OUT@ --no-exclude-perf -- true
record -d @OUT@ -m abc -- true
record -d @OUT@ --switch-output=18446744074s -- true
record -d @OUT@ --switch-output=5x -- true
record -d @OUT@ -m 4Q -- true
record -d @OUT@ -m 128,3x -- true
record -d @OUT@ -m 3,4Q -- true
record -d @OUT@ -m 17179869185G -- true
record -d @OUT@ -m 4294967297 -- true
record -d @OUT@ -m 8G -- true
record -d @OUT@ --aux-size 0 -- true
record -d @OUT@ --aux-size -4M -- true
record -d @OUT@ --aux-size 4Q -- true
record -d @OUT@ --aux-size 99999999999G -- true
record -d @OUT@ -Sx -- true
record -d @OUT@ --snapshot=4k -- true
record -d @OUT@ -S -e cpu-clock -- true
record -d @OUT@ --aux-sample=big -- true
record -d @OUT@ --aux-sample -e cpu-clock -- true
record -d @OUT@ -C 9999 -- true
record -d @OUT@ -C z -- true
record -d @OUT@ -C 1-0 -- true
record -d @OUT@ -C 0,0 -- true
record -d @OUT@ -C ,0 -- true
record -d @OUT@ -p 1,,2 -- true
record -d @OUT@ -p ,1 -- true
record -d @OUT@ -t 1,,2 -- true
record -d @OUT@ --synth= -- true
record -d @OUT@ --synth task, -- true
record -d @OUT@ -C -- true
record -d @OUT@ --cpu z -- true
record -d @OUT@ --max-size 0 -- true
record -d @OUT@ --max-size 1.5M -- true
record -d @OUT@ --max-disk 1.5G -- true
record -d @OUT@ -m 1.5M -- true
record -d @OUT@ --max-size 5X -- true
record -d @OUT@ --max-size 99999999999999999999G -- true
record -d @OUT@ --max-size 17179869185G -- true
record -d @OUT@ --round-ms -5 -- true
record -d @OUT@ --round-ms abc -- true
record -d @OUT@ --off-cpu -a -e cpu-clock -G / -- true
record -d @OUT@ --round-ms 0 -- true
record -d @OUT@ -k sundial -- true
record -d @OUT@ -k perf --markers -- true
record -d @OUT@ -k realtime --markers -- true
record -d @OUT@ --all-user --all-kernel -- true
record -d @OUT@ --call-graph bogus -- true
record -d @OUT@ --call-graph dwarf,abc -- true
record -d @OUT@ -r -1 -- true
record -d @OUT@ -r 100 -- true
record -d @OUT@ -r 0x10 -- true
record -d @OUT@ --user-regs= -- true
record -d @OUT@ --intr-regs= -- true
record -d @OUT@ --realtime fast -- true
record -d @OUT@ -p abc
record -d @OUT@ -t x1
record -d @OUT@ --freq=abc -- true
record -d @OUT@ --no-such-long-option=1 -- true
record -d @OUT@ -a --bogus
merge
merge --bogus @DIR@
merge -Z @DIR@
merge @DIR@ extra
merge @DIR@ @DIR@
merge @DIR@ -o
merge @DIR@ -o @OUT@ --bogus
merge @DIR@ -o @OUT@ --time x,y
merge @DIR@ -o @OUT@ --time 1,2,3
merge @DIR@ -o @OUT@ --time 2,1
merge @DIR@ -o @OUT@ --cpu 7
merge @DIR@ -o @OUT@ --cpu 5-9
merge @DIR@ -o @OUT@ --cpu z
merge @DIR@ -o @OUT@ -C 3-1
merge @DIR@ -o @OUT@ --cpu
merge @DIR@ -o @OUT@ extra
info
info --bogus @DIR@
info @DIR@ extra
info @DIR@ @DIR@
info @DIR@ --json --bogus
info --check=1 @DIR@
dump
dump --bogus @DIR@
dump @DIR@ extra
dump @DIR@ --time x,y
dump @DIR@ --time
dump @DIR@ --cpu z
dump @DIR@ --cpu 7
dump @DIR@ --time 2,1
dump @DIR@ --cpu
mark
mark -d
mark --bogus hello
mark -Z hello
mark -d @DIR@
archive
archive --bogus @DIR@
archive -Z @DIR@
archive @DIR@ extra
archive @DIR@ -o
archive .
archive @DIR@ -o @DIR@/manifest -f
archive @DIR@ --max-size 0
archive @DIR@ --max-size 12Q
archive @DIR@ --max-size
EOF
)

pass=0 bad=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	line=${line//@DIR@/$src}
	line=${line//@OUT@/$work/out}
	read -r -a args <<<"$line"
	[ "$line" = "(none)" ] && args=()
	(cd "$work" && timeout -k 5 20 "$PREC" "${args[@]}" </dev/null >"$tmp/stdout" 2>"$tmp/stderr")
	rc=$?
	nl=$(wc -l <"$tmp/stderr")
	first=$(head -n 1 "$tmp/stderr")
	why=""
	[ "$rc" = 2 ] || why+=" exit $rc, want 2;"
	[ "$nl" = 1 ] || why+=" $nl stderr lines, want 1;"
	[[ "$first" == prec* ]] || why+=" stderr does not start with 'prec';"
	# A bad value is named whole in the message ("-m 3,4M", not "3").
	for ((i = 0; i < ${#args[@]}; i++)); do
		case ${args[i]} in
		--no-*)
			[[ "$first" == *"${args[i]}"* ]] || why+=" does not name ${args[i]};" ;;
		esac
		case ${args[i]} in
		-S?* | --snapshot=* | --aux-sample=*)
			opts=${args[i]#-S}
			opts=${opts#*=}
			[[ "$first" == *"'$opts'"* ]] || why+=" does not name '$opts';" ;;
		esac
		((i + 1 < ${#args[@]})) || continue
		case ${args[i]} in
		-m | --affinity | --aux-size)
			[[ "$first" == *"'${args[i + 1]}'"* ]] || why+=" does not name '${args[i + 1]}';" ;;
		esac
	done
	created=$(ls -A "$work")
	[ -z "$created" ] || why+=" created '$created';"
	show="prec ${line//$tmp/\$T}"
	if [ -z "$why" ]; then
		pass=$((pass + 1))
		printf 'ok   %-60s | %s\n' "$show" "$first"
	else
		bad=$((bad + 1))
		printf 'FAIL %-60s |%s first line: %s\n' "$show" "$why" "$first"
		sed 's/^/       | /' "$tmp/stderr" | head -n 5
	fi
	rm -rf "${work:?}"/* "$work"/.[!.]* 2>/dev/null
done <<<"$cases"

# What the lines say where the format alone does not tell.
says() { # WANT ARGS...: the one stderr line of prec ARGS contains WANT
	local want=$1
	shift
	(cd "$work" && "$PREC" "$@" </dev/null >/dev/null 2>"$tmp/stderr")
	if grep -qF -- "$want" "$tmp/stderr"; then
		pass=$((pass + 1))
	else
		bad=$((bad + 1))
		echo "FAIL prec $*: '$(cat "$tmp/stderr")' lacks '$want'"
	fi
	rm -rf "${work:?}"/* 2>/dev/null
}
# An unknown option points at the subcommand's own help, alike for all.
for cmd in record merge info dump mark; do
	says "$cmd: option '--bogus': unknown or missing its argument (see 'prec $cmd --help')" \
		"$cmd" --bogus "$src"
done
says "--time 2,1: END is before START" merge "$src" -o "$work/out" --time 2,1
# a fraction: what the sizes are, not an unknown suffix (perf's are whole too)
for o in --max-disk --max-size --max-staging -m --aux-size; do
	says "option $o '1.5G': sizes are whole numbers with " record -d "$work/out" "$o" 1.5G -- true
done
says "(END is before START)" dump "$src" --time 2,1
says "--cpu 7: no CPU of the list is in the recording (its CPUs: 0)" merge "$src" -o "$work/out" --cpu 7
says "--cpu 7: no CPU of the list is in the recording (its CPUs: 0)" dump "$src" --cpu 7
# Some CPUs of the list present: one warning, and the merge goes on.
(cd "$work" && "$PREC" merge "$src" -o "$work/out" --cpu 0,7 2>"$tmp/stderr")
rc=$?
if [ $rc = 0 ] && [ -s "$work/out" ] &&
	grep -q "warning: .*--cpu 0,7: CPU 7 is not in the recording (its CPUs: 0)" "$tmp/stderr"; then
	pass=$((pass + 1))
else
	bad=$((bad + 1))
	echo "FAIL prec merge --cpu 0,7: exit $rc, stderr: $(cat "$tmp/stderr")"
fi
rm -rf "${work:?}"/*
# --version's first line is "prec X.Y"; what was built follows (package_deb.sh
# checks those lines).
v=$("$PREC" --version)
if [ $? = 0 ] && [[ "${v%%$'\n'*}" =~ ^prec\ [0-9]+\.[0-9]+$ ]] && [ "$("$PREC" version)" = "$v" ]; then
	pass=$((pass + 1))
else
	bad=$((bad + 1))
	echo "FAIL prec --version: '$v'"
fi

echo "$pass cases ok, $bad cases wrong"
[ "$bad" = 0 ]
