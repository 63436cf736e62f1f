/* SPDX-License-Identifier: MIT */
/* perf's call-graph mode words (--call-graph MODE[,ARG], and perf's config
 * keys call-graph.record-mode and call-graph.dump-size) read as perf 6.1
 * reads them, for the command line and for perf's config files alike. */
#ifndef PREC_RECORD_CALLGRAPH_MODE_H
#define PREC_RECORD_CALLGRAPH_MODE_H

#include <stdint.h>

#include "record/options.h"

/* MODE[,ARG] into m: the words after MODE split at ',' (an empty one
 * skipped: "fp," is fp); fp's ARG is strtoul's number of its leading
 * digits (fp,5x is 5 frames), kept only below the kernel's maximum;
 * dwarf's a whole size, 1..65528 bytes, rounded up to 8 (8192 without
 * one); lbr takes none; a word after ARG is ignored. Returns 0, or
 * -EINVAL with *why. */
int prec_callgraph_mode__parse(const char *arg, struct prec_callgraph_mode *m,
			       const char **why);
/* A dwarf stack size as perf reads call-graph.dump-size (strtoul, any
 * base, 1..65528) rounded up to 8, into *size. Returns 0, or -EINVAL
 * with *why. */
int prec_callgraph_mode__stack_size(const char *arg, uint32_t *size, const char **why);

#endif
