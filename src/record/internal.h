/* SPDX-License-Identifier: MIT */
/* The sample layout every event of a recording shares (folder-wide: the
 * events are opened with it, the drainers, snapshots, side band, tail and
 * markers write and read records by it). */
#ifndef PREC_RECORD_INTERNAL_H
#define PREC_RECORD_INTERNAL_H

#include <linux/perf_event.h>

/* Every attr prec opens has this sample_type base (plus per-event extras
 * such as PERIOD, RAW, CALLCHAIN), so one struct prec_time_layout fits all
 * records of a recording. Never ID or STREAM_ID. */
#define PREC_SAMPLE_BASE                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |          \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
/* Size of the sample_id trailer for PREC_SAMPLE_BASE: tid, time, cpu,
 * identifier. Synthesized records append this many zero bytes. */
#define PREC_SAMPLE_ID_TRAILER 32

#endif
