#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's BPF_PROG_INFO and BPF_BTF features in prec's perf.data, judged by
# perf record's own file of the same programs:
# 1. Four programs loaded before the start (bpfload: one hot one with BTF
#    whose function, hotfn, is not the program's name; one of two functions
#    with BTF, twofn and twofn_sub; two without BTF), recorded by perf and
#    by prec with -a: each program's record in BPF_PROG_INFO (its info and
#    arrays: JITed code, addresses, lengths, tags, func and line info) and
#    its BTF object in BPF_BTF are the same bytes in prec's file as in
#    perf's; perf report --header-only prints the same bpf_prog_info (and
#    sub_prog) lines for each (names by BTF, addresses, sizes) and the
#    BTF's line; neither feature is missing; the synthesized KSYMBOLs are
#    perf's, named by BTF.
# 2. Samples in the hot program go to perf's name for it,
#    bpf_prog_<tag>_hotfn (the BTF's), and perf annotate says of it what it
#    says of perf's own file (the JITed code comes from BPF_PROG_INFO).
# 3. A pipe (merge -o -): the same records as HEADER_FEATUREs (where perf
#    record's own pipe has none: it writes them before reading any).
# 4. --no-bpf-event: BPF_PROG_INFO with count 0 and BPF_BTF with the
#    loaded programs' BTF objects (a program with BTF loaded meanwhile),
#    file and pipe, as perf record --no-bpf-event writes them.
# 5. A program loaded during the recording (perf and prec recording at
#    once), loaded still at the stop: its record and BTF are perf's bytes
#    too (perf's side-band thread read them at its load, prec at the close).
# 6. 80 programs of some 16 KiB each loaded during the recording: past the
#    1 MiB the close may add, the rest left out in one warning that counts
#    them; the ones kept and the ones left out make 80, and perf reads the
#    header.
# 7. A program loaded before the start whose JITed code (4.8 MB) passes the
#    4 MiB a program may hold: left out of BPF_PROG_INFO in one warning,
#    its KSYMBOL synthesized all the same.
# 8. A program loaded for 0.3 s during the recording, unloaded before the
#    stop: its record and BTF are perf's bytes (perf's side-band thread
#    read them at its load, prec's look for new programs every 50 ms).
# 9. A program too large (4.8 MB of JITed code) loaded during the
#    recording is left out in the close's one warning, and the looks go on:
#    a program loaded for 0.3 s after it has its info.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_cmd python3
"$H/bpfload" -b probe 1 probe 0 || { [ $? = 77 ] && skip "no BPF with BTF here"; exit 1; }
e2e_tmpdir bpf_feats
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
at_exit cleanup
feats() { python3 "$PREC_TOP/tests/lib/bpf_feats.py" "$@"; }

"$H/bpfload" -b hotfn -r mbhot 0 30000 &
pids+=($!)
"$H/bpfload" 2 mbplain 30000 &
pids+=($!)
"$H/bpfload" -s -b twofn 1 mbsub 30000 &
pids+=($!)
sleep 0.5
perf record -q -a -F 2000 -o "$tmp/perf.data" -- sleep 0.5 2>"$tmp/perf.err" ||
	fail_rc "$tmp/perf.err" "perf record"
"$PREC" record -q -a -F 2000 -d "$tmp/rec" -- sleep 0.5 || fail "prec record: exit $?"
cleanup
pids=()
"$PREC" merge -q "$tmp/rec" -o "$tmp/prec.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge"
"$PREC" merge -q "$tmp/rec" -o - >"$tmp/pipe.data" 2>"$tmp/merge.err" || fail_rc "$tmp/merge.err" "merge -o -"

# 1
# header_bpf DATA: perf's bpf_prog_info lines of our programs, and the BPF
# features it says are missing
header_bpf() {
	perf report -i "$1" --header-only -I 2>"$tmp/report.err" | awk '
		/^# bpf_prog_info [0-9]+: bpf_prog_[0-9a-f]+_(hotfn|mbplain[01]) / { print }
		/^# \tsub_prog [01]: bpf_prog_[0-9a-f]+_twofn(_sub)? / { print }
		/^# missing features:/ { for (i = 4; i <= NF; i++) if ($i ~ /^BPF_/) print "missing " $i }'
	[ -s "$tmp/report.err" ] && fail "perf report --header-only on $1: $(head -2 "$tmp/report.err")"
	return 0
}
header_bpf "$tmp/perf.data" >"$tmp/perf.hdr"
header_bpf "$tmp/prec.data" >"$tmp/prec.hdr"
[ "$(grep -c 'bpf_prog_info\|sub_prog' "$tmp/perf.hdr")" = 5 ] ||
	fail "perf's own file has not our 4 programs: $(cat "$tmp/perf.hdr")"
