// SPDX-License-Identifier: MIT
// prec_size_gate: STOP for every add from --max-size on, CUT for the one
// add that takes the count across the cut mark (none past it, none for a
// mark moved where the count is already: mark_cut() says so instead); and
// with drainers adding at once, one CUT for the mark and a STOP for every
// add past the limit, whichever thread makes them.
#include <pthread.h>
#include <stdio.h>

#include "record/size_gate.h"
#include "../lib/test.h"

#define THREADS 2
#define ADDS 20000
#define ROUNDS 50

static struct prec_size_gate gate;
static unsigned long cuts[THREADS], stops[THREADS], unders[THREADS];

static void *adder(void *arg)
{
	int i = (int)(long)arg;
	unsigned long c = 0;

	for (int n = 0; n < ADDS; n++) {
		unsigned hit = prec_size_gate__add(&gate, 1 + (unsigned)n % 3);

		c += !!(hit & PREC_SIZE_GATE_CUT);
		stops[i] += !!(hit & PREC_SIZE_GATE_STOP);
		unders[i] += !(hit & PREC_SIZE_GATE_STOP);
	}
	cuts[i] = c;
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	unsigned long all_cuts, all_stops;

	prec_size_gate__init(&gate, 100);
	CHECK_EQ(prec_size_gate__add(&gate, 60), 0u);
	CHECK(!prec_size_gate__stopped(&gate));
	CHECK_EQ(prec_size_gate__add(&gate, 40), (unsigned)PREC_SIZE_GATE_STOP);
	CHECK(prec_size_gate__stopped(&gate));
	CHECK_EQ(prec_size_gate__add(&gate, 1), (unsigned)PREC_SIZE_GATE_STOP);
	CHECK_EQ(prec_size_gate__used(&gate), 101u);
	/* a mark ahead: the add that crosses it says CUT, once */
	CHECK(!prec_size_gate__mark_cut(&gate, 150));
	CHECK_EQ(prec_size_gate__add(&gate, 48), (unsigned)PREC_SIZE_GATE_STOP);
	CHECK_EQ(prec_size_gate__add(&gate, 10), (unsigned)(PREC_SIZE_GATE_STOP | PREC_SIZE_GATE_CUT));
	CHECK_EQ(prec_size_gate__add(&gate, 10), (unsigned)PREC_SIZE_GATE_STOP);
	/* a mark where the count is already: said by mark_cut() alone */
	CHECK(prec_size_gate__mark_cut(&gate, 160));
	CHECK_EQ(prec_size_gate__add(&gate, 1), (unsigned)PREC_SIZE_GATE_STOP);
	/* no limit, no mark: nothing */
	prec_size_gate__init(&gate, 0);
	CHECK(!prec_size_gate__mark_cut(&gate, 0));
	CHECK_EQ(prec_size_gate__add(&gate, 1u << 20), 0u);
	CHECK(!prec_size_gate__stopped(&gate));

	/* at once: two adders, a mark and a limit set before them; the one
	 * add that crosses the mark says CUT, whichever thread makes it, and
	 * every add from the limit on says STOP (their number: the adds
	 * less those that ended under it) */
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t total_adds = (uint64_t)THREADS * ADDS, under = 0;

		prec_size_gate__init(&gate, 1 + (uint64_t)round * 7919 % (THREADS * ADDS));
		CHECK(!prec_size_gate__mark_cut(&gate, 1 + (uint64_t)round * 6007 % (THREADS * ADDS)));
		for (int i = 0; i < THREADS; i++) {
			cuts[i] = stops[i] = unders[i] = 0;
			CHECK_EQ(pthread_create(&t[i], NULL, adder, (void *)(long)i), 0);
		}
		all_cuts = all_stops = 0;
		for (int i = 0; i < THREADS; i++) {
			pthread_join(t[i], NULL);
			all_cuts += cuts[i];
			all_stops += stops[i];
			under += unders[i];
		}
		CHECK_EQ(all_cuts, 1ul);
		CHECK_EQ(all_stops + under, total_adds);
		CHECK(under < total_adds);
	}
	printf("size_gate: STOP from the limit on, CUT once for the add across the mark, a mark already passed said by mark_cut(); %d rounds of %d threads adding at once: one CUT each, STOP for every add past the limit\n",
	       ROUNDS, THREADS);
	return 0;
}
