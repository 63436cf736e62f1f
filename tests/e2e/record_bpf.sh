#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# BPF programs in a recording, as perf record has them (the tracking event's
# ksymbol and bpf_event, and the programs loaded before the start
# synthesized from the bpf() syscall), judged by perf itself:
# 1. N programs loaded and unloaded during the recording: perf script
#    --show-bpf-events shows exactly N KSYMBOL registrations with their
#    names and N BPF_EVENT loads, and nothing on stderr.
# 2. Programs loaded before the start: the synthesized KSYMBOL and BPF_EVENT
#    records are the ones perf record synthesizes for the same programs.
# 3. Samples in a program's JITed code resolve to its name in perf report,
#    loaded during the recording and before it (500 ms of datagrams through
#    it at 4000 Hz: ~600 of bpfload's 1200 samples here; a quarter of
#    bpfload's samples and 50 asserted, as its share of the CPU, so its
#    samples, shrink on a busy machine); with --no-bpf-event
#    too, as perf's, which leaves out only the BPF_EVENT records (and the
#    programs' info), not their KSYMBOLs: synthesized ones as perf's.
# 4. Two recordings at once: the kernel hands one KSYMBOL (BPF_EVENT) to
#    each session with its size grown by every earlier session's trailer
#    (6.18), so the later one's records claim more bytes than they hold and
#    end in stale ring bytes where the trailer belongs. Both recordings
#    merge to records of their real size (perf script -D), with their times
#    from the real trailer (info --check), and perf reads them cleanly.
# Any other process may load programs meanwhile (another run of this test,
# systemd's units), and a recording has their records too (a -a one each
# program's): the programs here are named after this run, and a
# BPF_EVENT (which names none) is counted by the ids bpfload says.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
"$H/bpfload" 1 probe 0 || { [ $? = 77 ] && skip "no BPF here"; exit 1; }
e2e_tmpdir bpf
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; }
at_exit cleanup
N=5
tag=$(printf %05d $(($$ % 100000)))

# bpf_events DATA: the KSYMBOL and BPF_EVENT lines of perf script, from the
# record type on (no comm/time columns)
bpf_events() {
	perf script -i "$1" --show-bpf-events 2>"$tmp/script.err" |
		sed -n 's/.*\(PERF_RECORD_\(KSYMBOL\|BPF_EVENT\)\)/\1/p'
	[ -s "$tmp/script.err" ] && fail "perf script on $1: $(head -2 "$tmp/script.err")"
	return 0
}
# mine IDS: the KSYMBOL lines read (grep keeps those named) and, of the
# BPF_EVENT lines, those whose id IDS (bpfload's BPFLOAD_IDS file) lists
mine() {
	awk 'NR == FNR { ids[$2] = 1; next } /BPF_EVENT/ && !($NF in ids) { next } 1' "$1" -
}
# samples_in DATA NAME: whether perf report puts NAME's share of
# bpfload's samples in the program NAME: a quarter and 50 at least; else
# the counts
samples_in() {
	perf report -i "$1" --stdio -n --comms bpfload --sort sym 2>/dev/null |
		awk -v n="$2" '/^#/ || NF < 4 { next } { all += $2 }
			$4 ~ "^bpf_prog_[0-9a-f]+_" n "$" { s += $2 }
			END { print s + 0 " of " all + 0; exit !(s >= 50 && 4 * s >= all) }'
}
merge() { "$PREC" merge "$1" -o "$1.data" 2>"$tmp/merge.err" || fail "merge $1: $(cat "$tmp/merge.err")"; }

# 1
: >"$tmp/live.ids"
BPFLOAD_IDS=$tmp/live.ids "$PREC" record -q -d "$tmp/live" -- "$H/bpfload" $N "prect$tag" 50 ||
	fail "record live: exit $?"
