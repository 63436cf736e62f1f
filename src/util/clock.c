// SPDX-License-Identifier: MIT
// A clock read as nanoseconds.
#include "util/clock.h"

uint64_t prec_now_ns(int clockid)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)clockid, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
