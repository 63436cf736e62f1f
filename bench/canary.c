// SPDX-License-Identifier: MIT
// The machine's own speed, for benchmarks that run for minutes: one fixed
// piece of work timed in this process's CPU time. The work is what a
// drainer does most: copying (a 4 MiB buffer into another, 16 times) and,
// for -z, lz4 compression of 64 KiB chunks of records much like a storm's
// (a 4 MiB run of them, six times). Where the host does not report steal
// time (its column of /proc/stat stays 0), a slower host shows only as the
// same work taking more CPU time, the recorder's and this program's alike.
// It shares caches and memory with what it runs beside, so it rises with a
// busier machine too, the recorder included: a recorder's cost per MB that
// rises while the canary stays is the recorder's; one that rises with it
// is not shown to be.
// Usage: canary [PASSES]   (prints the median CPU milliseconds of PASSES
// passes, default 3; bench/soak.sh runs one pass a second beside a soak)
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF (4u << 20)
#define COPIES 16
#define CHUNK (64u << 10)
#define SQUEEZES 6
#define MAX_PASSES 64

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

/* 48-byte records as a syscall storm's: a header, the time, the pid and
 * tid, the id and the syscall's number, most bytes alike record to record. */
static void fill_records(unsigned char *a)
{
	for (size_t off = 0; off + 48 <= BUF; off += 48) {
		uint64_t r[6] = { 0x0030000000000009ull, 1000000ull + off * 7, 0x0000123400001234ull,
				  off / 48 % 4096 * 3, 42, 110 };

		memcpy(a + off, r, sizeof(r));
	}
}

/* One pass of the work: its CPU ms. */
static double pass(unsigned char *a, unsigned char *b, char *out, void *state)
{
	double t0 = cpu_ms();
	uint64_t x = 0;

	for (int i = 0; i < COPIES; i++) {
		memcpy(b, a, BUF);
		x += b[(size_t)i * 4099 % BUF];
	}
	for (int i = 0; i < SQUEEZES; i++)
		for (size_t off = 0; off < BUF; off += CHUNK)
			x += (uint64_t)LZ4_compress_fast_extState(state, (const char *)a + off, out,
								  CHUNK, LZ4_compressBound(CHUNK), 1);
	sink = x;
	return cpu_ms() - t0;
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 3;
	unsigned char *a, *b;
	char *out;
	void *state;
	double ms[MAX_PASSES], t;

	if (passes < 1 || passes > MAX_PASSES) {
		fprintf(stderr, "canary: PASSES '%s': 1 to %d\n", argv[1], MAX_PASSES);
		return 2;
	}
	a = malloc(BUF);
	b = malloc(BUF);
	out = malloc((size_t)LZ4_compressBound(CHUNK));
	state = malloc((size_t)LZ4_sizeofState());
	if (!a || !b || !out || !state) {
		fprintf(stderr, "canary: out of memory\n");
		return 1;
	}
	/* touched before the clock starts: page faults are not the work */
	fill_records(a);
	memset(b, 2, BUF);
	for (int i = 0; i < passes; i++) {
		ms[i] = pass(a, b, out, state);
		for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
			t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
	}
	printf("%.2f\n", ms[passes / 2]);
	free(a);
	free(b);
	free(out);
	free(state);
	return 0;
}
