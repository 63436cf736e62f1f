/* SPDX-License-Identifier: MIT */
/* Private to the manifest code in src/store and its tests: the layout
 * constants of docs/manifest-format.md and little-endian byte helpers. */
#ifndef PREC_STORE_MANIFEST_FORMAT_H
#define PREC_STORE_MANIFEST_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PREC_MANI_MAGIC 0x494e414d43455250ULL /* "PRECMANI" little-endian */
#define PREC_MANI_HDR_SIZE 32u
#define PREC_MANI_CRC_OFF 28u
#define PREC_MANI_SEC_HDR_SIZE 16u
#define PREC_MANI_STR_ABSENT 0xffffffffu
#define PREC_MANI_SESSION_SIZE 96u
#define PREC_MANI_TIME_CONV_SIZE 32u
/* The manifest's own minor (shards keep PREC_FORMAT_MINOR): 1 added the
 * TIME_CONV section. */
#define PREC_MANI_MINOR 1

enum prec_mani_sec {
	PREC_MANI_SEC_SESSION = 1,
	PREC_MANI_SEC_HOST = 2,
	PREC_MANI_SEC_CPUS = 3,
	PREC_MANI_SEC_ARGV = 4,
	PREC_MANI_SEC_EVENTS = 5,
	PREC_MANI_SEC_TRACEPOINTS = 6,
	PREC_MANI_SEC_TRACING = 7,
	PREC_MANI_SEC_SHARDS = 8,
	PREC_MANI_SEC_BUILDIDS = 9,
	PREC_MANI_SEC_AUXTRACE = 10,
	PREC_MANI_SEC_TIME_CONV = 11, /* minor 1 */
	PREC_MANI_SEC_MAX
};

/* Smallest encoding of one element of each array: counts are checked
 * against remaining bytes / this before anything is allocated. */
#define PREC_MANI_MIN_STR 8u
#define PREC_MANI_MIN_EVENT (128u + 8u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_TRACEPOINT (8u + 3u * PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_SHARD (72u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_BUILDID (32u + PREC_MANI_MIN_STR)

static inline size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static inline void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

static inline void le64(uint8_t *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

static inline uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

#endif
