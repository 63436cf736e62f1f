/* SPDX-License-Identifier: MIT */
/* Private to src/read (block.c, merge.c; bench/read_floor lends its readers
 * buffers the merge's way): one anonymous mapping cut into
 * equal pieces, one per shard, for the per-shard memory of a merge. Hundreds
 * of pieces in one mapping cost one mmap and one munmap, where malloc maps
 * (and faults in, and unmaps) each piece over its mmap threshold on its
 * own; in huge pages, a piece every byte of which is used costs a fault per
 * 2 MiB instead of per 4 KiB, and as many fewer TLB entries. */
#ifndef PREC_READ_BLOCK_H
#define PREC_READ_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_block {
	uint8_t *at;   /* piece 0; NULL: no block */
	size_t piece;  /* bytes from one piece to the next */
	void *map;
	size_t map_len;
};

/* Map n pieces of piece bytes each (piece a multiple of 64). huge: start
 * on a 2 MiB boundary and ask for transparent huge pages, only worth it
 * for memory that is all touched (else it all becomes resident), and only
 * done when the block fills a huge page. Otherwise, or when the mapping
 * fails, b->at stays NULL. */
void prec_block__init(struct prec_block *b, uint32_t n, size_t piece, bool huge);

/* Piece i, or NULL without a block. */
void *prec_block__piece(const struct prec_block *b, uint32_t i);

/* Unmap (after every piece's user is gone); a block never mapped is fine. */
void prec_block__exit(struct prec_block *b);

#endif
