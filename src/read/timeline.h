/* SPDX-License-Identifier: MIT */
/* prec info --timeline: one row per shard of a recording, its data rate
 * over the recording's time in block characters, and where it lost records. */
#ifndef PREC_READ_TIMELINE_H
#define PREC_READ_TIMELINE_H

#include <stdio.h>

#include "store/store.h"

/* Read every shard of m under dirfd (live or not: prec_live_scan) and draw
 * the timeline to f, as wide as the terminal: TIOCGWINSZ when f is one,
 * else $COLUMNS, else 80. dir names the recording in the heading. Returns
 * 0, -ENOMEM, -EIO when writing to f failed, or -EBADMSG once drawn when
 * a shard of a finished recording could not be read to its end (each said
 * in one error line, its row drawn up to there); a live recording's shard
 * that cannot be read is warned about and drawn empty. Blocks on reads. */
int prec_timeline__print(int dirfd, const struct prec_manifest *m, const char *dir, FILE *f);

#endif
