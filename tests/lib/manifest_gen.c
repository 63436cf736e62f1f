// SPDX-License-Identifier: MIT
// Test helper: manifests filled with random contents (strings with every
// byte but NUL, hundreds of shards, events and build-ids, or a few of
// each), and a field-by-field comparison, for the round trips of
// unit/manifest and the file and API tests of unit/manifest_io.
#include "test.h"

#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "store/bpf_prog.h"
#include "store/manifest_format.h"
#include "util/bytes.h"
#include "store/store.h"

#define ATTR_ST_OFF offsetof(struct perf_event_attr, sample_type)

static uint64_t rng = 1;

void test_manifest_seed(uint64_t seed)
{
	rng = seed ? seed : 1;
}

static uint64_t rnd(uint64_t n)
{
	return n ? test_rand(&rng) % n : 0;
}

/* Random bytes 1..255 (never NUL), or NULL / "" now and then. */
static char *rnd_str(size_t max)
{
	size_t n = rnd(max + 1);
	char *s;

	if (rnd(16) == 0)
		return NULL;
	s = malloc(n + 1);
	CHECK(s);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(1 + rnd(255));
	s[n] = '\0';
	return s;
}

static void set_rnd(struct prec_manifest *m, char **field, size_t max)
{
	char *s = rnd_str(max);

	CHECK_EQ(prec_manifest__set_str(m, field, s), 0);
	free(s);
}

/* BPF programs (minor 10): none to two, ids ascending, each one function
 * of random code with a random line info; and as many BTF objects. */
static void fill_bpf(struct prec_manifest *m)
{
	uint32_t n = (uint32_t)rnd(3), id = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t jited = (uint32_t)rnd(100), j8 = (jited + 7) & ~7u, lines = (uint32_t)rnd(3);
		size_t len = PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + j8 + 24 + 16 * lines;
		uint8_t *r = calloc(1, len), *info = r + PREC_BPF_PROG_HDR, btf[13];

		CHECK(r);
		id += 1 + (uint32_t)rnd(1000);
		prec_st32(r, PREC_BPF_INFO_LEN);
		prec_st32(r + 4, (uint32_t)(len - PREC_BPF_PROG_HDR - PREC_BPF_INFO_LEN));
		prec_st64(r + 8, PREC_BPF_ARRAYS_RECORDED);
		prec_st32(info + offsetof(struct bpf_prog_info, id), id);
		prec_st32(info + offsetof(struct bpf_prog_info, btf_id), id);
		prec_st32(info + offsetof(struct bpf_prog_info, jited_prog_len), jited);
		prec_st32(info + offsetof(struct bpf_prog_info, nr_jited_ksyms), 1);
		prec_st64(info + offsetof(struct bpf_prog_info, jited_ksyms), j8);
		prec_st32(info + offsetof(struct bpf_prog_info, nr_jited_func_lens), 1);
		prec_st64(info + offsetof(struct bpf_prog_info, jited_func_lens), j8 + 8);
		prec_st32(info + offsetof(struct bpf_prog_info, func_info_rec_size), 8);
		prec_st64(info + offsetof(struct bpf_prog_info, func_info), j8 + 16);
		prec_st32(info + offsetof(struct bpf_prog_info, nr_line_info), lines);
		prec_st32(info + offsetof(struct bpf_prog_info, line_info_rec_size), 16);
		prec_st64(info + offsetof(struct bpf_prog_info, line_info), j8 + 16);
		prec_st64(info + offsetof(struct bpf_prog_info, jited_line_info), j8 + 16 + 16 * lines);
		prec_st32(info + offsetof(struct bpf_prog_info, nr_prog_tags), 1);
		prec_st64(info + offsetof(struct bpf_prog_info, prog_tags), j8 + 16 + 16 * lines);
		for (size_t k = 0; k < jited; k++)
			info[PREC_BPF_INFO_LEN + k] = (uint8_t)rnd(256);
		CHECK_EQ(prec_manifest__add_bpf_prog(m, r, len), 0);
		free(r);
		for (size_t k = 0; k < sizeof(btf); k++)
			btf[k] = (uint8_t)rnd(256);
		CHECK_EQ(prec_manifest__add_btf(m, id, btf, (uint32_t)rnd(sizeof(btf) + 1)), 0);
	}
}

