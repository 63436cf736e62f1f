/* SPDX-License-Identifier: MIT */
/* Whole records, in time order and one after another in a caller's
 * buffer, appended to a shard as DATA chunks of at most
 * PREC_CHUNK_MAX_PAYLOAD bytes (chunk_pack.c): each chunk's watermark its
 * first time, which holds for every later chunk of the shard. The one rule
 * the side band (its synthesis and its captures) and the flight recorder's
 * snapshots share. */
#ifndef PREC_RECORD_CHUNK_PACK_H
#define PREC_RECORD_CHUNK_PACK_H

#include <stdint.h>

#include "store/store.h"

struct prec_chunk_pack {
	struct prec_shard_writer *w;
	const uint8_t *base;    /* the next chunk's first byte */
	uint32_t len;           /* its bytes so far */
	struct prec_chunk_meta meta;
	int64_t last;           /* the last chunk's ticket, 0 before */
	uint64_t chunks;        /* chunks appended */
};

/* Records from base on go to w. */
void prec_chunk_pack__init(struct prec_chunk_pack *p, struct prec_shard_writer *w,
			   const uint8_t *base);
/* The next record, size bytes right after the last one, stamped time (0:
 * none): the chunk so far goes out first when the record would make it
 * too long. Returns 0 or the writer's -errno. */
int prec_chunk_pack__add(struct prec_chunk_pack *p, uint16_t size, uint64_t time);
/* The chunk so far out now (its ticket in p->last); the next record is
 * at base, e.g. the start of another buffer. Returns 0 or -errno. */
int prec_chunk_pack__cut(struct prec_chunk_pack *p, const uint8_t *base);
/* The last chunk out, then a wait until the writer has read every byte
 * (without copy mode it reads the caller's buffer until then). Returns 0
 * or -errno. */
int prec_chunk_pack__finish(struct prec_chunk_pack *p);

#endif
