// SPDX-License-Identifier: MIT
// Test/bench helper: writes a synthetic recording directory (complete
// manifest, cpuNNN.shard files of nearly sorted SAMPLE records with honest
// watermarks, a sideband.shard of time-0 COMM records), seeded, any size;
// --chunk-bytes over 64 KiB writes the chunks of format 1.0's first writers;
// --buildid and --map write a build-id table (a hostile one, for prec
// archive), --map with the side band's MMAP2 records that every sample hits;
// --kcore: the manifest's KCORE section (the caller makes kcore_dir).
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "../lib/test.h"

struct cfg {
	const char *dir;
	unsigned int shards;
	uint64_t records;     /* per shard */
	uint64_t total_bytes; /* alternative to records */
	uint64_t seed;
	uint64_t max_skew;    /* ns a record may be stamped before its turn */
	uint64_t start_jitter; /* a shard's first time is up to this much late */
	uint32_t size_min, size_max;
	uint64_t rate;        /* records per second per shard */
	uint32_t chunk_bytes; /* 0: random per chunk, up to the maximum */
	unsigned int sideband;
	uint32_t comm_every;  /* 0, or every Kth CPU shard record is a COMM */
	uint32_t events;      /* --events: how many (1 unless said) */
	bool lz4;
	bool kcore;           /* --kcore: the KCORE section, 1 segment */
	const char *text;     /* --text: the manifest's free-text strings */
	uint64_t sample_type;
	/* --buildid / --map HEX:PATH, in order; the first nr_maps are mapped */
	struct { const char *path; uint8_t id[20], size; bool mapped; } bids[64];
	unsigned int nr_bids, nr_maps;
	struct prec_time_layout tl;
	uint8_t session[16];
};

struct gen {
	const struct cfg *cfg;
	int cpu;
	uint64_t rng;
	uint64_t nominal;   /* time the next record would be published */
	uint8_t *buf;
	uint32_t len, records, limit;
	uint64_t first, last, wm;
	/* chunks over PREC_CHUNK_MAX_PAYLOAD, which the writer refuses, are
	 * appended to fd by hand, counted here */
	int fd;
	uint32_t seq;
	struct prec_shard_writer_stats st;
};

#define EVENT_ID_BASE 1000u

