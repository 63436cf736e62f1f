// SPDX-License-Identifier: MIT
// Where a record's timestamp sits, derived once per recording from the common
// attr sample_type: a fixed offset in SAMPLE records, and a fixed distance
// from the end (the sample_id trailer) in every other kernel record.
#include "store/store.h"
#include "util/bytes.h"

#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

int prec_time_layout__init(struct prec_time_layout *tl, uint64_t sample_type)
{
	uint16_t off = 8, back = 8;

	if (!(sample_type & PERF_SAMPLE_TIME) ||
	    !(sample_type & PERF_SAMPLE_IDENTIFIER))
		return -EINVAL;
	/* ID and STREAM_ID would sit between TIME and IDENTIFIER in the
	 * trailer and move with each attr's own bits; prec never sets them. */
	if (sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID))
		return -EINVAL;
	/* SAMPLE body: header, IDENTIFIER, [IP], [TID], TIME. */
	off += 8;
	if (sample_type & PERF_SAMPLE_IP)
		off += 8;
	if (sample_type & PERF_SAMPLE_TID)
		off += 8;
	/* Trailer, read backwards: IDENTIFIER, [CPU,res], TIME. */
	if (sample_type & PERF_SAMPLE_CPU)
		back += 8;
	back += 8;
	tl->sample_time_off = off;
	tl->trailer_time_back = back;
	return 0;
}

uint64_t prec_time_layout__time(const struct prec_time_layout *tl,
				const void *rec, uint32_t size)
{
	const unsigned char *p = rec;
	uint32_t type;

	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (type == PERF_RECORD_SAMPLE) {
		if (size < (uint32_t)tl->sample_time_off + 8)
			return 0;
		return prec_ld64(p + tl->sample_time_off);
	}
	if (type >= 64 || type == 0)
		return 0;
	/* The trailer follows the record's own body, which is at least the
	 * 8-byte header: a record that short has no trailer. */
	if (size < 8u + tl->trailer_time_back)
		return 0;
	return prec_ld64(p + size - tl->trailer_time_back);
}
