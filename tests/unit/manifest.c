// SPDX-License-Identifier: MIT
// Manifest encoding tests: byte-exact round trips of a fully populated
// manifest, and rejection of truncated, flipped, lying, inconsistent and
// future-version inputs (docs/manifest-format.md is the layout checked
// here). The file and API tests are unit/manifest_io.
#include "store/bpf_prog.h"
#include "store/store.h"
#include "store/manifest_format.h"
#include "util/bytes.h"
#include "../lib/test.h"

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>

#define HDR 32u
#define CRC_OFF 28u
#define ATTR_ST_OFF offsetof(struct perf_event_attr, sample_type)

static uint64_t rng;

static uint64_t rnd(uint64_t n)
{
	return n ? test_rand(&rng) % n : 0;
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
	test_manifest_check_eq(m, d);
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
	test_manifest_valid(m);
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
	test_manifest_check_eq(m, d);
	prec_manifest__delete(d);
	free(p);
	p = resplice(buf, len, len, 0, unk, sizeof(unk), &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	test_manifest_check_eq(m, d);
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

/* KCORE (minor 4): only with a kcore_dir, 16 bytes, round trip; a short
 * one is corrupt. */
static void test_kcore(struct prec_manifest *m)
{
	struct prec_manifest_kcore was = m->kcore;
	struct prec_manifest *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	m->kcore = (struct prec_manifest_kcore){ 0 };
	encode(m, &buf, &len);
	CHECK_EQ(find_section(buf, len, 15), 0);
	free(buf);
	m->kcore = (struct prec_manifest_kcore){ .segments = 2, .bytes = 14692352 };
	encode(m, &buf, &len);
	at = find_section(buf, len, 15);
	CHECK(at && get_le(buf + at - 8, 8) == 16 && get_le(buf + at, 4) == 2 &&
	      get_le(buf + at + 8, 8) == 14692352);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->kcore.segments == 2 && d->kcore.bytes == 14692352);
	prec_manifest__delete(d);
	/* 8 bytes of payload: cut the section's second half */
	put_le32(buf + at - 8, 8);
	put_le32(buf + at - 4, 0);
	p = resplice(buf, len, at + 8, 8, NULL, 0, &n);
	CHECK_EQ(decode_err(p, n, &why), -EBADMSG);
	CHECK(!strcmp(why, "kcore section too short"));
	free(p);
	free(buf);
	m->kcore = was;
}

/* COMPRESSION (minor 12): only with -z, 8 bytes (the level, 0),
 * round trip; a manifest without it (an older prec's) reads as not
 * compressed; a short one, or a level 0 or past 22, is corrupt, and
 * encode refuses a level past 22. */
static void test_compression(struct prec_manifest *m)
{
	uint32_t was = m->zstd_level;
	struct prec_manifest *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	m->zstd_level = 0;
	encode(m, &buf, &len);
	CHECK_EQ(find_section(buf, len, PREC_MANI_SEC_COMPRESSION), 0);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK_EQ(d->zstd_level, 0);
	prec_manifest__delete(d);
	free(buf);
	m->zstd_level = 23;
	CHECK_EQ(prec_manifest__encode(m, (void **)&buf, &len), -EINVAL);
	m->zstd_level = 7;
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_COMPRESSION);
	CHECK(at && PREC_MANI_SEC_COMPRESSION == 24 && get_le(buf + at - 8, 8) == 8 &&
	      get_le(buf + at, 4) == 7 && get_le(buf + at + 4, 4) == 0);
	check_roundtrip(m, buf, len);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK_EQ(d->zstd_level, 7);
	prec_manifest__delete(d);
	/* without the section: an older prec's */
	p = resplice(buf, len, at - 16, 16 + 8, NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK_EQ(d->zstd_level, 0);
	prec_manifest__delete(d);
	free(p);
	for (int i = 0; i < 2; i++) {
		put_le32(buf + at, i ? 23 : 0);
		fix_crc(buf, len);
		CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
		CHECK(!strcmp(why, "compression: zstd level not 1..22"));
	}
	/* 4 bytes of payload: the reserved word (0) is its padding now */
	put_le32(buf + at, 7);
	put_le32(buf + at - 8, 4);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "compression section too short"));
	free(buf);
	m->zstd_level = was;
}

