// SPDX-License-Identifier: MIT
// Shard writer: sleep() — wake-ups (multishot POLL_ADD per fd, kept armed
// across calls) and a timeout in the same io_uring as the writes, so a
// drainer blocks in one place and never misses a readiness.
#include "store/shard_writer.h"

#include <errno.h>
#include <poll.h>

static uint64_t poll_ud(const struct prec_shard_writer *w, int i)
{
	return UD_MAKE(UD_POLL, ((uint64_t)w->polls[i].gen << 8) | (uint64_t)i);
}

void prec_wr__sleep_cqe(struct prec_shard_writer *w, uint64_t ud, int res,
			unsigned int flags)
{
	uint64_t val = UD_VAL(ud);

	if (UD_KIND(ud) == UD_TIMEOUT) {
		if (val == w->tgen && res == -ETIME)
			w->timed_out = true;
		return;
	}
	if (UD_KIND(ud) != UD_POLL)
		return;
	{
		int i = (int)(val & 0xff);

		/* A completion of a poll we already replaced or cancelled. */
		if (i >= WR_MAX_POLLS || val != UD_VAL(poll_ud(w, i)))
			return;
		if (!(flags & IORING_CQE_F_MORE))
			w->polls[i].armed = false;
		/* An error (bad fd...) reads as "ready" so the caller goes
		 * and finds out; ECANCELED is our own doing. */
		if (res != -ECANCELED)
			w->ready |= 1u << i;
	}
}

static int cancel_poll(struct prec_shard_writer *w, int i)
{
	struct io_uring_sqe *sqe;

	if (w->polls[i].armed) {
		sqe = prec_wr__sqe(w);
		if (!sqe)
			return -EBUSY;
		io_uring_prep_poll_remove(sqe, poll_ud(w, i));
		io_uring_sqe_set_data64(sqe, UD_MAKE(UD_IGNORE, 0));
	}
	w->polls[i].armed = false;
	w->polls[i].fd = -1;
	w->polls[i].gen++;
	w->ready &= ~(1u << i);
	return 0;
}

static int arm_polls(struct prec_shard_writer *w, const int *fds, int nfds)
{
	for (int i = 0; i < WR_MAX_POLLS; i++) {
		struct io_uring_sqe *sqe;
		int want = i < nfds ? fds[i] : -1;

		if (w->polls[i].fd != want && cancel_poll(w, i))
			return -EBUSY;
		if (want < 0 || w->polls[i].armed)
			continue;
		sqe = prec_wr__sqe(w);
		if (!sqe)
			return -EBUSY;
		w->polls[i].fd = want;
		w->polls[i].armed = true;
		io_uring_prep_poll_multishot(sqe, want, POLLIN);
		io_uring_sqe_set_data64(sqe, poll_ud(w, i));
	}
	return 0;
}

static int arm_timeout(struct prec_shard_writer *w, struct __kernel_timespec *ts,
		       uint64_t timeout_ns)
{
	struct io_uring_sqe *sqe = prec_wr__sqe(w);

	if (!sqe)
		return -EBUSY;
	ts->tv_sec = (long long)(timeout_ns / 1000000000ull);
	ts->tv_nsec = (long long)(timeout_ns % 1000000000ull);
	w->tgen = (w->tgen + 1) & 0xffffff;
	w->timed_out = false;
	io_uring_prep_timeout(sqe, ts, 0, 0);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_TIMEOUT, w->tgen));
	return 0;
}

static void disarm_timeout(struct prec_shard_writer *w)
{
	struct io_uring_sqe *sqe;

	if (w->timed_out)
		return;
	sqe = prec_wr__sqe(w);
	if (!sqe)
		return; /* it fires later and is ignored: tgen moves on */
	io_uring_prep_timeout_remove(sqe, UD_MAKE(UD_TIMEOUT, w->tgen), 0);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_IGNORE, 0));
	w->tgen = (w->tgen + 1) & 0xffffff;
	prec_wr__submit(w);
}

static uint32_t take_ready(struct prec_shard_writer *w, int nfds)
{
	uint32_t mask = w->ready & ((1u << nfds) - 1);

	w->ready &= ~mask;
	return mask;
}

int prec_shard_writer__sleep(struct prec_shard_writer *w, const int *fds,
			     int nfds, uint64_t timeout_ns)
{
	struct __kernel_timespec ts;
	int ret;

	if (nfds < 0 || nfds > WR_MAX_POLLS || (nfds && !fds))
		return -EINVAL;
	if (w->err) {
		prec_wr__settle(w);
		return w->err;
	}
	if (w->direct)
		prec_wr__dio_idle(w);
	else
		prec_wr__flush_batch(w);
	ret = arm_polls(w, fds, nfds);
	if (!ret)
		ret = prec_wr__submit(w);
	if (ret)
		return ret;
	prec_wr__reap(w, false);
	if ((w->ready & ((1u << nfds) - 1)) || !timeout_ns || w->err)
		goto out;
	ret = arm_timeout(w, &ts, timeout_ns);
	if (ret)
		return ret;
	for (;;) {
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret == -EINTR)
			break;
		if (ret < 0 && ret != -EAGAIN && ret != -EBUSY) {
			disarm_timeout(w);
			return ret;
		}
		prec_wr__reap(w, false);
		if ((w->ready & ((1u << nfds) - 1)) || w->timed_out || w->err)
			break;
	}
	disarm_timeout(w);
	if (w->direct)
		prec_wr__dio_idle(w);
out:
	if (w->err) {
		prec_wr__settle(w);
		return w->err;
	}
	return (int)take_ready(w, nfds);
}
