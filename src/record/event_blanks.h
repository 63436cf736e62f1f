/* SPDX-License-Identifier: MIT */
/* An -e list's blanks, as perf's lexer reads them (event_blanks.c). */
#ifndef PREC_RECORD_EVENT_BLANKS_H
#define PREC_RECORD_EVENT_BLANKS_H

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

#endif
