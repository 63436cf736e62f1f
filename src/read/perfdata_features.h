/* SPDX-License-Identifier: MIT */
/* The perf.data feature sections' payloads (perfdata_features.c). */
#ifndef PREC_READ_PERFDATA_FEATURES_H
#define PREC_READ_PERFDATA_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define PREC_FEAT_LAST 32 /* HEADER_LAST_FEATURE; also the pipe end marker */

struct prec_feat_ctx {
	const struct prec_manifest *m;
	uint64_t first_time, last_time; /* SAMPLE_TIME; both 0 = unknown */
	const uint64_t *aux_index;      /* file offsets of AUXTRACE headers */
	uint64_t nr_aux;
	int comp_level;                 /* -z's level; 0 = not compressed */
	uint32_t comp_ratio;            /* HEADER_COMPRESSED; 0 = unknown (pipe) */
	size_t max_len;                 /* a payload's bound (a pipe record's); 0: none */
};

/* Payload of feature feat (HEADER_* number), the same bytes in a file-mode
 * section and after a pipe-mode HEADER_FEATURE's feat_id, in a malloc'd
 * buffer. Returns 0, -ENOENT when there is nothing to write for it (no
 * section), or -errno. */
int prec_perfdata__build_feature(int feat, const struct prec_feat_ctx *c,
				 void **buf, size_t *len);

/* Which of m's events goes pos-th (0 <= pos < m->nr_events) into the
 * perf.data's attrs (file attrs section, pipe HEADER_ATTRs, EVENT_DESC):
 * the events in manifest order but the software dummies (the tracking
 * event) last, where perf puts its own: `perf script` 6.1 on a pipe sets
 * call-graph printing up from the first attr of each type only, and a
 * dummy first (software, as cpu-clock) would leave DWARF chains unprinted. */
uint32_t prec_perfdata__event_at(const struct prec_manifest *m, uint32_t pos);
/* The same order one event at a time: *cur starts at 0, each call gives
 * the next event's index (UINT32_MAX after the last). A whole walk costs
 * O(nr_events), where event_at() at each position cost O(nr_events^2). */
uint32_t prec_perfdata__event_next(const struct prec_manifest *m, uint32_t *cur);

/* The build-id table of m as consecutive build-id entries whose header type
 * is type (0 inside the BUILD_ID feature, 67 HEADER_BUILD_ID in a pipe).
 * Returns 0 (len 0 when m has none) or -errno. */
int prec_perfdata__build_buildids(const struct prec_manifest *m,
				  uint32_t type, void **buf, size_t *len);

#endif
