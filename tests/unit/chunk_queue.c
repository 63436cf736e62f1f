// SPDX-License-Identifier: MIT
// The chunk queue on its own: chunks retire in append order with their
// totals, however their writes complete, and a queue that grows while
// chunks wrap around its slots keeps each chunk's offsets, counts and order.
#include "store/chunk_queue.h"
#include "../lib/test.h"

#include <errno.h>

static void push(struct prec_chunk_queue *q, uint32_t records, uint32_t stored)
{
	struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = records,
				     .first_time = 1000 + q->append_n,
				     .last_time = 2000 + q->append_n };

	CHECK(!prec_chunk_queue__full(q));
	prec_chunk_queue__push(q, &m, stored, stored);
}

/* Chunk n holds n + 1 records and 100 + n payload bytes. */
static uint64_t end_of(uint64_t start, uint64_t n)
{
	uint64_t off = start;

	for (uint64_t i = 0; i < n; i++)
		off += PREC_CHUNK_HDR_SIZE + 100 + i;
	return off;
}

static void grow_wrapped(void)
{
	struct prec_chunk_queue q;
	uint64_t records = 0;

	CHECK_EQ(prec_chunk_queue__init(&q, 4, 0, 64), 0);
	/* 3 in, 2 out, 3 in: the queued ones wrap around slot 0 */
	for (uint32_t n = 0; n < 3; n++)
		push(&q, n + 1, 100 + n);
	prec_chunk_queue__written_to(&q, end_of(64, 2));
	CHECK_EQ(q.retire_n, 2);
	for (uint32_t n = 3; n < 6; n++)
		push(&q, n + 1, 100 + n);
	CHECK(prec_chunk_queue__full(&q));
	CHECK_EQ(prec_chunk_queue__grow(&q, 16), 0);
	CHECK_EQ(q.qd, 8);
	CHECK(!prec_chunk_queue__full(&q));
	for (uint32_t n = 6; n < 10; n++)
		push(&q, n + 1, 100 + n);
	CHECK(prec_chunk_queue__full(&q));
	CHECK_EQ(prec_chunk_queue__grow(&q, 12), 0);
	CHECK_EQ(q.qd, 12);
	CHECK_EQ(prec_chunk_queue__grow(&q, 12), -ENOSPC);
	/* each queued chunk kept its file range: retiring by offset takes
	 * exactly those before it, one at a time */
	for (uint64_t n = 2; n < 10; n++) {
		CHECK_EQ(q.slots[n % q.qd].off, end_of(64, n));
		CHECK_EQ(q.slots[n % q.qd].records, n + 1);
		prec_chunk_queue__written_to(&q, end_of(64, n + 1) - 1);
		CHECK_EQ(q.retire_n, n);
		prec_chunk_queue__written_to(&q, end_of(64, n + 1));
		CHECK_EQ(q.retire_n, n + 1);
		CHECK_EQ(q.durable, end_of(64, n + 1));
	}
	for (uint64_t n = 0; n < 10; n++)
		records += n + 1;
	CHECK_EQ(q.st.chunks, 10);
	CHECK_EQ(q.st.records, records);
	CHECK_EQ(q.st.first_time, 1000);
	CHECK_EQ(q.st.last_time, 2009);
	CHECK_EQ(q.pos, end_of(64, 10));
	CHECK_EQ(q.st.file_bytes, end_of(64, 10));
	prec_chunk_queue__exit(&q);
}

int main(void)
{
	grow_wrapped();
	return 0;
}
