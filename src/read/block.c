// SPDX-License-Identifier: MIT
// The merge's per-shard memory in one mapping (block.h says why).
#include "read/block.h"

#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void prec_block__init(struct prec_block *b, uint32_t n, size_t piece, bool huge)
{
	size_t len = (size_t)n * piece;
	size_t extra = huge ? HUGE_PAGE : 0; /* room to start on a boundary */
	uintptr_t at;
	void *p;

	*b = (struct prec_block){ 0 };
	if (!len || (huge && len < HUGE_PAGE))
		return;
	p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	b->map = p;
	b->map_len = len + extra;
	b->piece = piece;
	at = (uintptr_t)p;
	if (huge)
		at = (at + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	b->at = (uint8_t *)at;
	/* no transparent huge pages (THP never): 4 KiB pages, the same memory */
	if (huge)
		madvise(b->at, len, MADV_HUGEPAGE);
}

void *prec_block__piece(const struct prec_block *b, uint32_t i)
{
	return b->at ? b->at + (size_t)i * b->piece : NULL;
}

void prec_block__exit(struct prec_block *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	*b = (struct prec_block){ 0 };
}