static uint64_t rnd(struct gen *g, uint64_t n)
{
	return n ? test_rand(&g->rng) % n : 0;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* SAMPLE: IDENTIFIER, IP, TID, TIME, CPU, PERIOD, [CALLCHAIN]. */
static uint32_t make_sample(struct gen *g, uint8_t *p, uint64_t time)
{
	const struct cfg *c = g->cfg;
	uint32_t size = c->size_min + (uint32_t)rnd(g, c->size_max - c->size_min + 1);
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	uint32_t pid = 100 + (uint32_t)rnd(g, 50);

	size &= ~7u;
	if (size < c->size_min)
		size = c->size_min;
	h.size = (uint16_t)size;
	memcpy(p, &h, 8);
	put64(p + 8, EVENT_ID_BASE + (uint64_t)g->cpu);
	put64(p + 16, 0x400000 + rnd(g, 0x100000));
	put64(p + 24, (uint64_t)pid << 32 | pid);
	put64(p + 32, time);
	put64(p + 40, (uint64_t)g->cpu);
	put64(p + 48, 250000);
	if (c->sample_type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = (size - 64) / 8;

		put64(p + 56, nr);
		for (uint64_t i = 0; i < nr; i++)
			put64(p + 64 + 8 * i, i ? 0x400000 + rnd(g, 0x100000)
						: (uint64_t)PERF_CONTEXT_USER);
	}
	return size;
}

/* A chunk as the first writers framed it, up to PREC_CHUNK_READ_MAX raw;
 * lz4 when asked and smaller, as the writer does. */
static int old_append(struct gen *g, const struct prec_chunk_meta *m,
		      const uint8_t *raw, uint32_t len)
{
	static uint8_t out[64 + LZ4_COMPRESSBOUND(PREC_CHUNK_READ_MAX)];
	struct prec_chunk_header h = {
		.magic = htole32(PREC_CHUNK_MAGIC), .type = (uint8_t)m->type,
		.header_size = htole16(64), .raw_len = htole32(len),
		.records = htole32(m->records), .seq = htole32(g->seq++),
		.first_time = htole64(m->first_time), .last_time = htole64(m->last_time),
		.watermark = htole64(m->watermark),
	};
	int z = 0;

	if (g->cfg->lz4 && len)
		z = LZ4_compress_default((const char *)raw, (char *)out + 64, (int)len,
					 LZ4_COMPRESSBOUND(PREC_CHUNK_READ_MAX));
	if (z > 0 && (uint32_t)z < len) {
		h.codec = PREC_CODEC_LZ4;
	} else {
		z = (int)len;
		if (len)
			memcpy(out + 64, raw, len);
	}
	h.payload_len = htole32((uint32_t)z);
	memcpy(out, &h, 64);
	h.checksum = htole32(prec_crc32c(prec_crc32c(0, out, 64), out + 64, (size_t)z));
	memcpy(out, &h, 64);
	if (write(g->fd, out, 64 + (size_t)z) != 64 + z)
		return -EIO;
	g->st.chunks++;
	g->st.records += m->records;
	g->st.payload_bytes += (uint64_t)z;
	g->st.raw_bytes += len;
	if (m->first_time && (!g->st.first_time || m->first_time < g->st.first_time))
		g->st.first_time = m->first_time;
	if (m->last_time > g->st.last_time)
		g->st.last_time = m->last_time;
	return 0;
}

static int append(struct gen *g, struct prec_shard_writer *w,
		  const struct prec_chunk_meta *m, const uint8_t *raw, uint32_t len)
{
	struct iovec iov = { (void *)raw, len };
	int64_t t;

	if (g->fd >= 0)
		return old_append(g, m, raw, len);
	t = prec_shard_writer__append(w, m, len ? &iov : NULL, len ? 1 : 0);
	return t < 0 ? (int)t : 0;
}

static int flush_chunk(struct gen *g, struct prec_shard_writer *w)
{
	struct prec_chunk_meta meta = {
		.type = PREC_CHUNK_DATA, .records = g->records,
		.first_time = g->first, .last_time = g->last, .watermark = g->wm,
	};
	int t;

	if (!g->records)
		return 0;
	t = append(g, w, &meta, g->buf, g->len);
	g->len = g->records = 0;
	g->first = g->last = 0;
	if (g->cfg->chunk_bytes)
		g->limit = g->cfg->chunk_bytes;
	else
		g->limit = PREC_CHUNK_MAX_PAYLOAD / 8 + (uint32_t)rnd(g, PREC_CHUNK_MAX_PAYLOAD * 7 / 8);
	return t;
}

/* A COMM a CPU ring would write (sample_id_all: TID, TIME, CPU and
 * IDENTIFIER in the trailer), stamped at time. */
static uint32_t make_comm(struct gen *g, uint8_t *p, uint64_t time)
{
	uint32_t trailer = 8u + g->cfg->tl.trailer_time_back;
	uint32_t size = 8 + 8 + 16 + trailer;
	struct perf_event_header h = { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC,
				       (uint16_t)size };
	uint32_t pid = 100 + (uint32_t)rnd(g, 50);

	memset(p, 0, size);
	memcpy(p, &h, 8);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &pid, 4);
	snprintf((char *)p + 16, 16, "exec-%u", pid);
	put64(p + size - trailer, (uint64_t)pid << 32 | pid);
	put64(p + size - g->cfg->tl.trailer_time_back, time);
	put64(p + size - 16, (uint64_t)g->cpu);
	put64(p + size - 8, EVENT_ID_BASE + (uint64_t)g->cpu);
	return size;
}

/* Every few chunks an idle-round marker, like a recorder's. */
static int marker(struct gen *g, struct prec_shard_writer *w)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_MARKER, .watermark = g->wm };

	return append(g, w, &meta, NULL, 0);
}

/* Times: nominal publication times grow by ~1/rate; a record is stamped up
 * to max_skew before its nominal time, and a chunk's watermark is the
 * nominal time of its last record, so every later record has
 * time >= watermark - max_skew >= watermark - PREC_WATERMARK_SLACK_NS. */
