// SPDX-License-Identifier: MIT
// The bytes a kernel record really holds, for the recorder's walk and the
// reader's merge alike: the sample_id trailer's size, and the real size of
// the KSYMBOL and BPF_EVENT records a kernel bug makes look longer.
#include "store/store.h"

#include <endian.h>
#include <linux/perf_event.h>
#include <string.h>

uint32_t prec_record__trailer_size(uint64_t sample_type)
{
	uint64_t bits = sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				       PERF_SAMPLE_IDENTIFIER);

	return 8u * (uint32_t)__builtin_popcountll(bits);
}

/* The kernel builds one KSYMBOL (BPF_EVENT) record and hands it to every
 * event that asked for them, adding each event's sample_id size to the
 * header's size without taking the last one's off (6.18 does this): with
 * two sessions recording BPF loads, the second gets a size one trailer too
 * big, its own trailer where it belongs, and stale ring bytes after it,
 * where a reader looks for the trailer. The size the body really has: */
uint16_t prec_record__sb_size(const uint8_t *p, uint16_t size, uint32_t trailer)
{
	uint32_t type, real;

	memcpy(&type, p, sizeof(type));
	type = le32toh(type);
	if (type == PERF_RECORD_KSYMBOL) {
		/* addr, len, ksym_type, flags, then the name, NUL, padding */
		const uint8_t *nul = size > 24 ? memchr(p + 24, 0, size - 24u) : NULL;

		if (!nul)
			return size;
		real = 24u + (((uint32_t)(nul - (p + 24)) + 1u + 7u) & ~7u) + trailer;
	} else {
		/* type, flags, id, tag[8] */
		real = 8u + 16u + trailer;
	}
	return real < size ? (uint16_t)real : size;
}
