/* SPDX-License-Identifier: MIT */
/* One perf_event_attr as text in perf 6.1's `-vv` layout (attr_text.c),
 * so prec's attrs can be compared with perf's line by line. */
#ifndef PREC_RECORD_ATTR_TEXT_H
#define PREC_RECORD_ATTR_TEXT_H

#include <linux/perf_event.h>
#include <stdio.h>

/* Print a to f as perf record -vv does before it opens an event: a rule,
 * "perf_event_attr:", one "  name   value" line per non-zero field (perf's
 * field names, order and number formats: decimal, 0x hex for config and
 * the breakpoint/config words and register masks, bit names joined by |
 * for sample_type, read_format and branch_sample_type), a rule. Returns
 * the bytes written or -EIO. Any thread; blocks on f only. */
int prec_attr__fprintf(FILE *f, const struct perf_event_attr *a);

#endif
