// SPDX-License-Identifier: MIT
// Fuzz target: the shard reader over memory. Byte 0 picks the mode (mod 3):
// raw bytes, a valid shard header followed by raw bytes, or a valid header
// followed by structured chunks with right checksums (fuzz_common.h); and
// (bits of byte 0 / 3) chunks over 64 KiB in parts, their records judged
// as the merge judges them, and two buffers, as the merge reads them.
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

#define PARTS 1u   /* opts.parts */
#define RECORDS 2u /* prec_shard_reader__check_records */
#define TWO 4u     /* prec_shard_reader__set_two_buffers */

/* Every record of a part is whole and, when the reader judged them, one
 * the merge would hand on. */
static void check_part(const struct prec_chunk *c, const struct prec_time_layout *tl,
		       bool judged)
{
	const uint8_t *p = c->payload;
	uint16_t size;

	for (uint32_t pos = 0; pos < c->len; pos += size) {
		const char *bad = prec_record__bad(tl, p + pos, c->len - pos, &size);

		if (!size || (judged && bad))
			__builtin_trap();
	}
}

/* Walk every chunk (every part of one in parts) and touch every payload
 * byte so ASan checks the bounds the reader promises. */
static void walk(const uint8_t *buf, size_t len, unsigned int flags)
{
	struct prec_shard_reader *r;
	struct prec_time_layout tl;
	struct prec_chunk c;
	uint32_t sum = 0;
	int ret;

	struct prec_shard_reader_opts ro = {
		.parts = flags & PARTS,
		.check_records = flags & RECORDS ? &tl : NULL,
		.two_buffers = flags & TWO,
	};

	if (prec_time_layout__init(&tl, FZ_SAMPLE_TYPE) < 0)
		return;
	ret = prec_shard_reader__open_mem(&r, buf, len, &ro);
	if (ret == -ENOMEM && (flags & TWO))
		__builtin_trap();
	if (ret < 0)
		return;
	sum += (uint32_t)prec_shard_reader__header(r)->cpu;
	while ((ret = prec_shard_reader__next(r, &c)) == 1) {
		uint32_t at = 0;
		/* what the reader cuts into parts (one, if its buffer grew) */
		bool in_parts = (flags & PARTS) && c.hdr.type == PREC_CHUNK_DATA &&
				c.hdr.codec == PREC_CODEC_NONE &&
				c.hdr.raw_len > PREC_CHUNK_MAX_PAYLOAD;

		for (;;) {
			const uint8_t *p = c.payload;

			if (c.part_off != at || c.len > c.hdr.raw_len - at || c.offset >= len)
				__builtin_trap();
			if (in_parts)
				check_part(&c, &tl, flags & RECORDS);
			for (uint32_t i = 0; i < c.len; i++)
				sum += p[i];
			at += c.len;
			if (!c.more)
				break;
			ret = prec_shard_reader__next_part(r, &c);
			if (ret != 1)
				goto out;
		}
		if (at != c.hdr.raw_len)
			__builtin_trap();
	}
out:
	/* An error is sticky: the reader must say the same thing again. */
	if (ret < 0 && prec_shard_reader__next(r, &c) != ret)
		__builtin_trap();
	if (prec_shard_reader__offset(r) > len)
		__builtin_trap();
	sum += (uint32_t)strlen(prec_shard_reader__why(r));
	sink = sum;
	prec_shard_reader__close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_gen gen;
	struct fz_buf b = { 0 };
	struct fz_in in = { data, size };
	unsigned int mode, flags;

	fz_quiet();
	if (!size)
		return 0;
	mode = (unsigned int)fz_uint(&in, 1);
	flags = mode / 3;
	mode %= 3;
	if (mode == 0) {
		walk(in.p, in.n, flags);
		return 0;
	}
	gen.time_off = 32;
	gen.time_back = 24;
	if (mode == 1) {
		fz_shard_header(&b, 0);
		fz_put(&b, in.p, in.n);
	} else {
		fz_shard(&gen, &in, &b, 0);
	}
	walk(b.p, b.len, flags);
	fz_buf_free(&b);
	return 0;
}
