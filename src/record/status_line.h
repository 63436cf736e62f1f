/* SPDX-License-Identifier: MIT */
/* The line `prec record` redraws on a terminal while it records
 * (status_line.c): elapsed time, data and rate, records, losses, disk use,
 * the busiest CPU. */
#ifndef PREC_RECORD_STATUS_LINE_H
#define PREC_RECORD_STATUS_LINE_H

#include <stdbool.h>
#include <stdint.h>

struct prec_session;
struct prec_status_line;

/* A status line on fd for session s (its drainers started), or *out =
 * NULL (and 0) when there is to be none: quiet, or fd not a terminal.
 * Returns 0 or -ENOMEM. Main thread. */
int prec_status_line__new(struct prec_status_line **out, int fd,
			  const struct prec_session *s, bool quiet);

/* With a disk budget (--max-disk), disk use is shown against it; 0 = none. */
void prec_status_line__set_budget(struct prec_status_line *sl, uint64_t bytes);

/* Milliseconds until the next redraw is due (0 if now), or -1 for none
 * (sl NULL): a bound for the caller's poll. */
int prec_status_line__timeout_ms(const struct prec_status_line *sl);

/* Redraw if a second has passed since the last time. Reads the drainers'
 * published counters (relaxed atomics: no lock, nothing on their path)
 * and stats the shard files. sl may be NULL. */
void prec_status_line__tick(struct prec_status_line *sl);

/* Erase the line (cursor back to column 0), so that what is printed next
 * starts on a clean line; the next tick draws it again. sl may be NULL. */
void prec_status_line__clear(struct prec_status_line *sl);

/* Clear, then free. NULL is fine. */
void prec_status_line__delete(struct prec_status_line *sl);

#endif
