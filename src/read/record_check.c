// SPDX-License-Identifier: MIT
// Is a record one the kernel could have written? Shared by the merge's
// cursors (which refuse to hand such a record on) and `prec info --check`
// (which reports it), so that both judge a chunk alike.
#include "read/internal.h"

#include <endian.h>
#include <linux/perf_event.h>
#include <string.h>

const char *prec_record__bad(const struct prec_time_layout *tl, const uint8_t *p,
			     uint32_t left, uint16_t *size)
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
	/* perf's own types (64 and up) live only in perf.data, never in a
	 * ring, and 0 is no type at all */
	if (type == 0 || type >= 64)
		return "not a kernel record type";
	if (type == PERF_RECORD_SAMPLE && *size < tl->sample_time_off + 8u)
		return "SAMPLE too short for its fields";
	return NULL;
}
