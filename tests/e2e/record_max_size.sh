#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --max-size LIMIT stops within a bound: the drainer whose chunk takes the
# recording to LIMIT disables its CPU's events at once, and each other one
# at its next chunk, so past LIMIT come at most what each CPU's ring holds
# then: the ring bytes of all CPU shards are at least LIMIT and at most
# LIMIT + CPUs x ring (-m). cpu-clock -c 1000 -a fills every CPU's ring at a
# few MB/s whatever runs there, from the start's side band on (where the
# main thread looked once per 20 ms, and not at all during the start, it
# went to 2-8x a 200K limit). The command is stopped (exit 143, as perf),
# and perf's own overshoot for the same command line is printed beside.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_root
e2e_tmpdir maxsize
LIMIT=$((200 << 10))

# ring_bytes DIR: "BYTES CPUS" of DIR's CPU shards (their raw ring bytes)
ring_bytes() {
	"$PREC" info "$1" | awk '$1 ~ /^cpu[0-9]+\.shard$/ { s += $6; n++ } END { print s + 0, n + 0 }'
}

for m in 8K 16K 1M; do
	ring=$(numfmt --from=iec "$m")
	d=$tmp/m$m
	start=$(date +%s)
	"$PREC" record -d "$d" -m "$m" --max-size 200K -e cpu-clock -c 1000 -a -- sleep 10 \
		2>"$tmp/err"
	rc=$?
	[ $rc = 143 ] || fail "-m $m: exit $rc, not the stopped command's 143: $(cat "$tmp/err")"
	[ $(($(date +%s) - start)) -lt 8 ] || fail "-m $m: the command ran its 10 s"
	grep -q 'record: --max-size reached' "$tmp/err" || fail "-m $m: no message: $(cat "$tmp/err")"
	read -r bytes cpus < <(ring_bytes "$d")
	[ "$cpus" -ge 1 ] || fail "-m $m: no CPU shards"
	max=$((LIMIT + cpus * ring))
	echo "-m $m: $bytes ring bytes over $cpus CPUs for --max-size $LIMIT (bound $max)"
	[ "$bytes" -ge "$LIMIT" ] || fail "-m $m: $bytes ring bytes, under the limit $LIMIT"
	[ "$bytes" -le "$max" ] || fail "-m $m: $bytes ring bytes, past $LIMIT + $cpus x $ring = $max"
done

# perf's, for comparison (its file holds its header and side band too)
for m in 16K 1M; do
	command -v perf >/dev/null || break
	( perf record -o "$tmp/perf.data" -m "$m" --max-size 200K -e cpu-clock -c 1000 -a -- sleep 10 \
		>/dev/null 2>"$tmp/perr" ) 2>/dev/null
	echo "perf -m $m: $(stat -c %s "$tmp/perf.data") bytes of perf.data; $(grep -o 'size limit reached ([0-9]* KB)' "$tmp/perr")"
done
