// SPDX-License-Identifier: MIT
// CRC-32C: published check values, chaining, and the instruction path (x86
// SSE4.2, ARMv8 CRC) and the table path agreeing on random buffers at every
// alignment and length, copying or not.
#include "store/crc32c.h"
#include "store/store.h"
#include "../lib/test.h"

#include <string.h>

typedef uint32_t (*crc_fn)(uint32_t crc, const void *buf, size_t len);

/* The published check values, through one implementation. */
static void known_vectors(crc_fn crc)
{
	unsigned char buf[64];

	CHECK_EQ(crc(0, "123456789", 9), 0xE3069283u);
	CHECK_EQ(crc(0, "", 0), 0);
	/* RFC 3720 (iSCSI) B.4 vectors. */
	memset(buf, 0, 32);
	CHECK_EQ(crc(0, buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, 32);
	CHECK_EQ(crc(0, buf, 32), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (unsigned char)i;
	CHECK_EQ(crc(0, buf, 32), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (unsigned char)(31 - i);
	CHECK_EQ(crc(0, buf, 32), 0x113FDB5Cu);
	/* Chaining equals one pass. */
	CHECK_EQ(crc(crc(0, "1234", 4), "56789", 5), 0xE3069283u);
}

/* prec_crc32c_copy: the same CRC, src's bytes in dst at any alignment, and
 * not one byte written past them. */
static void copy_agrees(uint64_t *rng, uint32_t seed, const unsigned char *src,
			size_t len, uint32_t want)
{
	static unsigned char dst[70000 + 128];
	size_t doff = test_rand(rng) % 64;

	memset(dst, 0xa5, len + doff + 64);
	CHECK_EQ(prec_crc32c_copy(seed, dst + doff, src, len), want);
	CHECK(memcmp(dst + doff, src, len) == 0);
	for (size_t i = 0; i < 64; i++)
		CHECK(dst[doff + len + i] == 0xa5);
	for (size_t i = 0; i < doff; i++)
		CHECK(dst[i] == 0xa5);
	if (prec_crc32c__have_hw())
		CHECK_EQ(prec_crc32c__hw_copy(seed, dst + doff, src, len), want);
}

static void hw_vs_sw(uint64_t *rng)
{
	static unsigned char buf[70000];
	int have = prec_crc32c__have_hw();

	printf("crc32c instruction: %s\n", have ? "yes" : "no (software only)");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)test_rand(rng);
	for (int iter = 0; iter < 2000; iter++) {
		size_t off = test_rand(rng) % 64;
		size_t len = test_rand(rng) % (iter < 1000 ? 100 : sizeof(buf) - 64);
		uint32_t seed = (uint32_t)test_rand(rng);
		uint32_t sw = prec_crc32c__sw(seed, buf + off, len);
		size_t cut = len ? test_rand(rng) % len : 0;

		if (have)
			CHECK_EQ(prec_crc32c__hw(seed, buf + off, len), sw);
		CHECK_EQ(prec_crc32c(seed, buf + off, len), sw);
		copy_agrees(rng, seed, buf + off, len, sw);
		CHECK_EQ(prec_crc32c__sw(prec_crc32c__sw(seed, buf + off, cut),
					 buf + off + cut, len - cut), sw);
	}
	/* A single flipped bit always changes the CRC. */
	for (int iter = 0; iter < 200; iter++) {
		size_t len = 1 + test_rand(rng) % 4096, bit = test_rand(rng) % (len * 8);
		uint32_t a = prec_crc32c(0, buf, len);

		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK(prec_crc32c(0, buf, len) != a);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
}

int main(void)
{
	uint64_t rng = test_seed();

	known_vectors(prec_crc32c);
	known_vectors(prec_crc32c__sw);
	if (prec_crc32c__have_hw())
		known_vectors(prec_crc32c__hw);
	hw_vs_sw(&rng);
	printf("ok\n");
	return 0;
}
