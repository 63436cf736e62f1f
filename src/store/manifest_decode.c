// SPDX-License-Identifier: MIT
// Manifest decoder. It trusts nothing: the header, checksum and section
// table are checked first, then every length and count against the bytes
// left before it is used or allocated (docs/manifest-format.md).
#include "store/bpf_prog.h"
#include "store/manifest_format.h"
#include "store/store.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Decoder: a cursor over one section payload with a sticky error.          */

struct ibuf {
	const uint8_t *p;
	size_t len, off;
	int err;         /* 0, -EBADMSG or -ENOMEM */
	const char *why;
};

static bool fail(struct ibuf *c, int err, const char *why)
{
	if (!c->err) {
		c->err = err;
		c->why = why;
	}
	return false;
}

static const uint8_t *take(struct ibuf *c, size_t n)
{
	const uint8_t *q;

	if (c->err)
		return NULL;
	if (n > c->len - c->off) {
		fail(c, -EBADMSG, "section overrun");
		return NULL;
	}
	q = c->p + c->off;
	c->off += n;
	return q;
}

static uint32_t get32(struct ibuf *c)
{
	const uint8_t *q = take(c, 4);

	return q ? prec_ld32(q) : 0;
}

static uint64_t get64(struct ibuf *c)
{
	const uint8_t *q = take(c, 8);

	return q ? prec_ld64(q) : 0;
}

static bool all_zero(const uint8_t *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (q[i])
			return false;
	}
	return true;
}

/* Consume and check the zero padding up to a multiple of 8 from start. */
static bool skip_pad(struct ibuf *c, size_t start)
{
	size_t used = c->off - start;
	const uint8_t *q = take(c, align8(used) - used);

	if (!q)
		return false;
	if (!all_zero(q, align8(used) - used))
		return fail(c, -EBADMSG, "nonzero padding");
	return true;
}

/* Returns a malloc'd copy, or NULL for an absent string or an error
 * (c->err tells which). The bytes are checked before the allocation. */
static char *get_str(struct ibuf *c)
{
	size_t start = c->off;
	uint32_t n = get32(c);
	const uint8_t *q;
	char *s;

	if (c->err)
		return NULL;
	if (n == PREC_MANI_STR_ABSENT) {
		skip_pad(c, start);
		return NULL;
	}
	q = take(c, n);
	if (!q)
		return NULL;
	if (memchr(q, 0, n)) {
		fail(c, -EBADMSG, "NUL byte inside a string");
		return NULL;
	}
	if (!skip_pad(c, start))
		return NULL;
	s = malloc((size_t)n + 1);
	if (!s) {
		fail(c, -ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(s, q, n);
	s[n] = '\0';
	return s;
}

/* A count is believable only if that many smallest elements fit in what is
 * left: this bounds every allocation by the input size. */
static bool count_fits(struct ibuf *c, uint64_t n, size_t min_size)
{
	if (c->err)
		return false;
	if (n > (c->len - c->off) / min_size)
		return fail(c, -EBADMSG, "count larger than its section");
	return true;
}

static void *alloc_array(struct ibuf *c, size_t n, size_t size)
{
	void *p;

	if (c->err || !n)
		return NULL;
	p = calloc(n, size);
	if (!p)
		fail(c, -ENOMEM, "out of memory");
	return p;
}

/* Read the u32 count + u32 reserved that open every array section. */
static uint32_t get_count(struct ibuf *c, size_t min_size)
{
	uint32_t n = get32(c);

	get32(c);
	return count_fits(c, n, min_size) ? n : 0;
}

static void dec_session(struct ibuf *c, struct prec_manifest *m)
{
	const uint8_t *q;
	uint32_t tl;

	if (c->len < PREC_MANI_SESSION_SIZE) {
		fail(c, -EBADMSG, "session section too short");
		return;
	}
	m->state = get32(c);
	m->clockid = (int32_t)get32(c);
	q = take(c, sizeof(m->session_id));
	if (q)
		memcpy(m->session_id, q, sizeof(m->session_id));
	m->nr_cpus_avail = get32(c);
	m->nr_cpus_online = get32(c);
	m->total_mem_kb = get64(c);
	m->clock_res_ns = get64(c);
	m->ref_wall_ns = get64(c);
	m->ref_clock_ns = get64(c);
	m->start_time = get64(c);
	m->stop_time = get64(c);
	m->sample_type = get64(c);
	tl = get32(c);
	m->time_layout.sample_time_off = (uint16_t)tl;
	m->time_layout.trailer_time_back = (uint16_t)(tl >> 16);
	/* Bytes after the known fields are a later minor's: ignored. */
}

static void dec_host(struct ibuf *c, struct prec_manifest *m)
{
	m->hostname = get_str(c);
	m->os_release = get_str(c);
	m->arch = get_str(c);
	m->cpu_desc = get_str(c);
	m->cpu_id = get_str(c);
	m->version = get_str(c);
}

static void dec_cpus(struct ibuf *c, struct prec_manifest *m)
{
	size_t start;
	uint32_t n = get_count(c, 12);

	if (c->err)
		return;
	if (n != m->nr_cpus_avail || !n) {
		fail(c, -EBADMSG, "cpu topology count differs from nr_cpus_avail");
		return;
	}
	m->cpus = alloc_array(c, n, sizeof(*m->cpus));
	start = c->off;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		m->cpus[i].core_id = (int32_t)get32(c);
		m->cpus[i].socket_id = (int32_t)get32(c);
		m->cpus[i].die_id = (int32_t)get32(c);
	}
	skip_pad(c, start);
}

static void dec_numa(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_NUMA_NODE);

	if (c->err || !n)
		return;
	m->mem_block_bytes = get64(c);
	m->numa_nodes = alloc_array(c, n, sizeof(*m->numa_nodes));
	if (!m->numa_nodes)
		return;
	m->nr_numa_nodes = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct prec_manifest_numa_node *nn = &m->numa_nodes[i];

		nn->node = get32(c);
		get32(c);
		nn->mem_total_kb = get64(c);
		nn->mem_free_kb = get64(c);
		nn->cpus = get_str(c);
		nn->mem_blocks = get_str(c);
		if (!c->err && !nn->cpus)
			fail(c, -EBADMSG, "numa: a node without its CPU list");
	}
}

