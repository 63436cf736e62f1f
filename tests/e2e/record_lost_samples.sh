#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf report's "# Total Lost Samples: N" on a merged file. perf record
# 6.1 reads each event fd's PERF_FORMAT_LOST count once it stops and
# writes a PERF_RECORD_LOST_SAMPLES per fd that lost samples at the end of
# its data (its count, then the sample_id trailer of the event's
# sample_type, the id alone set); perf report adds them up. prec keeps
# each id's count in the manifest (ID_LOST) and the merge writes the same
# records. A getppid() storm in a 2-page ring under the fair scheduler
# loses most of itself, recorded by perf and by prec:
# - each file's LOST_SAMPLES records are its last, at time 0 on CPU 0,
#   their size the header, the count and the attr's sample_id trailer;
#   "Total Lost Samples" is their sum, and not 0 (perf's and prec's);
# - prec's are one per id the manifest holds a count of, with that id
#   and count; their sum is the shards' lost_samples (a tracepoint's
#   ring reports no LOST_SAMPLES records of its own) and what prec info's
#   event lines say; the same in a pipe, and in merge --follow's (from
#   the final manifest);
# - with --switch-output each epoch's merge has its epoch's share, the
#   epochs add up to the shards' lost_samples. perf 6.1 reads its counts
#   once, at its exit, and writes them all into its last file: its other
#   files say "Total Lost Samples: 0" beside the LOST records of their
#   own stretch, its last one counts the earlier files' losses as its own
#   ("lost 63%" where its stretch lost 33%). prec keeps each epoch's share,
#   which agrees with the epoch's own LOST records; perf's split is
#   checked here so that the difference stays known;
# - --overwrite: perf record counts an overwrite ring's drops too (the
#   samples the kernel drops while the ring is paused to be read) and
#   writes them as LOST_SAMPLES; so does prec for its flight rings, paused
#   for each snapshot: with a ring that holds the whole storm and
#   snapshots back to back, the merge's samples plus its Total Lost
#   Samples are the storm's count exactly (before: no count for an
#   overwrite event's ids, Total Lost Samples 0);
# - merge --time A,B keeps them, as perf report --time keeps perf's own
#   (its time filter chooses samples; the counts have no time, and perf
#   report --time A,B of the whole merge says the same total);
# - a recording that loses nothing has none (as perf's).
# Before the ID_LOST section prec's merged file said "Total Lost Samples:
# 0" whatever the recording lost.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
need_cmd perf
need_tracepoint syscalls/sys_enter_getppid
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir lostsamples
rec="" kicker=""
cleanup() {
	[ -n "$kicker" ] && kill "$kicker" 2>/dev/null
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
}
at_exit cleanup
EV=(-e syscalls:sys_enter_getppid)

# total FILE: perf report's "Total Lost Samples" of FILE ("-": stdin).
total() {
	perf report -i "$1" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p'
}

