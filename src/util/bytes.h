/* SPDX-License-Identifier: MIT */
/* Loads of little-endian integers from unaligned bytes (records, pages). */
#ifndef PREC_UTIL_BYTES_H
#define PREC_UTIL_BYTES_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t prec_ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t prec_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t prec_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

#endif
