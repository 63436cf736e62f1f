// SPDX-License-Identifier: MIT
// A drainer's wait: a multishot POLL_ADD per fd, kept armed across calls, and
// a timeout in the same io_uring as its shard writes, so a drainer blocks in
// one place, reaps its writes while it waits, and never misses a readiness.
#include "store/drain_wait.h"

#include <errno.h>
#include <poll.h>

static uint64_t poll_val(const struct prec_drain_wait *dw, int i)
{
	return (uint64_t)dw->polls[i].gen << 8 | (uint64_t)i;
}

/* PREC_UR_POLL completion. */
static void poll_done(void *ctx, uint64_t val, int res, unsigned int flags)
{
	struct prec_drain_wait *dw = ctx;
	int i = (int)(val & 0xff);

	/* A completion of a poll we already replaced or cancelled. */
	if (i >= PREC_DRAIN_WAIT_FDS || val != poll_val(dw, i))
		return;
	if (!(flags & IORING_CQE_F_MORE))
		dw->polls[i].armed = false;
	/* An error (bad fd...) reads as "ready" so the caller goes and finds
	 * out; ECANCELED is our own doing. */
	if (res != -ECANCELED)
		dw->ready |= 1u << i;
}

/* PREC_UR_TIMEOUT completion. */
static void timeout_done(void *ctx, uint64_t val, int res, unsigned int flags)
{
	struct prec_drain_wait *dw = ctx;

	(void)flags;
	if (val == dw->tgen && res == -ETIME)
		dw->timed_out = true;
}

void prec_drain_wait__init(struct prec_drain_wait *dw, struct prec_uring *ring)
{
	dw->ring = ring;
	for (int i = 0; i < PREC_DRAIN_WAIT_FDS; i++)
		dw->polls[i].fd = -1;
	prec_uring__on(ring, PREC_UR_POLL, poll_done, dw);
	prec_uring__on(ring, PREC_UR_TIMEOUT, timeout_done, dw);
}

static int cancel_poll(struct prec_drain_wait *dw, int i)
{
	struct io_uring_sqe *sqe;

	if (dw->polls[i].armed) {
		sqe = prec_uring__sqe(dw->ring);
		if (!sqe)
			return -EBUSY;
		io_uring_prep_poll_remove(sqe, prec_uring__ud(PREC_UR_POLL, poll_val(dw, i)));
		io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_IGNORE, 0));
	}
	dw->polls[i].armed = false;
	dw->polls[i].fd = -1;
	dw->polls[i].gen++;
	dw->ready &= ~(1u << i);
	return 0;
}

static int arm_polls(struct prec_drain_wait *dw, const int *fds, int nfds)
{
	for (int i = 0; i < PREC_DRAIN_WAIT_FDS; i++) {
		struct io_uring_sqe *sqe;
		int want = i < nfds ? fds[i] : -1;

		if (dw->polls[i].fd != want && cancel_poll(dw, i))
			return -EBUSY;
		if (want < 0 || dw->polls[i].armed)
			continue;
		sqe = prec_uring__sqe(dw->ring);
		if (!sqe)
			return -EBUSY;
		dw->polls[i].fd = want;
		dw->polls[i].armed = true;
		io_uring_prep_poll_multishot(sqe, want, POLLIN);
		io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_POLL, poll_val(dw, i)));
	}
	return 0;
}

int prec_drain_wait__arm(struct prec_drain_wait *dw, const int *fds, int nfds)
{
	int ret = arm_polls(dw, fds, nfds);

	if (!ret)
		ret = prec_uring__submit(dw->ring);
	if (ret)
		return ret;
	prec_uring__reap(dw->ring, false);
	return 0;
}

static int arm_timeout(struct prec_drain_wait *dw, struct __kernel_timespec *ts,
		       uint64_t timeout_ns)
{
	struct io_uring_sqe *sqe = prec_uring__sqe(dw->ring);

	if (!sqe)
		return -EBUSY;
	ts->tv_sec = (long long)(timeout_ns / 1000000000ull);
	ts->tv_nsec = (long long)(timeout_ns % 1000000000ull);
	dw->tgen = (dw->tgen + 1) & 0xffffff;
	dw->timed_out = false;
	io_uring_prep_timeout(sqe, ts, 0, 0);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_TIMEOUT, dw->tgen));
	return 0;
}

static void disarm_timeout(struct prec_drain_wait *dw)
{
	struct io_uring_sqe *sqe;

	if (dw->timed_out)
		return;
	sqe = prec_uring__sqe(dw->ring);
	if (!sqe)
		return; /* it fires later and is ignored: tgen moves on */
	io_uring_prep_timeout_remove(sqe, prec_uring__ud(PREC_UR_TIMEOUT, dw->tgen), 0);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_IGNORE, 0));
	dw->tgen = (dw->tgen + 1) & 0xffffff;
	prec_uring__submit(dw->ring);
}

int prec_drain_wait__block(struct prec_drain_wait *dw, int nfds,
			   uint64_t timeout_ns, const int *stop)
{
	struct __kernel_timespec ts;
	int ret = arm_timeout(dw, &ts, timeout_ns);

	if (ret)
		return ret;
	for (;;) {
		ret = prec_uring__wait(dw->ring);
		if (ret == -EINTR)
			break;
		if (ret < 0 && ret != -EAGAIN && ret != -EBUSY) {
			disarm_timeout(dw);
			return ret;
		}
		prec_uring__reap(dw->ring, false);
		if (prec_drain_wait__ready(dw, nfds) || dw->timed_out || *stop)
			break;
	}
	disarm_timeout(dw);
	return 0;
}

uint32_t prec_drain_wait__take(struct prec_drain_wait *dw, int nfds)
{
	uint32_t mask = dw->ready & ((1u << nfds) - 1);

	dw->ready &= ~mask;
	return mask;
}
