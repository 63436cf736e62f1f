/* SPDX-License-Identifier: MIT */
/* perf record's --threads=SPEC (threads_spec.c). */
#ifndef PREC_RECORD_THREADS_SPEC_H
#define PREC_RECORD_THREADS_SPEC_H

struct prec_record_opts;

/* o's --threads SPEC (when given, once -C is known) as perf 6.1 checks it:
 * a name (cpu, core, package, numa: a prefix in any case), or
 * MAPS/AFFINITY[:MAPS/AFFINITY...], each mask a CPU list none above the
 * possible CPUs, holding one of the recording's CPUs, none shared with an
 * earlier mask of its kind. Returns 0, or -EINVAL after one line that
 * says why perf refuses it, or -ENOMEM. */
int prec_threads_spec__check(const struct prec_record_opts *o);

#endif
