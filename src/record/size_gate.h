/* SPDX-License-Identifier: MIT */
/* The ring bytes the drainers write, counted by them (size_gate.c): one
 * counter every drainer adds each chunk to as it appends it, and two marks
 * on it, so that --max-size and --switch-output=SIZE act as the chunk that
 * reaches them is written, whatever the main thread is doing (the start's
 * side band, a cut), not once per look of the main loop at the drainers'
 * totals of their last passes. */
#ifndef PREC_RECORD_SIZE_GATE_H
#define PREC_RECORD_SIZE_GATE_H

#include <stdbool.h>
#include <stdint.h>

struct prec_size_gate {
	uint64_t used;    /* ring bytes appended so far (atomic) */
	uint64_t stop_at; /* --max-size; 0: none. Set before the drainers start */
	uint64_t cut_at;  /* --switch-output=SIZE: the next cut's mark; 0: none
			   * (atomic: the main thread moves it at each cut) */
};

/* What an add reached. */
enum {
	PREC_SIZE_GATE_STOP = 1, /* the total is at or past stop_at */
	PREC_SIZE_GATE_CUT = 2,  /* this add took the total to cut_at */
};

void prec_size_gate__init(struct prec_size_gate *g, uint64_t stop_at);
/* A chunk of len bytes appended. Returns the PREC_SIZE_GATE_* it reached
 * (CUT for the one add that crosses the mark, STOP for every add from the
 * limit on). One atomic add and a load, no lock: any drainer, per chunk. */
unsigned prec_size_gate__add(struct prec_size_gate *g, uint64_t len);
/* Is the total at or past stop_at (0: never)? Any thread. */
bool prec_size_gate__stopped(const struct prec_size_gate *g);
/* Ring bytes appended so far. Any thread. */
uint64_t prec_size_gate__used(const struct prec_size_gate *g);
/* Move the cut mark (0: none). Returns true when the total is at it
 * already: the caller cuts at once (an add crossing it as it moved may
 * say CUT too: the caller's trigger, not the count of wakes, decides). */
bool prec_size_gate__mark_cut(struct prec_size_gate *g, uint64_t at);

#endif
