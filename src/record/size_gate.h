/* SPDX-License-Identifier: MIT */
/* --max-size as the drainers keep it (size_gate.c): one counter every
 * drainer adds each chunk to as it appends it, so that the recording stops
 * within a bound whatever the main thread is doing (the start's side band,
 * a cut), not once per look of the main loop at the drained totals. */
#ifndef PREC_RECORD_SIZE_GATE_H
#define PREC_RECORD_SIZE_GATE_H

#include <stdbool.h>
#include <stdint.h>

struct prec_size_gate {
	uint64_t max;  /* the limit in ring bytes; set before the drainers start */
	uint64_t used; /* ring bytes appended so far (atomic) */
};

void prec_size_gate__init(struct prec_size_gate *g, uint64_t max);
/* A chunk of len bytes appended. Returns true once the total is at or past
 * the limit (this chunk's add or an earlier one's); one relaxed atomic add,
 * no lock: any drainer, per chunk. */
bool prec_size_gate__add(struct prec_size_gate *g, uint64_t len);
/* Ring bytes appended so far. Any thread. */
uint64_t prec_size_gate__used(const struct prec_size_gate *g);

#endif
