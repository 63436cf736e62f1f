// SPDX-License-Identifier: MIT
// Manifest tests: byte-exact round trips of a fully populated manifest, the
// atomic file replace, and rejection of truncated, flipped, lying and
// future-version inputs (docs/manifest-format.md is the layout checked here).
#include "store/store.h"
#include "store/manifest_format.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR 32u
#define CRC_OFF 28u
#define ATTR_ST_OFF offsetof(struct perf_event_attr, sample_type)

static uint64_t rng;

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
static void make_valid(struct prec_manifest *m)
{
	uint8_t attr[128] = { 0 };

	m->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	CHECK_EQ(prec_time_layout__init(&m->time_layout, m->sample_type), 0);
	le64(attr + ATTR_ST_OFF, m->sample_type);
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
		le64(attr + ATTR_ST_OFF, m->sample_type |
		     (test_rand(&rng) & (PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN)));
		CHECK_EQ(prec_manifest__add_event(m, attr, name), (int)i);
		free(name);
		for (uint32_t j = 0; j < nids; j++)
			CHECK_EQ(prec_manifest__add_event_id(m, i, test_rand(&rng),
							     (int32_t)rnd(64) - 1,
							     (int32_t)test_rand(&rng)), 0);
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
		struct prec_manifest_shard s = {
			.name = shard_name(i), .cpu = (int32_t)i - 1,
			.chunks = test_rand(&rng), .records = test_rand(&rng),
			.bytes = test_rand(&rng), .raw_bytes = test_rand(&rng),
			.lost = test_rand(&rng), .lost_samples = test_rand(&rng),
			.first_time = test_rand(&rng), .last_time = test_rand(&rng),
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
	m->nr_auxtrace_priv = (uint32_t)rnd(30);
	m->auxtrace_priv = calloc(m->nr_auxtrace_priv + 1, sizeof(uint64_t));
	CHECK(m->auxtrace_priv);
	for (uint32_t i = 0; i < m->nr_auxtrace_priv; i++)
		m->auxtrace_priv[i] = test_rand(&rng);
}

static struct prec_manifest *make_big(void)
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

static struct prec_manifest *make_small(void)
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
		for (uint32_t j = 0; j < x->nr_ids; j++) {
			CHECK(x->ids[j] == y->ids[j]);
			CHECK_EQ(x->id_cpus[j], y->id_cpus[j]);
			CHECK_EQ(x->id_tids[j], y->id_tids[j]);
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

static void check_eq(const struct prec_manifest *a, const struct prec_manifest *b)
{
	check_host_eq(a, b);
	check_events_eq(a, b);
	check_totals_eq(a, b);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Recompute the checksum the way docs/manifest-format.md says. */
static void fix_crc(uint8_t *p, size_t len)
{
	put_le32(p + CRC_OFF, 0);
	put_le32(p + CRC_OFF, prec_crc32c(0, p, len));
}

/* Offset of the payload of the section with this tag, or 0. */
static size_t find_section(const uint8_t *p, size_t len, uint32_t tag)
{
	for (size_t off = HDR; off + 16 <= len;) {
		uint64_t l = get_le(p + off + 8, 8);

		if (get_le(p + off, 4) == tag)
			return off + 16;
		off += 16 + ((l + 7) & ~7ull);
	}
	return 0;
}

static void encode(const struct prec_manifest *m, uint8_t **buf, size_t *len)
{
	void *b;

	CHECK_EQ(prec_manifest__encode(m, &b, len), 0);
	*buf = b;
}

/* decode(buf) must equal m and re-encode to the same bytes. */
static void check_roundtrip(const struct prec_manifest *m, const uint8_t *buf, size_t len)
{
	struct prec_manifest *d;
	const char *why = "unset";
	uint8_t *again;
	size_t len2;

	if (prec_manifest__decode(&d, buf, len, &why) != 0) {
		fprintf(stderr, "decode failed: %s\n", why);
		CHECK(0);
	}
	CHECK(why == NULL);
	check_eq(m, d);
	encode(d, &again, &len2);
	CHECK_EQ(len2, len);
	CHECK(!memcmp(again, buf, len));
	free(again);
	prec_manifest__delete(d);
}

static int decode_err(const uint8_t *buf, size_t len, const char **why)
{
	struct prec_manifest *d = (void *)1;
	int err = prec_manifest__decode(&d, buf, len, why);

	if (err)
		CHECK(d == NULL && *why != NULL);
	else
		prec_manifest__delete(d);
	return err;
}

static void test_truncation(const uint8_t *buf, size_t len, bool copy)
{
	const char *why;

	for (size_t n = 0; n < len; n++) {
		uint8_t *p = (uint8_t *)buf;

		/* Exact-size copies let ASan see any read past the end. */
		if (copy) {
			p = malloc(n ? n : 1);
			CHECK(p);
			memcpy(p, buf, n);
		}
		CHECK_EQ(decode_err(p, n, &why), -EBADMSG);
		if (copy)
			free(p);
	}
}

static void test_flips(const uint8_t *buf, size_t len, size_t stride)
{
	uint8_t *p = malloc(len);
	const char *why;

	CHECK(p);
	memcpy(p, buf, len);
	for (size_t i = 0; i < len; i += stride) {
		for (int bit = 0; bit < 8; bit++) {
			p[i] ^= (uint8_t)(1u << bit);
			CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
			p[i] ^= (uint8_t)(1u << bit);
		}
	}
	free(p);
}

static void test_major(const uint8_t *buf, size_t len)
{
	uint8_t *p = malloc(len);
	const char *why;

	CHECK(p);
	memcpy(p, buf, len);
	p[8] = PREC_FORMAT_MAJOR + 1;
	fix_crc(p, len);
	CHECK_EQ(decode_err(p, len, &why), -EPROTONOSUPPORT);
	CHECK(strstr(why, "major version"));
	p[8] = PREC_FORMAT_MAJOR;
	p[10] ^= 0x5a; /* a newer minor is fine */
	fix_crc(p, len);
	CHECK_EQ(decode_err(p, len, &why), 0);
	memcpy(p, "PRECSHRD", 8);
	fix_crc(p, len);
	CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "not a prec manifest"));
	memcpy(p, buf, len);
	p[len / 2] ^= 0x10;
	CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "bad checksum"));
	free(p);
}

