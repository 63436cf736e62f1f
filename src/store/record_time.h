/* SPDX-License-Identifier: MIT */
/* A kernel record's bytes as the store reads them: where its timestamp
 * sits (time_layout.c), its real size and what makes it unreadable
 * (record_size.c). Inline where the merge asks for every record. */
#ifndef PREC_STORE_RECORD_TIME_H
#define PREC_STORE_RECORD_TIME_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

/* Where the timestamp sits in a record. prec gives every attr the same
 * IP|TID|TIME|CPU|IDENTIFIER base and never ID/STREAM_ID, so this is one
 * layout per recording, stored in the manifest:
 *   SAMPLE:      time at byte sample_time_off from the record start;
 *   other <64:   time at byte (size - trailer_time_back).              */
struct prec_time_layout {
	uint16_t sample_time_off;   /* 32 for IDENTIFIER|IP|TID|TIME */
	uint16_t trailer_time_back; /* 24 for TIME|CPU|IDENTIFIER trailer */
};

/* Derive the layout from an attr sample_type. Returns 0, or -EINVAL when the
 * sample_type lacks TIME or IDENTIFIER or has ID/STREAM_ID. */
int prec_time_layout__init(struct prec_time_layout *tl, uint64_t sample_type);

/* Timestamp of one record (rec points at its perf_event_header; size is
 * header.size, already checked >= 8 and within the buffer). Returns 0 for
 * records with no time (user types >= 64, or too short to hold one). */
uint64_t prec_time_layout__time(const struct prec_time_layout *tl,
				const void *rec, uint32_t size);

/* Bytes of the sample_id trailer sample_type gives a non-SAMPLE record. */
uint32_t prec_record__trailer_size(uint64_t sample_type);

/* A KSYMBOL or BPF_EVENT record's real size when the kernel's header says
 * more (see record_size.c), else size. */
uint16_t prec_record__sb_size(const uint8_t *p, uint16_t size, uint32_t trailer);

/* The size a record's bytes really have: its header's, but for those two
 * types. Inline: the merge asks for every record. */
static inline uint16_t prec_record__size(const uint8_t *p, uint16_t size, uint32_t trailer)
{
	uint32_t type;

	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (__builtin_expect(type == PERF_RECORD_KSYMBOL || type == PERF_RECORD_BPF_EVENT, 0))
		return prec_record__sb_size(p, size, trailer);
	return size;
}

/* What is wrong with the record at p (left bytes to the end of its chunk):
 * a header cut short, a size under 8 or past the chunk, a type no kernel
 * writes (0, or perf's own from 64 up, which live only in perf.data), a
 * SAMPLE too short to hold its time under tl; NULL if nothing. *size is its
 * size (0 if unreadable). The merge's cursors (which refuse to hand such a
 * record on), the shard reader's chunks in parts and info --check (which
 * reports it) judge alike. Inline: the cursors ask for every record. */
static inline const char *prec_record__bad(const struct prec_time_layout *tl,
					   const uint8_t *p, uint32_t left, uint16_t *size)
{
	uint32_t type;

	*size = 0;
	if (left < 8)
		return "header cut short";
	memcpy(size, p + 6, sizeof(*size));
	*size = le16toh(*size);
	if (*size < 8 || *size > left)
		return "bad size";
	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (type - 1u >= 63u)
		return "not a kernel record type";
	if (type == PERF_RECORD_SAMPLE && *size < tl->sample_time_off + 8u)
		return "SAMPLE too short for its fields";
	return NULL;
}

#endif