# lost_records FILE: perf report -D's LOST_SAMPLES lines of FILE as
# "id lost", after checking each is at time 0 on CPU 0, as long as the
# event's sample_id trailer makes it, and after every other record.
lost_records() {
	local f=$1 bits size
	perf report -D -i "$f" >"$tmp/dump" 2>/dev/null
	# the sample_id trailer's words: the same in every attr of a file
	bits=$(perf evlist -v -i "$f" 2>/dev/null | sed -n 's/.*sample_type: \([A-Z_|]*\),.*/\1/p' |
		while read -r st; do
			echo "$st" | tr '|' '\n' | grep -c -x -e TID -e TIME -e ID -e STREAM_ID -e CPU -e IDENTIFIER
		done | sort -u)
	[ "$(echo "$bits" | wc -w)" = 1 ] || fail "$f: its attrs' sample_id trailers differ: $bits"
	size=$(printf '0x%x' $((16 + 8 * bits)))
	# perf report -D prints records as it delivers them, not in file
	# order: their file offsets ("0xOFF@FILE [0xSIZE]: event: TYPE") say it
	awk -v f="$f" -v size="$size" '
		function hex(s,  v, i) {
			v = 0
			for (i = 3; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		/^0x[0-9a-f]+@.* event: [0-9]+$/ {
			off = hex(substr($1, 1, index($1, "@") - 1))
			if ($NF == 13) {
				if (!nl || off < first) first = off
				nl++
			} else if (off > last) {
				last = off
			}
		}
		/^[0-9]+ [0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_LOST_SAMPLES: / {
			if ($1 != 0 || $2 != 0 || $4 != "[" size "]:") {
				print f ": a LOST_SAMPLES record not at time 0 on CPU 0 or not " size " bytes: " $0 > "/dev/stderr"
				exit 1
			}
			id = $6; sub("^id:", "", id); sub(":$", "", id)
			lost = $NF; sub("^:", "", lost)
			print id, lost
		}
		END {
			if (nl && first < last) {
				print f ": a record after the first LOST_SAMPLES one" > "/dev/stderr"
				exit 1
			}
		}' "$tmp/dump" || fail "$f: LOST_SAMPLES records out of place (above)"
}

sum2() { awk '{ s += $2 } END { print s + 0 }'; }

# ---- a lossy recording, by perf and by prec ----
N=300000
perf record -q -m 8K -o "$tmp/perf.data" "${EV[@]}" -- "$H/storm" "$N" 2>"$tmp/perr" ||
	fail_rc "$tmp/perr" "perf record -m 8K"
lost_records "$tmp/perf.data" >"$tmp/perf.lost" || exit 1
p_total=$(total "$tmp/perf.data")
p_sum=$(sum2 <"$tmp/perf.lost")
echo "perf: $(wc -l <"$tmp/perf.lost") LOST_SAMPLES records, $p_sum lost; Total Lost Samples: $p_total"
[ -s "$tmp/perf.lost" ] || skip "perf record -m 8K lost nothing of a $N-call storm: nothing to compare"
[ "$p_total" = "$p_sum" ] || fail "perf's own file: Total Lost Samples $p_total, its records add up to $p_sum"

"$PREC" record -q -r 0 -m 8K -d "$tmp/lossy" "${EV[@]}" -- "$H/storm" "$N" 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record -m 8K"
"$H/mfdump" "$tmp/lossy" >"$tmp/mf" || fail "manifest unreadable"
awk '/^idlost/ { print $3, $4 }' "$tmp/mf" | sort >"$tmp/want"
[ -s "$tmp/want" ] || fail "prec record -r 0 -m 8K: no id lost samples in the manifest: $(cat "$tmp/err")"
want=$(sum2 <"$tmp/want")
shards=$(awk '/^shard/ { sub("lost_samples=", "", $8); s += $8 } END { print s + 0 }' "$tmp/mf")
[ "$want" = "$shards" ] || fail "the ids' counts add up to $want, the shards' lost_samples to $shards"
info=$("$PREC" info "$tmp/lossy" | sed -n 's/.* ids, \([0-9]*\) samples lost$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$info" = "$want" ] || fail "prec info's events say $info samples lost, the ids' counts add up to $want"
"$PREC" merge -o "$tmp/prec.data" "$tmp/lossy" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge"
lost_records "$tmp/prec.data" | sort >"$tmp/prec.lost" || exit 1
q_total=$(total "$tmp/prec.data")
echo "prec: $(wc -l <"$tmp/want") ids lost $want; merged: $(wc -l <"$tmp/prec.lost") LOST_SAMPLES records; Total Lost Samples: $q_total"
diff "$tmp/want" "$tmp/prec.lost" >&2 || fail "LOST_SAMPLES records (right) are not the manifest's ids and counts (left)"
[ "$q_total" = "$want" ] || fail "Total Lost Samples on prec's file: $q_total, the ids' counts add up to $want"
q_pipe=$("$PREC" merge "$tmp/lossy" 2>/dev/null | perf report -i - --stdio 2>/dev/null |
	sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
[ "$q_pipe" = "$want" ] || fail "Total Lost Samples in a pipe: $q_pipe, want $want"

# ---- a followed recording (prec record -o - follows its own): the
# counts come with its final manifest ----
"$PREC" record -q -r 0 -m 8K -d "$tmp/live" "${EV[@]}" -- sh -c "sleep 1; '$H/storm' $N" 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/live" 10
f_total=$("$PREC" merge --follow "$tmp/live" 2>"$tmp/ferr" | perf report -i - --stdio 2>/dev/null |
	sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
wait "$rec" || fail_rc "$tmp/err" "prec record (followed)"
rec=
f_want=$("$H/mfdump" "$tmp/live" | awk '/^idlost/ { s += $4 } END { print s + 0 }')
echo "merge --follow: Total Lost Samples: $f_total, the ids' counts $f_want"
[ "$f_want" != 0 ] || fail "the followed recording lost nothing"
[ "$f_total" = "$f_want" ] || fail "merge --follow: Total Lost Samples $f_total, the ids' counts add up to $f_want"

# ---- --switch-output: each epoch its own share ----
"$PREC" record -d "$tmp/cuts" --switch-output -r 0 -m 8K "${EV[@]}" -- "$H/storm" 1000000 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/cuts/epoch.000001" 10
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.05; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/err" "record --switch-output -m 8K"
rec=
wait "$kicker" 2>/dev/null
kicker=
k=0 lossy=0 ids_all=0 shards_all=0
for e in "$tmp"/cuts/epoch.*; do
	k=$((k + 1))
	"$H/mfdump" "$e" >"$tmp/mf" || fail "$e: manifest unreadable"
	ids=$(awk '/^idlost/ { s += $4 } END { print s + 0 }' "$tmp/mf")
	shards=$(awk '/^shard/ { sub("lost_samples=", "", $8); s += $8 } END { print s + 0 }' "$tmp/mf")
	got=$("$PREC" merge "$e" 2>/dev/null | perf report -i - --stdio 2>/dev/null |
		sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
	# an epoch after the storm may have no sample: perf report says nothing
	[ "${got:-0}" = "$ids" ] || fail "$e: Total Lost Samples ${got:-none}, its ids' counts add up to $ids"
	[ "$ids" != 0 ] && lossy=$((lossy + 1))
	ids_all=$((ids_all + ids)) shards_all=$((shards_all + shards))
done
echo "--switch-output: $k epochs, $lossy with lost samples, $ids_all in all"
[ "$lossy" -ge 2 ] || fail "--switch-output: $lossy epochs lost samples, want at least 2"
[ "$ids_all" = "$shards_all" ] ||
	fail "--switch-output: the epochs' ids' counts add up to $ids_all, their shards' lost_samples to $shards_all"

# perf's own --switch-output: the counts in its last file alone
perf record -q --switch-output -m 8K -o "$tmp/pcuts.data" "${EV[@]}" -- "$H/storm" 1000000 2>"$tmp/perr" & rec=$!
perf_handles_usr2 "$tmp/pcuts.data"
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.05; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/perr" "perf record --switch-output -m 8K"
rec=
wait "$kicker" 2>/dev/null
kicker=
mapfile -t pfiles < <(ls "$tmp"/pcuts.data.*)
[ "${#pfiles[@]}" -ge 2 ] || fail "perf record --switch-output: ${#pfiles[@]} files, want 2 or more"
early_chunks=0
for f in "${pfiles[@]}"; do
	n=$(lost_records "$f" | wc -l)
	if [ "$f" = "${pfiles[-1]}" ]; then
		[ "$n" -gt 0 ] || fail "perf's last --switch-output file has no LOST_SAMPLES record"
	else
		[ "$n" = 0 ] || fail "perf's --switch-output file $f has $n LOST_SAMPLES records (perf 6.1: the last file alone)"
		early_chunks=$((early_chunks + $(grep -c 'PERF_RECORD_LOST: ' "$tmp/dump")))
	fi
done
echo "perf --switch-output: ${#pfiles[@]} files, LOST_SAMPLES in the last alone (the earlier ones: $early_chunks LOST records, Total Lost Samples 0)"

# ---- merge --time: the counts kept, as perf report --time keeps perf's ----
# window FILE: the second sixth of FILE's samples' time span, "A,B"
window() {
	perf script -i "$1" -F time 2>/dev/null | sed -n '1s/[: ]//gp;$s/[: ]//gp' |
		awk 'NR == 1 { a = $1 } END { printf "%.6f,%.6f", a + ($1 - a) / 3, a + ($1 - a) / 2 }'
}
mid=$(window "$tmp/prec.data")
"$PREC" merge --time "$mid" -o "$tmp/window.data" "$tmp/lossy" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge --time $mid"
lost_records "$tmp/window.data" | sort >"$tmp/window.lost" || exit 1
diff "$tmp/want" "$tmp/window.lost" >&2 || fail "merge --time $mid: LOST_SAMPLES records (right) are not the manifest's (left)"
w_total=$(total "$tmp/window.data")
p_window=$(perf report -i "$tmp/perf.data" --stdio --time "$(window "$tmp/perf.data")" 2>/dev/null |
	sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
q_window=$(perf report -i "$tmp/prec.data" --stdio --time "$mid" 2>/dev/null | sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p')
echo "--time $mid: Total Lost Samples $w_total (merge --time), $q_window (perf report --time of the whole merge); perf's own file under --time: $p_window of $p_total"
[ "$p_window" = "$p_total" ] || fail "perf report --time on perf's file: Total Lost Samples $p_window, without --time $p_total"
[ "$w_total" = "$want" ] ||
	fail "--time $mid: Total Lost Samples $w_total on merge --time's file, want $want"
[ "$q_window" = "$want" ] ||
	fail "--time $mid: Total Lost Samples $q_window under perf report --time of the whole merge, want $want"

# ---- --overwrite: the flight rings' pause drops ----
# perf's: its backward rings are paused to be read at each switch
perf record -q --overwrite --switch-output -m 8K -o "$tmp/pow.data" "${EV[@]}" -- "$H/storm" 3000000 2>"$tmp/perr" & rec=$!
perf_handles_usr2 "$tmp/pow.data"
( while kill -USR2 "$rec" 2>/dev/null; do sleep 0.02; done ) & kicker=$!
wait "$rec" || fail_rc "$tmp/perr" "perf record --overwrite --switch-output"
rec=
wait "$kicker" 2>/dev/null
kicker=
mapfile -t pfiles < <(ls "$tmp"/pow.data.*)
# (perf's last switched file has its synthesized records after them)
perf report -D -i "${pfiles[-1]}" 2>/dev/null |
	sed -n 's/.*PERF_RECORD_LOST_SAMPLES: .*lost samples :\([0-9]*\)$/x \1/p' >"$tmp/pow.lost"
pow=$(sum2 <"$tmp/pow.lost")
# (its last file may hold no sample, and perf report no total then)
for f in "${pfiles[@]}"; do
	[ "$f" = "${pfiles[-1]}" ] || ! perf report -D -i "$f" 2>/dev/null | grep -q 'PERF_RECORD_LOST_SAMPLES: ' ||
		fail "perf --overwrite --switch-output: $f, not the last, has LOST_SAMPLES records"
done
echo "perf --overwrite --switch-output: ${#pfiles[@]} files, the last with $(wc -l <"$tmp/pow.lost") LOST_SAMPLES records, $pow lost in its pauses"
# prec's: a ring that holds the whole storm (nothing overwritten) and
# snapshots back to back: every sample is kept or dropped in a pause
NO=200000
mkfifo "$tmp/ow.ctl"
"$PREC" record -q -d "$tmp/ow" --overwrite -m 32M --control "fifo:$tmp/ow.ctl" \
	-e raw_syscalls:sys_enter --filter 'id == 110' -- "$H/storm" $NO 2>"$tmp/err" & rec=$!
wait_manifest "$tmp/ow" 10
for _ in $(seq 300); do echo snapshot; done >"$tmp/ow.ctl"
wait "$rec" || fail_rc "$tmp/err" "prec record --overwrite"
rec=
"$H/mfdump" "$tmp/ow" | awk '/^idlost/ { print $3, $4 }' | sort >"$tmp/ow.want"
ow_want=$(sum2 <"$tmp/ow.want")
"$PREC" merge -o "$tmp/ow.data" "$tmp/ow" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge (--overwrite)"
lost_records "$tmp/ow.data" | sort >"$tmp/ow.lost" || exit 1
ow_total=$(total "$tmp/ow.data")
ow_kept=$(perf script -i "$tmp/ow.data" 2>/dev/null | awk '$1 == "storm" && /raw_syscalls:sys_enter:/' | wc -l)
echo "prec --overwrite: $ow_kept samples kept, Total Lost Samples $ow_total ($(wc -l <"$tmp/ow.lost") records), the ids' counts $ow_want"
[ "$ow_want" -gt 0 ] || fail "prec --overwrite: no id of the overwrite event has a count (300 pauses in the storm)"
diff "$tmp/ow.want" "$tmp/ow.lost" >&2 || fail "--overwrite: LOST_SAMPLES records (right) are not the manifest's ids and counts (left)"
[ "$ow_total" = "$ow_want" ] || fail "--overwrite: Total Lost Samples $ow_total, the ids' counts add up to $ow_want"
[ $((ow_kept + ow_total)) = $NO ] ||
	fail "--overwrite: $ow_kept samples + $ow_total lost = $((ow_kept + ow_total)), want the storm's $NO"

# ---- nothing lost: no records, as perf's ----
perf record -q -m 16M -o "$tmp/perf0.data" "${EV[@]}" -- "$H/storm" 3000 2>"$tmp/perr" ||
	fail_rc "$tmp/perr" "perf record -m 16M"
"$PREC" record -q -m 16M -d "$tmp/clean" "${EV[@]}" -- "$H/storm" 3000 2>"$tmp/err" ||
	fail_rc "$tmp/err" "prec record -m 16M"
"$H/mfdump" "$tmp/clean" | grep '^idlost' && fail "a lossless recording has ids with lost samples"
"$PREC" merge -o "$tmp/prec0.data" "$tmp/clean" 2>"$tmp/merr" || fail_rc "$tmp/merr" "merge"
for f in perf0 prec0; do
	n=$(lost_records "$tmp/$f.data" | wc -l)
	[ "$n" = 0 ] || fail "$f.data: $n LOST_SAMPLES records of a lossless recording"
	[ "$(total "$tmp/$f.data")" = 0 ] || fail "$f.data: Total Lost Samples $(total "$tmp/$f.data")"
done
echo "PASS: LOST_SAMPLES per id as perf's ($want lost in the file, the pipe and under --time, $ids_all over $k epochs, $ow_total in the pauses of --overwrite), none without loss"
