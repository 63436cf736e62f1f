/* SPDX-License-Identifier: MIT */
/* The kernel's perf clock read from user space (perfclock.c), through a
 * ring control page's time conversion words. */
#ifndef PREC_RECORD_PERFCLOCK_H
#define PREC_RECORD_PERFCLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event_mmap_page;
struct prec_time_conv;

/* Reads the CPU's cycle counter into *cyc (a test passes its own). Returns
 * false when there is none. */
typedef bool (*prec_counter_fn)(void *arg, uint64_t *cyc);

/* The counter a control page's TSC conversion applies to: rdtsc on x86,
 * cntvct_el0 on arm64. False (and 0) elsewhere. Any thread. */
bool prec_perfclock__counter(uint64_t *cyc);
/* Copy pc's time words under its seqlock into *tc. Returns 0, -EOPNOTSUPP
 * (no cap_user_time_zero: *tc holds the words all the same), -EAGAIN (the
 * seqlock never settled; *tc zeroed) or -EINVAL (pc NULL). */
int prec_perfclock__read(const struct perf_event_mmap_page *pc,
			 struct prec_time_conv *tc);
/* The perf-clock time of counter value cyc (the uapi header's formula,
 * with the cap_user_time_short unwrap). */
uint64_t prec_time_conv__ns(const struct prec_time_conv *tc, uint64_t cyc);
/* The perf clock now, converted with pc's words read around the counter.
 * 0 (a watermark that promises nothing) when pc is NULL, has no
 * cap_user_time_zero, its seqlock never settles, or there is no counter.
 * Never blocks; any thread. */
uint64_t prec_perfclock__now(const struct perf_event_mmap_page *pc);
/* The same with counter instead of the CPU's (tests). */
uint64_t prec_perfclock__now_with(const struct perf_event_mmap_page *pc,
				  prec_counter_fn counter, void *arg);

#endif
