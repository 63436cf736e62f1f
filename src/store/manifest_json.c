// SPDX-License-Identifier: MIT
// JSON rendering of a manifest for `prec info --json`: every field, strings
// escaped so any byte sequence yields valid JSON (UTF-8 kept, invalid bytes
// as \u00XX) that puts no control on a terminal (C1 and bidi controls as
// \uXXXX).
#include "store/bpf_prog.h"
#include "store/store.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <inttypes.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* Overlongs, surrogates and > U+10FFFF are excluded by the second
	 * byte's range. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

/* The code point of the valid n-byte UTF-8 sequence at s. */
static uint32_t code_point(const unsigned char *s, int n)
{
	uint32_t c = n == 1 ? s[0] : s[0] & (0x7fu >> n);

	for (int i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3fu);
	return c;
}

/* A character valid in JSON that a terminal still acts on or that shows
 * text out of order: C1 controls (U+009B is a CSI to xterm and VTE), the
 * bidi embeddings, overrides and isolates. */
static bool shown_escaped(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

static void put_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		int n = utf8_len(s);

		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s < 0x20 || *s == 0x7f || n == 0) {
			fprintf(f, "\\u%04x", *s);
			n = 1;
		} else if (n > 1 && shown_escaped(code_point(s, n))) {
			fprintf(f, "\\u%04x", (unsigned int)code_point(s, n));
		} else {
			fwrite(s, 1, (size_t)n, f);
		}
		s += n ? n : 1;
	}
	fputc('"', f);
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

static void key(FILE *f, const char *k)
{
	fprintf(f, "\"%s\": ", k);
}

static void key_str(FILE *f, const char *k, const char *v)
{
	key(f, k);
	put_json_str(f, v);
}

static void key_u64(FILE *f, const char *k, uint64_t v)
{
	fprintf(f, "\"%s\": %" PRIu64, k, v);
}

static uint64_t attr_u64(const uint8_t *a, size_t off)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | a[off + (size_t)i];
	return v;
}

static void put_host(FILE *f, const struct prec_manifest *m)
{
	fputs("  \"host\": {", f);
	key_str(f, "hostname", m->hostname);
	fputs(", ", f);
	key_str(f, "os_release", m->os_release);
	fputs(", ", f);
	key_str(f, "arch", m->arch);
	fputs(", ", f);
	key_str(f, "cpu_desc", m->cpu_desc);
	fputs(", ", f);
	key_str(f, "cpu_id", m->cpu_id);
	fputs(", ", f);
	key_str(f, "version", m->version);
	fprintf(f, ", \"nr_cpus_avail\": %" PRIu32 ", \"nr_cpus_online\": %" PRIu32
		", \"total_mem_kb\": %" PRIu64 ",\n    \"cpus\": ",
		m->nr_cpus_avail, m->nr_cpus_online, m->total_mem_kb);
	if (!m->cpus) {
		fputs("null", f);
	} else {
		fputc('[', f);
		for (uint32_t i = 0; i < m->nr_cpus_avail; i++)
			fprintf(f, "%s{\"cpu\": %" PRIu32 ", \"core_id\": %d, \"socket_id\": %d, \"die_id\": %d}",
				i ? ",\n      " : "\n      ", i, m->cpus[i].core_id,
				m->cpus[i].socket_id, m->cpus[i].die_id);
		fputc(']', f);
	}
	fputs(",\n    \"numa_nodes\": [", f);
	for (uint32_t i = 0; m->numa_nodes && i < m->nr_numa_nodes; i++) {
		const struct prec_manifest_numa_node *n = &m->numa_nodes[i];

		fprintf(f, "%s{\"node\": %" PRIu32 ", \"mem_total_kb\": %" PRIu64
			", \"mem_free_kb\": %" PRIu64 ", ",
			i ? ",\n      " : "\n      ", n->node, n->mem_total_kb, n->mem_free_kb);
		key_str(f, "cpus", n->cpus);
		fputs(", ", f);
		key_str(f, "mem_blocks", n->mem_blocks);
		fputc('}', f);
	}
	fputs("],\n    \"pmus\": [", f);
	for (uint32_t i = 0; m->pmus && i < m->nr_pmus; i++) {
		const struct prec_manifest_pmu *p = &m->pmus[i];

		fprintf(f, "%s{\"type\": %" PRIu32 ", ", i ? ",\n      " : "\n      ", p->type);
		key_str(f, "name", p->name);
		fputs(", \"caps\": [", f);
		for (uint32_t k = 0; p->caps && k < p->nr_caps; k++) {
			fputs(k ? ", [" : "[", f);
			put_json_str(f, p->caps[k].name);
			fputs(", ", f);
			put_json_str(f, p->caps[k].value);
			fputc(']', f);
		}
		fputs("]}", f);
	}
	fputs("],\n    \"caches\": [", f);
	for (uint32_t i = 0; m->caches && i < m->nr_caches; i++) {
		const struct prec_manifest_cache *c = &m->caches[i];

		fprintf(f, "%s{\"level\": %" PRIu32 ", \"line_size\": %" PRIu32 ", \"sets\": %" PRIu32
			", \"ways\": %" PRIu32 ", ", i ? ",\n      " : "\n      ",
			c->level, c->line_size, c->sets, c->ways);
		key_str(f, "type", c->type);
		fputs(", ", f);
		key_str(f, "size", c->size);
		fputs(", ", f);
		key_str(f, "cpus", c->map);
		fputc('}', f);
	}
	fputs("]},\n", f);
}