[ "$(wc -l <"$tmp/live.ids")" = $N ] || fail "bpfload said $(wc -l <"$tmp/live.ids") ids, want $N"
merge "$tmp/live"
ev=$(bpf_events "$tmp/live.data")
reg=$(echo "$ev" | grep -c "KSYMBOL .* type 1 flags 0x0 name bpf_prog_[0-9a-f]*_prect${tag}[0-9]\$")
load=$(echo "$ev" | grep 'BPF_EVENT type 1,' | mine "$tmp/live.ids" | wc -l)
[ "$reg" = $N ] || fail "live: $reg KSYMBOL registrations of prect*, want $N"
[ "$load" = $N ] || fail "live: $load BPF_EVENT loads, want $N"
echo "live: $N programs, $reg KSYMBOL and $load BPF_EVENT loads"

# 2: the programs held until the four recordings are compared (a time
# they are held for may end during one on a busy machine)
: >"$tmp/pre.ids"
BPFLOAD_IDS=$tmp/pre.ids "$H/bpfload" 3 "prepre$tag" 600000 &
pids+=($!)
prepre=$!
for _ in $(seq 100); do
	[ "$(wc -l <"$tmp/pre.ids")" = 3 ] && break
	sleep 0.1
done
[ "$(wc -l <"$tmp/pre.ids")" = 3 ] || fail "bpfload did not load its 3 programs"
perf record -q -a -o "$tmp/perf.data" -- sleep 0.2 2>/dev/null || fail "perf record: exit $?"
"$PREC" record -q -d "$tmp/pre" -a -- sleep 0.2 || fail "record pre: exit $?"
merge "$tmp/pre"
bpf_events "$tmp/perf.data" | grep "_prepre${tag}[0-9]\$\|BPF_EVENT" | mine "$tmp/pre.ids" >"$tmp/want"
bpf_events "$tmp/pre.data" | grep "_prepre${tag}[0-9]\$\|BPF_EVENT" | mine "$tmp/pre.ids" >"$tmp/got"
[ "$(grep -c prepre "$tmp/want")" = 3 ] || fail "perf synthesized $(grep -c prepre "$tmp/want") prepre programs, want 3"
diff "$tmp/want" "$tmp/got" >"$tmp/diff" || fail "synthesized records differ from perf's: $(head -4 "$tmp/diff")"
echo "before the start: the same $(wc -l <"$tmp/got") KSYMBOL/BPF_EVENT records as perf record"
# --no-bpf-event, as perf's: the KSYMBOLs synthesized all the same, no
# BPF_EVENT
perf record -q -a --no-bpf-event -o "$tmp/perfno.data" -- sleep 0.2 2>/dev/null || fail "perf record --no-bpf-event: exit $?"
"$PREC" record -q -d "$tmp/preno" -a --no-bpf-event -- sleep 0.2 || fail "record pre --no-bpf-event: exit $?"
merge "$tmp/preno"
bpf_events "$tmp/perfno.data" | grep "_prepre${tag}[0-9]\$\|BPF_EVENT" >"$tmp/want"
bpf_events "$tmp/preno.data" | grep "_prepre${tag}[0-9]\$\|BPF_EVENT" >"$tmp/got"
[ "$(grep -c prepre "$tmp/want")" = 3 ] && ! grep -q BPF_EVENT "$tmp/want" ||
	fail "perf --no-bpf-event synthesized: $(cat "$tmp/want")"
diff "$tmp/want" "$tmp/got" >"$tmp/diff" || fail "--no-bpf-event: synthesized records differ from perf's: $(head -4 "$tmp/diff")"
echo "before the start, --no-bpf-event: the same $(wc -l <"$tmp/got") KSYMBOLs as perf record, no BPF_EVENT"
kill "$prepre"
wait "$prepre" 2>/dev/null

