#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compressed recording side by side, one run: prec, prec -z (lz4) and
# perf record -z (zstd level 1), same events, same ring (-m), system-wide
# (-a: perf 6.1 in workload mode crashes in its build-id pass here).
# Scenarios:
#   storm: -e raw_syscalls:sys_enter -a, the storm helper making STORM_N
#          getppid() calls;
#   clock: -e cpu-clock -F 10000 -g -a, one sha256sum loop per CPU.
# Per run: bytes on disk, raw and stored payload bytes (prec: manifest
# raw_bytes/bytes; perf -z: its COMPRESSED records' payload, decoded with
# zstd -d, against their stored size), recorder CPU seconds (the recorder's
# own utime+stime via /usr/bin/time; the workload runs outside it), lost
# records, and for prec's directories the merge throughput (MB/s of
# perf.data produced by `prec merge DIR -o /dev/null`) and the shard read
# throughput (MB/s of decoded payload, tests/helpers/shardcount).
# Configurations are interleaved within each repeat; REPEAT runs (default
# 5), medians.
# Usage: bench/lz4.sh   (env: PREC, BUILD, REPEAT, STORM_N, PAGES, SCENARIOS,
#                        RECORDERS, LEVEL for prec -z's --compression-level;
#                        recorder names: prec prec-z prec-zN perf-z perf)
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
REPEAT=${REPEAT:-5}
STORM_N=${STORM_N:-2000000}
PAGES=${PAGES:-256}
LEVEL=${LEVEL:-0}
SCENARIOS=${SCENARIOS:-"storm clock"}
RECORDERS=${RECORDERS:-"prec prec-z perf-z"}
bench_require "$PREC" "$H/storm" "$H/shardcount" /usr/bin/time
for t in perf zstd python3 bc; do
	command -v $t >/dev/null || { echo "bench/lz4.sh: needs $t" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/prec-lz4bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)
head -c 48M /dev/urandom >"$tmp/blob"

# perfz.py FILE -> "raw_payload stored_payload": perf -z's COMPRESSED
# records (type 81) hold one zstd stream; decode it and check that it
# parses as whole perf records.
cat >"$tmp/perfz.py" <<'EOF'
import struct, subprocess, sys
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'PERFILE2', 'not a perf.data file'
off, size = struct.unpack_from('<QQ', d, 40)
pos, end, comp = off, off + size, bytearray()
while pos + 8 <= end:
    typ, sz = struct.unpack_from('<I', d, pos)[0], struct.unpack_from('<H', d, pos + 6)[0]
    if sz < 8:
        break
    if typ == 81:
        comp += d[pos + 8:pos + sz]
    pos += sz
raw = subprocess.run(['zstd', '-dc'], input=bytes(comp), stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL).stdout
p = 0
while p + 8 <= len(raw):
    p += struct.unpack_from('<H', raw, p + 6)[0] or 1 << 40
# perf never ends its stream (no frame end): zstd -d stops at a "premature
# end" and may drop the last record or so; anything worse is a misparse.
if p < len(raw) or p - len(raw) > 65536:
    sys.exit('perfz: decoded stream is not whole records')
print(len(raw), len(comp))
EOF

# prec_sizes DIR -> "raw_payload stored_payload" from the manifest
prec_sizes() {
	"$PREC" info --json "$1" | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(sum(s["raw_bytes"] for s in m["shards"]), sum(s["bytes"] for s in m["shards"]))'
}

# prec_read DIR -> "merge_MBps read_MBps": perf.data bytes out of prec merge
# per wall second, and decoded payload bytes per wall second of a plain
# read of every chunk (page cache warm: both follow the recording).
prec_read() {
	local d=$1 t0 t1 out raw
	t0=$(now)
	"$PREC" merge "$d" -o /dev/null -f 2>"$tmp/merge.err" || { echo "? ?"; return; }
	t1=$(now)
	out=$(sed -n 's/.* \([0-9][0-9]*\) bytes -> .*/\1/p' "$tmp/merge.err")
	echo -n "$(echo "${out:-0} / ($t1 - $t0) / 1000000" | bc -l) "
	raw=$(prec_sizes "$d" | cut -d' ' -f1)
	t0=$(now)
	"$H/shardcount" "$d" >/dev/null || { echo "?"; return; }
	t1=$(now)
	echo "$raw / ($t1 - $t0) / 1000000" | bc -l
}

