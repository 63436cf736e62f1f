// SPDX-License-Identifier: MIT
// Manifest encoder: the header and tagged sections described in
// docs/manifest-format.md, built in one growing buffer. Decoding is in
// manifest_decode.c.
#include "store/bpf_prog.h"
#include "store/manifest_format.h"
#include "store/store.h"
#include "util/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Encoder: a growing buffer with a sticky error.                           */

struct obuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

/* Append n zero bytes; returns where they start, or NULL after an error. */
static uint8_t *reserve(struct obuf *b, size_t n)
{
	uint8_t *q;

	if (b->err)
		return NULL;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->err = -ENOMEM;
				return NULL;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = q;
		b->cap = cap;
	}
	q = b->p + b->len;
	memset(q, 0, n);
	b->len += n;
	return q;
}

static void put32(struct obuf *b, uint32_t v)
{
	uint8_t *q = reserve(b, 4);

	if (q)
		prec_st32(q, v);
}

static void put64(struct obuf *b, uint64_t v)
{
	uint8_t *q = reserve(b, 8);

	if (q)
		prec_st64(q, v);
}

static void put_bytes(struct obuf *b, const void *src, size_t n)
{
	uint8_t *q = reserve(b, n);

	if (q && n)
		memcpy(q, src, n);
}

/* Zero padding up to the next multiple of 8 from start. */
static void pad_from(struct obuf *b, size_t start)
{
	reserve(b, align8(b->len - start) - (b->len - start));
}

static void put_str(struct obuf *b, const char *s)
{
	size_t start = b->len, n;

	if (!s) {
		put64(b, PREC_MANI_STR_ABSENT);
		return;
	}
	n = strlen(s);
	if (n >= PREC_MANI_STR_ABSENT) {
		b->err = b->err ? b->err : -E2BIG;
		return;
	}
	put32(b, (uint32_t)n);
	put_bytes(b, s, n);
	pad_from(b, start);
}

static size_t begin_section(struct obuf *b, uint32_t tag)
{
	size_t at = b->len;

	put32(b, tag);
	put32(b, 0);
	put64(b, 0);
	return at;
}

static void end_section(struct obuf *b, size_t at)
{
	size_t payload = b->len - at - PREC_MANI_SEC_HDR_SIZE;

	if (b->err)
		return;
	prec_st64(b->p + at + 8, payload);
	pad_from(b, at);
}

static void enc_session(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_SESSION);

	put32(b, m->state);
	put32(b, (uint32_t)m->clockid);
	put_bytes(b, m->session_id, sizeof(m->session_id));
	put32(b, m->nr_cpus_avail);
	put32(b, m->nr_cpus_online);
	put64(b, m->total_mem_kb);
	put64(b, m->clock_res_ns);
	put64(b, m->ref_wall_ns);
	put64(b, m->ref_clock_ns);
	put64(b, m->start_time);
	put64(b, m->stop_time);
	put64(b, m->sample_type);
	put32(b, m->time_layout.sample_time_off | (uint32_t)m->time_layout.trailer_time_back << 16);
	put32(b, 0);
	end_section(b, at);
}

static void enc_host(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_HOST);

	put_str(b, m->hostname);
	put_str(b, m->os_release);
	put_str(b, m->arch);
	put_str(b, m->cpu_desc);
	put_str(b, m->cpu_id);
	put_str(b, m->version);
	end_section(b, at);
}

static void enc_cpus(struct obuf *b, const struct prec_manifest *m)
{
	size_t at, start;

	if (!m->cpus || !m->nr_cpus_avail)
		return;
	at = begin_section(b, PREC_MANI_SEC_CPUS);
	put64(b, m->nr_cpus_avail);
	start = b->len;
	for (uint32_t i = 0; i < m->nr_cpus_avail; i++) {
		put32(b, (uint32_t)m->cpus[i].core_id);
		put32(b, (uint32_t)m->cpus[i].socket_id);
		put32(b, (uint32_t)m->cpus[i].die_id);
	}
	pad_from(b, start);
	end_section(b, at);
}

static void enc_numa(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->nr_numa_nodes)
		return;
	at = begin_section(b, PREC_MANI_SEC_NUMA);
	put64(b, m->nr_numa_nodes);
	put64(b, m->mem_block_bytes);
	for (uint32_t i = 0; i < m->nr_numa_nodes; i++) {
		put32(b, m->numa_nodes[i].node);
		put32(b, 0);
		put64(b, m->numa_nodes[i].mem_total_kb);
		put64(b, m->numa_nodes[i].mem_free_kb);
		put_str(b, m->numa_nodes[i].cpus);
		put_str(b, m->numa_nodes[i].mem_blocks);
	}
	end_section(b, at);
}

