// SPDX-License-Identifier: MIT
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the chunk and header
// checksum. The CPU's CRC-32C instruction when it has one (x86 SSE4.2
// crc32, ARMv8 crc32c*), three streams at once joined by "append zeros"
// operators (after Mark Adler's crc32c.c); else slicing-by-8.
#include "store/crc32c.h"
#include "store/store.h"

#include <pthread.h>
#include <string.h>

/* HW_TARGET: the function attribute that enables the instruction;
 * crc_u64/crc_u8 fold 8 bytes (a little-endian load) / 1 byte into c. */
#if defined(__x86_64__)
#define HAVE_HW 1
#define HW_TARGET "sse4.2"
#define crc_u64(c, v) __builtin_ia32_crc32di(c, v)
#define crc_u8(c, b) __builtin_ia32_crc32qi((uint32_t)(c), b)
#elif defined(__aarch64__) && defined(__ARM_ARCH_ISA_A64) && !defined(__AARCH64EB__)
#include <arm_acle.h>
#include <sys/auxv.h>

#define HAVE_HW 1
#define HW_TARGET "+crc"
#define crc_u64(c, v) __crc32cd((uint32_t)(c), v)
#define crc_u8(c, b) __crc32cb((uint32_t)(c), b)
#else
#define HAVE_HW 0
#endif

#define CRC32C_POLY 0x82F63B78u

/* The crc instruction takes 2-3 cycles but can start one per cycle: a buffer
 * is cut into three blocks of LONG (then SHORT) bytes whose CRCs run side
 * by side; zeros_long/zeros_short shift a CRC over that many zero bytes, so
 * crc(a b) = shift(crc(a), |b|) ^ crc0(b). Powers of two (see zeros_op). */
#define LONG 8192u
#define SHORT 256u

static uint32_t table[8][256];
static uint32_t zeros_long[4][256], zeros_short[4][256];
static bool hw_ok;

static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void gf2_square(uint32_t *square, const uint32_t *mat)
{
	for (int n = 0; n < 32; n++)
		square[n] = gf2_times(mat, mat[n]);
}

/* The operator that appends len zero bytes (len a power of two) to a CRC
 * register, by squaring the one-zero-bit operator. */
static void zeros_op(uint32_t *even, size_t len)
{
	uint32_t odd[32], row = 1;

	odd[0] = CRC32C_POLY;
	for (int n = 1; n < 32; n++, row <<= 1)
		odd[n] = row;
	gf2_square(even, odd); /* two zero bits */
	gf2_square(odd, even); /* four */
	for (;;) {
		gf2_square(even, odd); /* first pass: one zero byte */
		len >>= 1;
		if (!len)
			return;
		gf2_square(odd, even);
		len >>= 1;
		if (!len)
			break;
	}
	memcpy(even, odd, sizeof(odd));
}

static void zeros_table(uint32_t zeros[4][256], size_t len)
{
	uint32_t op[32];

	zeros_op(op, len);
	for (uint32_t n = 0; n < 256; n++)
		for (int k = 0; k < 4; k++)
			zeros[k][n] = gf2_times(op, n << (8 * k));
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void crc32c_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		table[0][i] = c;
	}
	for (unsigned int i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				      table[0][table[t - 1][i] & 0xff];
	zeros_table(zeros_long, LONG);
	zeros_table(zeros_short, SHORT);
#if defined(__x86_64__)
	__builtin_cpu_init();
	hw_ok = __builtin_cpu_supports("sse4.2");
#elif HAVE_HW
	hw_ok = getauxval(AT_HWCAP) & HWCAP_CRC32;
#endif
}

bool prec_crc32c__have_hw(void)
{
	pthread_once(&init_once, crc32c_init);
	return hw_ok;
}

uint32_t prec_crc32c__sw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&init_once, crc32c_init);
	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint32_t lo, hi;

		/* On-disk data is little-endian and so is every host we build
		 * for; the byte order of the loads matches the stream. */
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#if HAVE_HW
static uint32_t shift(const uint32_t zeros[4][256], uint32_t crc)
{
	return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^
	       zeros[2][(crc >> 16) & 0xff] ^ zeros[3][crc >> 24];
}

/* One word into the CRC, and to *d when copying (d != NULL: the callers
 * are inlined with d NULL or not, so each gets its own loop). */
static inline __attribute__((target(HW_TARGET), always_inline))
uint64_t crc_word(uint64_t c, unsigned char *d, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	if (d)
		memcpy(d, &v, 8);
	return crc_u64(c, v);
}

/* Three streams over blocks of blk bytes while 3 * blk remain. */
static inline __attribute__((target(HW_TARGET), always_inline))
uint64_t crc_3way(uint64_t c, unsigned char **dd, const unsigned char **pp,
		  size_t *len, size_t blk, const uint32_t zeros[4][256])
{
	const unsigned char *p = *pp;
	unsigned char *d = *dd;

	for (; *len >= 3 * blk; *len -= 3 * blk, p += 3 * blk, d = d ? d + 3 * blk : d) {
		uint64_t c1 = 0, c2 = 0;

		for (size_t i = 0; i < blk; i += 8) {
			c = crc_word(c, d ? d + i : NULL, p + i);
			c1 = crc_word(c1, d ? d + blk + i : NULL, p + blk + i);
			c2 = crc_word(c2, d ? d + 2 * blk + i : NULL, p + 2 * blk + i);
		}
		c = shift(zeros, (uint32_t)c) ^ c1;
		c = shift(zeros, (uint32_t)c) ^ c2;
	}
	*pp = p;
	*dd = d;
	return c;
}

static inline __attribute__((target(HW_TARGET), always_inline))
uint32_t crc_hw(uint32_t crc, unsigned char *d, const unsigned char *p, size_t len)
{
	uint64_t c = ~crc;

	for (; len && ((uintptr_t)p & 7); len--) {
		if (d)
			*d++ = *p;
		c = crc_u8(c, *p++);
	}
	c = crc_3way(c, &d, &p, &len, LONG, zeros_long);
	c = crc_3way(c, &d, &p, &len, SHORT, zeros_short);
	for (; len >= 8; len -= 8, p += 8, d = d ? d + 8 : d)
		c = crc_word(c, d, p);
	for (; len; len--) {
		if (d)
			*d++ = *p;
		c = crc_u8(c, *p++);
	}
	return ~(uint32_t)c;
}

__attribute__((target(HW_TARGET)))
uint32_t prec_crc32c__hw(uint32_t crc, const void *buf, size_t len)
{
	return crc_hw(crc, NULL, buf, len);
}

/* The copy rides on the CRC's loads: one pass over src instead of two. */
__attribute__((target(HW_TARGET)))
uint32_t prec_crc32c__hw_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	return crc_hw(crc, dst, src, len);
}
#else
uint32_t prec_crc32c__hw(uint32_t crc, const void *buf, size_t len)
{
	return prec_crc32c__sw(crc, buf, len);
}

uint32_t prec_crc32c__hw_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	return prec_crc32c__sw(crc, src, len);
}
#endif

uint32_t prec_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (prec_crc32c__have_hw())
		return prec_crc32c__hw(crc, buf, len);
	return prec_crc32c__sw(crc, buf, len);
}

uint32_t prec_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
	if (prec_crc32c__have_hw())
		return prec_crc32c__hw_copy(crc, dst, src, len);
	memcpy(dst, src, len);
	return prec_crc32c__sw(crc, src, len);
}
