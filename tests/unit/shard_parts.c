// SPDX-License-Identifier: MIT
// Shard reader, chunks in parts (opts.parts): a format 1.0
// chunk over 64 KiB comes out as parts of whole records that put it back
// together byte for byte; bytes that change between the checking pass and a
// part's read, broken framing, a wrong record count and a bad checksum are
// -EBADMSG at the chunk's offset; moving on mid-chunk skips the rest.
// Buffers lent by the caller are used in turn, outgrown, and never freed.
#include "store/store.h"
#include "../lib/test.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BIG (PREC_CHUNK_READ_MAX - 1000) /* not a multiple of anything */

static unsigned char shard[64 + 2 * (64 + PREC_CHUNK_READ_MAX) + 64 + 256];
static size_t shard_len;
static uint64_t rng;

static void shard_header(void)
{
	struct prec_shard_header h = { .magic = htole64(PREC_SHARD_MAGIC),
		.version_major = htole16(PREC_FORMAT_MAJOR), .header_size = htole32(64) };

	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	memcpy(shard, &h, 64);
	shard_len = 64;
}

/* Records of random sizes (8 .. 8 KiB, some 60 KiB ones) filling len bytes
 * exactly; returns their count. */
static uint32_t fill_records(unsigned char *p, uint32_t len)
{
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		uint32_t left = len - pos, size = 8 + 8 * (uint32_t)(test_rand(&rng) % 1024);
		uint16_t le;

		if (test_rand(&rng) % 16 == 0)
			size = 60000;
		if (size > left || left - size < 8)
			size = left;
		le = htole16((uint16_t)size);
		for (uint32_t k = 0; k < size; k++)
			p[pos + k] = (unsigned char)test_rand(&rng);
		memcpy(p + pos + 6, &le, 2);
		pos += size;
		n++;
	}
	return n;
}

/* Append a DATA chunk of len raw bytes; records 0 means count them. */
static uint64_t add_chunk(uint32_t seq, uint32_t len, uint32_t records)
{
	struct prec_chunk_header h = { .magic = htole32(PREC_CHUNK_MAGIC),
		.type = PREC_CHUNK_DATA, .header_size = htole16(64),
		.payload_len = htole32(len), .raw_len = htole32(len), .seq = htole32(seq) };
	uint64_t off = shard_len;
	uint32_t n = fill_records(shard + off + 64, len);

	h.records = htole32(records ? records : n);
	memcpy(shard + off, &h, 64);
	h.checksum = htole32(prec_crc32c(prec_crc32c(0, &h, 64), shard + off + 64, len));
	memcpy(shard + off, &h, 64);
	shard_len += 64 + len;
	return off;
}

static struct prec_shard_reader *open_parts(void)
{
	struct prec_shard_reader *r;

	struct prec_shard_reader_opts ro = { .parts = true };

	CHECK_EQ(prec_shard_reader__open_mem(&r, shard, shard_len, &ro), 0);
	return r;
}

/* Two big chunks and a small one read back exactly, in parts. */
static void test_round_trip(void)
{
	uint64_t off[3];
	struct prec_shard_reader *r;
	struct prec_chunk c;

	shard_header();
	off[0] = add_chunk(0, BIG, 0);
	off[1] = add_chunk(1, PREC_CHUNK_READ_MAX, 0);
	off[2] = add_chunk(2, 200, 0);
	r = open_parts();
	for (int i = 0; i < 2; i++) {
		uint32_t pos = 0, nparts = 0;
		int got = prec_shard_reader__next(r, &c);

		for (; got == 1; got = c.more ? prec_shard_reader__next_part(r, &c) : 0) {
			CHECK_EQ(c.offset, off[i]);
			CHECK_EQ(c.part_off, pos);
			CHECK(c.len <= PREC_CHUNK_MAX_PAYLOAD);
			CHECK(!memcmp(c.payload, shard + off[i] + 64 + pos, c.len));
			CHECK_EQ(prec_shard_reader__offset(r), c.more ? off[i] : off[i + 1]);
			pos += c.len;
			nparts++;
		}
		CHECK_EQ(got, 0);
		CHECK_EQ(pos, le32toh(((struct prec_chunk_header *)(shard + off[i]))->raw_len));
		CHECK(nparts >= 4 && nparts <= 7);
	}
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(!c.more && c.len == 200 && c.offset == off[2]);
	CHECK_EQ(prec_shard_reader__next_part(r, &c), -EINVAL);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	/* off by default: whole */
	CHECK_EQ(prec_shard_reader__open_mem(&r, shard, shard_len, NULL), 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(!c.more && c.len == BIG);
	prec_shard_reader__close(r);
}

/* next() before the last part goes on with the next chunk. */
static void test_skip(void)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t off1;

	shard_header();
	add_chunk(0, BIG, 0);
	off1 = add_chunk(1, 300, 0);
	r = open_parts();
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(c.more);
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(c.offset == off1 && c.len == 300 && c.hdr.seq == 1);
	prec_shard_reader__close(r);
}

