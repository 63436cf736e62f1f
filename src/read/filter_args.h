/* SPDX-License-Identifier: MIT */
/* The --time and --cpu filters of prec merge and prec dump, parsed once for
 * both, with perf's syntax (perf report --time, --cpu). */
#ifndef PREC_READ_FILTER_ARGS_H
#define PREC_READ_FILTER_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/cpu_list.h"

/* CPUs a --cpu list may name: 0 .. PREC_FILTER_MAX_CPUS - 1. */
#define PREC_FILTER_MAX_CPUS PREC_CPU_LIST_MAX

/* "START,END" in seconds, each with up to 9 decimals and either empty (0:
 * no bound), to nanoseconds exactly (no floating point). Returns 0,
 * -EINVAL (not that form) or -ERANGE (END before START). */
int prec_filter__parse_time(const char *arg, uint64_t *start_ns, uint64_t *end_ns);

/* "0-3,7" into *cpus (replaced; calloc'd, PREC_FILTER_MAX_CPUS entries,
 * true = wanted; the caller frees it) and *nr (the highest CPU named + 1).
 * Returns 0, -EINVAL (not such a list) or -ENOMEM. */
int prec_filter__parse_cpus(const char *arg, bool **cpus, int *nr);

#endif
