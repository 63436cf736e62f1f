// SPDX-License-Identifier: MIT
// The single-producer single-consumer byte ring of struct prec_buildid_note
// + path: a drainer pushes, the session's build-id reader pops.
#include "record/buildid_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rec_len(uint16_t path_len)
{
	return (uint32_t)((sizeof(struct prec_buildid_note) + path_len + 7u) & ~7u);
}

int prec_buildid_queue__init(struct prec_buildid_queue *q, uint32_t bytes)
{
	memset(q, 0, sizeof(*q));
	if (bytes < 8192 || (bytes & (bytes - 1)))
		return -EINVAL;
	q->buf = malloc(bytes);
	if (!q->buf)
		return -ENOMEM;
	q->size = bytes;
	return 0;
}

void prec_buildid_queue__exit(struct prec_buildid_queue *q)
{
	if (!q)
		return;
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

static void put(struct prec_buildid_queue *q, uint64_t pos, const void *src, uint32_t n)
{
	uint32_t off = (uint32_t)(pos & (q->size - 1)), first = q->size - off;

	if (first >= n) {
		memcpy(q->buf + off, src, n);
		return;
	}
	memcpy(q->buf + off, src, first);
	memcpy(q->buf, (const uint8_t *)src + first, n - first);
}

static void get(const struct prec_buildid_queue *q, uint64_t pos, void *dst, uint32_t n)
{
	uint32_t off = (uint32_t)(pos & (q->size - 1)), first = q->size - off;

	if (first >= n) {
		memcpy(dst, q->buf + off, n);
		return;
	}
	memcpy(dst, q->buf + off, first);
	memcpy((uint8_t *)dst + first, q->buf, n - first);
}

int prec_buildid_queue__push(struct prec_buildid_queue *q,
			     const struct prec_buildid_note *n, const char *path)
{
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	uint32_t len;

	if (n->path_len >= PREC_BUILDID_QUEUE_PATH) {
		q->full++;
		return -ENOSPC;
	}
	len = rec_len(n->path_len);
	if (q->head - tail + len > q->size) {
		q->full++;
		return -ENOSPC;
	}
	put(q, q->head, n, sizeof(*n));
	put(q, q->head + sizeof(*n), path, n->path_len);
	/* The bytes before the head the consumer may read. */
	__atomic_store_n(&q->head, q->head + len, __ATOMIC_RELEASE);
	return 0;
}

int prec_buildid_queue__pop(struct prec_buildid_queue *q,
			    struct prec_buildid_note *n, char *path)
{
	uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
	uint32_t len;

	if (q->tail == head)
		return 0;
	get(q, q->tail, n, sizeof(*n));
	len = rec_len(n->path_len);
	/* Written by push() alone, which refuses longer paths. */
	if (n->path_len >= PREC_BUILDID_QUEUE_PATH)
		n->path_len = PREC_BUILDID_QUEUE_PATH - 1;
	get(q, q->tail + sizeof(*n), path, n->path_len);
	path[n->path_len] = '\0';
	/* The room the producer may reuse. */
	__atomic_store_n(&q->tail, q->tail + len, __ATOMIC_RELEASE);
	return 1;
}