/* Set the u32 at payload offset off of section tag to v, fix the checksum,
 * and expect a clean -EBADMSG (no giant allocation: ASan would abort, and
 * calloc failing would return -ENOMEM instead). */
static void lie(const uint8_t *buf, size_t len, uint32_t tag, size_t off, uint32_t v)
{
	uint8_t *p = malloc(len);
	size_t at = find_section(buf, len, tag);
	const char *why;

	CHECK(p && at);
	memcpy(p, buf, len);
	put_le32(p + at + off, v);
	fix_crc(p, len);
	CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
	free(p);
}

static void test_lying_counts(const uint8_t *buf, size_t len)
{
	static const uint32_t tags[] = { 3, 4, 5, 6, 8, 9, 10 };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t at = find_section(buf, len, tags[i]);
		uint32_t n = (uint32_t)get_le(buf + at, 4);

		lie(buf, len, tags[i], 0, 1u << 31);
		lie(buf, len, tags[i], 0, UINT32_MAX);
		lie(buf, len, tags[i], 0, n + 1);
	}
	/* The first event's id count: 8 (count) + 128 (attr) into EVENTS. */
	lie(buf, len, 5, 8 + 128, 1u << 31);
	lie(buf, len, 5, 8 + 128, UINT32_MAX);
	/* The first string's length (hostname). */
	lie(buf, len, 2, 0, 1u << 31);
	lie(buf, len, 2, 0, UINT32_MAX - 1);
	/* A section length beyond the file. */
	lie(buf, len, 8, (size_t)-8, 1u << 31);
}