/* m, altered, encodes; decode must refuse it with this reason. */
static void expect_bad(const struct prec_manifest *m, const char *want);

/* PMUS (minor 7): the section's bytes as docs/manifest-format.md has
 * them, round trip; a manifest without it (an older prec's) reads with no
 * PMUs; a PMU without its name, a cap without its value, a cap count past
 * the section are corrupt. m is left as it came. */
static void test_pmus(struct prec_manifest *m)
{
	struct prec_manifest_pmu_cap caps[2] = { { (char *)"max_precise", (char *)"3" },
						 { (char *)"pmu_name", (char *)"zen4" } };
	struct prec_manifest_pmu pmus[2] = { { 4, (char *)"cpu", 2, caps },
					     { 9, (char *)"msr", 0, NULL } };
	struct prec_manifest_pmu *was = m->pmus;
	uint32_t nr = m->nr_pmus;
	struct prec_manifest *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	m->pmus = pmus;
	m->nr_pmus = 2;
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_PMUS);
	/* count, reserved; type 4, 2 caps, "cpu" (length, bytes, padding) */
	CHECK(at && get_le(buf + at, 4) == 2 && get_le(buf + at + 4, 4) == 0);
	CHECK(get_le(buf + at + 8, 4) == 4 && get_le(buf + at + 12, 4) == 2);
	CHECK(get_le(buf + at + 16, 4) == 3 && !memcmp(buf + at + 20, "cpu", 3));
	/* then "max_precise" at +24, "3" at +48, "zen4" ... */
	CHECK(get_le(buf + at + 24, 4) == 11 && !memcmp(buf + at + 28, "max_precise", 11));
	CHECK(get_le(buf + at + 40, 4) == 1 && buf[at + 44] == '3');
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->nr_pmus == 2 && d->pmus[0].type == 4 && !strcmp(d->pmus[0].name, "cpu"));
	CHECK(d->pmus[0].nr_caps == 2 && !strcmp(d->pmus[0].caps[1].name, "pmu_name") &&
	      !strcmp(d->pmus[0].caps[1].value, "zen4"));
	CHECK(d->pmus[1].type == 9 && !strcmp(d->pmus[1].name, "msr") && !d->pmus[1].nr_caps);
	prec_manifest__delete(d);
	/* an older manifest: no PMUS section */
	p = resplice(buf, len, at - 16, 16 + ((get_le(buf + at - 8, 8) + 7) & ~7ull), NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK(d->nr_pmus == 0 && d->pmus == NULL);
	prec_manifest__delete(d);
	free(p);
	/* the first PMU's cap count lies */
	put_le32(buf + at + 12, 0x7fffffff);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "count larger than its section"));
	free(buf);
	pmus[1].name = NULL;
	expect_bad(m, "pmus: a PMU without its name");
	pmus[1].name = (char *)"msr";
	caps[1].value = NULL;
	expect_bad(m, "pmus: a cap without its name or value");
	m->pmus = was;
	m->nr_pmus = nr;
}

/* CACHES (minor 8): the section's bytes, round trip; a manifest without
 * it (an older prec's) reads with no caches; a cache without one of its
 * strings is corrupt. m is left as it came. */
