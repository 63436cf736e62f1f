// SPDX-License-Identifier: MIT
// --max-size's counter, shared by the drainers (size_gate.h).
#include "record/size_gate.h"

void prec_size_gate__init(struct prec_size_gate *g, uint64_t max)
{
	*g = (struct prec_size_gate){ .max = max };
}

bool prec_size_gate__add(struct prec_size_gate *g, uint64_t len)
{
	return __atomic_add_fetch(&g->used, len, __ATOMIC_RELAXED) >= g->max;
}

uint64_t prec_size_gate__used(const struct prec_size_gate *g)
{
	return __atomic_load_n(&g->used, __ATOMIC_RELAXED);
}
