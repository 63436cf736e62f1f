/* SPDX-License-Identifier: MIT */
/* The markers' page parser (markers_page.c): one ftrace ring-buffer page,
 * as trace_pipe_raw hands it out, to the print entries it holds. */
#ifndef PREC_RECORD_MARKERS_PAGE_H
#define PREC_RECORD_MARKERS_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse one ring-buffer page read from trace_pipe_raw (header_page layout:
 * u64 timestamp, u64 commit, data) and call fn for every ftrace print
 * entry (common_type == print_id) with its time and entry bytes. Returns
 * entries found, or -EBADMSG when an event runs past the page. *missed is
 * set when the kernel flagged events lost before this page. */
typedef void (*prec_marker_fn)(void *arg, uint64_t time, const void *entry,
			       uint32_t len);
int prec_markers__parse_page(const void *page, size_t len, uint16_t print_id,
			     prec_marker_fn fn, void *arg, bool *missed);

#endif
