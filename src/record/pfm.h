/* SPDX-License-Identifier: MIT */
/* libpfm4, loaded on first use (pfm.c): its event names to perf_event_attr
 * words, for perf's --pfm-events and for the vendor names of -e that perf
 * 6.1 finds in its JSON tables. */
#ifndef PREC_RECORD_PFM_H
#define PREC_RECORD_PFM_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* Which of libpfm4's PMUs a name may come from. */
enum prec_pfm_scope {
	PREC_PFM_ANY,      /* --pfm-events: every active table, perf:: too */
	/* -e: the hardware PMUs' tables only, where perf has JSON tables
	 * (libpfm4's perf:: and perf_raw:: tables repeat perf's own names,
	 * which -e takes from prec's tables as perf does) */
	PREC_PFM_HARDWARE,
};

/* Encode text (libpfm4's syntax: [PMU::]EVENT[:UMASK...][:MOD=V...], or
 * EVENT.UMASK) into *a as perf's --pfm-events does: a zeroed (a->size
 * kept), then libpfm4's perf_event extended encoding with user and kernel
 * as the default privilege levels. Loads libpfm4 (dlopen) and initializes
 * it on the first call. Returns 0, -ENOENT (no active PMU of scope has
 * it), -EINVAL (a bad unit mask or modifier), -ENOSYS (libpfm4 is not
 * installed) or -EIO (it did not initialize); *why then says it in a few
 * words (static). Main thread (libpfm4 is not thread-safe to initialize). */
int prec_pfm__encode(const char *text, enum prec_pfm_scope scope,
		     struct perf_event_attr *a, const char **why);

#endif