grep -q '^missing' "$tmp/perf.hdr" && fail "perf's own file misses a BPF feature"
diff "$tmp/perf.hdr" "$tmp/prec.hdr" >"$tmp/diff" ||
	fail "bpf_prog_info lines or missing features differ from perf's (< perf, > prec): $(cat "$tmp/diff")"
ids="$(sed -n 's/^# bpf_prog_info \([0-9]*\): .*/\1/p' "$tmp/perf.hdr") $("$PREC" info "$tmp/rec" --json | sed -n 's/.*"id": \([0-9]*\), "name": "mbsub0".*/\1/p')"
[ "$(echo $ids | wc -w)" = 4 ] || fail "not 4 program ids: $ids"
feats "$tmp/perf.data" >"$tmp/perf.feats" || fail "perf's features do not parse"
feats "$tmp/prec.data" >"$tmp/prec.feats" || fail "prec's features do not parse"
btf=$(perf report -i "$tmp/perf.data" --header-only -I 2>/dev/null | grep -c '^# btf info of id')
[ "$btf" -ge 1 ] || fail "perf's own file has no BTF"
for id in $ids; do
	want=$(grep "^prog $id " "$tmp/perf.feats")
	[ "$want" = "$(grep "^prog $id " "$tmp/prec.feats")" ] ||
		fail "program $id: its BPF_PROG_INFO record differs from perf's"
done
# the hot program's BTF: its btf_id from prec info --json, its bytes as perf's
bid=$("$PREC" info "$tmp/rec" --json | sed -n 's/.*"name": "mbhot", "btf_id": \([0-9]*\),.*/\1/p')
[ -n "$bid" ] && [ "$bid" != 0 ] || fail "prec info --json has no btf_id for mbhot"
want=$(grep "^btf $bid " "$tmp/perf.feats")
[ -n "$want" ] || fail "perf's file has no BTF $bid"
[ "$want" = "$(grep "^btf $bid " "$tmp/prec.feats")" ] || fail "BTF $bid differs from perf's"
grep -qx "# btf info of id $bid" <(perf report -i "$tmp/prec.data" --header-only -I 2>/dev/null) ||
	fail "perf report --header-only shows no BTF $bid for prec's file"
# ksyms DATA: the synthesized KSYMBOL records of our programs
ksyms() {
	perf script -i "$1" --show-bpf-events 2>/dev/null |
		grep -E 'PERF_RECORD_KSYMBOL .*name bpf_prog_[0-9a-f]+_(hotfn|twofn|twofn_sub|mbplain[01])$' |
		sed 's/.*PERF_RECORD_KSYMBOL/KSYMBOL/'
}
ksyms "$tmp/perf.data" >"$tmp/perf.ksyms"
ksyms "$tmp/prec.data" >"$tmp/prec.ksyms"
[ "$(grep -c . "$tmp/perf.ksyms")" = 5 ] || fail "perf's KSYMBOLs of our programs: $(cat "$tmp/perf.ksyms")"
diff "$tmp/perf.ksyms" "$tmp/prec.ksyms" >"$tmp/diff" || fail "KSYMBOLs differ from perf's: $(cat "$tmp/diff")"
echo "BPF_PROG_INFO and BPF_BTF: our 4 programs and BTF $bid the same bytes as perf's: $(grep -c . "$tmp/prec.hdr") header lines and 5 KSYMBOLs as perf's"