static void fill_host(struct prec_manifest *m)
{
	m->state = rnd(2) ? PREC_STATE_COMPLETE : PREC_STATE_RECORDING;
	for (size_t i = 0; i < sizeof(m->session_id); i++)
		m->session_id[i] = (uint8_t)rnd(256);
	set_rnd(m, &m->hostname, 64);
	set_rnd(m, &m->os_release, 64);
	set_rnd(m, &m->arch, 16);
	set_rnd(m, &m->cpu_desc, 100);
	set_rnd(m, &m->cpu_id, 40);
	set_rnd(m, &m->version, 20);
	m->nr_cpus_avail = 1 + (uint32_t)rnd(300);
	m->nr_cpus_online = (uint32_t)rnd(300);
	m->total_mem_kb = test_rand(&rng);
	m->cpus = calloc(m->nr_cpus_avail, sizeof(*m->cpus));
	CHECK(m->cpus);
	for (uint32_t i = 0; i < m->nr_cpus_avail; i++) {
		m->cpus[i].core_id = (int32_t)test_rand(&rng);
		m->cpus[i].socket_id = (int32_t)rnd(4) - 1;
		m->cpus[i].die_id = (int32_t)test_rand(&rng);
	}
	/* NUMA nodes (minor 6): none to three; a CPU list always (decode
	 * refuses a node without one), memory blocks at times */
	m->nr_numa_nodes = (uint32_t)rnd(4);
	m->mem_block_bytes = m->nr_numa_nodes ? test_rand(&rng) : 0;
	m->numa_nodes = m->nr_numa_nodes ? calloc(m->nr_numa_nodes, sizeof(*m->numa_nodes)) : NULL;
	CHECK(!m->nr_numa_nodes || m->numa_nodes);
	for (uint32_t i = 0; i < m->nr_numa_nodes; i++) {
		struct prec_manifest_numa_node *n = &m->numa_nodes[i];

		n->node = (uint32_t)rnd(1024);
		n->mem_total_kb = test_rand(&rng);
		n->mem_free_kb = test_rand(&rng);
		while (!(n->cpus = rnd_str(40)))
			;
		n->mem_blocks = rnd_str(60);
	}
	/* PMUs (minor 7): none to four, a name always (decode refuses a PMU
	 * without one), none to three caps each, a name and value always */
	m->nr_pmus = (uint32_t)rnd(5);
	m->pmus = m->nr_pmus ? calloc(m->nr_pmus, sizeof(*m->pmus)) : NULL;
	CHECK(!m->nr_pmus || m->pmus);
	for (uint32_t i = 0; i < m->nr_pmus; i++) {
		struct prec_manifest_pmu *p = &m->pmus[i];

		p->type = (uint32_t)test_rand(&rng);
		while (!(p->name = rnd_str(20)))
			;
		p->nr_caps = (uint32_t)rnd(4);
		p->caps = p->nr_caps ? calloc(p->nr_caps, sizeof(*p->caps)) : NULL;
		CHECK(!p->nr_caps || p->caps);
		for (uint32_t k = 0; k < p->nr_caps; k++) {
			while (!(p->caps[k].name = rnd_str(20)))
				;
			while (!(p->caps[k].value = rnd_str(PREC_MANIFEST_PMU_CAP_VALUE_MAX)))
				;
		}
	}
	fill_bpf(m);
	/* caches (minor 8): none to six, their three strings always */
	m->nr_caches = (uint32_t)rnd(7);
	m->caches = m->nr_caches ? calloc(m->nr_caches, sizeof(*m->caches)) : NULL;
	CHECK(!m->nr_caches || m->caches);
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		struct prec_manifest_cache *c = &m->caches[i];

		c->level = (uint32_t)rnd(5);
		c->line_size = (uint32_t)test_rand(&rng);
		c->sets = (uint32_t)test_rand(&rng);
		c->ways = (uint32_t)test_rand(&rng);
		while (!(c->type = rnd_str(12)))
			;
		while (!(c->size = rnd_str(8)))
			;
		while (!(c->map = rnd_str(40)))
			;
	}
}

