/* SPDX-License-Identifier: MIT */
/* FNV-1a, 64-bit, for the open-addressing tables keyed by paths (the
 * drainers' maps, the manifest's build-ids): bytes in, one word out. */
#ifndef PREC_UTIL_HASH_H
#define PREC_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PREC_HASH_SEED 0xcbf29ce484222325ull

/* h with the bytes p[0, n) folded in. */
static inline uint64_t prec_hash__bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* h with the word v folded in as one step. */
static inline uint64_t prec_hash__word(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* The final word: FNV's high bits mixed into the low ones a table's mask
 * keeps. */
static inline uint64_t prec_hash__end(uint64_t h)
{
	return h ^ (h >> 29);
}

#endif
