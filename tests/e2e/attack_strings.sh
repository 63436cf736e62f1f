#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile strings from the workload reach no terminal raw. An unprivileged
# workload (uid 65534) execs a copy of true named with an OSC 52 clipboard
# sequence (ESC ] 52 ; c ; ... BEL: its comm) in a directory whose name
# holds ESC [ 2 J, BEL and CR (the MMAP2 file name), writes ESC [ 2 J, BEL
# and CR into its own comm (a COMM record, as prctl(PR_SET_NAME)), and maps
# a non-ELF file of such a name executable (prec record -v then logs that
# it has no build-id); root's prec mark writes a marker text with ESC
# sequences. prec dump, prec info and prec record -v must print no control
# byte, dump must show each string escaped (\x1b, \x07, \r), and the
# merge's perf.data must still hold the bytes as the workload wrote them:
# only the display is escaped, never the data. A second copy of true is
# named with the C1 controls CSI and OSC (U+009B, U+009D, which xterm and
# VTE obey) and the bidi override RLO (U+202E): prec info --json writes
# each as \uXXXX, and no output holds one raw.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd setpriv
e2e_tmpdir attack
# Lines with a C0 control but the newline, DEL, a C1 control or a bidi
# control (UTF-8).
controls() {
	LC_ALL=C grep -n -e $'[\x01-\x09\x0b-\x1f\x7f]' -e $'\xc2[\x80-\x9f]' \
		-e $'\xe2\x80[\xaa-\xae]' -e $'\xe2\x81[\xa6-\xa9]' "$1" | head -3 | cat -A
}

chmod 755 "$tmp"
mkdir "$tmp/w" && chown 65534:65534 "$tmp/w" || fail "attacker's directory"
# The attacker's script, run as 65534 in its own directory $1.
cat >"$tmp/w/attack.sh" <<'EOF'
d=$(printf '%s/\033[2J\007\rx' "$1")
n=$(printf '\033]52;c;SGk=\007')
mkdir "$d" && cp /bin/true "$d/$n" && "$d/$n" || exit 11
c1=$(printf '%s/c1\302\2332J\302\2350;t\342\200\256fdp.so' "$1")
cp /bin/true "$c1" && "$c1" || exit 14
printf '\033[2J\007\rPWN' >/proc/self/comm || exit 12
if command -v python3 >/dev/null; then
	# notelf is mapped for 0.5 s: read while recording (every 100 ms);
	# notelf2 just before the exit: read then or at the stop.
	for f in "$d/notelf" "$d/notelf2"; do
		head -c 8192 /dev/zero | tr '\0' A >"$f"
	done
	python3 -c 'import mmap, sys, time
for p, hold in ((sys.argv[1], 0.5), (sys.argv[2], 0)):
	f = open(p, "rb")
	mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
	time.sleep(hold)' "$d/notelf" "$d/notelf2" || exit 13
fi
/bin/true
EOF
mark=$'mark \e]52;c;SGk=\a \e[2J'
cat >"$tmp/work.sh" <<EOF
setpriv --reuid=65534 --regid=65534 --clear-groups -- sh "$tmp/w/attack.sh" "$tmp/w" || exit \$?
[ -z "\$1" ] || "$PREC" mark -d "$tmp/rec" "\$1"
EOF

# --markers where the kernel has what they need; without, no marker part.
markers=--markers
"$PREC" record -v -d "$tmp/rec" $markers -e cpu-clock -- sh "$tmp/work.sh" "$mark" \
	>"$tmp/rec.out" 2>"$tmp/rec.err"
rc=$?
if [ $rc != 0 ] && grep -q 'markers' "$tmp/rec.err"; then
	echo "no markers here: $(grep markers "$tmp/rec.err" | head -1 | cat -A)"
	markers= mark=
	rm -rf "$tmp/rec"
	"$PREC" record -v -d "$tmp/rec" -e cpu-clock -- sh "$tmp/work.sh" "" \
		>"$tmp/rec.out" 2>"$tmp/rec.err"
	rc=$?
fi
[ $rc = 0 ] || { tail -5 "$tmp/rec.err"; fail "record exited $rc"; }

# prec record's own messages: the mapped file's name, escaped.
[ -z "$(controls "$tmp/rec.err")" ] || fail "prec record -v printed a control byte: $(controls "$tmp/rec.err")"
if command -v python3 >/dev/null; then
	# one line for each, however soon each was read
	for n in notelf notelf2; do
		grep -qF "build-id $tmp/w/"'\x1b[2J\x07\rx/'"$n:" "$tmp/rec.err" ||
			fail "prec record -v: no escaped build-id message for the mapped file $n"
	done
fi

"$PREC" dump "$tmp/rec" >"$tmp/dump" 2>"$tmp/dump.err" || fail_rc "$tmp/dump.err" "dump"
[ -z "$(controls "$tmp/dump")" ] || fail "prec dump printed a control byte: $(controls "$tmp/dump")"
[ -z "$(controls "$tmp/dump.err")" ] || fail "prec dump's messages hold a control byte"
grep -qF 'COMM comm \x1b]52;c;SGk=\x07' "$tmp/dump" || fail "dump: the exec'd comm not shown escaped"
grep -qF 'COMM comm \x1b[2J\x07\rPWN' "$tmp/dump" || fail "dump: the written comm not shown escaped"
grep -qF "MMAP2 file $tmp/w/"'\x1b[2J\x07\rx/\x1b]52;c;SGk=\x07' "$tmp/dump" ||
	fail "dump: the executable's file name not shown escaped"
if [ -n "$markers" ]; then
	grep -qF 'marker "mark \x1b]52;c;SGk=\x07 \x1b[2J"' "$tmp/dump" ||
		fail "dump: the marker text not shown escaped"
fi
"$PREC" info "$tmp/rec" >"$tmp/info" 2>&1 || fail "info exited $?"
[ -z "$(controls "$tmp/info")" ] || fail "prec info printed a control byte: $(controls "$tmp/info")"
"$PREC" info --json "$tmp/rec" >"$tmp/info.json" 2>&1 || fail "info --json exited $?"
[ -z "$(controls "$tmp/info.json")" ] ||
	fail "prec info --json printed a control byte: $(controls "$tmp/info.json")"
grep -qF "\"$tmp/w/c1\\u009b2J\\u009d0;t\\u202efdp.so\"" "$tmp/info.json" ||
	fail "info --json: the C1 and bidi controls of a mapped file's name not written as \\uXXXX"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/info.json" ||
		fail "info --json is not JSON"
fi

# The data keeps the bytes: perf reads the workload's real names.
"$PREC" merge "$tmp/rec" -o "$tmp/perf.data" 2>"$tmp/merge.err" ||
	fail_rc "$tmp/merge.err" "merge"
[ -z "$(controls "$tmp/merge.err")" ] || fail "prec merge's messages hold a control byte"
raws=($'\e]52;c;SGk=\a' $'\e[2J\a\rPWN' "$tmp/w/"$'\e[2J\a\rx/\e]52;c;SGk=\a')
[ -z "$mark" ] || raws+=("$mark")
for raw in "${raws[@]}"; do
	LC_ALL=C grep -qaF -- "$raw" "$tmp/perf.data" ||
		fail "perf.data lacks the raw bytes of $(printf %s "$raw" | od -c | head -2)"
done
echo "ok: comm, file names${markers:+ and marker text} escaped in dump, info, info --json and record -v; perf.data keeps them raw"
