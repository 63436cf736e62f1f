/* SPDX-License-Identifier: MIT */
/* A clock read as nanoseconds, for every layer (record, store). */
#ifndef PREC_UTIL_CLOCK_H
#define PREC_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_gettime(clockid) in ns, or 0 if the clock cannot be read. */
uint64_t prec_now_ns(int clockid);

#endif
