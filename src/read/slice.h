/* SPDX-License-Identifier: MIT */
/* Private to src/read (slice.c, merge.c): the merge's staging area. With
 * many shards the merge takes, from each cursor in turn, every record up to
 * a common time cut (a slice), copies them here, and hands them out sorted
 * from here: each shard is read in a burst, and the records being ordered
 * sit together in the cache, where one record per shard per turn would
 * touch hundreds of streams and miss on each (docs/design.md, "Order
 * across shards"; bench/read_patterns.sh). */
#ifndef PREC_READ_SLICE_H
#define PREC_READ_SLICE_H

#include <stdbool.h>
#include <stdint.h>

struct prec_slice_ent {
	uint64_t time;
	uint32_t off;  /* of the record's bytes in the slice */
	uint16_t len;  /* a perf record's size fits 16 bits */
	uint16_t idx;  /* the cursor it came from */
};

struct prec_slice;

/* Room for bytes of records (and for one entry per 32 of them). Returns 0
 * or -ENOMEM. */
int prec_slice__new(struct prec_slice **out, uint32_t bytes);
void prec_slice__delete(struct prec_slice *s);

/* Can a record of len bytes be added? */
bool prec_slice__room(const struct prec_slice *s, uint32_t len);

/* Append a copy of a record (after room() said yes). Records come cursor
 * by cursor in index order, each cursor's in its own order (see sort()). */
void prec_slice__add(struct prec_slice *s, uint64_t time, uint16_t idx,
		     const void *rec, uint16_t len);

/* Order the entries by (time, cursor), a cursor's records in their order,
 * those kept back by carry() before newer ones of the same time. */
void prec_slice__sort(struct prec_slice *s);

/* The next entry in order (after sort()), or NULL when none is left. */
const struct prec_slice_ent *prec_slice__front(const struct prec_slice *s);
const uint8_t *prec_slice__bytes(const struct prec_slice *s, const struct prec_slice_ent *e);
void prec_slice__pop(struct prec_slice *s);

/* Keep the entries not handed out (and their bytes), in order, and make
 * room behind them for the next slice. */
void prec_slice__carry(struct prec_slice *s);

/* Bytes added since the last carry() (what the merge sizes its cuts on). */
uint32_t prec_slice__added(const struct prec_slice *s);

#endif