static void test_caches(struct prec_manifest *m)
{
	struct prec_manifest_cache caches[2] = {
		{ 1, 64, 64, 8, (char *)"Data", (char *)"32K", (char *)"0" },
		{ 3, 64, 32768, 16, (char *)"Unified", (char *)"32768K", (char *)"0-1" },
	};
	struct prec_manifest_cache *was = m->caches;
	uint32_t nr = m->nr_caches;
	struct prec_manifest *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	m->caches = caches;
	m->nr_caches = 2;
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_CACHES);
	/* count, reserved; level, line size, sets, ways; "Data", "32K", "0" */
	CHECK(at && get_le(buf + at, 4) == 2 && get_le(buf + at + 4, 4) == 0);
	CHECK(get_le(buf + at + 8, 4) == 1 && get_le(buf + at + 12, 4) == 64 &&
	      get_le(buf + at + 16, 4) == 64 && get_le(buf + at + 20, 4) == 8);
	CHECK(get_le(buf + at + 24, 4) == 4 && !memcmp(buf + at + 28, "Data", 4));
	CHECK(get_le(buf + at + 32, 4) == 3 && !memcmp(buf + at + 36, "32K", 3));
	CHECK(get_le(buf + at + 40, 4) == 1 && buf[at + 44] == '0');
	CHECK(get_le(buf + at + 48, 4) == 3 && get_le(buf + at + 56, 4) == 32768);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->nr_caches == 2 && d->caches[1].ways == 16 && !strcmp(d->caches[1].size, "32768K") &&
	      !strcmp(d->caches[1].map, "0-1") && !strcmp(d->caches[0].type, "Data"));
	prec_manifest__delete(d);
	p = resplice(buf, len, at - 16, 16 + ((get_le(buf + at - 8, 8) + 7) & ~7ull), NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK(d->nr_caches == 0 && d->caches == NULL);
	prec_manifest__delete(d);
	free(p);
	free(buf);
	caches[1].map = NULL;
	expect_bad(m, "caches: a cache without its type, size or CPUs");
	m->caches = was;
	m->nr_caches = nr;
}

/* GROUP_NAMES (minor 9): the section's bytes, round trip; a manifest
 * without it (an older prec's) reads with its groups unnamed; a name on
 * an event that leads no group is corrupt. */
static void test_group_names(void)
{
	struct prec_manifest *m = prec_manifest__new(), *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	CHECK(m != NULL);
	test_manifest_valid(m);
	CHECK_EQ(prec_manifest__add_event(m, m->events[0].attr, "f"), 1);
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 2, 0, -1), 0);
	m->events[0].leader1 = m->events[1].leader1 = 1;
	/* no name: no section */
	encode(m, &buf, &len);
	CHECK(!find_section(buf, len, PREC_MANI_SEC_GROUP_NAMES));
	free(buf);
	CHECK_EQ(prec_manifest__set_str(m, &m->events[0].group_name, "grp"), 0);
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_GROUP_NAMES);
	/* count, reserved; event 0, reserved, "grp" */
	CHECK(at && get_le(buf + at, 4) == 1 && get_le(buf + at + 4, 4) == 0);
	CHECK(get_le(buf + at + 8, 4) == 0 && get_le(buf + at + 12, 4) == 0);
	CHECK(get_le(buf + at + 16, 4) == 3 && !memcmp(buf + at + 20, "grp", 3));
	CHECK_EQ(get_le(buf + at - 8, 8), 24);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->events[0].group_name && !strcmp(d->events[0].group_name, "grp"));
	CHECK(!d->events[1].group_name && d->events[1].leader1 == 1);
	prec_manifest__delete(d);
	p = resplice(buf, len, at - 16, 16 + ((get_le(buf + at - 8, 8) + 7) & ~7ull), NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK(!d->events[0].group_name && d->events[0].leader1 == 1);
	prec_manifest__delete(d);
	free(p);
	/* the name's event is a member, not the leader */
	put_le32(buf + at + 8, 1);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "group names: not a leader's, or out of order"));
	free(buf);
	prec_manifest__delete(m);
}

/* ID_LOST (minor 11): each id's lost count, the section's bytes, round
 * trip; a manifest without it (an older prec's) reads with no loss; an
 * entry naming no id, out of order, twice, with a zero count, or a count
 * past the section, is corrupt. */