# 4
# real_sizes DATA: every KSYMBOL is 24 bytes, its name padded to 8, and the
# 32-byte trailer long; every BPF_EVENT 24 + 32
real_sizes() {
	perf script -D -i "$1" 2>/dev/null | awk '
		function hex(x,   v, i) { x = tolower(x); sub(/^\[0x/, "", x); sub(/\]:?$/, "", x)
			for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v }
		function size(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^\[0x[0-9a-f]+\]:$/) return hex($i); return -1 }
		/PERF_RECORD_KSYMBOL/ { n++; s = size(); l = length($NF) + 1
			if (s != 24 + int((l + 7) / 8) * 8 + 32) { print "KSYMBOL " $NF " size " s; bad++ } }
		/PERF_RECORD_BPF_EVENT/ { n++; s = size()
			if (s != 56) { print "BPF_EVENT size " s; bad++ } }
		END { if (!n) print "no KSYMBOL or BPF_EVENT"; exit (bad || !n) }'
}
"$PREC" record -q -d "$tmp/other" -a -- sleep 1.5 &
pids+=($!)
sleep 0.4
"$PREC" record -q -d "$tmp/twin" -- "$H/bpfload" $N "twin$tag" 50 || fail "record twin: exit $?"
wait "${pids[-1]}" || fail "record other: exit $?"
for r in twin other; do
	merge "$tmp/$r"
	real_sizes "$tmp/$r.data" >"$tmp/sizes" || fail "$r: records of a wrong size: $(head -3 "$tmp/sizes")"
	n=$(bpf_events "$tmp/$r.data" | grep -c "KSYMBOL .* type 1 flags 0x0 name bpf_prog_[0-9a-f]*_twin${tag}[0-9]\$")
	[ "$n" = $N ] || fail "$r: $n KSYMBOL registrations of twin*, want $N"
	"$PREC" info "$tmp/$r" --check >"$tmp/check" 2>&1 || fail "$r: info --check: $(tail -2 "$tmp/check")"
done
echo "two recordings at once: $N programs in each, every record of its real size"

# 3
"$PREC" record -q -d "$tmp/hot" -F 4000 -- "$H/bpfload" -r "hot$tag" 0 500 || fail "record hot: exit $?"
merge "$tmp/hot"
s=$(samples_in "$tmp/hot.data" "hot$tag") ||
	fail "live: $s bpfload samples in bpf_prog_*_hot$tag, want a quarter and 50"
"$PREC" record -q -d "$tmp/nobpf" -F 4000 --no-bpf-event -- "$H/bpfload" -r "hot$tag" 0 500 ||
	fail "record --no-bpf-event: exit $?"
merge "$tmp/nobpf"
# as perf's: the kernel's KSYMBOL stays, so samples resolve; no BPF_EVENT
ev=$(bpf_events "$tmp/nobpf.data")
[ "$(echo "$ev" | grep -c "KSYMBOL .* type 1 flags 0x0 name bpf_prog_[0-9a-f]*_hot$tag\$")" = 1 ] ||
	fail "--no-bpf-event: want the program's KSYMBOL: $ev"
echo "$ev" | grep -q BPF_EVENT && fail "--no-bpf-event: BPF_EVENT records present: $ev"
n=$(samples_in "$tmp/nobpf.data" "hot$tag") ||
	fail "--no-bpf-event: $n bpfload samples in bpf_prog_*_hot$tag, want a quarter and 50"
"$H/bpfload" -r "hotpre$tag" 800 500 &
pids+=($!)
sleep 0.3
"$PREC" record -q -d "$tmp/hotpre" -a -F 4000 -- sleep 1.3 || fail "record hotpre: exit $?"
wait "${pids[-1]}" # the program's run over
merge "$tmp/hotpre"
p=$(samples_in "$tmp/hotpre.data" "hotpre$tag") ||
	fail "before the start: $p bpfload samples in bpf_prog_*_hotpre$tag, want a quarter and 50"
echo "samples in the program: $s (loaded during), $p (loaded before, -a), $n (--no-bpf-event)"