static void dec_pmus(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_PMU);

	if (c->err || !n)
		return;
	m->pmus = alloc_array(c, n, sizeof(*m->pmus));
	if (!m->pmus)
		return;
	m->nr_pmus = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct prec_manifest_pmu *p = &m->pmus[i];
		uint32_t nc;

		p->type = get32(c);
		nc = get32(c);
		p->name = get_str(c);
		if (!c->err && !p->name)
			fail(c, -EBADMSG, "pmus: a PMU without its name");
		if (c->err || !count_fits(c, nc, PREC_MANI_MIN_PMU_CAP))
			return;
		if (!nc)
			continue;
		p->caps = alloc_array(c, nc, sizeof(*p->caps));
		if (!p->caps)
			return;
		p->nr_caps = nc;
		for (uint32_t k = 0; k < nc && !c->err; k++) {
			p->caps[k].name = get_str(c);
			p->caps[k].value = get_str(c);
			if (!c->err && (!p->caps[k].name || !p->caps[k].value))
				fail(c, -EBADMSG, "pmus: a cap without its name or value");
		}
	}
}

static void dec_caches(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_CACHE);

	if (c->err || !n)
		return;
	m->caches = alloc_array(c, n, sizeof(*m->caches));
	if (!m->caches)
		return;
	m->nr_caches = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct prec_manifest_cache *k = &m->caches[i];

		k->level = get32(c);
		k->line_size = get32(c);
		k->sets = get32(c);
		k->ways = get32(c);
		k->type = get_str(c);
		k->size = get_str(c);
		k->map = get_str(c);
		if (!c->err && (!k->type || !k->size || !k->map))
			fail(c, -EBADMSG, "caches: a cache without its type, size or CPUs");
	}
}

/* Each program's record, checked whole (store/bpf_prog.c) before it is
 * kept: perf follows its offsets. Ids ascending, as perf writes them. */
