// SPDX-License-Identifier: MIT
// Chunk framing on its own, byte by byte against docs/format.md: every header
// field at its offset, the CRC-32C over header (checksum as 0) and payload,
// raw payloads copied exactly from one or two spans, lz4 payloads that
// decode back to the input (fast and HC), incompressible ones kept raw, the
// zero-copy header, argument checks, and a framed chunk read back by the
// shard reader.
#include "store/chunk_framer.h"
#include "util/bytes.h"
#include "../lib/test.h"

#include <errno.h>
#include <lz4.h>
#include <string.h>

#define MAXP PREC_CHUNK_MAX_PAYLOAD
#define GUARD 64

static const struct prec_chunk_meta meta = {
	.type = PREC_CHUNK_DATA,
	.records = 7,
	.first_time = 0x1111222233334444ull,
	.last_time = 0x5555666677778888ull,
	.watermark = 0x0102030405060708ull,
	.aux_offset = 0x1020304050607080ull,
	.flags = 0xa5a5u,
};

/* The header fields as format.md places them. */
static void check_header(const uint8_t *h, uint32_t seq, enum prec_codec codec,
			 uint32_t stored, uint32_t raw)
{
	CHECK_EQ(prec_ld32(h + 0), PREC_CHUNK_MAGIC);
	CHECK(memcmp(h, "PCHK", 4) == 0);
	CHECK_EQ(h[4], meta.type);
	CHECK_EQ(h[5], codec);
	CHECK_EQ(prec_ld16(h + 6), 64);
	CHECK_EQ(prec_ld32(h + 8), stored);
	CHECK_EQ(prec_ld32(h + 12), raw);
	CHECK_EQ(prec_ld32(h + 16), meta.records);
	CHECK_EQ(prec_ld32(h + 20), seq);
	CHECK(prec_ld64(h + 24) == meta.first_time);
	CHECK(prec_ld64(h + 32) == meta.last_time);
	CHECK(prec_ld64(h + 40) == meta.watermark);
	CHECK(prec_ld64(h + 48) == meta.aux_offset);
	CHECK_EQ(prec_ld32(h + 56), meta.flags);
}

/* The checksum: crc32c of the header with its checksum as 0, then of the
 * stored payload. */
static void check_crc(const uint8_t *chunk, const uint8_t *payload, uint32_t stored)
{
	uint8_t h[64];
	uint32_t crc;

	memcpy(h, chunk, 64);
	memset(h + 60, 0, 4);
	crc = prec_crc32c(prec_crc32c(0, h, 64), payload, stored);
	CHECK_EQ(prec_ld32(chunk + 60), crc);
}

static void fill_random(uint8_t *p, size_t len, uint64_t *rng)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)test_rand(rng);
}

/* perf-like records: the same 48 bytes but for a rising time. */
static void fill_records(uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 48 <= len; i += 48) {
		uint64_t rec[6] = { 9ull | 48ull << 48, 1000, 0x55d0c0de1000ull,
				    4242ull | 4242ull << 32, 1000000 + i, 1 };

		memcpy(p + i, rec, sizeof(rec));
	}
	memset(p + len / 48 * 48, 0, len % 48);
}

/* Frame src (len bytes, as two spans cut at cut) as chunk seq; check the
 * guard bytes after cap are untouched. Returns the stored length. */
static uint32_t frame(struct prec_chunk_framer *f, const uint8_t *src, uint32_t len,
		      uint32_t cut, uint32_t seq, uint8_t *out, enum prec_codec *codec)
{
	struct iovec span[2] = { { (void *)src, cut }, { (void *)(src + cut), len - cut } };
	size_t cap = prec_chunk_framer__cap(f, len);
	uint32_t raw = 0, stored = 0;

	CHECK_EQ(prec_chunk_framer__check(&meta, span, 2, &raw), 0);
	CHECK_EQ(raw, len);
	memset(out, 0xee, cap + GUARD);
	CHECK_EQ(prec_chunk_framer__frame(f, &meta, seq, span, 2, raw, out, cap, &stored), 0);
	CHECK(64 + stored <= cap);
	for (size_t i = cap; i < cap + GUARD; i++)
		CHECK_EQ(out[i], 0xee);
	*codec = out[5];
	return stored;
}

static void raw_frames(uint8_t *src, uint8_t *out, uint64_t *rng)
{
	struct prec_chunk_framer f;
	enum prec_codec codec;
	uint32_t lens[] = { 0, 1, 63, 4096, MAXP };

	prec_chunk_framer__init(&f, PREC_CODEC_NONE, 0);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint32_t len = lens[k], cut = len ? (uint32_t)(test_rand(rng) % (len + 1)) : 0;
		uint32_t stored;

		fill_random(src, len, rng);
		CHECK_EQ(prec_chunk_framer__cap(&f, len), 64 + len);
		stored = frame(&f, src, len, cut, (uint32_t)k, out, &codec);
		CHECK_EQ(stored, len);
		CHECK_EQ(codec, PREC_CODEC_NONE);
		check_header(out, (uint32_t)k, PREC_CODEC_NONE, len, len);
		CHECK(memcmp(out + 64, src, len) == 0);
		check_crc(out, out + 64, len);
	}
	prec_chunk_framer__exit(&f);
}

