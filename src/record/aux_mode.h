/* SPDX-License-Identifier: MIT */
/* perf's two modes of an AUX area event (aux_mode.c): -S snapshot mode
 * and --aux-sample sampling, their option grammar, perf 6.1's checks, AUX
 * area and sample sizes, and the attrs they set. */
#ifndef PREC_RECORD_AUX_MODE_H
#define PREC_RECORD_AUX_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_evsel;
struct prec_record_opts;

/* perf's cap on aux_sample_size: a sample is at most 64 KiB, the AUX
 * data at most 60 KiB of it. */
#define PREC_AUX_SAMPLE_MAX (60u * 1024u)
/* perf's default AUX sample size (intel_pt's, and perf's for the rest). */
#define PREC_AUX_SAMPLE_DEFAULT 4096u
/* The smallest AUX area in snapshot or sample mode (perf: 4 KiB). */
#define PREC_AUX_MIN_BYTES_OVERWRITE 4096u

/* -S's OPTS as perf 6.1 reads them: an optional 'e' (a snapshot at the
 * exit too), then a size in bytes (C integer: 0x.., 0..; empty or 0 = the
 * default). NULL: -S alone. Returns 0 or -EINVAL. Pure. */
int prec_aux_mode__parse_snapshot(const char *arg, bool *on_exit, uint64_t *size);
/* --aux-sample's OPTS: a size in bytes (C integer, <= UINT32_MAX; empty or
 * 0 = the PMU's default). Returns 0 or -EINVAL. Pure. */
int prec_aux_mode__parse_sample(const char *arg, uint32_t *size);

/* The event list's AUX setup calls these two (evlist_aux.c) on its events
 * evsel[0..nr), parsed under pmu_root. */

/* Once the events are parsed, first in prec_evlist__aux_setup: with -S or
 * --aux-sample and no AUX event, perf's refusal; with --aux-sample, every
 * member of a group led by the AUX event gets aux_sample_size and
 * PERF_SAMPLE_AUX (perf's checks: the leader is the AUX event, at most
 * 60 KiB, some member). Returns 0 or -EINVAL after one line. Main thread,
 * at setup. */
int prec_aux_mode__check(struct prec_evsel *evsel, int nr, const char *pmu_root,
			 const struct prec_record_opts *o);

/* The AUX area per CPU of the AUX event evsel[ev] in o's mode, perf 6.1's
 * rule (dflt: the full-trace default): with -S, --aux-size or the
 * snapshot size rounded up to a power of two of pages or dflt, and the
 * snapshot size the area's when not given (*snapshot_size, set with -S
 * only); with --aux-sample on intel_pt, the largest sample rounded so.
 * Sets on intel_pt what perf's recording sets (exclude_guest 0;
 * aux_watermark a quarter of an area drained, neither -S nor
 * --aux-sample). Returns the bytes, or -EINVAL after one line (a
 * snapshot bigger than the area, an area under 4 KiB). */
int64_t prec_aux_mode__bytes(struct prec_evsel *evsel, int nr, int ev,
			     const char *pmu_root, const struct prec_record_opts *o,
			     size_t dflt, uint64_t *snapshot_size);

#endif