static void dec_bpf_progs(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_BPF_PROG), last = 0;

	if (c->err || !n)
		return;
	if (n > PREC_MANIFEST_BPF_MAX) {
		fail(c, -EBADMSG, "bpf_progs: more programs than its bound");
		return;
	}
	m->bpf_progs = alloc_array(c, n, sizeof(*m->bpf_progs));
	for (uint32_t i = 0; i < n && !c->err; i++) {
		const uint8_t *h = take(c, PREC_BPF_PROG_HDR), *q;
		uint64_t len;
		const char *why;

		if (!h)
			return;
		/* the lengths bounded before the bytes are taken; the rest is
		 * prec_bpf_prog__check()'s */
		if (prec_ld32(h) > PREC_BPF_INFO_LEN) {
			fail(c, -EBADMSG, "bpf_progs: info_len out of range");
			return;
		}
		if (prec_ld32(h + 4) > PREC_MANIFEST_BPF_DATA_MAX) {
			fail(c, -EBADMSG, "bpf_progs: data_len over its bound");
			return;
		}
		len = PREC_BPF_PROG_HDR + (uint64_t)prec_ld32(h) + prec_ld32(h + 4);
		c->off -= PREC_BPF_PROG_HDR;
		q = take(c, (size_t)len);
		if (!q)
			return;
		if (prec_bpf_prog__check(q, (size_t)len, PREC_MANIFEST_BPF_DATA_MAX, &why)) {
			fail(c, -EBADMSG, why);
			return;
		}
		if (i && prec_ld32(q + PREC_BPF_PROG_HDR + 4) <= last) {
			fail(c, -EBADMSG, "bpf_progs: ids not ascending");
			return;
		}
		last = prec_ld32(q + PREC_BPF_PROG_HDR + 4);
		m->bpf_progs[i].rec = malloc((size_t)len);
		if (!m->bpf_progs[i].rec) {
			fail(c, -ENOMEM, "out of memory");
			return;
		}
		memcpy(m->bpf_progs[i].rec, q, (size_t)len);
		m->bpf_progs[i].len = (uint32_t)len;
		m->nr_bpf_progs = i + 1;
		m->bpf_bytes += len;
	}
}

static void dec_btfs(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_BTF);

	if (c->err || !n)
		return;
	if (n > PREC_MANIFEST_BPF_MAX) {
		fail(c, -EBADMSG, "bpf_btfs: more BTF objects than its bound");
		return;
	}
	m->btfs = alloc_array(c, n, sizeof(*m->btfs));
	for (uint32_t i = 0; i < n && !c->err; i++) {
		size_t start = c->off;
		uint32_t id = get32(c), size = get32(c);
		const uint8_t *q;

		if (c->err)
			return;
		if (!id || (i && id <= m->btfs[i - 1].id)) {
			fail(c, -EBADMSG, "bpf_btfs: id 0 or ids not ascending");
			return;
		}
		if (size > PREC_MANIFEST_BTF_MAX) {
			fail(c, -EBADMSG, "bpf_btfs: size over its bound");
			return;
		}
		q = take(c, size);
		if (!q || !skip_pad(c, start))
			return;
		m->btfs[i].data = malloc(size ? size : 1);
		if (!m->btfs[i].data) {
			fail(c, -ENOMEM, "out of memory");
			return;
		}
		memcpy(m->btfs[i].data, q, size);
		m->btfs[i].id = id;
		m->btfs[i].size = size;
		m->nr_btfs = i + 1;
		m->bpf_bytes += size;
	}
}

static void dec_argv(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_STR);

	if (c->err || !n)
		return;
	m->argv = alloc_array(c, (size_t)n + 1, sizeof(*m->argv));
	if (!m->argv)
		return;
	m->argc = n;
	for (uint32_t i = 0; i < n && !c->err; i++)
		m->argv[i] = get_str(c);
}

static void dec_event(struct ibuf *c, struct prec_manifest_event *e)
{
	const uint8_t *q = take(c, sizeof(e->attr));
	uint32_t n;
	size_t start;

	if (!q)
		return;
	memcpy(e->attr, q, sizeof(e->attr));
	n = get_count(c, 16);
	e->name = get_str(c);
	if (!count_fits(c, n, 16))
		return;
	e->ids = alloc_array(c, n, sizeof(*e->ids));
	e->id_cpus = alloc_array(c, n, sizeof(*e->id_cpus));
	e->id_tids = alloc_array(c, n, sizeof(*e->id_tids));
	if (c->err)
		return;
	e->nr_ids = n;
	start = c->off;
	for (uint32_t j = 0; j < n; j++)
		e->ids[j] = get64(c);
	for (uint32_t j = 0; j < n; j++)
		e->id_cpus[j] = (int32_t)get32(c);
	for (uint32_t j = 0; j < n; j++)
		e->id_tids[j] = (int32_t)get32(c);
	skip_pad(c, start);
}

