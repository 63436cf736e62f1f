# SPDX-License-Identifier: MIT
# The perf_event_attr blocks of a `perf record -vv` or `prec record -vv`
# output as "N field value" lines (N counts blocks from 1), for a
# field-by-field diff. A block perf prints again for the same event after
# its open failed (a fallback, a feature switched off) is dropped: only the
# first attr of each event counts. Fields prec's design sets otherwise
# (docs/perf-compat.md, "Attr fields that differ by design") are dropped:
#   sample_type's ID, CPU and IDENTIFIER; use_clockid, clockid; watermark,
#   wakeup_events/watermark; the side-band bits (mmap, comm, task, mmap2,
#   comm_exec, mmap_data, ksymbol, bpf_event, build_id, context_switch,
#   cgroup, namespaces, text_poke), which prec's tracking event carries.
# -v skip=1: drop the first block (prec's tracking event).
BEGIN {
	n = 0; inblk = 0; failed = 0
	split("use_clockid clockid watermark mmap comm task mmap2 comm_exec mmap_data ksymbol bpf_event build_id context_switch cgroup namespaces text_poke", l, " ")
	for (i in l) drop[l[i]] = 1
	drop["{ wakeup_events, wakeup_watermark }"] = 1
}
/^perf_event_attr:$/ {
	retry = failed; failed = 0; inblk = 1
	if (!retry) n++
	next
}
/^-----/ { inblk = 0; next }
/sys_perf_event_open failed/ { failed = 1; next }
inblk && /^  / {
	if (retry) next
	line = substr($0, 3)
	# field names run to the value's column (name padded to 32, or longer)
	if (match(line, /^\{[^}]*\}/)) { f = substr(line, 1, RLENGTH); v = substr(line, RLENGTH + 1) }
	else { f = $1; v = substr(line, length($1) + 1) }
	sub(/^ +/, "", v)
	if (f in drop) next
	if (f == "sample_type") {
		m = split(v, b, "|"); v = ""
		for (i = 1; i <= m; i++)
			if (b[i] != "ID" && b[i] != "CPU" && b[i] != "IDENTIFIER")
				v = v (v == "" ? "" : "|") b[i]
	}
	k = n - (skip ? 1 : 0)
	if (k >= 1) print k, f, v
}