static void put_recording(FILE *f, const struct prec_manifest *m)
{
	const char *state = m->state == PREC_STATE_COMPLETE ? "complete" :
			    m->state == PREC_STATE_RECORDING ? "recording" : "unknown";

	fprintf(f, "  \"state\": \"%s\", \"state_value\": %" PRIu32 ",\n  \"session_id\": ",
		state, m->state);
	put_hex(f, m->session_id, sizeof(m->session_id));
	fputs(",\n  \"argv\": [", f);
	for (uint32_t i = 0; m->argv && i < m->argc; i++) {
		fputs(i ? ", " : "", f);
		put_json_str(f, m->argv[i]);
	}
	fprintf(f, "],\n  \"clockid\": %" PRId32 ", ", m->clockid);
	key_u64(f, "clock_res_ns", m->clock_res_ns);
	fputs(", ", f);
	key_u64(f, "ref_wall_ns", m->ref_wall_ns);
	fputs(", ", f);
	key_u64(f, "ref_clock_ns", m->ref_clock_ns);
	fputs(",\n  ", f);
	key_u64(f, "start_time", m->start_time);
	fputs(", ", f);
	key_u64(f, "stop_time", m->stop_time);
	fputs(", ", f);
	key_u64(f, "sample_type", m->sample_type);
	fprintf(f, ",\n  \"time_layout\": {\"sample_time_off\": %u, \"trailer_time_back\": %u},\n",
		m->time_layout.sample_time_off, m->time_layout.trailer_time_back);
}

static void put_attr(FILE *f, const uint8_t *a)
{
	uint64_t flags = attr_u64(a, 40);

	fprintf(f, "{\"type\": %" PRIu64 ", \"size\": %" PRIu64, attr_u64(a, 0) & 0xffffffffu,
		attr_u64(a, 0) >> 32);
	fprintf(f, ", \"config\": %" PRIu64 ", \"%s\": %" PRIu64, attr_u64(a, 8),
		flags & (1u << 10) ? "sample_freq" : "sample_period", attr_u64(a, 16));
	fprintf(f, ", \"sample_type\": %" PRIu64 ", \"read_format\": %" PRIu64
		", \"flags\": %" PRIu64 ", \"config1\": %" PRIu64 ", \"config2\": %" PRIu64,
		attr_u64(a, 24), attr_u64(a, 32), flags, attr_u64(a, 56), attr_u64(a, 64));
	fputs(",\n       \"hex\": ", f);
	put_hex(f, a, 128);
	fputc('}', f);
}

