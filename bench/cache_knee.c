// SPDX-License-Identifier: MIT
// Benchmark: how much memory this machine's caches really hold for one
// core, seen as the latency of a load whose address depends on the one
// before (a chase through the cache lines of a buffer, in random order).
// The latency steps up where the buffer stops fitting a level. A merge of n
// shards keeps two 64 KiB chunk buffers per shard, the lines its next turns
// read: 2 MiB at 16 shards, 8 MiB at 64, 32 MiB at 256. Where that crosses
// the last step, the merge's time per record steps up with it, whatever
// orders the records (bench/results/cache_knee.md, bench/results/merge.md).
// Usage: cache_knee [max MiB (default 128)]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define LINE 64u
#define STEPS (4u << 20)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Nanoseconds per dependent load over a buffer of mib MiB: each line holds
 * the offset of the next, in one random cycle through all of them. */
static double chase_ns(size_t mib)
{
	size_t bytes = mib << 20, lines = bytes / LINE;
	uint8_t *buf = aligned_alloc(4096, bytes);
	uint32_t *order = malloc(lines * sizeof(*order));
	uint64_t rng = 0x9e3779b97f4a7c15ull, at = 0;
	double t0, dt;

	if (!buf || !order) {
		fprintf(stderr, "cache_knee: %zu MiB: out of memory\n", mib);
		exit(1);
	}
	memset(buf, 0, bytes);
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = xorshift(&rng) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(uint64_t *)(buf + (size_t)order[i] * LINE) =
			(uint64_t)order[(i + 1) % lines] * LINE;
	for (size_t i = 0; i < lines; i++) /* one lap to warm what fits */
		at = *(uint64_t *)(buf + at);
	t0 = bench_now();
	for (uint32_t i = 0; i < STEPS; i++)
		at = *(uint64_t *)(buf + at);
	dt = bench_now() - t0;
	if (at == 1) /* never: keeps the chase from being optimized out */
		puts("");
	free(order);
	free(buf);
	return dt / STEPS * 1e9;
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? strtoul(argv[1], NULL, 0) : 128;

	if (!max) {
		fprintf(stderr, "usage: cache_knee [max MiB]\n");
		return 2;
	}
	printf("%8s %10s   %s\n", "MiB", "ns/load", "(chunk buffers of a merge of n shards)");
	for (size_t mib = 1; mib <= max; mib *= 2) {
		size_t shards = mib * 8; /* 128 KiB per shard */

		printf("%8zu %10.1f   n=%zu\n", mib, chase_ns(mib), shards);
	}
	return 0;
}