static void test_id_lost(void)
{
	struct prec_manifest *m = prec_manifest__new(), *d;
	const char *why;
	uint8_t *buf, *p;
	size_t len, at, n;

	CHECK(m != NULL);
	test_manifest_valid(m);
	CHECK_EQ(prec_manifest__add_event(m, m->events[0].attr, "f"), 1);
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 2, 0, -1), 0);
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 3, 1, -1), 0);
	CHECK_EQ(prec_manifest__set_id_lost(m, 1, 2, 1), -EINVAL);
	CHECK_EQ(prec_manifest__set_id_lost(m, 2, 0, 1), -EINVAL);
	/* zero counts: no section */
	CHECK_EQ(prec_manifest__set_id_lost(m, 1, 0, 0), 0);
	CHECK(m->events[1].id_lost == NULL);
	encode(m, &buf, &len);
	CHECK(!find_section(buf, len, PREC_MANI_SEC_ID_LOST));
	CHECK_EQ(get_le(buf + 10, 2), 12);
	free(buf);
	CHECK_EQ(prec_manifest__set_id_lost(m, 1, 1, 131454), 0);
	CHECK_EQ(prec_manifest__set_id_lost(m, 1, 0, 7), 0);
	/* an id added after keeps the counts beside their ids */
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 4, 1, 9), 0);
	CHECK(m->events[1].id_lost[2] == 0);
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_ID_LOST);
	/* count, reserved; (event 1, id 0, 7), (event 1, id 1, 131454) */
	CHECK(at && get_le(buf + at, 4) == 2 && get_le(buf + at + 4, 4) == 0);
	CHECK(get_le(buf + at + 8, 4) == 1 && get_le(buf + at + 12, 4) == 0);
	CHECK(get_le(buf + at + 16, 8) == 7);
	CHECK(get_le(buf + at + 24, 4) == 1 && get_le(buf + at + 28, 4) == 1);
	CHECK(get_le(buf + at + 32, 8) == 131454);
	CHECK_EQ(get_le(buf + at - 8, 8), 40);
	check_roundtrip(m, buf, len);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->events[0].id_lost == NULL && d->events[1].id_lost);
	CHECK(d->events[1].id_lost[0] == 7 && d->events[1].id_lost[1] == 131454 &&
	      d->events[1].id_lost[2] == 0);
	prec_manifest__delete(d);
	/* without the section */
	p = resplice(buf, len, at - 16, 16 + 40, NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK(d->events[0].id_lost == NULL && d->events[1].id_lost == NULL);
	prec_manifest__delete(d);
	free(p);
	/* bounds: the entries made bad one way each (two u32 writes at
	 * payload offsets, the second none when its offset is 0), then the
	 * count */
	{
		static const struct {
			size_t off1, off2;
			uint32_t v1, v2;
		} bad[] = {
			{ 8, 0, 2, 0 },   /* no event 2 */
			{ 12, 0, 3, 0 },  /* event 1 has ids 0..2 */
			{ 28, 0, 0, 0 },  /* (1, 0) twice */
			{ 12, 28, 1, 0 }, /* (1, 1) before (1, 0) */
			{ 16, 0, 0, 0 },  /* a zero count (its high word is 0) */
		};
		static const char want[] = "id lost: no such id, out of order, or a zero count";

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			p = malloc(len);
			CHECK(p != NULL);
			memcpy(p, buf, len);
			put_le32(p + at + bad[i].off1, bad[i].v1);
			if (bad[i].off2)
				put_le32(p + at + bad[i].off2, bad[i].v2);
			fix_crc(p, len);
			CHECK_EQ(decode_err(p, len, &why), -EBADMSG);
			if (strcmp(why, want))
				fprintf(stderr, "case %zu: want '%s', got '%s'\n", i, want, why);
			CHECK(!strcmp(why, want));
			free(p);
		}
	}
	lie(buf, len, PREC_MANI_SEC_ID_LOST, 0, 3);
	lie(buf, len, PREC_MANI_SEC_ID_LOST, 0, UINT32_MAX);
	free(buf);
	prec_manifest__delete(m);
}

