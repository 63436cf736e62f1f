// SPDX-License-Identifier: MIT
// A known call chain for the call-graph tests: main -> outer -> middle ->
// inner, inner spinning for MS milliseconds of the process's CPU time (not
// of the clock on the wall: the tests count its cpu-clock samples, which
// other processes' load would take, 3 where 800 were due). Not inlined, no
// tail calls, frame pointers (see the Makefile), so fp and dwarf unwinding
// both see it.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t callchain_sink;

/* Global, so no clone renames them (callchain_inner.constprop.0...). */
void callchain_inner(uint64_t until);
void callchain_middle(uint64_t until);
void callchain_outer(uint64_t until);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void callchain_inner(uint64_t until)
{
	/* a CPU clock is a system call: read once a millisecond or so */
	while (now_ns() < until)
		for (int i = 0; i < 1000000; i++)
			callchain_sink += (uint64_t)i;
}

__attribute__((noinline)) void callchain_middle(uint64_t until)
{
	callchain_inner(until);
	callchain_sink++;
}

__attribute__((noinline)) void callchain_outer(uint64_t until)
{
	callchain_middle(until);
	callchain_sink++;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 500;

	if (ms <= 0) {
		fprintf(stderr, "usage: callchain MS\n");
		return 2;
	}
	callchain_outer(now_ns() + (uint64_t)ms * 1000000ull);
	return 0;
}
