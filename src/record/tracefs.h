/* SPDX-License-Identifier: MIT */
/* tracefs (tracefs.c): where it is mounted, tracepoint ids and formats. */
#ifndef PREC_RECORD_TRACEFS_H
#define PREC_RECORD_TRACEFS_H

#include <stdint.h>

struct prec_manifest;

/* Mount point of tracefs ("/sys/kernel/tracing" or the debugfs one), or
 * NULL when neither exists. */
const char *prec_tracefs__root(void);

/* Id of tracepoint system:name from tracefs. Returns 0, -ENOENT (no such
 * tracepoint), -ENODEV (no tracefs) or -errno. */
int prec_tracefs__event_id(const char *system, const char *name, uint64_t *id);
/* The tracepoints whose system and name match the glob patterns (fnmatch:
 * *, ?, [...]), as "system:name" strings in the directories' order (as
 * perf lists them): *out (malloc'd, each string too;
 * prec_tracefs__free_list() frees them). Returns how many (0: none
 * matches), -ENODEV (no tracefs) or -errno. */
int prec_tracefs__glob(const char *sys_pat, const char *name_pat, char ***out);
/* The systems (entries of tracefs' events/ but its files enable,
 * header_event and header_page, as perf walks them) whose name matches
 * the glob, in the directory's order: *out as prec_tracefs__glob's.
 * Returns how many, -ENODEV (no tracefs) or -errno. */
int prec_tracefs__systems(const char *sys_pat, char ***out);
void prec_tracefs__free_list(char **list, int n);
/* The tracepoint whose tracefs id is id, as malloc'd *system and *name
 * (an event named by number, tracepoint/config=N/, still needs its format
 * in the recording). Returns 0, -ENOENT (no tracepoint has it), -ENODEV
 * (no tracefs) or -errno. Reads every id file: for the command line only. */
int prec_tracefs__name_of(uint64_t id, char **system, char **name);

/* Add system:name's format text to m (once per tracepoint), and the
 * header_page / header_event / printk_formats / saved_cmdlines texts if m
 * does not have them yet. Returns 0 or -errno. */
int prec_tracefs__add_formats(struct prec_manifest *m, const char *system,
			      const char *name, uint64_t id);

#endif
