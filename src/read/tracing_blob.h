/* SPDX-License-Identifier: MIT */
/* perf's tracing data for a recording's tracepoints (tracing_blob.c). */
#ifndef PREC_READ_TRACING_BLOB_H
#define PREC_READ_TRACING_BLOB_H

#include <stddef.h>

#include "store/store.h"

/* Build the tracing-data blob (perf.data-file-format.txt, HEADER_TRACING_DATA) for m's tracepoints into a
 * malloc'd buffer. Returns 0 (len 0 when m has no tracepoints) or -errno. */
int prec_tracing_blob(const struct prec_manifest *m, void **buf, size_t *len);

#endif
