// SPDX-License-Identifier: MIT
// Records in a buffer to DATA chunks (chunk_pack.h).
#include "record/chunk_pack.h"

#include <string.h>

void prec_chunk_pack__init(struct prec_chunk_pack *p, struct prec_shard_writer *w,
			   const uint8_t *base)
{
	memset(p, 0, sizeof(*p));
	p->w = w;
	p->base = base;
	p->meta.type = PREC_CHUNK_DATA;
}

static int flush(struct prec_chunk_pack *p)
{
	struct iovec iov = { (void *)p->base, p->len };
	int64_t t;

	if (!p->len)
		return 0;
	/* Later chunks hold later records: the first time holds for them. */
	p->meta.watermark = p->meta.first_time;
	t = prec_shard_writer__append(p->w, &p->meta, &iov, 1);
	if (t < 0)
		return (int)t;
	p->last = t;
	p->chunks++;
	p->base += p->len;
	p->len = 0;
	memset(&p->meta, 0, sizeof(p->meta));
	p->meta.type = PREC_CHUNK_DATA;
	return 0;
}

int prec_chunk_pack__add(struct prec_chunk_pack *p, uint16_t size, uint64_t time)
{
	if (p->len + size > PREC_CHUNK_MAX_PAYLOAD) {
		int err = flush(p);

		if (err)
			return err;
	}
	if (time && (!p->meta.first_time || time < p->meta.first_time))
		p->meta.first_time = time;
	if (time > p->meta.last_time)
		p->meta.last_time = time;
	p->meta.records++;
	p->len += size;
	return 0;
}

int prec_chunk_pack__cut(struct prec_chunk_pack *p, const uint8_t *base)
{
	int err = flush(p);

	if (!err)
		p->base = base;
	return err;
}

int prec_chunk_pack__finish(struct prec_chunk_pack *p)
{
	int err = flush(p);

	if (!err && p->last > 0)
		err = prec_shard_writer__wait(p->w, p->last);
	return err;
}
