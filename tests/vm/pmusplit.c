// SPDX-License-Identifier: MIT
// The arm64 guest suite's workload (tests/vm/a64_suite.sh): N instructions
// of user loops, 3/4 of them in hot() and 1/4 in cold(), both called from
// work() from main(). Under qemu's -icount shift=0 a cycle is an
// instruction, so a sampler of cycles must find 3:1 between the two and
// about N / period samples in all.
// Usage: pmusplit [N] (default 400000000; rounded down to 8 * ROUNDS).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(__aarch64__)
#error "pmusplit counts aarch64 instructions"
#endif

// Rounds of hot then cold: a sampler that starts or stops late loses a
// little of both, never all of one.
#define ROUNDS 100

// A loop of exactly 2 * iters instructions (subs, b.ne), the function's
// own frame record aside (built with frame pointers, leaf ones too, so
// that -g finds work() and main() above it).
static __attribute__((noinline)) void hot(uint64_t iters)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(iters) : : "cc");
}

static __attribute__((noinline)) void cold(uint64_t iters)
{
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(iters) : : "cc");
}

static __attribute__((noinline)) void work(uint64_t per_round)
{
	// per_round instructions: 3/4 in hot, 1/4 in cold, 2 per iteration.
	for (int r = 0; r < ROUNDS; r++) {
		hot(per_round / 8 * 3);
		cold(per_round / 8);
	}
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 400000000ull;
	uint64_t per_round = n / ROUNDS / 8 * 8;

	if (per_round == 0) {
		fprintf(stderr, "pmusplit: N %s is below %d\n", argv[1], 8 * ROUNDS);
		return 2;
	}
	work(per_round);
	return 0;
}
