// SPDX-License-Identifier: MIT
// The kernel's perf clock, read from user space: the TSC conversion a perf
// ring's control page publishes, copied under the page's seqlock and applied
// to the CPU's counter by the formula include/uapi/linux/perf_event.h
// documents. Gives perf-clock watermarks when events carry no use_clockid.

#include "record/perfclock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>

#include "store/store.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define HAVE_COUNTER 1
#elif defined(__aarch64__)
#define HAVE_COUNTER 1
#else
#define HAVE_COUNTER 0
#endif

/* The kernel gives up on nothing; a reader that keeps meeting a writer
 * (odd lock, or lock moved under it) is being starved: stop, unconverted. */
#define SEQ_TRIES 10000

bool prec_perfclock__counter(uint64_t *cyc)
{
#if defined(__x86_64__) || defined(__i386__)
	/* Not serialising: it may execute a few instructions late, which the
	 * watermark slack (milliseconds) covers many times over. */
	*cyc = __rdtsc();
#elif defined(__aarch64__)
	/* What the arm64 kernel converts: the virtual counter. */
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(*cyc) : : "memory");
#else
	*cyc = 0;
#endif
	return HAVE_COUNTER;
}

static bool native_counter(void *arg, uint64_t *cyc)
{
	(void)arg;
	return prec_perfclock__counter(cyc);
}

/* One consistent copy of the page's time words, and (counter != NULL) the
 * counter read inside the same read section, so both belong to one version
 * of the words. The kernel makes lock odd while it rewrites them. Returns
 * 0, -EAGAIN (starved) or -ENODEV (no counter on this CPU). */
static int copy_words(const struct perf_event_mmap_page *page,
		      struct prec_time_conv *tc, prec_counter_fn counter,
		      void *arg, uint64_t *cyc)
{
	const volatile struct perf_event_mmap_page *pc = page;

	for (int i = 0; i < SEQ_TRIES; i++) {
		uint32_t seq = __atomic_load_n(&page->lock, __ATOMIC_ACQUIRE);

		tc->time_zero = pc->time_zero;
		tc->time_cycles = pc->time_cycles;
		tc->time_mask = pc->time_mask;
		tc->time_mult = pc->time_mult;
		tc->time_shift = pc->time_shift;
		tc->cap_user_time_zero = pc->cap_user_time_zero;
		tc->cap_user_time_short = pc->cap_user_time_short;
		if (counter && !counter(arg, cyc))
			return -ENODEV;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&page->lock, __ATOMIC_RELAXED) == seq)
			return 0;
	}
	return -EAGAIN;
}

int prec_perfclock__read(const struct perf_event_mmap_page *pc,
			 struct prec_time_conv *tc)
{
	int err;

	*tc = (struct prec_time_conv){ 0 };
	if (!pc)
		return -EINVAL;
	err = copy_words(pc, tc, NULL, NULL, NULL);
	if (err) {
		*tc = (struct prec_time_conv){ 0 };
		return err;
	}
	return tc->cap_user_time_zero ? 0 : -EOPNOTSUPP;
}

uint64_t prec_time_conv__ns(const struct prec_time_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (tc->time_shift > 63)
		return 0;
	/* A counter narrower than 64 bits: time_cycles is a recent value of
	 * it, so this unwraps cyc to the full count the words expect. */
	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	/* cyc * mult >> shift without the 128-bit product: split cyc at the
	 * shift, the low part's product fits 64 bits for shift <= 32. */
	quot = cyc >> tc->time_shift;
	rem = cyc & ((1ull << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

uint64_t prec_perfclock__now_with(const struct perf_event_mmap_page *pc,
				  prec_counter_fn counter, void *arg)
{
	struct prec_time_conv tc;
	uint64_t cyc = 0;

	if (!pc || copy_words(pc, &tc, counter, arg, &cyc) || !tc.cap_user_time_zero)
		return 0;
	return prec_time_conv__ns(&tc, cyc);
}

uint64_t prec_perfclock__now(const struct perf_event_mmap_page *pc)
{
	return prec_perfclock__now_with(pc, native_counter, NULL);
}
