// SPDX-License-Identifier: MIT
// The drainers' shared count of ring bytes and its two marks (size_gate.h).
#include "record/size_gate.h"

void prec_size_gate__init(struct prec_size_gate *g, uint64_t stop_at)
{
	*g = (struct prec_size_gate){ .stop_at = stop_at };
}

/* The add and mark_cut() are sequentially consistent, each a store then a
 * load of the other's word: either the add sees the new mark, or the mover
 * sees the add's total, so no crossing goes unsaid. */
unsigned prec_size_gate__add(struct prec_size_gate *g, uint64_t len)
{
	uint64_t after = __atomic_add_fetch(&g->used, len, __ATOMIC_SEQ_CST);
	uint64_t cut = __atomic_load_n(&g->cut_at, __ATOMIC_SEQ_CST);
	unsigned hit = 0;

	if (g->stop_at && after >= g->stop_at)
		hit |= PREC_SIZE_GATE_STOP;
	if (cut && after >= cut && after - len < cut)
		hit |= PREC_SIZE_GATE_CUT;
	return hit;
}

bool prec_size_gate__stopped(const struct prec_size_gate *g)
{
	return g->stop_at && __atomic_load_n(&g->used, __ATOMIC_RELAXED) >= g->stop_at;
}

uint64_t prec_size_gate__used(const struct prec_size_gate *g)
{
	return __atomic_load_n(&g->used, __ATOMIC_SEQ_CST);
}

bool prec_size_gate__mark_cut(struct prec_size_gate *g, uint64_t at)
{
	__atomic_store_n(&g->cut_at, at, __ATOMIC_SEQ_CST);
	return at && prec_size_gate__used(g) >= at;
}