/* The empty manifest, against the tables in docs/manifest-format.md. */
static void test_layout(void)
{
	static const uint32_t tags[] = { 1, 2, 4, 5, 6, 7, 8, 9, 10 };
	static const uint64_t lens[] = { 96, 48, 8, 8, 8, 32, 8, 8, 8 };
	struct prec_manifest *m = prec_manifest__new();
	uint8_t *buf;
	size_t len, off = HDR;
	uint32_t crc;

	CHECK(m);
	encode(m, &buf, &len);
	CHECK_EQ(len, 400);
	CHECK(!memcmp(buf, "PRECMANI", 8));
	CHECK_EQ(get_le(buf + 8, 2), PREC_FORMAT_MAJOR);
	CHECK_EQ(get_le(buf + 10, 2), PREC_MANI_MINOR);
	CHECK_EQ(get_le(buf + 12, 4), 32);
	CHECK_EQ(get_le(buf + 16, 8), 400);
	CHECK_EQ(get_le(buf + 24, 4), 0);
	crc = (uint32_t)get_le(buf + CRC_OFF, 4);
	put_le32(buf + CRC_OFF, 0);
	CHECK_EQ(prec_crc32c(0, buf, len), crc);
	CHECK_EQ(prec_crc32c(0, "123456789", 9), 0xe3069283u);
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		CHECK_EQ(get_le(buf + off, 4), tags[i]);
		CHECK_EQ(get_le(buf + off + 4, 4), 0);
		CHECK_EQ(get_le(buf + off + 8, 8), lens[i]);
		off += 16 + lens[i];
	}
	CHECK_EQ(off, len);
	CHECK_EQ(get_le(buf + HDR + 16, 4), PREC_STATE_RECORDING);
	CHECK_EQ((int32_t)get_le(buf + HDR + 16 + 4, 4), -1); /* clockid */
	free(buf);
	prec_manifest__delete(m);
}

/* Byte-level string rules: zero padding, no NUL inside, absent != empty. */
static void test_strings(void)
{
	struct prec_manifest *m = prec_manifest__new(), *d;
	const char *why;
	uint8_t *buf;
	size_t len, at;

	CHECK(m);
	make_valid(m);
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, "abc"), 0);
	CHECK_EQ(prec_manifest__set_str(m, &m->arch, ""), 0);
	encode(m, &buf, &len);
	at = find_section(buf, len, 2);
	CHECK(at && get_le(buf + at, 4) == 3 && !memcmp(buf + at + 4, "abc", 4));
	CHECK(get_le(buf + at + 8, 8) == 0xffffffffu); /* os_release absent */
	CHECK(get_le(buf + at + 16, 8) == 0);         /* arch empty */
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->os_release == NULL && d->arch && !*d->arch);
	prec_manifest__delete(d);
	buf[at + 7] = 1; /* the padding byte after "abc" */
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "nonzero padding"));
	buf[at + 7] = 0;
	buf[at + 5] = 0; /* "a\0c" */
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "NUL byte inside a string"));
	free(buf);
	prec_manifest__delete(m);
}

