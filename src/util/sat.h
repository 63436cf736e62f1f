/* SPDX-License-Identifier: MIT */
/* Sums of counts a recording's files give (a manifest's loss counts, the
 * LOST records of a shard): the kernel's, with no bound from the format,
 * so hostile ones can pass 2^64. A sum stops at 2^64 - 1, which reads as
 * "at least", instead of wrapping to a small count that looks honest. */
#ifndef PREC_UTIL_SAT_H
#define PREC_UTIL_SAT_H

#include <stdint.h>

static inline uint64_t prec_add_sat(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

#endif