static void enc_pmus(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->nr_pmus)
		return;
	at = begin_section(b, PREC_MANI_SEC_PMUS);
	put64(b, m->nr_pmus);
	for (uint32_t i = 0; i < m->nr_pmus; i++) {
		const struct prec_manifest_pmu *p = &m->pmus[i];

		put32(b, p->type);
		put32(b, p->nr_caps);
		put_str(b, p->name);
		for (uint32_t k = 0; k < p->nr_caps; k++) {
			put_str(b, p->caps[k].name);
			put_str(b, p->caps[k].value);
		}
	}
	end_section(b, at);
}

static void enc_caches(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->nr_caches)
		return;
	at = begin_section(b, PREC_MANI_SEC_CACHES);
	put64(b, m->nr_caches);
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct prec_manifest_cache *c = &m->caches[i];

		put32(b, c->level);
		put32(b, c->line_size);
		put32(b, c->sets);
		put32(b, c->ways);
		put_str(b, c->type);
		put_str(b, c->size);
		put_str(b, c->map);
	}
	end_section(b, at);
}

/* Each program's record as it is: its header gives its length, a
 * multiple of 8. */
static void enc_bpf_progs(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->nr_bpf_progs)
		return;
	at = begin_section(b, PREC_MANI_SEC_BPF_PROGS);
	put64(b, m->nr_bpf_progs);
	for (uint32_t i = 0; i < m->nr_bpf_progs; i++)
		put_bytes(b, m->bpf_progs[i].rec, m->bpf_progs[i].len);
	end_section(b, at);
}

static void enc_btfs(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->nr_btfs)
		return;
	at = begin_section(b, PREC_MANI_SEC_BPF_BTFS);
	put64(b, m->nr_btfs);
	for (uint32_t i = 0; i < m->nr_btfs; i++) {
		size_t start = b->len;

		put32(b, m->btfs[i].id);
		put32(b, m->btfs[i].size);
		put_bytes(b, m->btfs[i].data, m->btfs[i].size);
		pad_from(b, start);
	}
	end_section(b, at);
}

static void enc_argv(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_ARGV);
	uint32_t argc = m->argv ? m->argc : 0;

	put64(b, argc);
	for (uint32_t i = 0; i < argc; i++)
		put_str(b, m->argv[i]);
	end_section(b, at);
}

static void enc_events(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_EVENTS);

	put64(b, m->nr_events);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];
		size_t start;

		put_bytes(b, e->attr, sizeof(e->attr));
		put64(b, e->nr_ids);
		put_str(b, e->name);
		start = b->len;
		for (uint32_t j = 0; j < e->nr_ids; j++)
			put64(b, e->ids[j]);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			put32(b, (uint32_t)e->id_cpus[j]);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			put32(b, (uint32_t)e->id_tids[j]);
		pad_from(b, start);
	}
	end_section(b, at);
}

static void enc_tracing(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_TRACEPOINTS);

	put64(b, m->nr_tracepoints);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		put64(b, m->tracepoints[i].id);
		put_str(b, m->tracepoints[i].system);
		put_str(b, m->tracepoints[i].name);
		put_str(b, m->tracepoints[i].format);
	}
	end_section(b, at);
	at = begin_section(b, PREC_MANI_SEC_TRACING);
	put_str(b, m->header_page);
	put_str(b, m->header_event);
	put_str(b, m->printk_formats);
	put_str(b, m->saved_cmdlines);
	end_section(b, at);
}

static void enc_shards(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_SHARDS);

	put64(b, m->nr_shards);
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];

		put32(b, (uint32_t)s->cpu);
		put32(b, 0);
		put64(b, s->chunks);
		put64(b, s->records);
		put64(b, s->bytes);
		put64(b, s->raw_bytes);
		put64(b, s->lost);
		put64(b, s->lost_samples);
		put64(b, s->first_time);
		put64(b, s->last_time);
		put_str(b, s->name);
	}
	end_section(b, at);
}

static void enc_buildids(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_BUILDIDS);

	put32(b, m->nr_buildids);
	put32(b, m->buildids_unread);
	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *bi = &m->buildids[i];

		put32(b, bi->cpumode | (uint32_t)bi->size << 16);
		put32(b, (uint32_t)bi->pid);
		put_bytes(b, bi->id, sizeof(bi->id));
		put32(b, 0);
		put_str(b, bi->path);
	}
	end_section(b, at);
}