static void dec_events(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_EVENT);

	m->events = alloc_array(c, n, sizeof(*m->events));
	if (!m->events)
		return;
	m->nr_events = n;
	for (uint32_t i = 0; i < n && !c->err; i++)
		dec_event(c, &m->events[i]);
}

static void dec_tracepoints(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_TRACEPOINT);

	m->tracepoints = alloc_array(c, n, sizeof(*m->tracepoints));
	if (!m->tracepoints)
		return;
	m->nr_tracepoints = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct prec_manifest_tracepoint *t = &m->tracepoints[i];

		t->id = get64(c);
		t->system = get_str(c);
		t->name = get_str(c);
		t->format = get_str(c);
	}
}

static void dec_tracing(struct ibuf *c, struct prec_manifest *m)
{
	m->header_page = get_str(c);
	m->header_event = get_str(c);
	m->printk_formats = get_str(c);
	m->saved_cmdlines = get_str(c);
}

static void dec_shards(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_SHARD);

	m->shards = alloc_array(c, n, sizeof(*m->shards));
	if (!m->shards)
		return;
	m->nr_shards = n;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		struct prec_manifest_shard *s = &m->shards[i];

		s->cpu = (int32_t)get32(c);
		get32(c);
		s->chunks = get64(c);
		s->records = get64(c);
		s->bytes = get64(c);
		s->raw_bytes = get64(c);
		s->lost = get64(c);
		s->lost_samples = get64(c);
		s->first_time = get64(c);
		s->last_time = get64(c);
		s->name = get_str(c);
	}
}

static void dec_buildid(struct ibuf *c, struct prec_manifest_buildid *b)
{
	uint32_t w = get32(c);
	const uint8_t *q;

	b->cpumode = (uint16_t)w;
	b->size = (uint8_t)(w >> 16);
	b->pid = (int32_t)get32(c);
	q = take(c, sizeof(b->id));
	if (q)
		memcpy(b->id, q, sizeof(b->id));
	get32(c);
	if (b->size > sizeof(b->id))
		fail(c, -EBADMSG, "build-id longer than 20 bytes");
	b->path = get_str(c);
}

static void dec_buildids(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get32(c);

	m->buildids_unread = get32(c);
	n = count_fits(c, n, PREC_MANI_MIN_BUILDID) ? n : 0;

	m->buildids = alloc_array(c, n, sizeof(*m->buildids));
	if (!m->buildids)
		return;
	m->nr_buildids = n;
	for (uint32_t i = 0; i < n && !c->err; i++)
		dec_buildid(c, &m->buildids[i]);
}

static void dec_auxtrace(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get32(c);

	m->auxtrace_type = get32(c);
	if (!count_fits(c, n, 8))
		return;
	m->auxtrace_priv = alloc_array(c, n, sizeof(*m->auxtrace_priv));
	if (!m->auxtrace_priv)
		return;
	m->nr_auxtrace_priv = n;
	for (uint32_t i = 0; i < n; i++)
		m->auxtrace_priv[i] = get64(c);
}

static void dec_time_conv(struct ibuf *c, struct prec_manifest *m)
{
	struct prec_time_conv *tc = &m->time_conv;
	uint32_t w;

	if (c->len < PREC_MANI_TIME_CONV_SIZE) {
		fail(c, -EBADMSG, "time_conv section too short");
		return;
	}
	tc->time_zero = get64(c);
	tc->time_cycles = get64(c);
	tc->time_mask = get64(c);
	tc->time_mult = get32(c);
	w = get32(c);
	tc->time_shift = (uint16_t)w;
	tc->cap_user_time_zero = (w >> 16) & 0xff;
	tc->cap_user_time_short = (w >> 24) & 0xff;
	/* Bytes after the known fields are a later minor's: ignored. */
}

static void dec_max_disk(struct ibuf *c, struct prec_manifest *m)
{
	struct prec_manifest_max_disk *d = &m->max_disk;

	if (c->len < PREC_MANI_MAX_DISK_SIZE) {
		fail(c, -EBADMSG, "max_disk section too short");
		return;
	}
	d->limit = get64(c);
	d->segment = get64(c);
	d->segments = get64(c);
	d->chunks = get64(c);
	d->records = get64(c);
	d->bytes = get64(c);
	d->first_time = get64(c);
	d->last_time = get64(c);
	/* Bytes after the known fields are a later minor's: ignored. */
}

