/* SPDX-License-Identifier: MIT */
/* The text of one -e event (event_parse.c): names, tracepoints, PMU terms
 * and modifiers to a perf_event_attr; tracepoint globs to their names. */
#ifndef PREC_RECORD_EVENT_PARSE_H
#define PREC_RECORD_EVENT_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* perf's modifier letters (perf-list(1)) */
#define PREC_EVENT_MODS "ukhGHpPSDIWeb"

struct prec_evsel;

/* Fill ev (attr.size, name and defaults set by the caller) from full, one
 * event without commas outside pmu/.../: a named event, system:name, a
 * PMU's pmu/term=value,.../ (root: the sysfs PMU directory), name/terms/
 * or system:name/terms/, mem:ADDR..., then perf's modifiers. Tracepoints get their id (and PMU
 * events their type and term bits) from tracefs and sysfs. Returns 0,
 * -EINVAL (unknown event, bad syntax) or another -errno, after printing
 * one line. Main thread. */
int prec_event__parse(struct prec_evsel *ev, const char *full, const char *root);
/* Fill ev from text, one event of perf's --pfm-events (libpfm4's syntax,
 * pfm.h): libpfm4's attr, whose period or frequency becomes the event's
 * own as a period= or freq= term's. Returns 0, -EINVAL (libpfm4 has no
 * such event or refuses its modifiers: a bad command line) or -ENOSYS /
 * -EIO (no libpfm4), after one line. Main thread. */
int prec_event__parse_pfm(struct prec_evsel *ev, const char *text);
/* perf's modifiers mods (the letters after ':') on ev: over ev's own
 * (add: a group's modifier on a member) or from none; pinned and
 * exclusive only on a leader. Returns 0 or -EINVAL after one line naming
 * full. Main thread. */
int prec_event__modify(struct prec_evsel *ev, const char *full, const char *mods,
		       bool add, bool leader);
/* When full is a tracepoint glob (system:name with *, ? or [ in it, no
 * slash): every tracepoint it matches, in name order, as "system:name"
 * with full's modifiers, in *out (free it with prec_tracefs__free_list()).
 * Returns how many, 0 when full is no glob (*out NULL), -EINVAL (nothing
 * matches), -ENODEV (no tracefs) or -errno, after one line on an error. */
int prec_event__expand(const char *full, char ***out);

#endif
