// SPDX-License-Identifier: MIT
// Fuzz target: the shard reader over memory. Byte 0 picks the mode: raw
// bytes, a valid shard header followed by raw bytes, or a valid header
// followed by structured chunks with right checksums (fuzz_common.h).
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

/* Walk every chunk and touch every payload byte so ASan checks the bounds
 * the reader promises. */
static void walk(const uint8_t *buf, size_t len)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint32_t sum = 0;
	int ret;

	if (prec_shard_reader__open_mem(&r, buf, len) < 0)
		return;
	sum += (uint32_t)prec_shard_reader__header(r)->cpu;
	while ((ret = prec_shard_reader__next(r, &c)) == 1) {
		const uint8_t *p = c.payload;

		if (c.len != c.hdr.raw_len || c.offset >= len)
			__builtin_trap();
		for (uint32_t i = 0; i < c.len; i++)
			sum += p[i];
	}
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
	unsigned int mode;

	fz_quiet();
	if (!size)
		return 0;
	mode = (unsigned int)fz_uint(&in, 1) % 3;
	if (mode == 0) {
		walk(in.p, in.n);
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
	walk(b.p, b.len);
	fz_buf_free(&b);
	return 0;
}
