// SPDX-License-Identifier: MIT
// The flight recorder's side-band workload: a binary named chain whose time
// goes to one function, hot, for MS milliseconds (main -> warm -> hot, frame
// pointers, see the Makefile), so a profile of it names one comm, one DSO
// and one symbol. Usage: chain [MS] (default 2000).
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t chain_sink;

/* Global, so no clone renames them (hot.constprop.0...). */
void hot(uint64_t until);
void warm(uint64_t until);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The clock read once per 100k additions: nearly every sample lands in
 * hot itself, not in the vDSO. */
__attribute__((noinline)) void hot(uint64_t until)
{
	while (now_ns() < until)
		for (int i = 0; i < 100000; i++)
			chain_sink += (uint64_t)i;
}

__attribute__((noinline)) void warm(uint64_t until)
{
	hot(until);
	chain_sink++;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 0) : 2000;

	if (ms < 0)
		return 2;
	warm(now_ns() + (uint64_t)ms * 1000000ull);
	return 0;
}