static void dec_buildid_drops(struct ibuf *c, struct prec_manifest *m)
{
	if (c->len < PREC_MANI_BUILDID_DROPS_SIZE) {
		fail(c, -EBADMSG, "buildid_drops section too short");
		return;
	}
	m->buildids_dropped = get32(c);
	get32(c);
	/* Bytes after the known fields are a later minor's: ignored. */
}

static void dec_kcore(struct ibuf *c, struct prec_manifest *m)
{
	if (c->len < PREC_MANI_KCORE_SIZE) {
		fail(c, -EBADMSG, "kcore section too short");
		return;
	}
	m->kcore.segments = get32(c);
	get32(c);
	m->kcore.bytes = get64(c);
	/* written only with a kcore_dir, whose kcore has a segment at least */
	if (!m->kcore.segments)
		fail(c, -EBADMSG, "kcore section without segments");
	/* Bytes after the known fields are a later minor's: ignored. */
}

/* A zstd level as perf's -z takes it: 1..22 (written only with -z). */
static void dec_compression(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t level;

	if (c->len < PREC_MANI_COMPRESSION_SIZE) {
		fail(c, -EBADMSG, "compression section too short");
		return;
	}
	level = get32(c);
	get32(c);
	if (!level || level > PREC_MANIFEST_ZSTD_LEVEL_MAX) {
		fail(c, -EBADMSG, "compression: zstd level not 1..22");
		return;
	}
	m->zstd_level = level;
	/* Bytes after the known fields are a later minor's: ignored. */
}

/* After EVENTS: a leader is an event at or before its member, and
 * leads itself. */
static void dec_groups(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get32(c);

	get32(c);
	if (!count_fits(c, n, 8))
		return;
	for (uint32_t i = 0; i < n && !c->err; i++) {
		uint32_t e = get32(c), l = get32(c);

		if (e >= m->nr_events || l > e ||
		    (l < m->nr_events && m->events[l].leader1 != l + 1 && l != e)) {
			fail(c, -EBADMSG, "groups: bad event or leader index");
			return;
		}
		m->events[e].leader1 = l + 1;
	}
}

/* After EVENTS: each entry an id of an event, once, in event and id
 * order, with a nonzero count (the encoder leaves out the others). */
static void dec_id_lost(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_ID_LOST_SIZE);
	uint64_t last = 0; /* (event, index) + 1 of the previous entry */

	for (uint32_t i = 0; i < n && !c->err; i++) {
		uint32_t e = get32(c), j = get32(c);
		uint64_t lost = get64(c), at = ((uint64_t)e << 32 | j) + 1;
		struct prec_manifest_event *ev;

		if (c->err)
			return;
		if (e >= m->nr_events || j >= m->events[e].nr_ids || at <= last || !lost) {
			fail(c, -EBADMSG, "id lost: no such id, out of order, or a zero count");
			return;
		}
		last = at;
		ev = &m->events[e];
		if (!ev->id_lost)
			ev->id_lost = calloc(ev->nr_ids, sizeof(*ev->id_lost));
		if (!ev->id_lost) {
			fail(c, -ENOMEM, "out of memory");
			return;
		}
		ev->id_lost[j] = lost;
	}
}

/* After GROUPS: each name a leader's, once, in event order. */
static void dec_group_names(struct ibuf *c, struct prec_manifest *m)
{
	uint32_t n = get_count(c, PREC_MANI_MIN_GROUP_NAME);
	int64_t last = -1;

	for (uint32_t i = 0; i < n && !c->err; i++) {
		uint32_t e = get32(c);

		get32(c);
		if (c->err)
			return;
		if (e >= m->nr_events || m->events[e].leader1 != e + 1 || (int64_t)e <= last) {
			fail(c, -EBADMSG, "group names: not a leader's, or out of order");
			return;
		}
		last = e;
		m->events[e].group_name = get_str(c);
		if (!c->err && !m->events[e].group_name)
			fail(c, -EBADMSG, "group names: an absent name");
	}
}

/* After EVENTS: two distinct events; the sample layouts the merge's
 * off-CPU conversion reads (read/offcpu.c) and nothing else, so it never
 * meets a field it cannot place. */