static void enc_auxtrace(struct obuf *b, const struct prec_manifest *m)
{
	size_t at = begin_section(b, PREC_MANI_SEC_AUXTRACE);
	uint32_t n = m->auxtrace_priv ? m->nr_auxtrace_priv : 0;

	put32(b, n);
	put32(b, m->auxtrace_type);
	for (uint32_t i = 0; i < n; i++)
		put64(b, m->auxtrace_priv[i]);
	end_section(b, at);
}

/* Only when the words convert: that is when perf writes TIME_CONV, and a
 * manifest without it reads as before (minor 0 readers skip it anyway). */
static void enc_time_conv(struct obuf *b, const struct prec_manifest *m)
{
	const struct prec_time_conv *tc = &m->time_conv;
	size_t at;

	if (!tc->cap_user_time_zero)
		return;
	at = begin_section(b, PREC_MANI_SEC_TIME_CONV);
	put64(b, tc->time_zero);
	put64(b, tc->time_cycles);
	put64(b, tc->time_mask);
	put32(b, tc->time_mult);
	put32(b, tc->time_shift | 1u << 16 | (uint32_t)tc->cap_user_time_short << 24);
	end_section(b, at);
}

/* Only when some event is in a group: others read as before. Pairs of
 * (event, leader) indexes. */
static void enc_groups(struct obuf *b, const struct prec_manifest *m)
{
	uint32_t n = 0;
	size_t at;

	for (uint32_t i = 0; i < m->nr_events; i++)
		n += m->events[i].leader1 != 0;
	if (!n)
		return;
	at = begin_section(b, PREC_MANI_SEC_GROUPS);
	put32(b, n);
	put32(b, 0);
	for (uint32_t i = 0; i < m->nr_events; i++)
		if (m->events[i].leader1) {
			put32(b, i);
			put32(b, m->events[i].leader1 - 1);
		}
	end_section(b, at);
}

/* Only when some group has a name (NAME{a,b}): others read as before.
 * The leader's index and the name, in event order. */
static void enc_group_names(struct obuf *b, const struct prec_manifest *m)
{
	uint32_t n = 0;
	size_t at;

	for (uint32_t i = 0; i < m->nr_events; i++)
		n += m->events[i].group_name != NULL;
	if (!n)
		return;
	at = begin_section(b, PREC_MANI_SEC_GROUP_NAMES);
	put32(b, n);
	put32(b, 0);
	for (uint32_t i = 0; i < m->nr_events; i++)
		if (m->events[i].group_name) {
			put32(b, i);
			put32(b, 0);
			put_str(b, m->events[i].group_name);
		}
	end_section(b, at);
}

/* Only when some id lost samples: others read as before. (event, id
 * index, count) of each nonzero count, in event and id order. */
static void enc_id_lost(struct obuf *b, const struct prec_manifest *m)
{
	uint32_t n = 0;
	size_t at;

	for (uint32_t i = 0; i < m->nr_events; i++)
		for (uint32_t j = 0; m->events[i].id_lost && j < m->events[i].nr_ids; j++)
			n += m->events[i].id_lost[j] != 0;
	if (!n)
		return;
	at = begin_section(b, PREC_MANI_SEC_ID_LOST);
	put32(b, n);
	put32(b, 0);
	for (uint32_t i = 0; i < m->nr_events; i++)
		for (uint32_t j = 0; m->events[i].id_lost && j < m->events[i].nr_ids; j++)
			if (m->events[i].id_lost[j]) {
				put32(b, i);
				put32(b, j);
				put64(b, m->events[i].id_lost[j]);
			}
	end_section(b, at);
}

/* Only for a --max-disk recording: others read as before. */
static void enc_max_disk(struct obuf *b, const struct prec_manifest *m)
{
	const struct prec_manifest_max_disk *d = &m->max_disk;
	size_t at;

	if (!d->limit)
		return;
	at = begin_section(b, PREC_MANI_SEC_MAX_DISK);
	put64(b, d->limit);
	put64(b, d->segment);
	put64(b, d->segments);
	put64(b, d->chunks);
	put64(b, d->records);
	put64(b, d->bytes);
	put64(b, d->first_time);
	put64(b, d->last_time);
	end_section(b, at);
}

/* Only when the build-id table dropped pairs: others read as before. */
static void enc_buildid_drops(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->buildids_dropped)
		return;
	at = begin_section(b, PREC_MANI_SEC_BUILDID_DROPS);
	put32(b, m->buildids_dropped);
	put32(b, 0);
	end_section(b, at);
}