/* A program's record: id, one function, jited bytes of code, no BTF. */
static size_t bpf_rec(uint8_t *r, uint32_t id, uint32_t jited)
{
	uint8_t *info = r + PREC_BPF_PROG_HDR;
	uint32_t j8 = (jited + 7) & ~7u;

	memset(r, 0, PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + j8 + 24);
	put_le32(r, PREC_BPF_INFO_LEN);
	put_le32(r + 4, j8 + 24);
	put_le32(r + 8, PREC_BPF_ARRAYS_RECORDED);
	put_le32(info + offsetof(struct bpf_prog_info, id), id);
	put_le32(info + offsetof(struct bpf_prog_info, jited_prog_len), jited);
	put_le32(info + offsetof(struct bpf_prog_info, nr_jited_ksyms), 1);
	put_le32(info + offsetof(struct bpf_prog_info, jited_ksyms), j8);
	put_le32(info + offsetof(struct bpf_prog_info, nr_jited_func_lens), 1);
	put_le32(info + offsetof(struct bpf_prog_info, jited_func_lens), j8 + 8);
	put_le32(info + offsetof(struct bpf_prog_info, func_info), j8 + 16);
	put_le32(info + offsetof(struct bpf_prog_info, func_info_rec_size), 8);
	put_le32(info + offsetof(struct bpf_prog_info, line_info), j8 + 16);
	put_le32(info + offsetof(struct bpf_prog_info, line_info_rec_size), 16);
	put_le32(info + offsetof(struct bpf_prog_info, jited_line_info), j8 + 16);
	put_le32(info + offsetof(struct bpf_prog_info, jited_line_info_rec_size), 8);
	put_le32(info + offsetof(struct bpf_prog_info, nr_prog_tags), 1);
	put_le32(info + offsetof(struct bpf_prog_info, prog_tags), j8 + 16);
	memset(info + PREC_BPF_INFO_LEN, 0xcc, jited);
	return PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + j8 + 24;
}

/* Decode m's encoding with the u32 at off in its first program record
 * set to v: refused, why naming the field. */
static void expect_bad_rec(const struct prec_manifest *m, size_t off, uint32_t v,
			   const char *want)
{
	const char *why = NULL;
	uint8_t *buf;
	size_t len, at;

	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_BPF_PROGS);
	CHECK(at);
	put_le32(buf + at + 8 + off, v);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	if (strcmp(why, want))
		fprintf(stderr, "want '%s', got '%s'\n", want, why);
	CHECK(!strcmp(why, want));
	free(buf);
}

/* The bounds the recorder relies on to cut: 16384 programs, a BTF object
 * of 16 MiB, 32 MiB of both; a record that is not one. */
static void test_bpf_bounds(void)
{
	struct prec_manifest *b = prec_manifest__new();
	uint8_t r[PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + 8 + 24];
	size_t l = bpf_rec(r, 1, 8);
	uint8_t *big = calloc(1, PREC_MANIFEST_BTF_MAX + 1);

	CHECK(b && big);
	for (uint32_t id = 1; id <= PREC_MANIFEST_BPF_MAX; id++) {
		put_le32(r + PREC_BPF_PROG_HDR + 4, id);
		CHECK_EQ(prec_manifest__add_bpf_prog(b, r, l), 0);
	}
	put_le32(r + PREC_BPF_PROG_HDR + 4, PREC_MANIFEST_BPF_MAX + 1);
	CHECK_EQ(prec_manifest__add_bpf_prog(b, r, l), -E2BIG);
	CHECK_EQ(prec_manifest__add_bpf_prog(b, r, l - 8), -EINVAL); /* not a record */
	CHECK_EQ(b->bpf_bytes, (uint64_t)PREC_MANIFEST_BPF_MAX * l);
	CHECK_EQ(prec_manifest__add_btf(b, 1, big, PREC_MANIFEST_BTF_MAX + 1), -E2BIG);
	CHECK_EQ(prec_manifest__add_btf(b, 1, big, PREC_MANIFEST_BTF_MAX), 0);
	/* 32 MiB less the programs' bytes and the first object's is left */
	CHECK_EQ(prec_manifest__add_btf(b, 2, big, PREC_MANIFEST_BTF_MAX), -E2BIG);
	CHECK_EQ(prec_manifest__add_btf(b, 2, big, (uint32_t)(PREC_MANIFEST_BPF_BYTES_MAX -
						       b->bpf_bytes)), 0);
	CHECK_EQ(prec_manifest__add_btf(b, 3, big, 1), -E2BIG);
	CHECK(b->nr_btfs == 2 && b->bpf_bytes == PREC_MANIFEST_BPF_BYTES_MAX);
	free(big);
	prec_manifest__delete(b);
}

