// SPDX-License-Identifier: MIT
// The machine's own speed, for benchmarks that run for minutes: one fixed
// piece of work timed in this process's CPU time. The work is what a
// drainer does most, copying (a 4 MiB buffer into another, 64 times), and
// a chain of dependent multiplies. Where the host does not report steal
// time (its column of /proc/stat stays 0), a slower host shows only as the
// same work taking more CPU time, the recorder's and this program's alike.
// It shares caches and memory with what it runs beside, so it rises with a
// busier machine too, the recorder included: a recorder's cost per MB that
// rises while the canary stays is the recorder's; one that rises with it
// is not shown to be.
// Usage: canary   (prints the median CPU milliseconds of three passes)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF (4u << 20)
#define COPIES 64
#define CHAIN (8u << 20)
#define PASSES 3

/* where the work's result goes, so that the optimizer keeps the work */
static volatile uint64_t sink;

static double cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) {
		perror("canary: clock_gettime");
		exit(1);
	}
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One pass of the work: its CPU ms. */
static double pass(unsigned char *a, unsigned char *b, uint64_t *x)
{
	double t0 = cpu_ms();

	for (int i = 0; i < COPIES; i++) {
		a[i] = (unsigned char)i;
		memcpy(b, a, BUF);
		/* the copy's result is read, so it is not optimized away */
		*x += b[(size_t)i * 4099 % BUF];
	}
	for (uint32_t i = 0; i < CHAIN; i++)
		*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	/* the work is done before the clock is read again: no compiler may
	 * move it past the call */
	__asm__ volatile("" : "+r"(*x) : : "memory");
	return cpu_ms() - t0;
}

int main(void)
{
	unsigned char *a = malloc(BUF), *b = malloc(BUF);
	uint64_t x = 88172645463325252ull;
	double ms[PASSES], t;

	if (!a || !b) {
		fprintf(stderr, "canary: out of memory\n");
		return 1;
	}
	/* touched before the clock starts: page faults are not the work */
	memset(a, 1, BUF);
	memset(b, 2, BUF);
	for (int i = 0; i < PASSES; i++) {
		ms[i] = pass(a, b, &x);
		for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
			t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
	}
	printf("%.2f\n", ms[PASSES / 2]);
	sink = x;
	free(a);
	free(b);
	return 0;
}