/* Only for a --kcore recording: others read as before. */
static void enc_kcore(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->kcore.segments)
		return;
	at = begin_section(b, PREC_MANI_SEC_KCORE);
	put32(b, m->kcore.segments);
	put32(b, 0);
	put64(b, m->kcore.bytes);
	end_section(b, at);
}

/* Only for an --off-cpu recording: others read as before. */
static void enc_offcpu(struct obuf *b, const struct prec_manifest *m)
{
	const struct prec_manifest_offcpu *o = &m->offcpu;
	size_t at;

	if (!o->switch1)
		return;
	at = begin_section(b, PREC_MANI_SEC_OFFCPU);
	put32(b, o->switch1 - 1);
	put32(b, o->event);
	put32(b, (uint32_t)o->state_off | (uint32_t)o->state_size << 16);
	put32(b, 0);
	end_section(b, at);
}

/* Only for a -z recording: others read as before. */
static void enc_compression(struct obuf *b, const struct prec_manifest *m)
{
	size_t at;

	if (!m->zstd_level)
		return;
	at = begin_section(b, PREC_MANI_SEC_COMPRESSION);
	put32(b, m->zstd_level);
	put32(b, 0);
	end_section(b, at);
}

static bool arrays_consistent(const struct prec_manifest *m)
{
	if ((m->nr_events && !m->events) || (m->nr_tracepoints && !m->tracepoints) ||
	    (m->nr_shards && !m->shards) || (m->nr_buildids && !m->buildids) ||
	    (m->nr_numa_nodes && !m->numa_nodes) || (m->nr_pmus && !m->pmus) ||
	    (m->nr_caches && !m->caches) || (m->nr_bpf_progs && !m->bpf_progs) ||
	    (m->nr_btfs && !m->btfs))
		return false;
	for (uint32_t i = 0; i < m->nr_bpf_progs; i++)
		if (m->bpf_progs[i].len % 8 || m->bpf_progs[i].len < PREC_BPF_PROG_HDR ||
		    prec_ld32(m->bpf_progs[i].rec) + prec_ld32(m->bpf_progs[i].rec + 4) !=
			    m->bpf_progs[i].len - PREC_BPF_PROG_HDR)
			return false;
	for (uint32_t i = 0; i < m->nr_pmus; i++)
		if (m->pmus[i].nr_caps && !m->pmus[i].caps)
			return false;
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];

		if (e->nr_ids && (!e->ids || !e->id_cpus || !e->id_tids))
			return false;
	}
	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		if (m->buildids[i].size > sizeof(m->buildids[i].id))
			return false;
	}
	return true;
}

int prec_manifest__encode(const struct prec_manifest *m, void **buf,
			  size_t *len)
{
	struct obuf b = { 0 };
	uint8_t *h;

	if (!m || !buf || !len || !arrays_consistent(m) ||
	    m->zstd_level > PREC_MANIFEST_ZSTD_LEVEL_MAX)
		return -EINVAL;
	reserve(&b, PREC_MANI_HDR_SIZE);
	enc_session(&b, m);
	enc_host(&b, m);
	enc_cpus(&b, m);
	enc_argv(&b, m);
	enc_events(&b, m);
	enc_tracing(&b, m);
	enc_shards(&b, m);
	enc_buildids(&b, m);
	enc_auxtrace(&b, m);
	enc_time_conv(&b, m);
	enc_max_disk(&b, m);
	enc_buildid_drops(&b, m);
	enc_groups(&b, m);
	enc_kcore(&b, m);
	enc_offcpu(&b, m);
	enc_numa(&b, m);
	enc_pmus(&b, m);
	enc_caches(&b, m);
	enc_group_names(&b, m);
	enc_bpf_progs(&b, m);
	enc_btfs(&b, m);
	enc_id_lost(&b, m);
	enc_compression(&b, m);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	h = b.p;
	prec_st64(h, PREC_MANI_MAGIC);
	prec_st16(h + 8, PREC_FORMAT_MAJOR);
	prec_st16(h + 10, PREC_MANI_MINOR);
	prec_st32(h + 12, PREC_MANI_HDR_SIZE);
	prec_st64(h + 16, b.len);
	prec_st32(h + 24, 0);
	prec_st32(h + PREC_MANI_CRC_OFF, prec_crc32c(0, b.p, b.len));
	*buf = b.p;
	*len = b.len;
	return 0;
}