# 2
hot() { perf report -i "$1" --stdio -n --sort sym 2>/dev/null | awk '$4 ~ /^bpf_prog_[0-9a-f]+_/ && $4 ~ /_(hotfn|mbhot)$/ { print $4, $2 }'; }
read -r psym pn < <(hot "$tmp/perf.data")
read -r qsym qn < <(hot "$tmp/prec.data")
[ "${psym:-}" != "" ] && [ "${pn:-0}" -ge 50 ] || fail "perf's own file: ${pn:-no} samples in the hot program"
[ "${qsym:-}" = "$psym" ] || fail "prec's samples in the hot program go to ${qsym:-nothing}, perf's to $psym"
[ "${qn:-0}" -ge 50 ] || fail "prec's file: ${qn:-no} samples in $psym"
# annotate DATA: what perf annotate says of the hot program, percentages
# and sample counts out
annotate() {
	perf annotate -i "$1" --stdio -s "$psym" 2>&1 | sed -E 's/[0-9]+\.[0-9]+//g; s/\(.* samples.*\)//'
}
annotate "$tmp/perf.data" >"$tmp/perf.ann"
annotate "$tmp/prec.data" >"$tmp/prec.ann"
[ -s "$tmp/perf.ann" ] || fail "perf annotate says nothing of its own file"
diff "$tmp/perf.ann" "$tmp/prec.ann" >"$tmp/diff" ||
	fail "perf annotate $psym differs (< perf, > prec): $(head -6 "$tmp/diff")"
echo "samples in $psym: $qn (perf's file: $pn); perf annotate: $(grep -c . "$tmp/prec.ann") lines as for perf's file"

# 3
feats "$tmp/pipe.data" >"$tmp/pipe.feats" || fail "the pipe's features do not parse"
for id in $ids; do
	[ "$(grep "^prog $id " "$tmp/perf.feats")" = "$(grep "^prog $id " "$tmp/pipe.feats")" ] ||
		fail "pipe: program $id's record differs from perf's file's"
done
[ "$(grep "^btf $bid " "$tmp/pipe.feats")" = "$(grep "^btf $bid " "$tmp/perf.feats")" ] ||
	fail "pipe: BTF $bid differs from perf's file's"
header_bpf /dev/stdin <"$tmp/pipe.data" >"$tmp/pipe.hdr"
diff "$tmp/perf.hdr" "$tmp/pipe.hdr" >"$tmp/diff" ||
	fail "pipe: bpf_prog_info lines differ from perf's file's: $(cat "$tmp/diff")"
echo "pipe: the same records and lines"

# 4
"$H/bpfload" -b nonefn 1 mbnone 3000 &
none=$!
pids+=("$none")
sleep 0.5
perf record -q --no-bpf-event -o "$tmp/perfnone.data" -- true 2>/dev/null || fail "perf record --no-bpf-event: exit $?"
"$PREC" record -q --no-bpf-event -d "$tmp/none" -- true || fail "record --no-bpf-event: exit $?"
"$PREC" merge -q "$tmp/none" -o "$tmp/none.data" || fail "merge none"
"$PREC" merge -q "$tmp/none" -o - >"$tmp/none.pipe" || fail "merge none -o -"
feats "$tmp/perfnone.data" | sort >"$tmp/perfnone.feats" || fail "perf's features do not parse (4)"
grep -qx 'count 25 0' "$tmp/perfnone.feats" && grep -q '^btf ' "$tmp/perfnone.feats" ||
	fail "perf --no-bpf-event: want no program and some BTF: $(cut -c1-60 "$tmp/perfnone.feats")"
for f in none.data none.pipe; do
	feats "$tmp/$f" | sort >"$tmp/$f.feats" || fail "$f: features do not parse"
	diff "$tmp/perfnone.feats" "$tmp/$f.feats" >/dev/null ||
		fail "$f: not perf's BPF features under --no-bpf-event: $(diff "$tmp/perfnone.feats" "$tmp/$f.feats" | cut -c1-80 | head -4)"
done
perf report -i "$tmp/none.data" --header-only -I 2>/dev/null | grep '^# missing features' >"$tmp/missing"
grep -q 'BPF_PROG_INFO\|BPF_BTF' "$tmp/missing" && fail "--no-bpf-event: $(cat "$tmp/missing")"
kill "$none" 2>/dev/null
wait "$none" 2>/dev/null
pids=()
echo "--no-bpf-event: perf's BPF features, no program and $(grep -c '^btf ' "$tmp/none.data.feats") BTF objects (file and pipe)"

