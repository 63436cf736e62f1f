// SPDX-License-Identifier: MIT
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the chunk and header
// checksum. SSE4.2 crc32 instruction when the CPU has it, else slicing-by-8.
#include "store/crc32c.h"
#include "store/store.h"

#include <pthread.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u

static uint32_t table[8][256];
static bool hw_ok;
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
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	hw_ok = __builtin_cpu_supports("sse4.2");
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

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
uint32_t prec_crc32c__hw(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = ~crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}
#else
uint32_t prec_crc32c__hw(uint32_t crc, const void *buf, size_t len)
{
	return prec_crc32c__sw(crc, buf, len);
}
#endif

uint32_t prec_crc32c(uint32_t crc, const void *buf, size_t len)
{
	if (prec_crc32c__have_hw())
		return prec_crc32c__hw(crc, buf, len);
	return prec_crc32c__sw(crc, buf, len);
}
