/* SPDX-License-Identifier: MIT */
/* An -e list's blanks, as perf's lexer reads them (event_blanks.c). */
#ifndef PREC_RECORD_EVENT_BLANKS_H
#define PREC_RECORD_EVENT_BLANKS_H

#include <stdbool.h>
#include <stddef.h>

/* One item of an -e list (an event, with a group's braces) as perf's
 * lexer reads it: its blanks (and the bytes perf's lexer skips as it
 * skips blanks: cpu-clock#u, !cpu-clock) dropped where they stand between perf's
 * tokens (around , { } / : =, first and last), a blank before modifier
 * letters outside the slashes read as their ':' (cpu-clock u), and a
 * breakpoint's mem:ADDR[/LEN][:rwx] whole; into out (size bytes, at
 * least strlen(raw) + 1). Returns 0, or -EINVAL after one line naming
 * text (the -e argument) where perf's lexer sees two words or a cut
 * breakpoint. */
int prec_event__drop_blanks(const char *text, const char *raw, char *out, size_t size);
/* Whether perf's lexer skips the byte at p as a blank (raw: the item's
 * start, which a '.' or '!' looks back to; in_terms: between a pmu's or
 * event's slashes): a blank, a byte past ASCII, !, #, ... */
bool prec_event__skipped(const char *raw, const char *p, bool in_terms);

#endif
