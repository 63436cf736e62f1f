// SPDX-License-Identifier: MIT
// The -z compressor (src/read/zstd_out.c) against libzstd's own decoder, fed
// the way perf 6.1 feeds it: one stream, one COMPRESSED record at a time,
// each into a buffer of HEADER_COMPRESSED's mmap_len. Compressible and
// random bytes, whole batches and small ones; every record fits 64 KiB,
// decompresses to at least one byte, and the whole comes back exact.
#include "read/zstd_out.h"
#include "../lib/test.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#define TOTAL (4u << 20)

static uint8_t src[TOTAL], back[TOTAL];
static uint8_t rec[PREC_ZSTD_RECORD_MAX];
static uint8_t win[PREC_ZSTD_MMAP_LEN];

struct reader {
	ZSTD_DStream *ds;
	size_t got;      /* bytes decompressed so far, into back */
	uint64_t records;
};

/* As perf: the payload after the 8-byte header, decompressed into a fresh
 * buffer of mmap_len; all of it must be taken and give at least a byte. */
static void read_record(struct reader *r, const uint8_t *p, long len)
{
	uint32_t type;
	uint16_t size;
	ZSTD_inBuffer in = { p + 8, (size_t)len - 8, 0 };
	ZSTD_outBuffer out = { win, sizeof(win), 0 };

	memcpy(&type, p, 4);
	memcpy(&size, p + 6, 2);
	CHECK_EQ(type, 81);
	CHECK_EQ(size, len);
	CHECK(len > 8 && len <= (long)PREC_ZSTD_RECORD_MAX);
	while (in.pos < in.size) {
		size_t before = in.pos + out.pos, ret = ZSTD_decompressStream(r->ds, &out, &in);

		CHECK(!ZSTD_isError(ret));
		CHECK(in.pos + out.pos > before); /* perf would spin here */
	}
	CHECK(out.pos > 0); /* 0: perf's "Couldn't decompress data" */
	CHECK(r->got + out.pos <= TOTAL);
	memcpy(back + r->got, win, out.pos);
	r->got += out.pos;
	r->records++;
}

static void emit(struct prec_zstd_out *z, struct reader *r)
{
	long n = prec_zstd_out__record(z, rec);

	CHECK(n >= 0);
	if (n)
		read_record(r, rec, n);
}

/* src[0, total) through z in pieces of up to max_piece bytes, a record
 * flushed early now and then (as FINISHED_ROUND does). */
static void roundtrip(int level, uint64_t *rs, size_t max_piece, size_t total)
{
	struct prec_zstd_out *z;
	struct reader r = { .ds = ZSTD_createDStream() };
	uint64_t in, out;
	size_t pos = 0;

	CHECK(r.ds);
	CHECK(!ZSTD_isError(ZSTD_initDStream(r.ds)));
	CHECK_EQ(prec_zstd_out__new(&z, level), 0);
	CHECK_EQ(prec_zstd_out__level(z), level);
	CHECK_EQ(prec_zstd_out__record(z, rec), 0); /* empty batch: no record */
	while (pos < total) {
		size_t n = 1 + test_rand(rs) % max_piece;

		if (n > total - pos)
			n = total - pos;
		while (n) {
			size_t k = prec_zstd_out__add(z, src + pos, n);

			pos += k;
			n -= k;
			if (n)
				emit(z, &r);
		}
		if (test_rand(rs) % 64 == 0)
			emit(z, &r);
	}
	emit(z, &r);
	CHECK_EQ(r.got, total);
	CHECK(memcmp(src, back, total) == 0);
	prec_zstd_out__totals(z, &in, &out);
	CHECK_EQ(in, total);
	printf("level %d, pieces <= %zu: %llu records, %llu -> %llu bytes\n", level, max_piece,
	       (unsigned long long)r.records, (unsigned long long)in, (unsigned long long)out);
	prec_zstd_out__delete(z);
	ZSTD_freeDStream(r.ds);
}

int main(void)
{
	uint64_t seed = test_seed(), rs = seed;
	struct prec_zstd_out *z = NULL;

	CHECK_EQ(prec_zstd_out__new(&z, 0), -EINVAL);
	CHECK(z == NULL);
	CHECK_EQ(prec_zstd_out__new(&z, PREC_ZSTD_LEVEL_MAX + 1), -EINVAL);
	prec_zstd_out__delete(NULL);

	/* Record-like: repeated headers, small counters, runs of stack. */
	for (size_t i = 0; i < TOTAL; i++)
		src[i] = (i % 64 < 16) ? (uint8_t)(i % 64) : (uint8_t)(test_rand(&rs) % 4);
	roundtrip(1, &rs, 200, TOTAL);
	roundtrip(3, &rs, 65535, TOTAL);
	/* Incompressible: every batch comes out bigger than it went in. */
	for (size_t i = 0; i < TOTAL; i++)
		src[i] = (uint8_t)test_rand(&rs);
	roundtrip(1, &rs, 65535, TOTAL);
	/* A slow level on less (22 would take hundreds of MB of zstd's tables). */
	roundtrip(12, &rs, 9000, TOTAL / 8);
	return 0;
}
