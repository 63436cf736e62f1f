// SPDX-License-Identifier: MIT
// The chunk queue: what a shard writer has appended and not yet seen in the
// file, retired in append order however the writes complete, and the
// writer's first error.
#include "store/chunk_queue.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int prec_chunk_queue__init(struct prec_chunk_queue *q, unsigned int qd,
			   int32_t cpu, uint64_t start)
{
	memset(q, 0, sizeof(*q));
	q->qd = qd;
	q->cpu = cpu;
	q->pos = q->durable = q->st.file_bytes = start;
	q->slots = calloc(qd, sizeof(*q->slots));
	return q->slots ? 0 : -ENOMEM;
}

void prec_chunk_queue__exit(struct prec_chunk_queue *q)
{
	free(q->slots);
	q->slots = NULL;
}

int prec_chunk_queue__grow(struct prec_chunk_queue *q, unsigned int max)
{
	unsigned int qd = q->qd * 2 < max ? q->qd * 2 : max;
	struct prec_chunk_slot *slots;

	if (qd <= q->qd)
		return -ENOSPC;
	slots = calloc(qd, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (uint64_t n = q->retire_n; n < q->append_n; n++)
		slots[n % qd] = q->slots[n % q->qd];
	free(q->slots);
	q->slots = slots;
	q->qd = qd;
	return 0;
}

void prec_chunk_queue__push(struct prec_chunk_queue *q,
			    const struct prec_chunk_meta *meta, uint32_t stored,
			    uint32_t raw)
{
	struct prec_chunk_slot *s = &q->slots[q->append_n % q->qd];

	s->off = q->pos;
	s->end = q->pos + PREC_CHUNK_HDR_SIZE + stored;
	s->records = meta->records;
	s->payload_len = stored;
	s->raw_len = raw;
	s->first_time = meta->first_time;
	s->last_time = meta->last_time;
	s->written = false;
	q->pos = s->end;
	q->append_n++;
}

/* Move done chunks, in order, from "in flight" to "in the file". */
static void retire(struct prec_chunk_queue *q)
{
	while (q->retire_n < q->append_n) {
		struct prec_chunk_slot *s = &q->slots[q->retire_n % q->qd];

		if (!s->written)
			break;
		s->written = false;
		q->st.chunks++;
		q->st.records += s->records;
		q->st.payload_bytes += s->payload_len;
		q->st.raw_bytes += s->raw_len;
		if (s->first_time && (!q->st.first_time || s->first_time < q->st.first_time))
			q->st.first_time = s->first_time;
		if (s->last_time > q->st.last_time)
			q->st.last_time = s->last_time;
		q->durable = s->end;
		q->st.file_bytes = s->end;
		q->retire_n++;
	}
}

void prec_chunk_queue__written(struct prec_chunk_queue *q, uint32_t idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		q->slots[(idx + i) % q->qd].written = true;
	retire(q);
}

void prec_chunk_queue__written_to(struct prec_chunk_queue *q, uint64_t end)
{
	for (uint64_t n = q->retire_n; n < q->append_n; n++) {
		struct prec_chunk_slot *s = &q->slots[n % q->qd];

		if (s->end > end)
			break;
		s->written = true;
	}
	retire(q);
}

void prec_chunk_queue__fail(struct prec_chunk_queue *q, int err, uint64_t off)
{
	if (q->err)
		return;
	q->err = err;
	/* A full disk is the caller's to report (it stops the recording and
	 * says so in one line); other errors are logged here, where the
	 * offset is known. */
	prec_log(err == -ENOSPC || err == -EDQUOT ? PREC_LOG_DEBUG : PREC_LOG_ERR,
		 "shard cpu%d: write at offset 0x%llx: %s", (int)q->cpu,
		 (unsigned long long)off, strerror(-err));
}
