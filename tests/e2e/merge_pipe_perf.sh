#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The pipe format as perf reads it: a --call-graph dwarf recording of the
# callchain helper (main -> callchain_outer -> callchain_middle ->
# callchain_inner), merged to a pipe and to a file.
# 1. `prec merge d | perf script -i -` prints the DWARF frames (the sampling
#    event's attr goes before the tracking dummy's: perf script sets its
#    call-graph printing up from the first attr of each type), the very
#    output of `perf script -i f.data`, with nothing on stderr;
# 2. `perf evlist -i -` (which reads only the attrs of a pipe) equals
#    `perf evlist -i f.data`, names and attrs (-v), dummy last as perf has it;
# 3. the pipe names its events in EVENT_UPDATE records, as perf record's;
# 4. perf report reads the pipe with nothing on stderr.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
e2e_tmpdir pipeperf

"$PREC" record -q -d "$tmp/d" -e cpu-clock -F 2000 --call-graph dwarf -- "$H/callchain" 400 ||
	fail "record --call-graph dwarf"
"$PREC" merge "$tmp/d" -o "$tmp/f.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge to a file"

# 1. The same samples and frames from the pipe as from the file.
"$PREC" merge "$tmp/d" 2>/dev/null | perf script -i - >"$tmp/pipe.script" 2>"$tmp/pipe.err" ||
	fail_rc "$tmp/pipe.err" "perf script -i -"
[ -s "$tmp/pipe.err" ] && { cat "$tmp/pipe.err"; fail "perf script -i - wrote on stderr"; }
perf script -i "$tmp/f.data" >"$tmp/file.script" 2>"$tmp/file.err" ||
	fail_rc "$tmp/file.err" "perf script -i f.data"
[ -s "$tmp/file.err" ] && { cat "$tmp/file.err"; fail "perf script -i f.data wrote on stderr"; }
read -r n full < <(awk 'BEGIN { RS = "" } /callchain_inner/ { n++
	if (/callchain_middle/ && /callchain_outer/ && /[ \t]main\+/) full++ }
	END { print n + 0, full + 0 }' "$tmp/pipe.script")
echo "pipe: $full of $n samples in callchain_inner unwound to main"
[ "$n" -ge 100 ] || fail "pipe: only $n samples in callchain_inner"
[ $((full * 100)) -ge $((n * 95)) ] || fail "pipe: $full of $n unwound to main"
cmp -s "$tmp/pipe.script" "$tmp/file.script" || {
	diff "$tmp/pipe.script" "$tmp/file.script" | head -20
	fail "perf script: the pipe and the file differ"
}

# 2. perf evlist, names and attrs.
"$PREC" merge "$tmp/d" 2>/dev/null | perf evlist -i - >"$tmp/pipe.evlist" 2>&1 || fail "perf evlist -i -"
perf evlist -i "$tmp/f.data" >"$tmp/file.evlist" 2>&1 || fail "perf evlist -i f.data"
printf 'cpu-clock\ndummy\n' | cmp -s - "$tmp/pipe.evlist" || {
	cat "$tmp/pipe.evlist"
	fail "perf evlist -i -: want cpu-clock then dummy"
}
cmp -s "$tmp/pipe.evlist" "$tmp/file.evlist" || {
	cat "$tmp/file.evlist"
	fail "perf evlist: the pipe and the file differ"
}
"$PREC" merge "$tmp/d" 2>/dev/null | perf evlist -v -i - >"$tmp/pipe.evlist" 2>&1 || fail "perf evlist -v -i -"
perf evlist -v -i "$tmp/f.data" >"$tmp/file.evlist" 2>&1 || fail "perf evlist -v -i f.data"
cmp -s "$tmp/pipe.evlist" "$tmp/file.evlist" || {
	diff "$tmp/pipe.evlist" "$tmp/file.evlist"
	fail "perf evlist -v: the pipe and the file differ"
}

# 3. One EVENT_UPDATE naming each event.
"$PREC" merge "$tmp/d" 2>/dev/null | perf script -D -i - 2>/dev/null |
	awk '/PERF_RECORD_EVENT_UPDATE/ { u = 1; next }
	     u && /^\.\.\. name:/ { print $3; u = 0 }' >"$tmp/names"
printf 'cpu-clock\ndummy\n' | cmp -s - "$tmp/names" || {
	cat "$tmp/names"
	fail "EVENT_UPDATE names: want cpu-clock then dummy"
}

# 4. perf report: the samples of the file, nothing on stderr.
"$PREC" merge "$tmp/d" 2>/dev/null | perf report -i - --stdio --sort sym >"$tmp/pipe.report" 2>"$tmp/pipe.err" ||
	fail_rc "$tmp/pipe.err" "perf report -i -"
[ -s "$tmp/pipe.err" ] && { cat "$tmp/pipe.err"; fail "perf report -i - wrote on stderr"; }
want=$(perf report -i "$tmp/f.data" --stdio --sort sym 2>/dev/null | grep '^# Samples:')
got=$(grep '^# Samples:' "$tmp/pipe.report")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "perf report -i -: '$got', the file: '$want'"
echo "PASS: DWARF frames and event names through the pipe as in the file"