static int gen_shard(struct gen *g, struct prec_shard_writer *w)
{
	const struct cfg *c = g->cfg;
	uint64_t gap = 1000000000ull / (c->rate ? c->rate : 1);
	int r = 0;

	for (uint64_t k = 0; k < c->records && !r; k++) {
		uint64_t t;
		uint32_t size;

		g->nominal += gap / 2 + rnd(g, gap + 1);
		t = g->nominal - rnd(g, c->max_skew + 1);
		if (g->len + c->size_max > g->limit) {
			r = flush_chunk(g, w);
			if (!r && rnd(g, 16) == 0)
				r = marker(g, w);
		}
		if (c->comm_every && k % c->comm_every == c->comm_every - 1)
			size = make_comm(g, g->buf + g->len, t);
		else
			size = make_sample(g, g->buf + g->len, t);
		g->len += size;
		g->records++;
		if (!g->first || t < g->first)
			g->first = t;
		if (t > g->last)
			g->last = t;
		g->wm = g->nominal;
	}
	if (!r)
		r = flush_chunk(g, w);
	return r;
}

/* MMAP2 records (time 0, as synthesized) of each --map file in every
 * sampled task (pids 100..149): the files split the samples' IP range
 * [0x400000, 0x500000) between them, so each is hit. Returns the bytes. */
static uint32_t make_maps(struct gen *g, uint8_t *p, uint32_t *records)
{
	const struct cfg *c = g->cfg;
	uint32_t trailer = 8u + c->tl.trailer_time_back, len = 0;
	uint64_t span = c->nr_maps ? 0x100000 / c->nr_maps : 0;

	for (unsigned int k = 0; k < c->nr_bids; k++) {
		size_t name = (strlen(c->bids[k].path) + 8) & ~(size_t)7;
		uint32_t size = (uint32_t)(8 + 64 + name) + trailer;

		if (!c->bids[k].mapped)
			continue;
		for (uint32_t pid = 100; pid < 150; pid++, len += size, (*records)++) {
			struct perf_event_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
						       (uint16_t)size };
			uint8_t *r = p + len;

			memset(r, 0, size);
			memcpy(r, &h, 8);
			memcpy(r + 8, &pid, 4);
			memcpy(r + 12, &pid, 4);
			put64(r + 16, 0x400000 + k * span);
			put64(r + 24, span);
			put64(r + 64, 5); /* prot: read, exec */
			memcpy(r + 72, c->bids[k].path, strlen(c->bids[k].path));
			put64(r + size - trailer, (uint64_t)pid << 32 | pid);
			put64(r + size - 8, EVENT_ID_BASE);
		}
	}
	return len;
}

/* COMM records with a zeroed sample_id trailer (time 0), as synthesized
 * for processes that existed before the recording. */
static int gen_sideband(struct gen *g, struct prec_shard_writer *w)
{
	const struct cfg *c = g->cfg;
	uint32_t trailer = 8u + c->tl.trailer_time_back;
	uint32_t size = 8 + 8 + 16 + trailer;
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA };
	uint32_t len = 0;

	for (unsigned int i = 0; i < c->sideband; i++) {
		struct perf_event_header h = { PERF_RECORD_COMM, 0, (uint16_t)size };
		uint8_t *p = g->buf + len;
		uint32_t pid = 100 + i;

		memset(p, 0, size);
		memcpy(p, &h, 8);
		memcpy(p + 8, &pid, 4);
		memcpy(p + 12, &pid, 4);
		snprintf((char *)p + 16, 16, "task-%u", i);
		put64(p + size - 8, EVENT_ID_BASE);
		len += size;
		meta.records++;
	}
	len += make_maps(g, g->buf + len, &meta.records);
	if (!meta.records)
		return 0;
	return append(g, w, &meta, g->buf, len);
}

static int write_shard(const struct cfg *c, int dirfd, int cpu,
		       struct prec_manifest *m, uint8_t *buf)
{
	struct prec_shard_writer_opts o = { .cpu = cpu, .copy = true,
		.codec = c->lz4 ? PREC_CODEC_LZ4 : PREC_CODEC_NONE };
	struct gen g = { .cfg = c, .cpu = cpu, .buf = buf,
		.rng = c->seed * 0x9E3779B97F4A7C15ull + (uint64_t)cpu + 2,
		.limit = c->chunk_bytes ? c->chunk_bytes : PREC_CHUNK_MAX_PAYLOAD,
		.fd = -1 };
	struct prec_shard_writer_stats st;
	struct prec_shard_writer *w;
	char name[32];
	int r, r2;

