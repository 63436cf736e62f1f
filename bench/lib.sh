# SPDX-License-Identifier: MIT
# Shared by the recorder and merge benchmarks: paths, preflight checks, the
# storm/clock workloads, and the statistics every table prints.
# Source it from a script in bench/ after `cd` to the top of the tree.

BUILD=${BUILD:-build}
PREC=${PREC:-$PWD/$BUILD/prec}
H=$PWD/$BUILD/tests/helpers
BENCH=${BENCH:-bench/$(basename "$0")}

# bench_require TOOL...: root, perf, and these executables, or one line and exit 1.
bench_require() {
	[ "$(id -u)" = 0 ] || { echo "$BENCH: needs root" >&2; exit 1; }
	for t in "$@"; do
		[ -x "$t" ] || { echo "$BENCH: missing $t (make BUILD=$BUILD unit)" >&2; exit 1; }
	done
	command -v perf >/dev/null || { echo "$BENCH: no perf" >&2; exit 1; }
}

now() { date +%s.%N; }

# The standard workloads. clock and dwarf hash $tmp/blob on every CPU (dwarf
# samples it with 8 KiB user stacks); they wait only for their own jobs (a
# bare wait would also wait for the recorder). stormio is the storm while
# dd writes DISK_MB to $tmp (the recording's file system) and fsyncs: a disk
# busy with someone else's writes, which stalls every recorder's writes;
# workload_end waits for that dd, outside the timed part.
# A scenario NAME+hogs runs NAME's workload with two busy loops beside it
# (a loaded machine), started before and killed after it.
workload() {
	local hogs=()
	if [[ $1 == *+hogs ]]; then
		for _ in 1 2; do
			(while :; do :; done) &
			hogs+=($!)
		done
	fi
	case ${1%+hogs} in
	storm) "$H/storm" "$STORM_N" ;;
	stormio)
		dd if=/dev/zero of="$tmp/disk_busy" bs=1M count="${DISK_MB:-1500}" conv=fsync \
			status=none &
		DISK_PID=$!
		"$H/storm" "$STORM_N" ;;
	clock | dwarf)
		local pids=()
		for ((c = 0; c < ncpu; c++)); do
			(for _ in 1 2 3 4; do sha256sum "$tmp/blob" >/dev/null; done) &
			pids+=($!)
		done
		wait "${pids[@]}" ;;
	build)
		# a real build: prec from clean, as many jobs as CPUs
		make -s -C "$tmp/src" BUILD="$tmp/src/build" clean >/dev/null
		make -s -C "$tmp/src" BUILD="$tmp/src/build" -j"$ncpu" >/dev/null 2>&1 ;;
	esac
	if [ ${#hogs[@]} -gt 0 ]; then
		kill "${hogs[@]}" 2>/dev/null
		wait "${hogs[@]}" 2>/dev/null
	fi
	return 0
}

# The prec source the build scenario compiles, at this checkout's HEAD.
build_src() {
	mkdir -p "$tmp/src" && git archive HEAD | tar -x -C "$tmp/src"
}

workload_end() {
	if [ -n "${DISK_PID:-}" ]; then wait "$DISK_PID"; fi
	DISK_PID=
	rm -f "$tmp/disk_busy"
}

events() {
	case ${1%+hogs} in
	storm | stormio) echo "-e raw_syscalls:sys_enter" ;;
	clock) echo "-e cpu-clock -F 10000 -g" ;;
	dwarf) echo "-e cpu-clock -F 10000 --call-graph dwarf" ;;
	build) echo "-g" ;; # each recorder's default event, as a user runs it
	esac
}

perf_lost() { # sum of per-event LOST_SAMPLES (perf 6.1 reads PERF_FORMAT_LOST into them)
	perf report -i "$1" --stats 2>/dev/null |
		awk '/stats:$/ && !/Aggregated/ { ev = 1 } ev && /LOST_SAMPLES events:/ { s += $3 } END { print s + 0 }'
}

# Numbers on stdin, one per line; "?" and "-" (no figure) are skipped.
median() {
	grep -v '^[?-]$' | sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-";
		else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo ".." hi }'; }

# fit LABEL "n:secs ...": least squares of secs = a + b log2(n) over all but
# the last pair, then the last against the prediction
fit() {
	echo "$2" | tr ' ' '\n' | awk -F: -v label="$1" 'NF == 2 { n[++k] = $1; t[k] = $2 }
	END {
		if (k < 3) exit
		for (i = 1; i < k; i++) { x = log(n[i]) / log(2); sx += x; sy += t[i]; sxx += x * x; sxy += x * t[i] }
		m = k - 1; b = (m * sxy - sx * sy) / (m * sxx - sx * sx); a = (sy - b * sx) / m
		p = a + b * log(n[k]) / log(2)
		printf "%s: fit t = %.3f + %.4f log2(n) s/GB through n < %d: predicts %.3f s/GB at %d, measured %.3f (%+.0f%%)\n",
			label, a, b, n[k], p, n[k], t[k], (t[k] / p - 1) * 100 }'
}