# run SCENARIO RECORDER -> "lost cpu_s disk_bytes raw stored merge_MBps read_MBps"
run() {
	local sc=$1 rec=$2 out=$tmp/out cmd=() tpid rpid lost=0 cpu sizes rd="- -"
	rm -rf "$out" "$tmp/err" "$tmp/time"
	case $rec in
	prec) cmd=("$PREC" record -d "$out" -m "$PAGES" -a) ;;
	prec-z) cmd=("$PREC" record -d "$out" -m "$PAGES" -a -z --compression-level "$LEVEL") ;;
	prec-z[0-9]*) cmd=("$PREC" record -d "$out" -m "$PAGES" -a -z --compression-level "${rec#prec-z}") ;;
	perf-z) cmd=(perf record -q -z -o "$out" -m "$PAGES" -a) ;;
	perf) cmd=(perf record -q -o "$out" -m "$PAGES" -a) ;;
	esac
	# shellcheck disable=SC2046
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" $(events "$sc") 2>"$tmp/err" &
	tpid=$!
	sleep 1.5
	rpid=$(pgrep -P $tpid | head -1)
	workload "$sc"
	kill -INT "$rpid"
	wait $tpid
	cpu=$(awk 'END { print $1 + $2 }' "$tmp/time")
	case $rec in
	prec*)
		lost=$(sed -n 's/.* \([0-9]*\) lost, manifest.*/\1/p' "$tmp/err")
		sizes=$(prec_sizes "$out")
		rd=$(prec_read "$out") ;;
	perf-z)
		lost=$(perf_lost "$out")
		sizes=$(python3 "$tmp/perfz.py" "$out") || sizes="? ?" ;;
	*)
		lost=$(perf_lost "$out")
		sizes="$(stat -c %s "$out") $(stat -c %s "$out")" ;;
	esac
	echo "${lost:-?} $cpu $(du -sb "$out" | cut -f1) $sizes $rd"
}

col() { awk -v c="$2" '{ print $c }' "$1" | median; }
int() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.0f\n", v }'; }
losses() { awk '$1 != "?" && $1 > 0 { n++ } END { print n + 0 "/" NR }' "$1"; }

printf '%-6s %-8s %8s %8s %10s %10s %7s %11s %10s %9s\n' scen recorder lost cpu_s disk_MB \
	raw_MB ratio merge_MB/s read_MB/s lossy_runs
for sc in $SCENARIOS; do
	for rep in $(seq "$REPEAT"); do
		for rec in $RECORDERS; do
			run "$sc" "$rec" >>"$tmp/$sc.$rec"
		done
	done
	for rec in $RECORDERS; do
		f=$tmp/$sc.$rec
		# Ratio per run (raw / stored payload), then the median.
		awk '{ print ($5 > 0 ? $4 / $5 : "?") }' "$f" >"$f.ratio"
		printf '%-6s %-8s %8s %8.2f %10.1f %10.1f %6.2fx %11s %10s %9s\n' "$sc" "$rec" \
			"$(col "$f" 1)" "$(col "$f" 2)" "$(awk '{ print $3 / 1e6 }' "$f" | median)" \
			"$(awk '{ print $4 / 1e6 }' "$f" | median)" "$(median <"$f.ratio")" \
			"$(int "$(col "$f" 6)")" "$(int "$(col "$f" 7)")" "$(losses "$f")"
	done
done
echo "($REPEAT runs each, interleaved, medians; ring $PAGES pages per CPU; $ncpu CPUs;"
echo " storm $STORM_N calls; prec -z level $LEVEL; perf -z = zstd level 1; ratio = raw/stored payload)"
for sc in $SCENARIOS; do for rec in $RECORDERS; do
	echo "raw $sc $rec: $(tr '\n' '|' <"$tmp/$sc.$rec")"
done; done

# The codec alone in the merge: one synthetic shard set (mkshards, same
# seed) stored raw and lz4, merged REPEAT times each, interleaved.
[ "${SYNTH_BYTES:-400M}" = 0 ] && exit 0
"$H/mkshards" "$tmp/syn.raw" --shards 2 --total-bytes "${SYNTH_BYTES:-400M}" --seed 5 >/dev/null &&
"$H/mkshards" "$tmp/syn.lz4" --shards 2 --total-bytes "${SYNTH_BYTES:-400M}" --seed 5 --lz4 >/dev/null ||
	{ echo "mkshards failed" >&2; exit 1; }
for rep in $(seq "$REPEAT"); do
	for v in raw lz4; do prec_read "$tmp/syn.$v" >>"$tmp/syn.$v.tput"; done
done
for v in raw lz4; do
	read -r raw stored < <(prec_sizes "$tmp/syn.$v")
	printf 'synthetic %s: %.1f MB raw in %.1f MB (%.2fx): merge %.0f MB/s, read %.0f MB/s\n' "$v" \
		"$(echo "$raw / 1000000" | bc -l)" "$(echo "$stored / 1000000" | bc -l)" \
		"$(echo "$raw / $stored" | bc -l)" "$(col "$tmp/syn.$v.tput" 1)" "$(col "$tmp/syn.$v.tput" 2)"
done