/* Splice bytes [cut, cut + cut_len) out and ins in at cut; fix length, crc. */
static uint8_t *resplice(const uint8_t *buf, size_t len, size_t cut, size_t cut_len,
		       const uint8_t *ins, size_t ins_len, size_t *out_len)
{
	size_t n = len - cut_len + ins_len;
	uint8_t *p = malloc(n);

	CHECK(p);
	memcpy(p, buf, cut);
	if (ins_len)
		memcpy(p + cut, ins, ins_len);
	memcpy(p + cut + ins_len, buf + cut + cut_len, len - cut - cut_len);
	for (int i = 0; i < 8; i++)
		p[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
	fix_crc(p, n);
	*out_len = n;
	return p;
}

static void test_sections(const struct prec_manifest *m, const uint8_t *buf, size_t len)
{
	/* Unknown tag 0x4242, 13 bytes + 3 of padding: a later minor's section. */
	uint8_t unk[16 + 16] = { 0x42, 0x42, 0, 0, 0, 0, 0, 0, 13 };
	size_t shards = find_section(buf, len, 8) - 16, n;
	uint64_t shards_len = 16 + ((get_le(buf + shards + 8, 8) + 7) & ~7ull);
	const char *why;
	struct prec_manifest *d;
	uint8_t *p;

	memset(unk + 16, 0xee, 13);
	p = resplice(buf, len, HDR, 0, unk, sizeof(unk), &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	check_eq(m, d);
	prec_manifest__delete(d);
	free(p);
	p = resplice(buf, len, len, 0, unk, sizeof(unk), &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	check_eq(m, d);
	prec_manifest__delete(d);
	free(p);
	/* Nonzero padding after the unknown payload is corruption. */
	unk[31] = 1;
	p = resplice(buf, len, HDR, 0, unk, sizeof(unk), &n);
	CHECK_EQ(decode_err(p, n, &why), -EBADMSG);
	free(p);
	/* Without SHARDS: a required section is missing. */
	p = resplice(buf, len, shards, (size_t)shards_len, NULL, 0, &n);
	CHECK_EQ(decode_err(p, n, &why), -EBADMSG);
	CHECK(!strcmp(why, "required section missing"));
	free(p);
	/* SHARDS twice. */
	p = resplice(buf, len, shards, 0, buf + shards, (size_t)shards_len, &n);
	CHECK_EQ(decode_err(p, n, &why), -EBADMSG);
	CHECK(!strcmp(why, "duplicate section"));
	free(p);
}

/* m, altered, encodes; decode must refuse it with this reason. */
static void expect_bad(const struct prec_manifest *m, const char *want)
{
	const char *why = NULL;
	uint8_t *buf;
	size_t len;

	encode(m, &buf, &len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	if (strcmp(why, want))
		fprintf(stderr, "want '%s', got '%s'\n", want, why);
	CHECK(!strcmp(why, want));
	free(buf);
}

static void set_st(struct prec_manifest_event *e, uint64_t st)
{
	le64(e->attr + ATTR_ST_OFF, st);
}

/* Contents with a valid checksum that prec never writes, each refused
 * (docs/manifest-format.md, "Consistency"); m is left as it came. */
static void test_consistency(struct prec_manifest *m)
{
	static const char *bad_names[] = { "a/b", "/etc/passwd", ".", "..", "manifest", "" };
	static const char *bad_name = "shard name is not a file name in the recording's directory";
	struct prec_manifest_event *e0 = &m->events[0], *e1 = &m->events[1];
	uint64_t st = rd64(e1->attr + ATTR_ST_OFF), id = e1->ids[0];
	struct prec_manifest_shard *s0 = &m->shards[0], *s1 = &m->shards[1];
	char *name = s1->name;
	int32_t cpu = s1->cpu;
	struct prec_time_layout tl = m->time_layout;
	uint64_t base = m->sample_type;
	uint32_t n;

	set_st(e1, st & ~(uint64_t)PERF_SAMPLE_TIME);
	expect_bad(m, "event attr without PERF_SAMPLE_TIME or PERF_SAMPLE_IDENTIFIER");
	set_st(e1, st & ~(uint64_t)PERF_SAMPLE_IDENTIFIER);
	expect_bad(m, "event attr without PERF_SAMPLE_TIME or PERF_SAMPLE_IDENTIFIER");
	set_st(e1, st ^ PERF_SAMPLE_CPU); /* the trailer's time moves */
	expect_bad(m, "event attr sample_type differs from the session's base");
	set_st(e1, st | PERF_SAMPLE_ID);
	expect_bad(m, "event attr sample_type differs from the session's base");
	set_st(e1, st);
	n = e1->nr_ids;
	e1->nr_ids = 0;
	expect_bad(m, "event without ids");
	e1->nr_ids = n;
	e1->ids[0] = e0->ids[0]; /* the same id in two events */
	expect_bad(m, "event id used twice");
	e1->ids[0] = id;
	n = m->nr_events;
	m->nr_events = 0;
	expect_bad(m, "no events");
	m->nr_events = n;
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		s1->name = (char *)bad_names[i];
		expect_bad(m, bad_name);
	}
	s1->name = NULL;
	expect_bad(m, bad_name);
	s1->name = s0->name;
	expect_bad(m, "shard name listed twice");
	s1->name = name;
	s1->cpu = s0->cpu;
	expect_bad(m, "shard cpu listed twice");
	s1->cpu = cpu;
	m->time_layout.sample_time_off += 8;
	expect_bad(m, "time layout does not match the session sample_type");
	m->time_layout = tl;
	m->time_layout.trailer_time_back -= 8;
	expect_bad(m, "time layout does not match the session sample_type");
	m->time_layout = tl;
	m->sample_type = base & ~(uint64_t)PERF_SAMPLE_TIME;
	expect_bad(m, "session sample_type without PERF_SAMPLE_TIME or PERF_SAMPLE_IDENTIFIER, or with ID or STREAM_ID");
	m->sample_type = base;
}

/* The review's case, in bytes: SESSION time_layout.sample_time_off = 8,
 * checksum recomputed. */
static void test_layout_bytes(const uint8_t *buf, size_t len)
{
	uint8_t *p = malloc(len);
	size_t at = find_section(buf, len, PREC_MANI_SEC_SESSION);
	const char *why;

	CHECK(p && at);
	memcpy(p, buf, len);
	le16(p + at + 88, 8);
	fix_crc(p, len);
	CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "time layout does not match the session sample_type"));
	free(p);
}

/* Random byte mutations with the checksum fixed up, so the section parser
 * itself sees hostile input. Whatever decodes must re-encode stably. */
static void test_fuzz(const uint8_t *buf, size_t len, int iters)
{
	uint8_t *p = malloc(len);
	int accepted = 0;

	CHECK(p);
	for (int it = 0; it < iters; it++) {
		struct prec_manifest *d;
		const char *why;
		int nmut = 1 + (int)rnd(4);

		memcpy(p, buf, len);
		while (nmut--) {
			size_t at = HDR + rnd(len - HDR);

			p[at] = rnd(2) ? (uint8_t)rnd(256) : (uint8_t)(p[at] ^ 1u << rnd(8));
		}
		fix_crc(p, len);
		if (prec_manifest__decode(&d, p, len, &why) == 0) {
			uint8_t *e1, *e2;
			size_t l1, l2;
			struct prec_manifest *d2;

			accepted++;
			encode(d, &e1, &l1);
			CHECK_EQ(prec_manifest__decode(&d2, e1, l1, &why), 0);
			check_eq(d, d2);
			encode(d2, &e2, &l2);
			CHECK(l1 == l2 && !memcmp(e1, e2, l1));
			free(e1);
			free(e2);
			prec_manifest__delete(d2);
			prec_manifest__delete(d);
		}
	}
	printf("fuzz: %d of %d mutants decoded\n", accepted, iters);
	free(p);
}

static void test_io(const struct prec_manifest *m)
{
	char *dir = test_tmpdir("manifest");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct prec_manifest *d, *m2 = make_small();
	const char *why;
	struct stat st;

	CHECK(dfd >= 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -ENOENT);
	CHECK(d == NULL && !strcmp(why, "No such file or directory"));
	CHECK_EQ(prec_manifest__write(m2, dfd), 0);
	CHECK_EQ(prec_manifest__write(m, dfd), 0); /* replaces */
	CHECK_EQ(fstatat(dfd, "manifest", &st, AT_SYMLINK_NOFOLLOW), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(faccessat(dfd, "manifest.tmp", F_OK, 0), -1);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), 0);
	check_eq(m, d);
	prec_manifest__delete(d);
	/* Truncated on disk. */
	{
		int fd = openat(dfd, "manifest", O_WRONLY);

		CHECK(fd >= 0);
		CHECK_EQ(ftruncate(fd, st.st_size - 8), 0);
		close(fd);
	}
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -EBADMSG);
	CHECK(!strcmp(why, "truncated"));
	/* A symlink is never followed. */
	CHECK_EQ(unlinkat(dfd, "manifest", 0), 0);
	CHECK_EQ(symlinkat("/etc/passwd", dfd, "manifest"), 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -ELOOP);
	CHECK(why && !strcmp(why, "is a symbolic link"));
	/* Nor a FIFO opened: its open() would wait for a writer, forever. */
	CHECK_EQ(unlinkat(dfd, "manifest", 0), 0);
	CHECK_EQ(mkfifoat(dfd, "manifest", 0600), 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -EINVAL);
	CHECK(why && !strcmp(why, "not a regular file"));
	close(dfd);
	test_rmdir(dir);
	free(dir);
	prec_manifest__delete(m2);
}