static void lz4_frames(uint8_t *src, uint8_t *out, uint64_t *rng)
{
	static uint8_t back[MAXP];
	int levels[] = { 0, 1, 9, 12 };

	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct prec_chunk_framer f;
		enum prec_codec codec;
		uint32_t len = MAXP - (uint32_t)(test_rand(rng) % 1000);
		uint32_t cut = (uint32_t)(test_rand(rng) % (len + 1)), stored;

		prec_chunk_framer__init(&f, PREC_CODEC_LZ4, levels[l]);
		CHECK_EQ(prec_chunk_framer__cap(&f, len), 64 + LZ4_COMPRESSBOUND(len));
		/* Compressible: lz4, and it decodes to the input exactly. */
		fill_records(src, len);
		stored = frame(&f, src, len, cut, 40 + (uint32_t)l, out, &codec);
		CHECK_EQ(codec, PREC_CODEC_LZ4);
		CHECK(stored > 0 && stored < len);
		check_header(out, 40 + (uint32_t)l, PREC_CODEC_LZ4, stored, len);
		check_crc(out, out + 64, stored);
		CHECK_EQ(LZ4_decompress_safe((const char *)out + 64, (char *)back,
					     (int)stored, (int)sizeof(back)), (int)len);
		CHECK(memcmp(back, src, len) == 0);
		/* Incompressible: stored raw, codec NONE, from either span. */
		fill_random(src, len, rng);
		stored = frame(&f, src, len, cut, 7, out, &codec);
		CHECK_EQ(codec, PREC_CODEC_NONE);
		CHECK_EQ(stored, len);
		check_header(out, 7, PREC_CODEC_NONE, len, len);
		CHECK(memcmp(out + 64, src, len) == 0);
		check_crc(out, out + 64, len);
		/* No payload: no lz4, no room asked for it. */
		CHECK_EQ(prec_chunk_framer__cap(&f, 0), 64);
		stored = frame(&f, src, 0, 0, 8, out, &codec);
		CHECK_EQ(stored, 0);
		check_header(out, 8, PREC_CODEC_NONE, 0, 0);
		prec_chunk_framer__exit(&f);
	}
}

/* Zero copy: the header alone, its checksum over the spans in place. */
static void zc_header(uint8_t *src, uint64_t *rng)
{
	struct prec_chunk_header h;
	struct iovec span[2] = { { src, 1000 }, { src + 5000, 3000 } };

	fill_random(src, 8000, rng);
	prec_chunk_framer__header(&h, &meta, 99, span, 2, 4000);
	check_header((const uint8_t *)&h, 99, PREC_CODEC_NONE, 4000, 4000);
	{
		uint8_t joined[4000];

		memcpy(joined, src, 1000);
		memcpy(joined + 1000, src + 5000, 3000);
		check_crc((const uint8_t *)&h, joined, 4000);
	}
}

static void bad_args(uint8_t *src)
{
	struct iovec span[3] = { { src, 10 }, { src, 10 }, { src, 10 } };
	struct iovec big[2] = { { src, MAXP }, { src, 1 } };
	struct prec_chunk_meta m = meta;
	uint32_t raw = 0;

	CHECK_EQ(prec_chunk_framer__check(NULL, span, 1, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, span, 3, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, span, -1, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, NULL, 1, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, big, 2, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, big, 1, &raw), 0);
	CHECK_EQ(raw, MAXP);
	m.type = 0;
	CHECK_EQ(prec_chunk_framer__check(&m, span, 1, &raw), -EINVAL);
	m.type = PREC_CHUNK_MARKER;
	CHECK_EQ(prec_chunk_framer__check(&m, span, 1, &raw), -EINVAL);
	CHECK_EQ(prec_chunk_framer__check(&m, NULL, 0, &raw), 0);
	CHECK_EQ(raw, 0);
}

/* A shard in memory: header, then two framed chunks; the reader takes them
 * and gives the payloads back. */
static void read_back(uint8_t *src, uint8_t *out)
{
	struct prec_chunk_framer f;
	struct prec_shard_reader *r;
	struct prec_chunk c;
	enum prec_codec codec;
	uint8_t *p = out + 64;
	uint32_t stored;

	memset(out, 0, 64);
	memcpy(out, &(uint64_t){ htole64(PREC_SHARD_MAGIC) }, 8);
	memcpy(out + 8, &(uint16_t){ htole16(PREC_FORMAT_MAJOR) }, 2);
	memcpy(out + 12, &(uint32_t){ htole32(64) }, 4);
	memcpy(out + 60, &(uint32_t){ htole32(prec_crc32c(0, out, 60)) }, 4);
	prec_chunk_framer__init(&f, PREC_CODEC_LZ4, 0);
	fill_records(src, 30000);
	stored = frame(&f, src, 30000, 12345, 0, p, &codec);
	CHECK_EQ(codec, PREC_CODEC_LZ4);
	p += 64 + stored;
	prec_chunk_framer__exit(&f);
	prec_chunk_framer__init(&f, PREC_CODEC_NONE, 0);
	stored = frame(&f, src + 30000, 20000, 0, 1, p, &codec);
	p += 64 + stored;
	prec_chunk_framer__exit(&f);

	CHECK_EQ(prec_shard_reader__open_mem(&r, out, (size_t)(p - out), NULL), 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK_EQ(c.len, 30000);
	CHECK_EQ(c.hdr.seq, 0);
	CHECK(c.hdr.watermark == meta.watermark);
	CHECK(memcmp(c.payload, src, 30000) == 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	CHECK_EQ(c.len, 20000);
	CHECK_EQ(c.hdr.seq, 1);
	CHECK(memcmp(c.payload, src + 30000, 20000) == 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);
}

int main(void)
{
	static uint8_t src[MAXP * 2], out[2 * (64 + LZ4_COMPRESSBOUND(MAXP)) + GUARD];
	uint64_t rng = test_seed();

	raw_frames(src, out, &rng);
	lz4_frames(src, out, &rng);
	zc_header(src, &rng);
	bad_args(src);
	read_back(src, out);
	return 0;
}