/* BPF_PROGS and BPF_BTFS (minor 10): the sections' bytes, round trip, added
 * in id order only; a manifest without them (an older prec's) reads with
 * none; a record whose lengths or arrays do not hold, ids out of order, a
 * BTF past its bound are corrupt, each refused naming its field. m is left
 * as it came. */
static void test_bpf(struct prec_manifest *m)
{
	uint8_t r1[PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + 64 + 24];
	uint8_t r2[PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + 64 + 24], blob[5] = "btf!";
	const size_t info = PREC_BPF_PROG_HDR;
	struct prec_manifest *d;
	const char *why;
	uint8_t *buf, *p;
	size_t l1 = bpf_rec(r1, 10, 20), l2 = bpf_rec(r2, 12, 64), len, at, n;
	struct prec_manifest keep = *m;

	m->bpf_progs = NULL;
	m->btfs = NULL;
	m->nr_bpf_progs = m->nr_btfs = m->bpf_progs_cap = m->btfs_cap = 0;
	m->bpf_bytes = 0;
	CHECK_EQ(prec_manifest__add_bpf_prog(m, r2, l2), 0);
	CHECK_EQ(prec_manifest__add_bpf_prog(m, r1, l1), -EINVAL); /* id 10 after 12 */
	r1[info + 4] = 14;
	CHECK_EQ(prec_manifest__add_bpf_prog(m, r1, l1), 0);
	CHECK_EQ(prec_manifest__add_btf(m, 9, blob, 5), 0);
	CHECK_EQ(prec_manifest__add_btf(m, 3, blob, 4), 0);
	CHECK_EQ(prec_manifest__add_btf(m, 9, blob, 1), 0); /* there already */
	CHECK_EQ(prec_manifest__add_btf(m, 0, blob, 1), -EINVAL);
	CHECK(m->nr_btfs == 2 && m->btfs[0].id == 3 && m->btfs[1].id == 9);
	CHECK(prec_manifest__find_btf(m, 9) == &m->btfs[1] && !prec_manifest__find_btf(m, 4));
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_BPF_PROGS);
	/* count, reserved, then each record as it is */
	CHECK(at && get_le(buf + at, 4) == 2 && get_le(buf + at + 4, 4) == 0);
	CHECK(get_le(buf + at - 8, 8) == 8 + l2 + l1 && !memcmp(buf + at + 8, r2, l2));
	at = find_section(buf, len, PREC_MANI_SEC_BPF_BTFS);
	/* count, reserved; id 3, size 4, "btf!"; id 9, size 5, "btf!\0", padding */
	CHECK(at && get_le(buf + at, 4) == 2 && get_le(buf + at + 8, 4) == 3 &&
	      get_le(buf + at + 12, 4) == 4 && !memcmp(buf + at + 16, "btf!", 4) &&
	      get_le(buf + at + 20, 4) == 0 && get_le(buf + at + 24, 4) == 9 &&
	      get_le(buf + at + 28, 4) == 5 && get_le(buf + at - 8, 8) == 8 + 12 + 4 + 16);
	check_roundtrip(m, buf, len);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(d->nr_bpf_progs == 2 && d->bpf_progs[1].len == l1 &&
	      !memcmp(d->bpf_progs[1].rec, r1, l1) && d->nr_btfs == 2 && d->btfs[1].size == 5);
	/* a decoded manifest takes more */
	r1[info + 4] = 20;
	CHECK_EQ(prec_manifest__add_bpf_prog(d, r1, l1), 0);
	CHECK_EQ(prec_manifest__add_btf(d, 5, blob, 5), 0);
	CHECK(d->nr_bpf_progs == 3 && d->nr_btfs == 3 && d->btfs[1].id == 5);
	prec_manifest__delete(d);
	/* an older manifest: neither section */
	at = find_section(buf, len, PREC_MANI_SEC_BPF_BTFS);
	p = resplice(buf, len, at - 16, 16 + ((get_le(buf + at - 8, 8) + 7) & ~7ull), NULL, 0, &n);
	free(buf);
	buf = p;
	len = n;
	at = find_section(buf, len, PREC_MANI_SEC_BPF_PROGS);
	p = resplice(buf, len, at - 16, 16 + ((get_le(buf + at - 8, 8) + 7) & ~7ull), NULL, 0, &n);
	CHECK_EQ(prec_manifest__decode(&d, p, n, &why), 0);
	CHECK(d->nr_bpf_progs == 0 && d->bpf_progs == NULL && d->nr_btfs == 0);
	prec_manifest__delete(d);
	free(p);
	free(buf);
	/* each field that does not hold, in the first record (id 12) */
	expect_bad_rec(m, 0, PREC_BPF_INFO_LEN + 8, "bpf_progs: info_len out of range");
	expect_bad_rec(m, 0, PREC_BPF_INFO_MIN - 8, "bpf_progs: info_len out of range");
	expect_bad_rec(m, 4, PREC_MANIFEST_BPF_DATA_MAX + 8, "bpf_progs: data_len over its bound");
	expect_bad_rec(m, 4, 8, "bpf_progs: jited_prog_insns past data_len");
	expect_bad_rec(m, 8, 1u << 9, "bpf_progs: arrays has unknown bits");
	expect_bad_rec(m, info + offsetof(struct bpf_prog_info, jited_ksyms), 88,
		       "bpf_progs: jited_ksyms past data_len");
	expect_bad_rec(m, info + offsetof(struct bpf_prog_info, nr_prog_tags), 3,
		       "bpf_progs: prog_tags past data_len");
	expect_bad_rec(m, info + offsetof(struct bpf_prog_info, nr_line_info), 1,
		       "bpf_progs: line_info past data_len");
	expect_bad_rec(m, info + offsetof(struct bpf_prog_info, map_ids), 8,
		       "bpf_progs: map_ids address without the array");
	expect_bad_rec(m, info + offsetof(struct bpf_prog_info, id), 15,
		       "bpf_progs: ids not ascending");
	/* a BTF past its bound */
	encode(m, &buf, &len);
	at = find_section(buf, len, PREC_MANI_SEC_BPF_BTFS);
	put_le32(buf + at + 12, PREC_MANIFEST_BTF_MAX + 1);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "bpf_btfs: size over its bound"));
	put_le32(buf + at + 12, 4);
	put_le32(buf + at + 24, 3);
	fix_crc(buf, len);
	CHECK_EQ(decode_err(buf, len, &why), -EBADMSG);
	CHECK(!strcmp(why, "bpf_btfs: id 0 or ids not ascending"));
	free(buf);
	test_bpf_bounds();
	for (uint32_t i = 0; i < m->nr_bpf_progs; i++)
		free(m->bpf_progs[i].rec);
	for (uint32_t i = 0; i < m->nr_btfs; i++)
		free(m->btfs[i].data);
	free(m->bpf_progs);
	free(m->btfs);
	m->bpf_progs = keep.bpf_progs;
	m->btfs = keep.btfs;
	m->nr_bpf_progs = keep.nr_bpf_progs;
	m->nr_btfs = keep.nr_btfs;
	m->bpf_progs_cap = keep.bpf_progs_cap;
	m->btfs_cap = keep.btfs_cap;
	m->bpf_bytes = keep.bpf_bytes;
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
	prec_st64(e->attr + ATTR_ST_OFF, st);
}

