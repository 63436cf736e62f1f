// SPDX-License-Identifier: MIT
// Command-line sizes: a number, then an optional binary suffix; overflow is
// an error, never a wrap to a small size.
#include "util/size.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int prec_size__split(const char *arg, unsigned int flags, uint64_t *num,
		     uint64_t *mult)
{
	bool bytes = flags & PREC_SIZE_BYTES;
	uint64_t v, m;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno == ERANGE)
		return -EOVERFLOW;
	if (errno || end == arg || !isdigit((unsigned char)*arg))
		return -EINVAL;
	/* perf's sizes are whole numbers too (parse_tag_value's strtoul) */
	if (*end == '.' && isdigit((unsigned char)end[1]))
		return -EDOM;
	if (!v)
		return -EINVAL;
	if (bytes && toupper((unsigned char)*end) == 'B' && !end[1]) {
		*num = v;
		*mult = 1;
		return 0;
	}
	switch (toupper((unsigned char)*end)) {
	case 0: m = 0; break;
	case 'K': m = 1ull << 10; break;
	case 'M': m = 1ull << 20; break;
	case 'G': m = 1ull << 30; break;
	default: return -EOPNOTSUPP;
	}
	if (m && end[1] && strcasecmp(end + 1, "B") && strcasecmp(end + 1, "iB"))
		return -EOPNOTSUPP;
	*num = v;
	*mult = m;
	return 0;
}

int prec_size__bytes(const char *arg, unsigned int flags, uint64_t unit,
		     uint64_t *bytes)
{
	uint64_t v, m;
	int err = prec_size__split(arg, flags, &v, &m);

	if (err)
		return err;
	if (!m)
		m = unit;
	if (m && v > UINT64_MAX / m)
		return -ERANGE;
	*bytes = v * m;
	return 0;
}

int prec_size__parse(const char *arg, size_t page_size, uint64_t *bytes)
{
	uint64_t v;
	int err = prec_size__bytes(arg, 0, page_size, &v);

	if (err)
		return err;
	if (v > PREC_SIZE_RING_MAX)
		return -ERANGE;
	/* The kernel wants a power-of-two number of pages. */
	v = (v + page_size - 1) / page_size;
	while (v & (v - 1))
		v = (v | (v - 1)) + 1;
	*bytes = v * page_size;
	return 0;
}

int prec_size__perf_tag(const char *s, const struct prec_size_tag *tags, uint64_t *v)
{
	for (; tags->tag; tags++) {
		const char *at = strchr(s, tags->tag);
		unsigned long long n;
		char *end;

		if (!at)
			continue;
		errno = 0;
		n = strtoull(s, &end, 10);
		if (end != at || errno || n > UINT64_MAX / tags->mult || n * tags->mult == UINT64_MAX)
			return -EINVAL;
		*v = n * tags->mult;
		return 0;
	}
	return -EINVAL;
}