static void dec_offcpu(struct ibuf *c, struct prec_manifest *m)
{
	const uint64_t base = m->sample_type, cgroup = PERF_SAMPLE_CGROUP;
	struct prec_manifest_offcpu *o = &m->offcpu;
	uint32_t sw, ev, w;
	uint64_t st_sw, st_ev;

	if (c->len < PREC_MANI_OFFCPU_SIZE) {
		fail(c, -EBADMSG, "offcpu section too short");
		return;
	}
	sw = get32(c);
	ev = get32(c);
	w = get32(c);
	get32(c);
	if (sw >= m->nr_events || ev >= m->nr_events || sw == ev) {
		fail(c, -EBADMSG, "offcpu: bad event index");
		return;
	}
	st_sw = prec_ld64(m->events[sw].attr + 24) & ~cgroup;
	st_ev = prec_ld64(m->events[ev].attr + 24) & ~cgroup;
	o->state_off = (uint16_t)w;
	o->state_size = (uint16_t)(w >> 16);
	if (st_sw != (base | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW) ||
	    st_ev != (base | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD) ||
	    (o->state_size != 4 && o->state_size != 8) || o->state_off > UINT16_MAX - 8) {
		fail(c, -EBADMSG, "offcpu: events' sample_type or prev_state field not as recorded");
		return;
	}
	o->switch1 = sw + 1;
	o->event = ev;
	/* Bytes after the known fields are a later minor's: ignored. */
}

/* ------------------------------------------------------------------------ */
/* Framing: header and section table.                                       */

struct sec {
	const uint8_t *p;
	size_t len;
	bool seen;
};

typedef void (*dec_fn)(struct ibuf *c, struct prec_manifest *m);

/* Sections a later minor may extend at the end (their tail is ignored);
 * array sections must be consumed exactly. In decode order: SESSION first,
 * since CPUS checks its count against nr_cpus_avail. */
static const struct {
	uint32_t tag;
	bool required, extensible;
	dec_fn fn;
} sec_table[] = {
	{ PREC_MANI_SEC_SESSION, true, true, dec_session },
	{ PREC_MANI_SEC_HOST, true, true, dec_host },
	{ PREC_MANI_SEC_CPUS, false, false, dec_cpus },
	{ PREC_MANI_SEC_ARGV, false, false, dec_argv },
	{ PREC_MANI_SEC_EVENTS, true, false, dec_events },
	{ PREC_MANI_SEC_TRACEPOINTS, false, false, dec_tracepoints },
	{ PREC_MANI_SEC_TRACING, false, true, dec_tracing },
	{ PREC_MANI_SEC_SHARDS, true, false, dec_shards },
	{ PREC_MANI_SEC_BUILDIDS, false, false, dec_buildids },
	{ PREC_MANI_SEC_AUXTRACE, false, false, dec_auxtrace },
	{ PREC_MANI_SEC_TIME_CONV, false, true, dec_time_conv },
	{ PREC_MANI_SEC_MAX_DISK, false, true, dec_max_disk },
	{ PREC_MANI_SEC_BUILDID_DROPS, false, true, dec_buildid_drops },
	{ PREC_MANI_SEC_GROUPS, false, false, dec_groups },
	{ PREC_MANI_SEC_KCORE, false, true, dec_kcore },
	{ PREC_MANI_SEC_OFFCPU, false, true, dec_offcpu },
	{ PREC_MANI_SEC_NUMA, false, false, dec_numa },
	{ PREC_MANI_SEC_PMUS, false, false, dec_pmus },
	{ PREC_MANI_SEC_CACHES, false, false, dec_caches },
	{ PREC_MANI_SEC_GROUP_NAMES, false, false, dec_group_names },
	{ PREC_MANI_SEC_BPF_PROGS, false, false, dec_bpf_progs },
	{ PREC_MANI_SEC_BPF_BTFS, false, false, dec_btfs },
	{ PREC_MANI_SEC_ID_LOST, false, false, dec_id_lost },
	{ PREC_MANI_SEC_COMPRESSION, false, true, dec_compression },
};