/* Contents with a valid checksum that prec never writes, each refused
 * (docs/manifest-format.md, "Consistency"); m is left as it came. */
/* Shard totals no shard file can hold are refused, each by its field;
 * the largest that can are taken. The loss counts have no bound. */
static void test_totals(struct prec_manifest *m, struct prec_manifest_shard *s)
{
	const uint64_t max_chunks = (uint64_t)(INT64_MAX - 64) / 64;
	struct prec_manifest_shard keep = *s;
	const char *why = NULL;

	s->chunks = UINT64_MAX;
	expect_bad(m, "shard totals: chunks more than a shard file can hold");
	s->chunks = max_chunks + 1;
	expect_bad(m, "shard totals: chunks more than a shard file can hold");
	*s = keep;
	s->chunks = 2;
	s->bytes = s->records = s->first_time = s->last_time = 0;
	s->raw_bytes = 2 * PREC_CHUNK_READ_MAX + 1;
	expect_bad(m, "shard totals: raw bytes more than its chunks can hold");
	s->raw_bytes = 2 * PREC_CHUNK_READ_MAX;
	s->bytes = UINT64_MAX;
	expect_bad(m, "shard totals: bytes more than its chunks can hold");
	s->bytes = 2 * PREC_CHUNK_READ_MAX;
	s->records = s->raw_bytes / 8 + 1;
	expect_bad(m, "shard totals: records more than its raw bytes can hold");
	s->records = s->raw_bytes / 8;
	s->first_time = 10;
	s->last_time = 9;
	expect_bad(m, "shard totals: first time after the last");
	s->last_time = 10;
	s->lost = s->lost_samples = UINT64_MAX;
	CHECK_EQ(prec_manifest__check(m, &why), 0);
	s->chunks = max_chunks;
	s->bytes = s->raw_bytes = UINT64_MAX;
	s->records = UINT64_MAX / 8;
	s->first_time = s->last_time = UINT64_MAX;
	CHECK_EQ(prec_manifest__check(m, &why), 0);
	*s = keep;
}

