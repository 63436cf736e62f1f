/* SPDX-License-Identifier: MIT */
/* Text from a recording (a workload's comm, its file names, marker text,
 * manifest strings) shown to a person: escaped so that it can neither send
 * escape sequences to the terminal nor break a line's layout. */
#ifndef PREC_UTIL_ESCAPE_H
#define PREC_UTIL_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest form one input byte takes: "\xNN". */
#define PREC_ESCAPE_MAX_PER_BYTE 4u

/* Does s[0, len) hold a byte escaping would change apart from a backslash
 * or a quote: a C0 control, DEL, a C1 control (U+0080..U+009F; 0x9b is a
 * CSI to some terminals), a bidi control (U+202A..U+202E, U+2066..U+2069:
 * each of its bytes as \xNN), or bytes that are not UTF-8 (overlong forms,
 * surrogates, past U+10FFFF, cut short at len)? Stops at a NUL. */
bool prec_escape__needed(const void *s, size_t len);

/* Write s[0, len) (up to a NUL) to f escaped: printable ASCII and UTF-8 as
 * they are, a backslash doubled, \n \t \r for those, \xNN for every other
 * byte; quote (a character, or 0) is escaped as \quote too, so the text
 * can sit between such quotes. Any thread; f's errors are f's. */
void prec_escape__put(FILE *f, const void *s, size_t len, int quote);

/* The same into dst (size bytes with the NUL, size > 0): text that does not
 * fit is cut between escapes and ends in "...". Returns strlen(dst). No
 * allocation, any thread (for log lines). */
size_t prec_escape__to_buf(char *dst, size_t size, const void *s, size_t len, int quote);

#endif
