/* SPDX-License-Identifier: MIT */
/* Whose a recording is, before a reader trusts it: as perf refuses a
 * perf.data of another user's unless forced. */
#ifndef PREC_READ_OWNER_H
#define PREC_READ_OWNER_H

#include <stdbool.h>

/* May cmd ("merge", "info" ...) read the recording dir, open as dirfd?
 * Yes if its directory and its manifest belong to root or to the effective
 * user and no one else may write the directory (group or others), or
 * with force (-f). Someone else's recording can be anything its owner
 * wants root to read (a planted segment number, a swapped recording), and
 * each reader would trust it; so it is read only when asked for by -f. A directory with no manifest is no refusal (the
 * reader's own error says what it is). Returns 0, or -EPERM after one
 * line naming the owner and -f, or -errno of fstat (one line). Does not
 * block. */
int prec_owner__check(const char *cmd, const char *dir, int dirfd, bool force);

#endif