static void test_consistency(struct prec_manifest *m)
{
	static const char *bad_names[] = { "a/b", "/etc/passwd", ".", "..", "manifest", "" };
	static const char *bad_name = "shard name is not a file name in the recording's directory";
	struct prec_manifest_event *e0 = &m->events[0], *e1 = &m->events[1];
	uint64_t st = prec_ld64(e1->attr + ATTR_ST_OFF), id = e1->ids[0];
	struct prec_manifest_shard *s0 = &m->shards[0], *s1 = &m->shards[1];
	char *name = s1->name;
	int32_t cpu = s1->cpu;
	struct prec_time_layout tl = m->time_layout;
	uint64_t base = m->sample_type;
	const char *why = NULL;
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
	test_totals(m, s1);
	/* A flight recording's drained and snapshot shards share a CPU. */
	s1->cpu = s0->cpu;
	CHECK_EQ(prec_manifest__check(m, &why), 0);
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
	prec_st16(p + at + 88, 8);
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
			test_manifest_check_eq(d, d2);
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

int main(void)
{
	struct prec_manifest *big, *small;
	uint8_t *bbuf, *sbuf;
	size_t blen, slen;

	rng = test_seed();
	test_manifest_seed(rng);
	test_strings();
	test_layout();
	big = test_manifest_big();
	small = test_manifest_small();
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
	test_kcore(small);
	test_compression(small);
	test_pmus(small);
	test_caches(small);
	test_group_names();
	test_id_lost();
	test_bpf(small);
	test_layout_bytes(sbuf, slen);
	test_fuzz(sbuf, slen, 20000);
	free(bbuf);
	free(sbuf);
	prec_manifest__delete(big);
	prec_manifest__delete(small);
	printf("ok\n");
	return 0;
}
