/* SPDX-License-Identifier: MIT */
/* Private to src/store: a drainer's wait in its shard writer's io_uring,
 * for its fds to be readable or a timeout (see drain_wait.c). */
#ifndef PREC_STORE_DRAIN_WAIT_H
#define PREC_STORE_DRAIN_WAIT_H

#include "store/uring.h"

#define PREC_DRAIN_WAIT_FDS 8

struct prec_drain_wait {
	struct prec_uring *ring;
	struct {
		int fd;
		bool armed;
		uint32_t gen;
	} polls[PREC_DRAIN_WAIT_FDS];
	uint32_t ready;  /* bit i: polls[i] fired since it was last taken */
	uint32_t tgen;   /* generation of the timeout armed last */
	bool timed_out;
};

/* All on the drainer's thread, the one that uses its shard writer. */

/* No fds yet; take ring's PREC_UR_POLL and PREC_UR_TIMEOUT completions. */
void prec_drain_wait__init(struct prec_drain_wait *dw, struct prec_uring *ring);

/* Keep one multishot POLLIN armed per fds[i] (0 <= nfds <= 8), replacing
 * those of other fds, submit, and take completions without blocking.
 * Returns 0 or -errno. */
int prec_drain_wait__arm(struct prec_drain_wait *dw, const int *fds, int nfds);

/* Is one of the first nfds fds readable? */
static inline bool prec_drain_wait__ready(const struct prec_drain_wait *dw, int nfds)
{
	return dw->ready & ((1u << nfds) - 1);
}

/* Block in the ring until one of the first nfds fds is readable,
 * timeout_ns passes, a signal arrives or *stop turns nonzero (a word that
 * completions of other kinds may set), handling completions meanwhile.
 * Returns 0 or -errno. */
int prec_drain_wait__block(struct prec_drain_wait *dw, int nfds,
			   uint64_t timeout_ns, const int *stop);

/* The readable bits of the first nfds fds, cleared. */
uint32_t prec_drain_wait__take(struct prec_drain_wait *dw, int nfds);

#endif
