# SPDX-License-Identifier: MIT
# perf_event_attrs as "N field value" lines (N counts events from 1), for a
# field-by-field diff, from either
#  - a `perf record -vv` or `prec record -vv` output: its perf_event_attr
#    blocks. A block perf prints again for the same event after its open
#    failed (a fallback, a feature switched off) is dropped: only the first
#    attr of each event counts. -v skip=1 drops the first block (prec's
#    tracking event);
#  - with -v evlist=1, `perf evlist -v` lines ("NAME: field: value, ..."):
#    each event's name becomes a field, and a "dummy" (prec's tracking
#    event, which its merged file lists) is dropped.
# Fields prec's design sets otherwise (docs/events.md, "Attr fields that
# differ by design") are dropped: sample_type's ID, CPU and IDENTIFIER;
# use_clockid, clockid; watermark, wakeup_events/watermark; the side-band
# bits (mmap, comm, task, mmap2, comm_exec, mmap_data, ksymbol, bpf_event,
# build_id, context_switch, cgroup, namespaces, text_poke), which prec's
# tracking event carries.
BEGIN {
	n = 0; inblk = 0; failed = 0
	split("use_clockid clockid watermark mmap comm task mmap2 comm_exec mmap_data ksymbol bpf_event build_id context_switch cgroup namespaces text_poke", l, " ")
	for (i in l) drop[l[i]] = 1
	drop["{ wakeup_events, wakeup_watermark }"] = 1
}

function put(f, v,    m, b, i) {
	if (f in drop) return
	if (f == "sample_type") {
		m = split(v, b, "|"); v = ""
		for (i = 1; i <= m; i++)
			if (b[i] != "ID" && b[i] != "CPU" && b[i] != "IDENTIFIER")
				v = v (v == "" ? "" : "|") b[i]
	}
	if (n - (skip ? 1 : 0) >= 1) print n - (skip ? 1 : 0), f, v
}

evlist && /^#/ { next }
evlist {
	c = index($0, ": ")
	if (substr($0, 1, c - 1) == "dummy") next
	n++
	put("name", substr($0, 1, c - 1))
	m = split(substr($0, c + 2), f, ", ")
	for (i = 1; i <= m; i++) {
		if (f[i] ~ /^\{/ && f[i] !~ /\}/) { # "{ a, b }: v", cut at its comma
			f[i + 1] = f[i] ", " f[i + 1]
			continue
		}
		k = index(f[i], ": ")
		put(substr(f[i], 1, k - 1), substr(f[i], k + 2))
	}
	next
}
/^perf_event_attr:$/ {
	retry = failed; failed = 0; inblk = 1
	if (!retry) n++
	next
}
/^-----/ { inblk = 0; next }
/sys_perf_event_open failed/ { failed = 1; next }
inblk && /^  / && !retry {
	line = substr($0, 3)
	# field names run to the value's column (name padded to 32, or longer)
	if (match(line, /^\{[^}]*\}/)) { f1 = substr(line, 1, RLENGTH); v = substr(line, RLENGTH + 1) }
	else { f1 = $1; v = substr(line, length($1) + 1) }
	sub(/^ +/, "", v)
	put(f1, v)
}