# 5
perf record -q -a -o "$tmp/perf5.data" -- sleep 3 2>"$tmp/perf.err" &
pids+=($!)
mkfifo "$tmp/ctl5" "$tmp/ack5"
"$PREC" record -q -a -d "$tmp/rec5" --control "fifo:$tmp/ctl5,$tmp/ack5" -- sleep 3 &
pids+=($!)
wait_enabled "$tmp/ctl5" "$tmp/ack5" "prec record (5)"
sleep 0.1
"$H/bpfload" -b latefn 1 mblate 3000 &
late=$!
wait "${pids[@]}" || fail "perf or prec record (5): exit $?"
pids=("$late")
"$PREC" merge -q "$tmp/rec5" -o "$tmp/prec5.data" || fail "merge (5)"
feats "$tmp/perf5.data" >"$tmp/perf5.feats" || fail "perf's features do not parse (5)"
feats "$tmp/prec5.data" >"$tmp/prec5.feats" || fail "prec's features do not parse (5)"
line=$(perf report -i "$tmp/perf5.data" --header-only -I 2>/dev/null | grep '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_latefn ')
id=$(echo "$line" | sed -n 's/^# bpf_prog_info \([0-9]*\): .*/\1/p')
[ -n "$id" ] || fail "perf's own file has not the program loaded during its recording"
grep -qxF "$line" <(perf report -i "$tmp/prec5.data" --header-only -I 2>/dev/null) ||
	fail "loaded during the recording: prec's file has not perf's line: $line"
[ "$(grep "^prog $id " "$tmp/perf5.feats")" = "$(grep "^prog $id " "$tmp/prec5.feats")" ] ||
	fail "loaded during the recording: program $id's record differs from perf's"
bid=$("$PREC" info "$tmp/rec5" --json | sed -n 's/.*"name": "mblate0", "btf_id": \([0-9]*\),.*/\1/p')
[ -n "$bid" ] && [ "$(grep "^btf $bid " "$tmp/perf5.feats")" = "$(grep "^btf $bid " "$tmp/prec5.feats")" ] ||
	fail "loaded during the recording: BTF ${bid:-none} differs from perf's"
echo "loaded during the recording: program $id and BTF $bid as perf's"

# 6
mkfifo "$tmp/ctl6" "$tmp/ack6"
"$PREC" record -a -e cpu-clock -d "$tmp/rec6" --control "fifo:$tmp/ctl6,$tmp/ack6" -- sleep 2 2>"$tmp/rec6.err" &
pids=($!)
wait_enabled "$tmp/ctl6" "$tmp/ack6" "prec record (6)"
"$H/bpfload" -l 80 mblong 2500 &
pids+=($!)
wait "${pids[0]}" || fail_rc "$tmp/rec6.err" "prec record (6)"
out=$(sed -n 's/^prec: warning: \([0-9]*\) BPF programs loaded during the recording (and 0 BTF objects) left out of the manifest over its 1024 KiB for them: .*/\1/p' "$tmp/rec6.err")
[ -n "$out" ] && [ "$(grep -c '^prec: warning' "$tmp/rec6.err")" = 1 ] || fail "80 long programs: not one warning of those left out: $(cat "$tmp/rec6.err")"
"$PREC" merge -q "$tmp/rec6" -o "$tmp/prec6.data" || fail "merge (6)"
kept=$(perf report -i "$tmp/prec6.data" --header-only -I 2>"$tmp/report.err" | grep -c '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_mblong[0-9]* ')
[ -s "$tmp/report.err" ] && fail "perf report --header-only (6): $(head -2 "$tmp/report.err")"
[ "$kept" -gt 0 ] && [ $((kept + out)) = 80 ] || fail "80 long programs: $kept kept, $out left out"
echo "80 long programs loaded during the recording: $kept kept, $out left out in one warning"

# 7
"$H/bpfload" -n 800000 1 mbbig 20000 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
	grep -q '_mbbig0\b' /proc/kallsyms && break
	sleep 0.1
done
"$PREC" record -a -e cpu-clock -d "$tmp/rec7" -- sleep 0.2 2>"$tmp/rec7.err" || fail_rc "$tmp/rec7.err" "prec record (7)"
grep -q "^prec: warning: sideband: 1 BPF programs' info and 0 BTF objects left out of the manifest over its bounds" "$tmp/rec7.err" &&
	[ "$(grep -c '^prec: warning' "$tmp/rec7.err")" = 1 ] || fail "a 4.8 MB program: not one warning: $(cat "$tmp/rec7.err")"
"$PREC" merge -q "$tmp/rec7" -o "$tmp/prec7.data" || fail "merge (7)"
perf report -i "$tmp/prec7.data" --header-only -I 2>/dev/null | grep -q '_mbbig0 ' &&
	fail "a 4.8 MB program: in BPF_PROG_INFO"
