/* SPDX-License-Identifier: MIT */
/* The perf.data writer (perfdata.c): the merged stream as a file or a
 * pipe perf reads. */
#ifndef PREC_READ_PERFDATA_H
#define PREC_READ_PERFDATA_H

#include <stdint.h>

#include "store/store.h"

struct prec_perfdata;

enum prec_perfdata_mode {
	PREC_PERFDATA_FILE, /* seekable: header, attrs, data, features */
	PREC_PERFDATA_PIPE, /* stream: header records, then data */
};

/* The perf.data writer hands its output to write() in pieces this big. */
#define PREC_PERFDATA_FLUSH_BYTES (1 << 20)

/* Start a perf.data on fd (not closed by the writer) for the recording
 * described by m: file mode reserves the header and writes attrs with their
 * ids; pipe mode writes the pipe header, HEADER_ATTRs, an EVENT_UPDATE
 * naming each event, HEADER_FEATUREs and end marker, and
 * HEADER_TRACING_DATA when m has tracepoints (attrs in event_at() order, walked by event_next()). Output is
 * buffered. Returns 0 or -errno. */
int prec_perfdata__open(struct prec_perfdata **out, int fd,
			const struct prec_manifest *m,
			enum prec_perfdata_mode mode);

/* The same, with the records of write_record() zstd compressed at zlevel
 * (1..22) into PERF_RECORD_COMPRESSED records, and the COMPRESSED feature,
 * as perf record -z writes them; zlevel 0: as open(). */
int prec_perfdata__open_zstd(struct prec_perfdata **out, int fd,
			     const struct prec_manifest *m,
			     enum prec_perfdata_mode mode, int zlevel);

/* Append one record as is (len == its header.size). Returns 0 or -errno. */
int prec_perfdata__write_record(struct prec_perfdata *pd, const void *rec,
				uint32_t len);

/* Append a PERF_RECORD_AUXTRACE for AUX bytes of one CPU (padded to 8),
 * indexed for the AUXTRACE feature in file mode. Its idx is the CPU's ring
 * as perf record numbers its mmaps (the CPU's place in the CPU map of the
 * manifest's ids), the ID_INDEX's idx of that CPU's ids. Returns 0 or
 * -errno. */
int prec_perfdata__write_auxtrace(struct prec_perfdata *pd, const void *data,
				  uint32_t len, uint64_t aux_offset, uint32_t cpu);

/* Append a FINISHED_ROUND. */
int prec_perfdata__finish_round(struct prec_perfdata *pd);

/* Append a FINISHED_INIT: the end of the synthesized side band, as perf
 * record writes it once after its own (perf inject reads it). */
int prec_perfdata__finish_init(struct prec_perfdata *pd);

/* Write what is buffered now, in this thread (a pipe's reader that follows
 * a live recording waits for it). Returns 0 or -errno. */
int prec_perfdata__flush(struct prec_perfdata *pd);

/* Note a sample's time (for SAMPLE_TIME). Cheap; call per sample. */
static inline void prec_perfdata__saw_time(uint64_t *first, uint64_t *last,
					    uint64_t t)
{
	if (t && (!*first || t < *first))
		*first = t;
	if (t > *last)
		*last = t;
}

/* Finish: file mode writes the feature sections and rewrites the header;
 * both modes flush. first/last are the sample time range. Frees pd (also on
 * error). Returns 0 or -errno. */
int prec_perfdata__close(struct prec_perfdata *pd, uint64_t first_time,
			 uint64_t last_time);

#endif
