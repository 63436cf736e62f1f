#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prec info on a recording still running: the totals come from the shards'
# whole chunks (the manifest holds none yet), and it says it is live. The
# storm's N getppid() samples are all drained once it is done while the
# recorder waits: the live total reaches N, the chunk the recorder is
# writing never makes info fail. After the stop, info shows the final
# manifest's totals, with no live line. Raw (O_DIRECT) and lz4 shards.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
N=${STORM_N:-200000}
need_root
need_tracepoint raw_syscalls/sys_enter
e2e_tmpdir info-live
pid=
at_exit 'rm -f "$tmp/hold"; [ -z "$pid" ] || wait "$pid" 2>/dev/null'

# total DIR: the records column of prec info's total row.
total() {
	"$PREC" info "$1" 2>"$tmp/info.err" | tee "$tmp/info" | awk '$1 == "total" { print $3 }'
}

run() { # name, record options...
	local name=$1 dir=$tmp/$1 got=0 i
	shift
	touch "$tmp/hold"
	"$PREC" record -q -d "$dir" -m 16M "$@" -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- sh -c "'$H/storm' $N; while [ -e '$tmp/hold' ]; do sleep 0.05; done" \
		2>"$tmp/rec.err" &
	pid=$!
	wait_manifest "$dir" 10
	for ((i = 0; i < 300; i++)); do
		got=$(total "$dir")
		[ -n "$got" ] && [ "$got" -ge "$N" ] && break
		complete "$dir" && fail "$dir: the recording ended by itself"
		sleep 0.1
	done
	cat "$tmp/info"
	[ -s "$tmp/info.err" ] && fail "prec info on a live recording wrote: $(cat "$tmp/info.err")"
	[ -n "$got" ] && [ "$got" -ge "$N" ] || fail "$name: live total ${got:-none}, want at least $N after the storm"
	grep -q '^live: ' "$tmp/info" || fail "$name: prec info does not say the recording is live"
	complete "$dir" && fail "$name: the manifest is final already: not a live test"
	# --json: the same totals so far in its shards, state "recording".
	"$PREC" info --json "$dir" >"$tmp/json" || fail "$name: info --json on the live recording"
	j=$(grep -o '"records": [0-9]*' "$tmp/json" | awk '{ s += $2 } END { print s }')
	[ "$j" -ge "$N" ] || fail "$name: --json shards hold $j records live, want at least $N"
	grep -q '"state": "recording"' "$tmp/json" || fail "$name: --json state is not recording"
	# Every chunk read is whole and valid: --check agrees while it runs.
	"$PREC" info --check "$dir" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "$name: info --check on the live recording"; }
	rm -f "$tmp/hold"
	wait "$pid" || fail_rc "$tmp/rec.err" "$name: record"
	pid=
	complete "$dir" || fail "$name: no final manifest"
	got=$(total "$dir")
	want=$("$H/mfdump" "$dir" | awk '/^shard/ { sub("records=", "", $5); s += $5 } END { print s }')
	grep -q '^live: ' "$tmp/info" && fail "$name: says live after the stop"
	[ "$got" = "$want" ] || fail "$name: prec info total $got after the stop, the manifest says $want"
	echo "$name: live total >= $N, final $got = the manifest's"
}

run raw
run lz4 -z
echo "PASS: prec info on a live recording shows its chunks' totals and says live; after the stop the manifest's"
