// SPDX-License-Identifier: MIT
// LD_PRELOAD stand-in for a wall clock that does not move
// (tests/e2e/record_switch_files.sh): gettimeofday returns
// FROZENTIME_SEC seconds and 5,000 microseconds, every call; so every
// --switch-output file name (perf's FILE.<local time to the hundredth>)
// comes from the same hundredth, as switches closer than 10 ms would.
// prec's other clocks (clock_gettime) are left alone.
#include <stdlib.h>
#include <sys/time.h>

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	const char *s = getenv("FROZENTIME_SEC");

	(void)tz;
	tv->tv_sec = s ? (time_t)strtoll(s, NULL, 10) : 1700000000;
	tv->tv_usec = 5000;
	return 0;
}