	memcpy(o.session_id, c->session, 16);
	g.nominal = 1000000000ull + rnd(&g, c->start_jitter);
	if (cpu < 0)
		snprintf(name, sizeof(name), "%s", PREC_SHARD_SIDEBAND_NAME);
	else
		snprintf(name, sizeof(name), "cpu%03d.shard", cpu);
	r = prec_shard_writer__open(&w, dirfd, name, &o);
	if (r < 0) {
		fprintf(stderr, "mkshards: %s: open: %s\n", name, strerror(-r));
		return r;
	}
	if (c->chunk_bytes > PREC_CHUNK_MAX_PAYLOAD) {
		/* the writer puts the shard header, the chunks go by hand */
		r = prec_shard_writer__close(w);
		w = NULL;
		g.fd = r ? -1 : openat(dirfd, name, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (!r && g.fd < 0)
			r = -errno;
	}
	if (!r)
		r = cpu < 0 ? gen_sideband(&g, w) : gen_shard(&g, w);
	if (!r && w)
		r = prec_shard_writer__flush(w);
	st = g.st;
	if (w)
		prec_shard_writer__stats(w, &st);
	r2 = w ? prec_shard_writer__close(w) : (g.fd >= 0 ? close(g.fd) : 0);
	if (!r)
		r = r2;
	if (r < 0) {
		fprintf(stderr, "mkshards: %s: write: %s\n", name, strerror(-r));
		return r;
	}
	struct prec_manifest_shard ms = {
		.name = name, .cpu = cpu, .chunks = st.chunks, .records = st.records,
		.bytes = st.payload_bytes, .raw_bytes = st.raw_bytes,
		.first_time = st.first_time, .last_time = st.last_time,
	};
	return prec_manifest__add_shard(m, &ms);
}

/* What a reader prints as text, all set to s (bytes a terminal acts on,
 * for prec info's escaping). */
static int set_text(struct prec_manifest *m, const char *s)
{
	char *argv[] = { (char *)"prec", (char *)"record", (char *)s };
	int r = prec_manifest__set_str(m, &m->hostname, s);

	if (!r)
		r = prec_manifest__set_str(m, &m->cpu_desc, s);
	if (!r)
		r = prec_manifest__set_str(m, &m->os_release, s);
	if (!r)
		r = prec_manifest__set_argv(m, 3, argv);
	return r;
}

static int fill_manifest(const struct cfg *c, struct prec_manifest *m)
{
	struct perf_event_attr attr;
	uint8_t a128[128] = { 0 };
	char host[64];
	int ev, r;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 250000;
	attr.sample_type = c->sample_type;
	attr.sample_id_all = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.size = 128;
	memcpy(a128, &attr, sizeof(attr) < 128 ? sizeof(attr) : 128);
	m->state = PREC_STATE_COMPLETE;
	memcpy(m->session_id, c->session, 16);
	m->sample_type = c->sample_type;
	m->time_layout = c->tl;
	m->clockid = CLOCK_MONOTONIC;
	m->clock_res_ns = 1;
	m->nr_cpus_avail = m->nr_cpus_online = c->shards;
	m->start_time = 1000000000ull;
	snprintf(host, sizeof(host), "mkshards-%llu", (unsigned long long)c->seed);
	r = prec_manifest__set_str(m, &m->hostname, host);
	if (!r)
		r = prec_manifest__set_str(m, &m->arch, "x86_64");
	if (!r)
		r = prec_manifest__set_str(m, &m->version, "mkshards");
	if (!r && c->text)
		r = set_text(m, c->text);
	if (c->kcore)
		m->kcore = (struct prec_manifest_kcore){ .segments = 1, .bytes = 8192 };
	ev = r ? r : prec_manifest__add_event(m, a128, c->text ? c->text : "cpu-clock");
	if (ev < 0)
		return ev;
	for (unsigned int i = 0; i < c->shards && !r; i++)
		r = prec_manifest__add_event_id(m, (uint32_t)ev, EVENT_ID_BASE + i,
						(int32_t)i, -1);
	/* --events N: N - 1 more events, each with one id no record has */
	for (uint32_t k = 1; k < c->events && !r; k++) {
		int e = prec_manifest__add_event(m, a128, "cpu-clock");

		r = e < 0 ? e : prec_manifest__add_event_id(m, (uint32_t)e, EVENT_ID_BASE + c->shards + k,
							    0, -1);
	}
	for (unsigned int k = 0; k < c->nr_bids && !r; k++) {
		struct prec_manifest_buildid b = {
			.cpumode = PERF_RECORD_MISC_USER, .size = c->bids[k].size,
			.pid = -1, .path = (char *)c->bids[k].path,
		};

		memcpy(b.id, c->bids[k].id, sizeof(b.id));
		r = prec_manifest__add_buildid(m, &b);
	}
	return r;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': return v << 30;
	case 'M': case 'm': return v << 20;
	case 'K': case 'k': return v << 10;
	default: return v;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mkshards OUTDIR --shards N (--records-per-shard M | --total-bytes SIZE)\n"
		"       [--seed S] [--max-skew NS] [--record-size A-B] [--rate R]\n"
		"       [--chunk-bytes B] [--sideband K] [--comm-every K] [--lz4] [--text S]\n"
		"       [--start-jitter NS] [--map HEX:PATH]... [--buildid HEX:PATH]... [--kcore]\n"
		"       [--events N]\n"
		"  --map HEX:PATH: PATH of build-id HEX in the table, mapped by every task\n"
		"    (MMAP2 in the side band) where the samples hit it\n"
		"  --buildid HEX:PATH: in the table only, never mapped\n"
		"  --comm-every K: every Kth record of a CPU shard is a COMM (timed, sample_id_all)\n"
		"  --start-jitter NS: shards start up to NS apart (default 1 ms; 0: together)\n"
		"  --chunk-bytes over 64K (up to 256K): chunks as format 1.0's first writers made\n");
}