static void put_events(FILE *f, const struct prec_manifest *m)
{
	fputs("  \"events\": [", f);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		key_str(f, "name", e->name);
		if (e->leader1)
			fprintf(f, ", \"group_leader\": %" PRIu32, e->leader1 - 1);
		if (e->group_name) {
			fputs(", ", f);
			key_str(f, "group_name", e->group_name);
		}
		/* --off-cpu: the merge's source, and what it becomes */
		if (m->offcpu.switch1 == i + 1)
			fputs(", \"offcpu\": \"source\"", f);
		else if (m->offcpu.switch1 && m->offcpu.event == i)
			fputs(", \"offcpu\": \"offcpu-time\"", f);
		fputs(",\n     \"attr\": ", f);
		put_attr(f, e->attr);
		fputs(",\n     \"ids\": [", f);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			fprintf(f, "%s{\"id\": %" PRIu64 ", \"cpu\": %" PRId32 ", \"tid\": %" PRId32
				", \"lost\": %" PRIu64 "}",
				j ? ", " : "", e->ids[j], e->id_cpus[j], e->id_tids[j],
				e->id_lost ? e->id_lost[j] : 0);
		fputs("]}", f);
	}
	fputs("],\n", f);
}

static void put_tracing(FILE *f, const struct prec_manifest *m)
{
	fputs("  \"tracepoints\": [", f);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		const struct prec_manifest_tracepoint *t = &m->tracepoints[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		key_str(f, "system", t->system);
		fputs(", ", f);
		key_str(f, "name", t->name);
		fprintf(f, ", \"id\": %" PRIu64 ", ", t->id);
		key_str(f, "format", t->format);
		fputc('}', f);
	}
	fputs("],\n  ", f);
	key_str(f, "header_page", m->header_page);
	fputs(",\n  ", f);
	key_str(f, "header_event", m->header_event);
	fputs(",\n  ", f);
	key_str(f, "printk_formats", m->printk_formats);
	fputs(",\n  ", f);
	key_str(f, "saved_cmdlines", m->saved_cmdlines);
	fputs(",\n", f);
}

static void put_shards(FILE *f, const struct prec_manifest *m)
{
	fputs("  \"shards\": [", f);
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];

		fputs(i ? ",\n    {" : "\n    {", f);
		key_str(f, "name", s->name);
		fprintf(f, ", \"cpu\": %" PRId32 ", \"chunks\": %" PRIu64 ", \"records\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"raw_bytes\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"lost_samples\": %" PRIu64 ", \"first_time\": %" PRIu64
			", \"last_time\": %" PRIu64 "}",
			s->cpu, s->chunks, s->records, s->bytes, s->raw_bytes, s->lost,
			s->lost_samples, s->first_time, s->last_time);
	}
	fputs("],\n", f);
}

static void put_buildids(FILE *f, const struct prec_manifest *m)
{
	fprintf(f, "  \"buildids_unread\": %" PRIu32 ",\n", m->buildids_unread);
	fprintf(f, "  \"buildids_dropped\": %" PRIu32 ",\n", m->buildids_dropped);
	fputs("  \"buildids\": [", f);
	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *b = &m->buildids[i];
		size_t n = b->size <= sizeof(b->id) ? b->size : sizeof(b->id);

		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"build_id\": ", f);
		put_hex(f, b->id, n);
		fprintf(f, ", \"cpumode\": %u, \"pid\": %" PRId32 ", ", b->cpumode, b->pid);
		key_str(f, "path", b->path);
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void put_time_conv(FILE *f, const struct prec_time_conv *tc)
{
	if (!tc->cap_user_time_zero)
		return;
	fputs(",\n  \"time_conv\": {", f);
	key_u64(f, "time_zero", tc->time_zero);
	fputs(", ", f);
	key_u64(f, "time_cycles", tc->time_cycles);
	fputs(", ", f);
	key_u64(f, "time_mask", tc->time_mask);
	fprintf(f, ", \"time_mult\": %" PRIu32 ", \"time_shift\": %u, \"cap_user_time_short\": %s}",
		tc->time_mult, tc->time_shift, tc->cap_user_time_short ? "true" : "false");
}