perf script -i "$tmp/prec7.data" --show-bpf-events 2>/dev/null |
	grep -q 'PERF_RECORD_KSYMBOL .* len 48[0-9]\{5\} type 1 flags 0x0 name bpf_prog_[0-9a-f]*_mbbig0$' ||
	fail "a 4.8 MB program: no KSYMBOL"
echo "a 4.8 MB program: left out of BPF_PROG_INFO in one warning, its KSYMBOL synthesized"
cleanup

# 8
perf record -q -a -o "$tmp/perf8.data" -- sleep 3 2>"$tmp/perf.err" &
pids=($!)
mkfifo "$tmp/ctl8" "$tmp/ack8"
"$PREC" record -q -a -d "$tmp/rec8" --control "fifo:$tmp/ctl8,$tmp/ack8" -- sleep 3 &
pids+=($!)
wait_enabled "$tmp/ctl8" "$tmp/ack8" "prec record (8)"
sleep 0.1
"$H/bpfload" -b shortfn 1 mbshort 300 || fail "bpfload (8): exit $?"
wait "${pids[@]}" || fail "perf or prec record (8): exit $?"
pids=()
"$PREC" merge -q "$tmp/rec8" -o "$tmp/prec8.data" || fail "merge (8)"
feats "$tmp/perf8.data" >"$tmp/perf8.feats" || fail "perf's features do not parse (8)"
feats "$tmp/prec8.data" >"$tmp/prec8.feats" || fail "prec's features do not parse (8)"
line=$(perf report -i "$tmp/perf8.data" --header-only -I 2>/dev/null | grep '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_shortfn ')
id=$(echo "$line" | sed -n 's/^# bpf_prog_info \([0-9]*\): .*/\1/p')
[ -n "$id" ] || fail "perf's own file has not the program loaded and unloaded during its recording"
grep -qxF "$line" <(perf report -i "$tmp/prec8.data" --header-only -I 2>/dev/null) ||
	fail "loaded and unloaded during the recording: prec's file has not perf's line: $line"
[ "$(grep "^prog $id " "$tmp/perf8.feats")" = "$(grep "^prog $id " "$tmp/prec8.feats")" ] ||
	fail "loaded and unloaded during the recording: program $id's record differs from perf's"
bid=$("$PREC" info "$tmp/rec8" --json | sed -n 's/.*"name": "mbshort0", "btf_id": \([0-9]*\),.*/\1/p')
[ -n "$bid" ] && [ "$(grep "^btf $bid " "$tmp/perf8.feats")" = "$(grep "^btf $bid " "$tmp/prec8.feats")" ] ||
	fail "loaded and unloaded during the recording: BTF ${bid:-none} differs from perf's"
echo "loaded for 0.3 s during the recording: program $id and BTF $bid as perf's"

# 9
mkfifo "$tmp/ctl9" "$tmp/ack9"
"$PREC" record -a -e cpu-clock -d "$tmp/rec9" --control "fifo:$tmp/ctl9,$tmp/ack9" -- sleep 2 2>"$tmp/rec9.err" &
pids=($!)
wait_enabled "$tmp/ctl9" "$tmp/ack9" "prec record (9)"
"$H/bpfload" -n 800000 1 mbbig9 2500 &
pids+=($!)
for ((i = 0; i < 100; i++)); do
	grep -q '_mbbig90\b' /proc/kallsyms && break
	sleep 0.05
done
sleep 0.2
"$H/bpfload" -b later9 1 mblater 300 || fail "bpfload (9): exit $?"
wait "${pids[0]}" || fail_rc "$tmp/rec9.err" "prec record (9)"
cleanup
pids=()
grep -q '^prec: warning: 1 BPF programs loaded during the recording (and 0 BTF objects) left out' "$tmp/rec9.err" &&
	[ "$(grep -c '^prec: warning' "$tmp/rec9.err")" = 1 ] || fail "a 4.8 MB program during the recording: not one warning: $(cat "$tmp/rec9.err")"
"$PREC" merge -q "$tmp/rec9" -o "$tmp/prec9.data" || fail "merge (9)"
perf report -i "$tmp/prec9.data" --header-only -I 2>/dev/null | grep -q '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_later9 ' ||
	fail "a program loaded for 0.3 s after a 4.8 MB one: not in BPF_PROG_INFO"
echo "a 4.8 MB program during the recording left out in one warning; a program loaded for 0.3 s after it kept"
