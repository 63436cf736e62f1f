/* SPDX-License-Identifier: MIT */
/* A clock read as nanoseconds, for every layer (record, store). Inline: it
 * is read per map line and per write, where a call costs more than the
 * read (the vDSO's). */
#ifndef PREC_UTIL_CLOCK_H
#define PREC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_gettime(clockid) in ns, or 0 if the clock cannot be read. */
static inline uint64_t prec_now_ns(int clockid)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)clockid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