/* HEX:PATH into c->bids; mapped files first in the split of the IPs. */
static int add_bid(struct cfg *c, const char *arg, bool mapped)
{
	const char *colon = strchr(arg, ':');
	size_t hex = colon ? (size_t)(colon - arg) : 0;

	/* the side band's one chunk holds 50 MMAP2 of each mapped file */
	if (!hex || hex % 2 || hex > 40 || c->nr_bids == 64 || strlen(colon + 1) > 4000 ||
	    (mapped && (c->nr_maps == 4 || strlen(colon + 1) > 200)))
		return -EINVAL;
	for (size_t i = 0; i < hex / 2; i++) {
		unsigned int v;

		if (sscanf(arg + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		c->bids[c->nr_bids].id[i] = (uint8_t)v;
	}
	c->bids[c->nr_bids].size = (uint8_t)(hex / 2);
	c->bids[c->nr_bids].path = colon + 1;
	c->bids[c->nr_bids++].mapped = mapped;
	c->nr_maps += mapped;
	return 0;
}

static int parse(struct cfg *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "shards", required_argument, NULL, 'n' },
		{ "records-per-shard", required_argument, NULL, 'm' },
		{ "total-bytes", required_argument, NULL, 'T' },
		{ "seed", required_argument, NULL, 's' },
		{ "max-skew", required_argument, NULL, 'k' },
		{ "start-jitter", required_argument, NULL, 'j' },
		{ "record-size", required_argument, NULL, 'z' },
		{ "rate", required_argument, NULL, 'r' },
		{ "chunk-bytes", required_argument, NULL, 'c' },
		{ "sideband", required_argument, NULL, 'b' },
		{ "comm-every", required_argument, NULL, 'e' },
		{ "lz4", no_argument, NULL, 'l' },
		{ "text", required_argument, NULL, 'x' },
		{ "map", required_argument, NULL, 'M' },
		{ "buildid", required_argument, NULL, 'B' },
		{ "kcore", no_argument, NULL, 'K' },
		{ "events", required_argument, NULL, 'E' },
		{ 0 }
	};
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n': c->shards = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'm': c->records = strtoull(optarg, NULL, 0); break;
		case 'T': c->total_bytes = parse_size(optarg); break;
		case 's': c->seed = strtoull(optarg, NULL, 0); break;
		case 'k': c->max_skew = strtoull(optarg, NULL, 0); break;
		case 'j': c->start_jitter = strtoull(optarg, NULL, 0); break;
		case 'z':
			if (sscanf(optarg, "%u-%u", &c->size_min, &c->size_max) != 2)
				return -EINVAL;
			break;
		case 'r': c->rate = strtoull(optarg, NULL, 0); break;
		case 'c': c->chunk_bytes = (uint32_t)parse_size(optarg); break;
		case 'b': c->sideband = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'e': c->comm_every = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'l': c->lz4 = true; break;
		case 'K': c->kcore = true; break;
		case 'E': c->events = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'x': c->text = optarg; break;
		case 'M': case 'B':
			if (add_bid(c, optarg, o == 'M') < 0)
				return -EINVAL;
			break;
		default: return -EINVAL;
		}
	}
	if (optind != argc - 1)
		return -EINVAL;
	c->dir = argv[optind];
	return 0;
}