static void test_api(void)
{
	struct prec_manifest *m = prec_manifest__new();
	struct prec_manifest_buildid b = { .size = 20, .pid = -1, .path = (char *)"/bin/true" };
	uint8_t attr[128] = { 1 };
	char *argv[] = { (char *)"prec", (char *)"record", NULL };

	CHECK(m);
	prec_manifest__delete(NULL);
	CHECK_EQ(m->state, PREC_STATE_RECORDING);
	memset(b.id, 0xab, sizeof(b.id));
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 1);
	b.cpumode = 3; /* same id and path: still a duplicate */
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 1);
	b.size = 19; /* a different id */
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	b.path = (char *)"/bin/false";
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 3);
	CHECK(m->buildids[1].id[19] == 0); /* bytes past size zeroed */
	b.size = 21;
	CHECK_EQ(prec_manifest__add_buildid(m, &b), -EINVAL);
	CHECK_EQ(prec_manifest__add_event(m, attr, "cpu-clock"), 0);
	CHECK_EQ(prec_manifest__add_event(m, attr, NULL), 1);
	CHECK_EQ(prec_manifest__add_event_id(m, 2, 7, 0, -1), -EINVAL);
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 7, 0, -1), 0);
	CHECK_EQ(m->events[1].nr_ids, 1);
	CHECK_EQ(prec_manifest__set_argv(m, 2, argv), 0);
	CHECK(m->argc == 2 && !strcmp(m->argv[1], "record") && !m->argv[2]);
	CHECK_EQ(prec_manifest__set_argv(m, 0, NULL), 0);
	CHECK(m->argc == 0 && m->argv == NULL);
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, "h"), 0);
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, NULL), 0);
	CHECK(m->hostname == NULL);
	prec_manifest__delete(m);
}

