/* SPDX-License-Identifier: MIT */
/* The bytes of a recording directory's shard files: the format's version,
 * the shard header and the chunk header, the names of the files beside
 * the CPU shards. docs/format.md has every byte. */
#ifndef PREC_STORE_SHARD_FORMAT_H
#define PREC_STORE_SHARD_FORMAT_H

#include <stdint.h>

#define PREC_FORMAT_MAJOR 1
#define PREC_FORMAT_MINOR 3

#define PREC_SHARD_MAGIC 0x4452485343455250ULL /* "PRECSHRD" little-endian */
#define PREC_CHUNK_MAGIC 0x4b484350u           /* "PCHK" */

/* Largest raw (decompressed) payload of one chunk a writer emits. Writers
 * split larger drains into several chunks (at record boundaries for data
 * chunks), so a reader's memory per shard is bounded by this whatever the
 * trace size. 64 KiB: a merge holds one chunk per shard at once, so this
 * times the shard count is most of its memory (16 MiB at 256 shards). */
#define PREC_CHUNK_MAX_PAYLOAD (64u * 1024u)

/* An AUX chunk's flags beyond the kernel's PERF_AUX_FLAG_* (low 16 bits):
 * an AUX area snapshot (-S) bigger than PREC_CHUNK_MAX_PAYLOAD is written
 * as pieces of consecutive aux_offset, the first flagged RUN, the others
 * CONT; the merge joins them into one AUXTRACE, as perf writes one per
 * snapshot. Readers that ignore the bits write one per piece. */
#define PREC_AUX_CHUNK_RUN (1u << 30)
#define PREC_AUX_CHUNK_CONT (1u << 31)

/* Largest raw payload a reader accepts: format 1.0 writers emitted chunks
 * of up to 256 KiB, and those files must stay readable. Readers size their
 * buffers to the chunks they meet, so new files never cost this much. */
#define PREC_CHUNK_READ_MAX (256u * 1024u)

/* Bound on how far a record can lag the watermark of an earlier chunk of the
 * same shard: the kernel writes a record with preemption off, so the gap
 * between taking its timestamp and publishing it in data_head is
 * microseconds; 10 ms is a wide margin. Every record in a chunk after the
 * one carrying watermark W has time >= W - PREC_WATERMARK_SLACK_NS. */
#define PREC_WATERMARK_SLACK_NS 10000000ull
/* A MARKER chunk's watermark when its writer adds no record after it: the
 * side band once synthesized, without --markers (docs/format.md). */
#define PREC_WATERMARK_CLOSED UINT64_MAX

#define PREC_SIDEBAND_CPU (-1)
#define PREC_SHARD_SIDEBAND_NAME "sideband.shard"
#define PREC_MANIFEST_NAME "manifest"
/* --max-disk: the tasks and maps of the window, synthesized again */
#define PREC_CARRY_SHARD_NAME "carry.shard"
#define PREC_CARRY_CPU (-3)
/* The recorder's vDSO image, when the manifest's build-ids list "[vdso]". */
#define PREC_VDSO_NAME "vdso.so"

enum prec_chunk_type {
	PREC_CHUNK_DATA = 1,   /* perf records, whole, in ring order */
	PREC_CHUNK_AUX = 2,    /* raw AUX area bytes starting at aux_offset */
	PREC_CHUNK_MARKER = 3, /* no payload: a round watermark only */
};

enum prec_codec {
	PREC_CODEC_NONE = 0,
	PREC_CODEC_LZ4 = 1,
};

/* On-disk shard file header: 64 bytes at offset 0. */
struct prec_shard_header {
	uint64_t magic;          /* PREC_SHARD_MAGIC */
	uint16_t version_major;  /* PREC_FORMAT_MAJOR; readers refuse others */
	uint16_t version_minor;  /* readers accept any minor */
	uint32_t header_size;    /* 64 */
	int32_t cpu;             /* CPU number, or PREC_SIDEBAND_CPU */
	uint32_t flags;          /* PREC_SHARD_TRIMMED, PREC_SHARD_SEGMENTS */
	uint8_t session_id[16];  /* equals the manifest's */
	uint64_t created_ns;     /* CLOCK_REALTIME at creation */
	uint64_t first_chunk;    /* TRIMMED: offset of the first chunk kept; else 0 */
	uint32_t first_seq;      /* TRIMMED: its seq; else 0 */
	uint32_t checksum;       /* crc32c of the 60 bytes before it */
};
/* --max-disk dropped the shard's oldest chunks (punched out of the file):
 * chunks start at first_chunk, numbered from first_seq (format 1.1). */
#define PREC_SHARD_TRIMMED 1u
/* --max-disk wrote the shard in segment files: its chunks go on, at their
 * shard offsets, in the files "NAME.1", "NAME.2", ..., each from where the
 * chunks of the one before end (format 1.2; docs/format.md). */
#define PREC_SHARD_SEGMENTS 2u
_Static_assert(sizeof(struct prec_shard_header) == 64, "shard header is 64 bytes");

/* On-disk chunk header: 64 bytes, followed by payload_len bytes. Chunks
 * follow each other with no padding. */
struct prec_chunk_header {
	uint32_t magic;        /* PREC_CHUNK_MAGIC */
	uint8_t type;          /* enum prec_chunk_type */
	uint8_t codec;         /* enum prec_codec */
	uint16_t header_size;  /* 64 */
	uint32_t payload_len;  /* bytes stored after this header */
	uint32_t raw_len;      /* bytes after decoding; == payload_len for NONE */
	uint32_t records;      /* perf records in the payload (DATA), else 0 */
	uint32_t seq;          /* 0, 1, 2 ... per shard: a gap is a lost chunk */
	uint64_t first_time;   /* smallest record timestamp, 0 if none */
	uint64_t last_time;    /* largest record timestamp, 0 if none */
	uint64_t watermark;    /* event-clock time taken before data_head was read */
	uint64_t aux_offset;   /* AUX: position of the first byte in the AUX stream */
	uint32_t flags;        /* AUX: PERF_AUX_FLAG_* seen for these bytes */
	uint32_t checksum;     /* crc32c of the header (this field as 0) + payload */
};
_Static_assert(sizeof(struct prec_chunk_header) == 64, "chunk header is 64 bytes");
#define PREC_CHUNK_HDR_SIZE ((uint32_t)sizeof(struct prec_chunk_header))

#endif
