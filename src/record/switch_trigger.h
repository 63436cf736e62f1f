/* SPDX-License-Identifier: MIT */
/* When --switch-output=SIZE or =TIME cuts the next epoch (switch_trigger.c). */
#ifndef PREC_RECORD_SWITCH_TRIGGER_H
#define PREC_RECORD_SWITCH_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

struct prec_switch_trigger {
	uint64_t every_bytes;   /* drained since the last cut, 0 = no */
	uint64_t every_ns;      /* CLOCK_MONOTONIC since the last cut, 0 = no */
	uint64_t from_bytes, from_ns; /* at the last cut (or the start) */
};

/* Arm t from the start of the recording: drained bytes and now. */
void prec_switch_trigger__init(struct prec_switch_trigger *t, uint64_t every_bytes,
			       uint64_t every_ms, uint64_t drained, uint64_t now_ns);
/* poll()'s timeout until the trigger must be looked at, -1 = never: 0 when
 * the size is due, none for the size otherwise (the drainer whose chunk
 * reaches next_bytes() wakes the main loop, size_gate.h). */
int prec_switch_trigger__timeout_ms(const struct prec_switch_trigger *t, uint64_t drained,
				    uint64_t now_ns);
/* The drained total at which the size is due; 0: no size. */
uint64_t prec_switch_trigger__next_bytes(const struct prec_switch_trigger *t);
/* Whether a cut is due now. */
bool prec_switch_trigger__due(const struct prec_switch_trigger *t, uint64_t drained,
			      uint64_t now_ns);
/* A cut was made (by the trigger, a signal or a command): count anew from
 * drained, the total at the cut's move (what came since is the new
 * epoch's: with it at SIZE already the next cut is due at once, as perf's
 * file holds what its pass wrote after the mark). */
void prec_switch_trigger__reset(struct prec_switch_trigger *t, uint64_t drained,
				uint64_t now_ns);

#endif