static void expect_bad(uint64_t off, const char *why)
{
	struct prec_shard_reader *r = open_parts();
	struct prec_chunk c;
	int got = prec_shard_reader__next(r, &c);

	while (got == 1 && c.more)
		got = prec_shard_reader__next_part(r, &c);
	CHECK_EQ(got, -EBADMSG);
	CHECK_EQ(prec_shard_reader__offset(r), off);
	if (strcmp(prec_shard_reader__why(r), why))
		CHECK(!"reason");
	prec_shard_reader__close(r);
}

static void test_damage(void)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t off;
	uint16_t four = htole16(4);

	/* a byte of the last part changes after the checking pass */
	shard_header();
	off = add_chunk(0, BIG, 0);
	r = open_parts();
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	shard[off + 64 + BIG - 1] ^= 1;
	while (c.more && prec_shard_reader__next_part(r, &c) == 1)
		;
	CHECK(c.more);
	CHECK_EQ(prec_shard_reader__offset(r), off);
	CHECK(!strcmp(prec_shard_reader__why(r), "chunk changed between reads"));
	prec_shard_reader__close(r);
	/* ... which, there from the start, is a bad checksum */
	expect_bad(off, "bad checksum");

	/* record count in the header wrong, checksum right */
	shard_header();
	off = add_chunk(0, BIG, 7);
	expect_bad(off, "bad record framing");

	/* a record of 4 bytes in the middle, checksum right */
	shard_header();
	off = add_chunk(0, BIG, 0);
	shard_len = off;
	{
		uint32_t pos = 0;
		unsigned char *p = shard + off + 64;

		while (pos < BIG / 2) {
			uint16_t s;

			memcpy(&s, p + pos + 6, 2);
			pos += le16toh(s);
		}
		memcpy(p + pos + 6, &four, 2);
		((struct prec_chunk_header *)(shard + off))->checksum = 0;
		((struct prec_chunk_header *)(shard + off))->checksum =
			htole32(prec_crc32c(prec_crc32c(0, shard + off, 64), p, BIG));
		shard_len = off + 64 + BIG;
	}
	expect_bad(off, "bad record framing");
	/* both broken: the checksum is judged first */
	shard[off + 64 + 10] ^= 1;
	expect_bad(off, "bad checksum");
}

static bool in_block(const unsigned char *p, const unsigned char *block, size_t len)
{
	return p >= block && p < block + len;
}

/* opts.lent_buffers: chunks that fit land in the two lent
 * buffers in turn; a bigger one gets a buffer of the reader's own, and the
 * payload before it stays valid in its lent buffer (the two-buffer
 * contract). The buffers are two pieces of one allocation, so a free() of
 * either by the reader would be an invalid free (ASan, or glibc's abort). */
static void test_lent_buffers(void)
{
	const uint32_t cap = PREC_CHUNK_MAX_PAYLOAD;
	const size_t block_len = 2 * (size_t)cap + 64;
	unsigned char *block = malloc(block_len), *a = block + 32, *b = a + cap;
	const unsigned char *prev;
	struct prec_shard_reader *r;
	struct prec_chunk c;
	struct prec_shard_reader_opts ro = { 0 };
	uint64_t off[4];

	CHECK(block != NULL);
	shard_header();
	off[0] = add_chunk(0, 1000, 0);
	off[1] = add_chunk(1, cap, 0);
	off[2] = add_chunk(2, BIG, 0);
	off[3] = add_chunk(3, 2000, 0);
	ro.lent_buffers = a;
	ro.lent_cap = cap - 8;
	CHECK_EQ(prec_shard_reader__open_mem(&r, shard, shard_len, &ro), -EINVAL);
	ro.lent_cap = cap;
	CHECK_EQ(prec_shard_reader__open_mem(&r, shard, shard_len, &ro), 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(c.payload == a || c.payload == b);
	CHECK(c.len == 1000 && !memcmp(c.payload, shard + off[0] + 64, 1000));
	prev = c.payload;
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK((c.payload == a || c.payload == b) && c.payload != prev);
	CHECK(c.len == cap && !memcmp(c.payload, shard + off[1] + 64, cap));
	prev = c.payload;
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(!in_block(c.payload, block, block_len));
	CHECK(c.len == BIG && !memcmp(c.payload, shard + off[2] + 64, BIG));
	CHECK(!memcmp(prev, shard + off[1] + 64, cap));
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK(c.payload == prev);
	CHECK(c.len == 2000 && !memcmp(c.payload, shard + off[3] + 64, 2000));
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);
	free(block);
}

int main(void)
{
	rng = test_seed();
	test_round_trip();
	test_skip();
	test_damage();
	test_lent_buffers();
	return 0;
}