/* Sizes must be multiples of 8 holding the fixed SAMPLE fields; a range
 * above 56 bytes needs CALLCHAIN so that perf could parse the extra bytes. */
static int settle(struct cfg *c)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	uint64_t rng = c->seed ? c->seed : 1;

	c->size_min = (c->size_min + 7) & ~7u;
	c->size_max &= ~7u;
	if (c->size_max > 56) {
		st |= PERF_SAMPLE_CALLCHAIN;
		if (c->size_min < 64)
			c->size_min = 64;
	} else {
		c->size_min = c->size_max = 56;
	}
	if (c->size_max > 8192 || c->size_min > c->size_max || !c->shards ||
	    c->chunk_bytes > PREC_CHUNK_READ_MAX ||
	    c->shards > 4096 || c->sideband > 1000)
		return -EINVAL;
	if (c->max_skew > PREC_WATERMARK_SLACK_NS)
		c->max_skew = PREC_WATERMARK_SLACK_NS;
	if (c->total_bytes)
		c->records = c->total_bytes / c->shards / ((c->size_min + c->size_max) / 2);
	c->sample_type = st;
	for (int i = 0; i < 16; i++)
		c->session[i] = (uint8_t)test_rand(&rng);
	return prec_time_layout__init(&c->tl, st);
}

int main(int argc, char **argv)
{
	struct cfg c = { .seed = 1, .max_skew = 20000, .start_jitter = 1000000, .size_min = 56,
			 .size_max = 256, .rate = 100000, .sideband = 4 };
	struct prec_manifest *m = NULL;
	uint8_t *buf = malloc(PREC_CHUNK_READ_MAX);
	int dirfd = -1, r;

	if (parse(&c, argc, argv) < 0 || settle(&c) < 0) {
		usage();
		return 2;
	}
	if (mkdir(c.dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "mkshards: %s: %s\n", c.dir, strerror(errno));
		return 1;
	}
	dirfd = open(c.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	m = prec_manifest__new();
	r = (dirfd < 0 || !m || !buf) ? -ENOMEM : fill_manifest(&c, m);
	if (!r && (c.sideband || c.nr_maps))
		r = write_shard(&c, dirfd, PREC_SIDEBAND_CPU, m, buf);
	for (unsigned int i = 0; i < c.shards && !r; i++)
		r = write_shard(&c, dirfd, (int)i, m, buf);
	if (!r) {
		m->stop_time = 0;
		for (uint32_t i = 0; i < m->nr_shards; i++)
			if (m->shards[i].last_time > m->stop_time)
				m->stop_time = m->shards[i].last_time;
		r = prec_manifest__write(m, dirfd);
	}
	if (r < 0)
		fprintf(stderr, "mkshards: %s: %s\n", c.dir, strerror(-r));
	prec_manifest__delete(m);
	if (dirfd >= 0)
		close(dirfd);
	free(buf);
	return r < 0 ? 1 : 0;
}