static void fill_recording(struct prec_manifest *m, uint32_t nargs)
{
	char *argv[64];

	for (uint32_t i = 0; i < nargs; i++)
		argv[i] = rnd_str(30);
	CHECK_EQ(prec_manifest__set_argv(m, (int)nargs, argv), 0);
	for (uint32_t i = 0; i < nargs; i++)
		free(argv[i]);
	m->clockid = (int32_t)rnd(12) - 1;
	m->clock_res_ns = test_rand(&rng);
	m->ref_wall_ns = test_rand(&rng);
	m->ref_clock_ns = test_rand(&rng);
	m->start_time = test_rand(&rng);
	m->stop_time = test_rand(&rng);
	/* the decoder takes only what prec writes: TIME and IDENTIFIER, no
	 * ID or STREAM_ID, and the layout that follows */
	m->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER |
			 (test_rand(&rng) & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
	CHECK_EQ(prec_time_layout__init(&m->time_layout, m->sample_type), 0);
	m->auxtrace_type = (uint32_t)test_rand(&rng);
}

/* The smallest manifest decode() accepts: a sample_type with its layout,
 * one event with one id. */
void test_manifest_valid(struct prec_manifest *m)
{
	uint8_t attr[128] = { 0 };

	m->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	CHECK_EQ(prec_time_layout__init(&m->time_layout, m->sample_type), 0);
	prec_st64(attr + ATTR_ST_OFF, m->sample_type);
	CHECK_EQ(prec_manifest__add_event(m, attr, "e"), 0);
	CHECK_EQ(prec_manifest__add_event_id(m, 0, 1, 0, -1), 0);
}

static void fill_events(struct prec_manifest *m, uint32_t nev, uint32_t max_ids)
{
	for (uint32_t i = 0; i < nev; i++) {
		uint8_t attr[128];
		char *name = rnd_str(40);
		uint32_t nids = 1 + (uint32_t)rnd(max_ids);

		for (size_t k = 0; k < sizeof(attr); k++)
			attr[k] = (uint8_t)rnd(256);
		/* the session's base, plus bits that do not move the time */
		prec_st64(attr + ATTR_ST_OFF, m->sample_type |
			  (test_rand(&rng) & (PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN)));
		CHECK_EQ(prec_manifest__add_event(m, attr, name), (int)i);
		free(name);
		for (uint32_t j = 0; j < nids; j++)
			CHECK_EQ(prec_manifest__add_event_id(m, i, test_rand(&rng),
							     (int32_t)rnd(64) - 1,
							     (int32_t)test_rand(&rng)), 0);
	}
	/* Now and then an event whose ids lost samples (some of them). */
	for (uint32_t i = 0; i < m->nr_events; i++)
		for (uint32_t j = 0; !rnd(3) && j < m->events[i].nr_ids; j++)
			CHECK_EQ(prec_manifest__set_id_lost(m, i, j, rnd(2) ? test_rand(&rng) : 0),
				 0);
	/* Now and then a group: a leader and the next few events. */
	for (uint32_t i = 0; i < m->nr_events; i++) {
		uint32_t n = rnd(4) ? 0 : 1 + (uint32_t)rnd(3);

		for (uint32_t k = 0; k < n && i + k < m->nr_events; k++)
			m->events[i + k].leader1 = i + 1;
		/* and now and then its name (NAME{a,b}) */
		if (n && rnd(2))
			set_rnd(m, &m->events[i].group_name, 12);
		i += n;
	}
}

static void fill_tracing(struct prec_manifest *m, uint32_t ntp, size_t fmt_max)
{
	for (uint32_t i = 0; i < ntp; i++) {
		char *sys = rnd_str(20), *name = rnd_str(30), *fmt = rnd_str(fmt_max);

		CHECK_EQ(prec_manifest__add_tracepoint(m, sys, name, test_rand(&rng), fmt), 0);
		free(sys);
		free(name);
		free(fmt);
	}
	set_rnd(m, &m->header_page, fmt_max);
	set_rnd(m, &m->header_event, fmt_max);
	set_rnd(m, &m->printk_formats, fmt_max * 4);
	set_rnd(m, &m->saved_cmdlines, fmt_max * 2);
}

/* Random bytes as a file name: no '/', unique by its index. */
static char *shard_name(uint32_t i)
{
	char *r = rnd_str(20), *s;

	CHECK(asprintf(&s, "%s.%u", r ? r : "", i) > 0);
	for (char *c = s; *c; c++)
		if (*c == '/')
			*c = '_';
	free(r);
	return s;
}

static void fill_totals(struct prec_manifest *m, uint32_t nshards, uint32_t nbid)
{
	for (uint32_t i = 0; i < nshards; i++) {
		/* random, within what chunks can hold (manifest_check.c) */
		uint64_t chunks = test_rand(&rng) >> 8;
		uint64_t raw = chunks ? test_rand(&rng) % chunks << 8 : 0;
		uint64_t t0 = test_rand(&rng), t1 = test_rand(&rng);
		struct prec_manifest_shard s = {
			.name = shard_name(i), .cpu = (int32_t)i - 1,
			.chunks = chunks, .records = test_rand(&rng) % (raw / 8 + 1),
			.bytes = test_rand(&rng) % (raw + 1), .raw_bytes = raw,
			.lost = test_rand(&rng), .lost_samples = test_rand(&rng),
			.first_time = t0 < t1 ? t0 : t1, .last_time = t0 < t1 ? t1 : t0,
		};

		CHECK_EQ(prec_manifest__add_shard(m, &s), 0);
		free(s.name);
	}
	while (m->nr_buildids < nbid) {
		struct prec_manifest_buildid b = {
			.cpumode = (uint16_t)rnd(8), .size = (uint8_t)rnd(21),
			.pid = (int32_t)test_rand(&rng), .path = rnd_str(60),
		};

		for (size_t k = 0; k < b.size; k++)
			b.id[k] = (uint8_t)rnd(256);
		CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
		free(b.path);
	}
	/* half the manifests have the BUILDID_DROPS section */
	m->buildids_dropped = rnd(2) ? (uint32_t)rnd(100000) : 0;
	if (rnd(2))
		m->kcore = (struct prec_manifest_kcore){ .segments = 1 + (uint32_t)rnd(3),
							 .bytes = rnd(1u << 30) };
	/* half of them a -z recording's */
	m->zstd_level = rnd(2) ? 1 + (uint32_t)rnd(PREC_MANIFEST_ZSTD_LEVEL_MAX) : 0;
	m->nr_auxtrace_priv = (uint32_t)rnd(30);
	m->auxtrace_priv = calloc(m->nr_auxtrace_priv + 1, sizeof(uint64_t));
	CHECK(m->auxtrace_priv);
	for (uint32_t i = 0; i < m->nr_auxtrace_priv; i++)
		m->auxtrace_priv[i] = test_rand(&rng);
}

struct prec_manifest *test_manifest_big(void)
{
	struct prec_manifest *m = prec_manifest__new();

	CHECK(m);
	fill_host(m);
	fill_recording(m, 40);
	fill_events(m, 6, 600);
	fill_tracing(m, 24, 6000);
	fill_totals(m, 300, 1000);
	return m;
}

struct prec_manifest *test_manifest_small(void)
{
	struct prec_manifest *m = prec_manifest__new();

	CHECK(m);
	fill_host(m);
	/* fewer CPUs than fill_host() made room for, never more */
	if (m->nr_cpus_avail > 4)
		m->nr_cpus_avail = m->nr_cpus_avail % 4 + 1;
	fill_recording(m, 3);
	fill_events(m, 2, 3);
	fill_tracing(m, 2, 40);
	fill_totals(m, 3, 3);
	return m;
}

static void check_str(const char *a, const char *b)
{
	CHECK((a == NULL) == (b == NULL));
	if (a)
		CHECK(strcmp(a, b) == 0);
}

static void check_host_eq(const struct prec_manifest *a, const struct prec_manifest *b)
{
	CHECK_EQ(a->state, b->state);
	CHECK(!memcmp(a->session_id, b->session_id, sizeof(a->session_id)));
	check_str(a->hostname, b->hostname);
	check_str(a->os_release, b->os_release);
	check_str(a->arch, b->arch);
	check_str(a->cpu_desc, b->cpu_desc);
	check_str(a->cpu_id, b->cpu_id);
	check_str(a->version, b->version);
	CHECK_EQ(a->nr_cpus_avail, b->nr_cpus_avail);
	CHECK_EQ(a->nr_cpus_online, b->nr_cpus_online);
	CHECK(a->total_mem_kb == b->total_mem_kb);
	CHECK((a->cpus == NULL) == (b->cpus == NULL));
	if (a->cpus)
		CHECK(!memcmp(a->cpus, b->cpus, a->nr_cpus_avail * sizeof(*a->cpus)));
	CHECK_EQ(a->nr_numa_nodes, b->nr_numa_nodes);
	CHECK(!a->nr_numa_nodes || a->mem_block_bytes == b->mem_block_bytes);
	for (uint32_t i = 0; i < a->nr_numa_nodes; i++) {
		const struct prec_manifest_numa_node *x = &a->numa_nodes[i], *y = &b->numa_nodes[i];

		CHECK(x->node == y->node && x->mem_total_kb == y->mem_total_kb &&
		      x->mem_free_kb == y->mem_free_kb);
		check_str(x->cpus, y->cpus);
		check_str(x->mem_blocks, y->mem_blocks);
	}
	CHECK_EQ(a->nr_pmus, b->nr_pmus);
	for (uint32_t i = 0; i < a->nr_pmus; i++) {
		const struct prec_manifest_pmu *x = &a->pmus[i], *y = &b->pmus[i];

		CHECK_EQ(x->type, y->type);
		check_str(x->name, y->name);
		CHECK_EQ(x->nr_caps, y->nr_caps);
		for (uint32_t k = 0; k < x->nr_caps; k++) {
			check_str(x->caps[k].name, y->caps[k].name);
			check_str(x->caps[k].value, y->caps[k].value);
		}
	}
	CHECK_EQ(a->nr_caches, b->nr_caches);
	for (uint32_t i = 0; i < a->nr_caches; i++) {
		const struct prec_manifest_cache *x = &a->caches[i], *y = &b->caches[i];

		CHECK(x->level == y->level && x->line_size == y->line_size &&
		      x->sets == y->sets && x->ways == y->ways);
		check_str(x->type, y->type);
		check_str(x->size, y->size);
		check_str(x->map, y->map);
	}
	CHECK(a->nr_bpf_progs == b->nr_bpf_progs && a->nr_btfs == b->nr_btfs);
	for (uint32_t i = 0; i < a->nr_bpf_progs; i++)
		CHECK(a->bpf_progs[i].len == b->bpf_progs[i].len &&
		      !memcmp(a->bpf_progs[i].rec, b->bpf_progs[i].rec, a->bpf_progs[i].len));
	for (uint32_t i = 0; i < a->nr_btfs; i++)
		CHECK(a->btfs[i].id == b->btfs[i].id && a->btfs[i].size == b->btfs[i].size &&
		      !memcmp(a->btfs[i].data, b->btfs[i].data, a->btfs[i].size));
	CHECK_EQ(a->argc, b->argc);
	for (uint32_t i = 0; i < a->argc; i++)
		check_str(a->argv[i], b->argv[i]);
	CHECK(!a->argc || (a->argv[a->argc] == NULL && b->argv[b->argc] == NULL));
	CHECK_EQ(a->clockid, b->clockid);
	CHECK(a->clock_res_ns == b->clock_res_ns && a->ref_wall_ns == b->ref_wall_ns);
	CHECK(a->ref_clock_ns == b->ref_clock_ns && a->start_time == b->start_time);
	CHECK(a->stop_time == b->stop_time && a->sample_type == b->sample_type);
	CHECK_EQ(a->time_layout.sample_time_off, b->time_layout.sample_time_off);
	CHECK_EQ(a->time_layout.trailer_time_back, b->time_layout.trailer_time_back);
}

static void check_events_eq(const struct prec_manifest *a, const struct prec_manifest *b)
{
	CHECK_EQ(a->nr_events, b->nr_events);
	for (uint32_t i = 0; i < a->nr_events; i++) {
		const struct prec_manifest_event *x = &a->events[i], *y = &b->events[i];

		CHECK(!memcmp(x->attr, y->attr, sizeof(x->attr)));
		check_str(x->name, y->name);
		CHECK_EQ(x->nr_ids, y->nr_ids);
		CHECK_EQ(x->leader1, y->leader1);
		for (uint32_t j = 0; j < x->nr_ids; j++) {
			CHECK(x->ids[j] == y->ids[j]);
			CHECK_EQ(x->id_cpus[j], y->id_cpus[j]);
			CHECK_EQ(x->id_tids[j], y->id_tids[j]);
			CHECK((x->id_lost ? x->id_lost[j] : 0) == (y->id_lost ? y->id_lost[j] : 0));
		}
	}
	CHECK_EQ(a->nr_tracepoints, b->nr_tracepoints);
	for (uint32_t i = 0; i < a->nr_tracepoints; i++) {
		CHECK(a->tracepoints[i].id == b->tracepoints[i].id);
		check_str(a->tracepoints[i].system, b->tracepoints[i].system);
		check_str(a->tracepoints[i].name, b->tracepoints[i].name);
		check_str(a->tracepoints[i].format, b->tracepoints[i].format);
	}
	check_str(a->header_page, b->header_page);
	check_str(a->header_event, b->header_event);
	check_str(a->printk_formats, b->printk_formats);
	check_str(a->saved_cmdlines, b->saved_cmdlines);
}

static void check_totals_eq(const struct prec_manifest *a, const struct prec_manifest *b)
{
	CHECK_EQ(a->nr_shards, b->nr_shards);
	for (uint32_t i = 0; i < a->nr_shards; i++) {
		const struct prec_manifest_shard *x = &a->shards[i], *y = &b->shards[i];

		check_str(x->name, y->name);
		CHECK_EQ(x->cpu, y->cpu);
		CHECK(x->chunks == y->chunks && x->records == y->records);
		CHECK(x->bytes == y->bytes && x->raw_bytes == y->raw_bytes);
		CHECK(x->lost == y->lost && x->lost_samples == y->lost_samples);
		CHECK(x->first_time == y->first_time && x->last_time == y->last_time);
	}
	CHECK_EQ(a->nr_buildids, b->nr_buildids);
	CHECK_EQ(a->buildids_unread, b->buildids_unread);
	CHECK_EQ(a->buildids_dropped, b->buildids_dropped);
	CHECK_EQ(a->kcore.segments, b->kcore.segments);
	CHECK_EQ(a->kcore.bytes, b->kcore.bytes);
	CHECK_EQ(a->zstd_level, b->zstd_level);
	for (uint32_t i = 0; i < a->nr_buildids; i++) {
		const struct prec_manifest_buildid *x = &a->buildids[i], *y = &b->buildids[i];

		CHECK_EQ(x->cpumode, y->cpumode);
		CHECK_EQ(x->size, y->size);
		CHECK_EQ(x->pid, y->pid);
		CHECK(!memcmp(x->id, y->id, sizeof(x->id)));
		check_str(x->path, y->path);
	}
	CHECK_EQ(a->auxtrace_type, b->auxtrace_type);
	CHECK_EQ(a->nr_auxtrace_priv, b->nr_auxtrace_priv);
	for (uint32_t i = 0; i < a->nr_auxtrace_priv; i++)
		CHECK(a->auxtrace_priv[i] == b->auxtrace_priv[i]);
}

void test_manifest_check_eq(const struct prec_manifest *a, const struct prec_manifest *b)
{
	check_host_eq(a, b);
	check_events_eq(a, b);
	check_totals_eq(a, b);
}
