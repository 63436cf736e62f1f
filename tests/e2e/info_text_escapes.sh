#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec info (text) on a manifest whose strings hold a newline, a terminal
# escape, a backslash, quotes, a C1 control (U+009B, a CSI to some
# terminals) and a byte that is not UTF-8 (mkshards --text): each shows
# escaped (\n, \x1b, \\, \xc2\x9b, \xff) on its own line, printable UTF-8
# stays as it is, no control byte reaches the output, and the command
# line, read back by bash, gives the recorded words.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
MK=$H/mkshards
[ -x "$MK" ] || skip "$MK not built"
e2e_tmpdir escapes "${TMPDIR:-/tmp}"
on_fail() { cat -A "$tmp/out" | head -20; }
text=$'ev\nil\x1b[31mred\\ \'q\' \xc3\xa9 \xc2\x9b\xff'
shown='ev\nil\x1b[31mred\\ '"'q'"$' \xc3\xa9 '"\\xc2\\x9b\\xff"

"$MK" "$tmp/d" --shards 1 --records-per-shard 10 --text "$text" >/dev/null || fail "mkshards"
"$PREC" info "$tmp/d" >"$tmp/out" || fail "info"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f\xff]' "$tmp/out" && fail "a control byte in the output"
LC_ALL=C grep -q $'\xc2\x9b' "$tmp/out" && fail "a C1 control in the output"
[ "$(grep -c . "$tmp/out")" = "$(wc -l <"$tmp/out")" ] || fail "an empty line"
grep -qxF "host:        $shown ($shown, x86_64), 1 cpus available, 1 online, 0 kB memory" "$tmp/out" ||
	fail "host line"
grep -qxF "cpu:         $shown" "$tmp/out" || fail "cpu line"
grep -qF "  $shown type 1 config 0x0" "$tmp/out" || fail "event line"
LC_ALL=C grep -q $'\xc3\xa9' "$tmp/out" || fail "UTF-8 e-acute escaped"

# The command line, as bash reads it back, is the argv recorded.
cmd=$(sed -n 's/^command:     //p' "$tmp/out")
[ -n "$cmd" ] || fail "no command line"
eval "words=($cmd)"
[ ${#words[@]} = 3 ] || fail "command line reads back as ${#words[@]} words: $cmd"
[ "${words[0]} ${words[1]}" = "prec record" ] || fail "command line words 1-2"
[ "${words[2]}" = "$text" ] || fail "command line word 3 differs when read back: $cmd"

# --json is left as it was: the bytes themselves, in JSON's escapes.
if command -v python3 >/dev/null; then
	"$PREC" info "$tmp/d" --json >"$tmp/json" || fail "info --json"
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))["host"]["hostname"]
assert h.startswith("ev\nil\x1b[31mred\\ \x27q\x27 \u00e9 "), repr(h)' "$tmp/json" ||
		fail "json hostname"
fi
echo "ok: info escapes manifest strings, the command line reads back"
