/* SPDX-License-Identifier: MIT */
/* Private to the manifest code in src/store and its tests: the layout
 * constants of docs/manifest-format.md; its integers go through
 * util/bytes.h. */
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
#define PREC_MANI_MAX_DISK_SIZE 64u
#define PREC_MANI_BUILDID_DROPS_SIZE 8u
#define PREC_MANI_KCORE_SIZE 16u
#define PREC_MANI_OFFCPU_SIZE 16u
#define PREC_MANI_COMPRESSION_SIZE 8u
/* The manifest's own minor (shards keep PREC_FORMAT_MINOR): 1 added the
 * TIME_CONV section, 2 the MAX_DISK one, 3 BUILDID_DROPS and GROUPS, 4
 * KCORE, 5 OFFCPU, 6 NUMA, 7 PMUS, 8 CACHES, 9 GROUP_NAMES, 10 BPF_PROGS and
 * BPF_BTFS, 11 ID_LOST, 12 COMPRESSION. */
#define PREC_MANI_MINOR 12

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
	PREC_MANI_SEC_MAX_DISK = 12,  /* minor 2 */
	PREC_MANI_SEC_BUILDID_DROPS = 13, /* minor 3 */
	PREC_MANI_SEC_GROUPS = 14,    /* minor 3 */
	PREC_MANI_SEC_KCORE = 15,     /* minor 4 */
	PREC_MANI_SEC_OFFCPU = 16,    /* minor 5 */
	PREC_MANI_SEC_NUMA = 17,      /* minor 6 */
	PREC_MANI_SEC_PMUS = 18,      /* minor 7 */
	PREC_MANI_SEC_CACHES = 19,    /* minor 8 */
	PREC_MANI_SEC_GROUP_NAMES = 20, /* minor 9 */
	PREC_MANI_SEC_BPF_PROGS = 21, /* minor 10 */
	PREC_MANI_SEC_BPF_BTFS = 22,  /* minor 10 */
	PREC_MANI_SEC_ID_LOST = 23,   /* minor 11 */
	PREC_MANI_SEC_COMPRESSION = 24, /* minor 12 */
	PREC_MANI_SEC_MAX
};

/* Smallest encoding of one element of each array: counts are checked
 * against remaining bytes / this before anything is allocated. */
#define PREC_MANI_MIN_STR 8u
#define PREC_MANI_MIN_EVENT (128u + 8u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_TRACEPOINT (8u + 3u * PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_SHARD (72u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_BUILDID (32u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_NUMA_NODE (24u + 2u * PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_PMU (8u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_PMU_CAP (2u * PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_CACHE (16u + 3u * PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_GROUP_NAME (8u + PREC_MANI_MIN_STR)
#define PREC_MANI_MIN_BPF_PROG (16u + 192u) /* header, PREC_BPF_INFO_MIN */
#define PREC_MANI_MIN_BTF 8u
#define PREC_MANI_ID_LOST_SIZE 16u /* event, id index, lost */

static inline size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

#endif
