// SPDX-License-Identifier: MIT
// perf record's LOST_SAMPLES records: perf reads each event fd's
// PERF_FORMAT_LOST count once its recording stops and writes one record
// per fd that lost samples at the end of the data; perf report adds them
// up into "Total Lost Samples". The recorder keeps the same counts per id
// in the manifest; they become the same records here.
#include "read/lost_samples.h"

#include <linux/perf_event.h>
#include <string.h>

#include "read/perfdata.h"
#include "store/store.h"
#include "util/bytes.h"

/* attr.sample_type's offset in struct perf_event_attr */
#define ATTR_SAMPLE_TYPE 24u

static void put(uint8_t *p, uint32_t *n, uint64_t v)
{
	prec_st64(p + *n, v);
	*n += 8;
}

/* The record for id at p (room for the header, the count and the six
 * words of the largest trailer): its size. */
static uint32_t build(uint8_t *p, uint64_t sample_type, uint64_t id, uint64_t lost)
{
	uint32_t n = 16;

	/* the trailer's fields in the kernel's order: pid and tid, time, id,
	 * stream id, cpu and its reserved half, identifier */
	if (sample_type & PERF_SAMPLE_TID)
		put(p, &n, 0);
	if (sample_type & PERF_SAMPLE_TIME)
		put(p, &n, 0);
	if (sample_type & PERF_SAMPLE_ID)
		put(p, &n, id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		put(p, &n, 0);
	if (sample_type & PERF_SAMPLE_CPU)
		put(p, &n, 0);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		put(p, &n, id);
	prec_st32(p, PERF_RECORD_LOST_SAMPLES);
	prec_st16(p + 4, 0);
	prec_st16(p + 6, (uint16_t)n);
	prec_st64(p + 8, lost);
	return n;
}

static bool cpu_kept(const bool *cpus, int nr_cpus, int32_t cpu)
{
	return !cpus || cpu < 0 || (cpu < nr_cpus && cpus[cpu]);
}

int prec_lost_samples__write(struct prec_perfdata *pd, const struct prec_manifest *m,
			     uint32_t skip1, const bool *cpus, int nr_cpus)
{
	uint8_t rec[16 + 6 * 8];
	int written = 0;

	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];
		uint64_t sample_type = prec_ld64(e->attr + ATTR_SAMPLE_TYPE);

		for (uint32_t j = 0; e->id_lost && i + 1 != skip1 && j < e->nr_ids; j++) {
			int err;

			if (!e->id_lost[j] || !cpu_kept(cpus, nr_cpus, e->id_cpus[j]))
				continue;
			err = prec_perfdata__write_record(
				pd, rec, build(rec, sample_type, e->ids[j], e->id_lost[j]));
			if (err)
				return err;
			written++;
		}
	}
	return written;
}
