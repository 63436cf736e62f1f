// SPDX-License-Identifier: MIT
// Growable byte buffer shared by the perf.data metadata builders.
#include "read/bytebuf.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void prec_bytebuf__put(struct prec_bytebuf *b, const void *src, size_t n)
{
	if (b->err || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	if (src)
		memcpy(b->p + b->len, src, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

void prec_bytebuf__put_u32(struct prec_bytebuf *b, uint32_t v)
{
	v = htole32(v);
	prec_bytebuf__put(b, &v, sizeof(v));
}

void prec_bytebuf__put_u64(struct prec_bytebuf *b, uint64_t v)
{
	v = htole64(v);
	prec_bytebuf__put(b, &v, sizeof(v));
}
