/* SPDX-License-Identifier: MIT */
/* prec merge --follow: a recording merged while its recorder writes it,
 * the waits between what the shards prove complete, and its end. */
#ifndef PREC_READ_FOLLOW_H
#define PREC_READ_FOLLOW_H

#include <stdbool.h>

#include "read/internal.h"
#include "store/store.h"

struct prec_follow;

/* Can the recording in dirfd (dir names it in messages), read as *m, be
 * followed? *live: a recorder is writing it. A manifest that says
 * recording with no recorder holding the directory's lock is read once
 * more (the recorder may have just ended: *m is then replaced by the
 * final one). Returns 0, -ESRCH (the recorder died: nothing will come),
 * -EOPNOTSUPP (a flight recording: its snapshots are written only when
 * taken, in the past), after one line on stderr. */
int prec_follow__check(const char *dir, int dirfd, struct prec_manifest **m,
		       bool *live);

/* No manifest in dirfd yet: if a recorder holds the directory's lock (it
 * writes its start manifest next), sleep a little and return true (look
 * again); else false. */
bool prec_follow__starting(int dirfd);

/* Follow the live recording in dirfd, whose merge goes to outfd. Returns
 * 0 or -ENOMEM. */
int prec_follow__new(struct prec_follow **out, const char *dir, int dirfd,
		     int outfd);

/* The merge said -EAGAIN: sleep a little (less than any recorder's
 * round), then see whether the recording ended: its final manifest
 * (prec_merge__end_live(mg, true)) or a recorder gone without one
 * (end_live(mg, false), and prec_follow__died() from then on). Returns 0
 * (call prec_merge__next() again), -EPIPE when the output's reader went
 * away meanwhile, or -errno. Blocks; no allocation but the manifest's. */
int prec_follow__wait(struct prec_follow *f, struct prec_merge *mg);

/* The recorder died during the merge (said once, on stderr). */
bool prec_follow__died(const struct prec_follow *f);

void prec_follow__delete(struct prec_follow *f);

#endif