static void put_max_disk(FILE *f, const struct prec_manifest_max_disk *d)
{
	if (!d->limit)
		return;
	fputs(",\n  \"max_disk\": {", f);
	key_u64(f, "limit", d->limit);
	fputs(", ", f);
	key_u64(f, "segment", d->segment);
	fputs(", \"dropped\": {", f);
	key_u64(f, "segments", d->segments);
	fputs(", ", f);
	key_u64(f, "chunks", d->chunks);
	fputs(", ", f);
	key_u64(f, "records", d->records);
	fputs(", ", f);
	key_u64(f, "bytes", d->bytes);
	fputs(", ", f);
	key_u64(f, "first_time", d->first_time);
	fputs(", ", f);
	key_u64(f, "last_time", d->last_time);
	fputs("}}", f);
}

/* The BPF programs' ids, names, BTF ids, function counts and record sizes,
 * and the BTF objects' ids and sizes: not their bytes. */
static void put_bpf(FILE *f, const struct prec_manifest *m)
{
	fputs(",\n  \"bpf\": {\"progs\": [", f);
	for (uint32_t i = 0; i < m->nr_bpf_progs; i++) {
		const uint8_t *info = m->bpf_progs[i].rec + PREC_BPF_PROG_HDR;
		char name[BPF_OBJ_NAME_LEN + 1] = { 0 };

		memcpy(name, info + offsetof(struct bpf_prog_info, name), BPF_OBJ_NAME_LEN);
		fprintf(f, "%s{\"id\": %" PRIu32 ", ", i ? ",\n    " : "\n    ",
			prec_ld32(info + offsetof(struct bpf_prog_info, id)));
		key_str(f, "name", name);
		fprintf(f, ", \"btf_id\": %" PRIu32 ", \"funcs\": %" PRIu32 ", \"bytes\": %" PRIu32 "}",
			prec_ld32(info + offsetof(struct bpf_prog_info, btf_id)),
			prec_ld32(info + offsetof(struct bpf_prog_info, nr_jited_ksyms)),
			m->bpf_progs[i].len);
	}
	fputs("], \"btfs\": [", f);
	for (uint32_t i = 0; i < m->nr_btfs; i++)
		fprintf(f, "%s{\"id\": %" PRIu32 ", \"bytes\": %" PRIu32 "}", i ? ", " : "",
			m->btfs[i].id, m->btfs[i].size);
	fputs("]}", f);
}

int prec_manifest__print_json(const struct prec_manifest *m, FILE *f)
{
	fputs("{\n", f);
	put_recording(f, m);
	put_host(f, m);
	put_events(f, m);
	put_tracing(f, m);
	put_shards(f, m);
	put_buildids(f, m);
	fprintf(f, "  \"auxtrace\": {\"type\": %" PRIu32 ", \"priv\": [", m->auxtrace_type);
	for (uint32_t i = 0; m->auxtrace_priv && i < m->nr_auxtrace_priv; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", m->auxtrace_priv[i]);
	fputs("]}", f);
	put_time_conv(f, &m->time_conv);
	put_max_disk(f, &m->max_disk);
	if (m->zstd_level)
		fprintf(f, ",\n  \"zstd_level\": %" PRIu32, m->zstd_level);
	if (m->kcore.segments)
		fprintf(f, ",\n  \"kcore\": {\"segments\": %" PRIu32 ", \"bytes\": %" PRIu64 "}",
			m->kcore.segments, m->kcore.bytes);
	if (m->nr_bpf_progs || m->nr_btfs)
		put_bpf(f, m);
	fputs("\n}\n", f);
	if (fflush(f) == EOF || ferror(f))
		return -EIO;
	return 0;
}
