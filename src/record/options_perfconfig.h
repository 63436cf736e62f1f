/* SPDX-License-Identifier: MIT */
/* The settings of perf's config files that perf record 6.1 takes (its
 * perf_record_config and the call-graph keys) applied to prec record's
 * options before its command line, which overrides them. */
#ifndef PREC_RECORD_OPTIONS_PERFCONFIG_H
#define PREC_RECORD_OPTIONS_PERFCONFIG_H

#include "record/options.h"

/* record.build-id (cache, no-cache, skip, mmap: -N's, -B's and
 * --buildid-mmap's settings), record.call-graph and
 * call-graph.record-mode (the mode -g records: callgraph_mode.h),
 * call-graph.dump-size (its dwarf stack size), each in the order perf
 * applies them (util/perfconfig.h). Other keys are perf's business
 * (record.aio and record.debuginfod too: prec's --aio and --debuginfod
 * change nothing recorded). A bad value is one line naming the file,
 * the line and the key: -EINVAL, as perf refuses to record then. */
int prec_record_opts__apply_perfconfig(struct prec_record_opts *o);

#endif
