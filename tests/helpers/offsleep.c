// SPDX-License-Identifier: MIT
// A known off-CPU time for the --off-cpu tests: offsleep_sleeper() sleeps
// N times MS milliseconds (nanosleep: TASK_INTERRUPTIBLE) and prints the
// nanoseconds it measured around those sleeps; offsleep_spinner() spins
// SPIN milliseconds and never sleeps. With WAIT > 0 it first waits WAIT ms
// in offsleep_waiter(), for a recorder to attach (-p). Frame pointers (see
// the Makefile), nothing inlined.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t offsleep_sink;

/* Global, so no clone renames them. */
void offsleep_sleeper(int n, long ms);
void offsleep_spinner(long ms);
void offsleep_waiter(long ms);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Not inlined: libc's nanosleep keeps no frame pointer, so a frame-pointer
 * walk from it skips its caller's return address; the one after it is
 * the caller of this, offsleep_sleeper or offsleep_waiter. */
__attribute__((noinline)) static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void offsleep_waiter(long ms)
{
	sleep_ms(ms);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void offsleep_sleeper(int n, long ms)
{
	uint64_t slept = 0;

	for (int i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		sleep_ms(ms);
		slept += now_ns() - t0;
	}
	printf("%llu\n", (unsigned long long)slept);
	fflush(stdout);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void offsleep_spinner(long ms)
{
	uint64_t until = now_ns() + (uint64_t)ms * 1000000ull;

	while (now_ns() < until)
		for (int i = 0; i < 1000; i++)
			offsleep_sink += (uint64_t)i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	long ms = argc > 2 ? atol(argv[2]) : 50;
	long spin = argc > 3 ? atol(argv[3]) : 200;
	long wait = argc > 4 ? atol(argv[4]) : 0;

	if (wait > 0)
		offsleep_waiter(wait);
	offsleep_spinner(spin);
	offsleep_sleeper(n, ms);
	offsleep_spinner(spin);
	return 0;
}