static int scan_sections(const uint8_t *p, size_t off, size_t total,
			 struct sec *secs, const char **why)
{
	while (off < total) {
		uint32_t tag;
		uint64_t len;
		size_t room;

		if (total - off < PREC_MANI_SEC_HDR_SIZE) {
			*why = "truncated section header";
			return -EBADMSG;
		}
		tag = prec_ld32(p + off);
		len = prec_ld64(p + off + 8);
		room = total - off - PREC_MANI_SEC_HDR_SIZE;
		if (len > room) {
			*why = "section longer than the manifest";
			return -EBADMSG;
		}
		off += PREC_MANI_SEC_HDR_SIZE;
		if (!all_zero(p + off + len, align8(len) - len)) {
			*why = "nonzero padding";
			return -EBADMSG;
		}
		if (tag && tag < PREC_MANI_SEC_MAX) {
			if (secs[tag].seen) {
				*why = "duplicate section";
				return -EBADMSG;
			}
			secs[tag] = (struct sec){ p + off, len, true };
		}
		/* Unknown tags are a later minor's sections: skipped. */
		off += align8(len);
	}
	return 0;
}

static int check_header(const uint8_t *p, size_t len, size_t *hdr_size,
			const char **why)
{
	uint64_t total;
	uint32_t crc;

	*why = "not a prec manifest";
	if (len >= 8 && prec_ld64(p) != PREC_MANI_MAGIC)
		return -EBADMSG;
	*why = "truncated";
	if (len < PREC_MANI_HDR_SIZE)
		return -EBADMSG;
	total = prec_ld64(p + 16);
	if (total > len)
		return -EBADMSG;
	*why = "trailing bytes after the manifest";
	if (total < len)
		return -EBADMSG;
	*why = "bad header size";
	*hdr_size = prec_ld32(p + 12);
	if (*hdr_size < PREC_MANI_HDR_SIZE || *hdr_size % 8 || *hdr_size > len || len % 8)
		return -EBADMSG;
	/* The header layout and this checksum rule are frozen for every major,
	 * so a flipped bit in the version field reads as corruption while a
	 * real newer file reads as a newer file. */
	crc = prec_crc32c(0, p, PREC_MANI_CRC_OFF);
	crc = prec_crc32c(crc, "\0\0\0\0", 4);
	crc = prec_crc32c(crc, p + PREC_MANI_CRC_OFF + 4, len - PREC_MANI_CRC_OFF - 4);
	*why = "bad checksum";
	if (crc != prec_ld32(p + PREC_MANI_CRC_OFF))
		return -EBADMSG;
	*why = "unsupported manifest major version (written by a newer prec?)";
	if (prec_ld16(p + 8) != PREC_FORMAT_MAJOR)
		return -EPROTONOSUPPORT;
	*why = NULL;
	return 0;
}

static int dec_sections(const struct sec *secs, struct prec_manifest *m,
			const char **why)
{
	for (size_t i = 0; i < sizeof(sec_table) / sizeof(sec_table[0]); i++) {
		const struct sec *s = &secs[sec_table[i].tag];
		struct ibuf c = { .p = s->p, .len = s->len };

		if (!s->seen) {
			if (!sec_table[i].required)
				continue;
			*why = "required section missing";
			return -EBADMSG;
		}
		sec_table[i].fn(&c, m);
		if (!c.err && !sec_table[i].extensible && c.off != c.len)
			fail(&c, -EBADMSG, "trailing bytes in section");
		if (c.err) {
			*why = c.why;
			return c.err;
		}
	}
	return 0;
}

int prec_manifest__decode(struct prec_manifest **out, const void *buf,
			  size_t len, const char **why)
{
	struct sec secs[PREC_MANI_SEC_MAX] = { { 0 } };
	struct prec_manifest *m;
	const char *reason = NULL;
	size_t hdr_size;
	int err;

	*out = NULL;
	if (!buf && len)
		return -EINVAL;
	err = check_header(buf, len, &hdr_size, &reason);
	if (!err)
		err = scan_sections(buf, hdr_size, len, secs, &reason);
	if (err)
		goto out;
	m = prec_manifest__new();
	if (!m) {
		reason = "out of memory";
		err = -ENOMEM;
		goto out;
	}
	err = dec_sections(secs, m, &reason);
	if (!err)
		err = prec_manifest__check(m, &reason);
	if (err) {
		prec_manifest__delete(m);
		goto out;
	}
	*out = m;
out:
	if (why)
		*why = reason;
	return err;
}