static void test_json(struct prec_manifest *m)
{
	static const char tricky[] = "h\"o\\s\nt\t\x01\x7f\xc3\xa9\xff\xed\xa0\x80 end";
	char *dir = test_tmpdir("manifest-json"), *path, *cmd;
	FILE *f;
	int rc;

	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
		printf("json: python3 missing, skipped\n");
		goto out;
	}
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, tricky), 0);
	CHECK(asprintf(&path, "%s/m.json", dir) > 0);
	f = fopen(path, "w");
	CHECK(f);
	CHECK_EQ(prec_manifest__print_json(m, f), 0);
	fclose(f);
	/* json.tool must parse it; then spot-check values against the struct:
	 * valid UTF-8 kept, invalid bytes as U+00XX. */
	CHECK(asprintf(&cmd, "python3 -m json.tool '%s' >/dev/null && python3 -c '"
		       "import json,sys; d=json.load(open(sys.argv[1])); "
		       "assert d[\"host\"][\"hostname\"] == \"h\\\"o\\\\s\\nt\\t\\x01\\x7f\\xe9\\xff\\xed\\xa0\\x80 end\", d[\"host\"][\"hostname\"]; "
		       "assert len(d[\"shards\"]) == %u and len(d[\"buildids\"]) == %u; "
		       "assert len(d[\"events\"][0][\"ids\"]) == %u; "
		       "assert d[\"events\"][0][\"attr\"][\"hex\"][:8] == \"%02x%02x%02x%02x\"; "
		       "assert d[\"shards\"][1][\"records\"] == %llu' '%s'",
		       path, m->nr_shards, m->nr_buildids, m->events[0].nr_ids,
		       m->events[0].attr[0], m->events[0].attr[1], m->events[0].attr[2],
		       m->events[0].attr[3], (unsigned long long)m->shards[1].records, path) > 0);
	rc = system(cmd);
	CHECK_EQ(rc, 0);
	free(cmd);
	free(path);
out:
	test_rmdir(dir);
	free(dir);
}

int main(void)
{
	struct prec_manifest *big, *small;
	uint8_t *bbuf, *sbuf;
	size_t blen, slen;

	rng = test_seed();
	test_api();
	test_strings();
	test_layout();
	big = make_big();
	small = make_small();
	encode(big, &bbuf, &blen);
	encode(small, &sbuf, &slen);
	printf("big manifest: %zu bytes, small: %zu bytes\n", blen, slen);
	check_roundtrip(big, bbuf, blen);
	check_roundtrip(small, sbuf, slen);
	test_truncation(sbuf, slen, true);
	test_truncation(bbuf, blen, false);
	test_flips(sbuf, slen, 1);
	test_flips(bbuf, blen, blen / 97 + 1);
	test_major(sbuf, slen);
	test_lying_counts(sbuf, slen);
	test_lying_counts(bbuf, blen);
	test_sections(small, sbuf, slen);
	test_consistency(small);
	test_layout_bytes(sbuf, slen);
	test_fuzz(sbuf, slen, 20000);
	test_io(big);
	test_json(big);
	free(bbuf);
	free(sbuf);
	prec_manifest__delete(big);
	prec_manifest__delete(small);
	printf("ok\n");
	return 0;
}
