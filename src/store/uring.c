// SPDX-License-Identifier: MIT
// The shard writer's io_uring: SQEs, submission with retries, and reaping
// that hands each completion to the handler of its kind.
#include "store/uring.h"

#include <errno.h>

int prec_uring__init(struct prec_uring *u, unsigned int entries)
{
	int ret = io_uring_queue_init(entries, &u->ring, 0);

	if (ret < 0)
		return ret;
	u->ok = true;
	return 0;
}

void prec_uring__exit(struct prec_uring *u)
{
	if (u->ok)
		io_uring_queue_exit(&u->ring);
	u->ok = false;
}

void prec_uring__on(struct prec_uring *u, enum prec_uring_kind kind,
		    prec_uring_fn *fn, void *ctx)
{
	u->fn[kind] = fn;
	u->ctx[kind] = ctx;
}

void prec_uring__on_error(struct prec_uring *u, prec_uring_err_fn *fn, void *ctx)
{
	u->err_fn = fn;
	u->err_ctx = ctx;
}

struct io_uring_sqe *prec_uring__sqe(struct prec_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe && prec_uring__submit(u) == 0)
		sqe = io_uring_get_sqe(&u->ring);
	return sqe;
}

int prec_uring__submit(struct prec_uring *u)
{
	int tries = 0;

	while (io_uring_sq_ready(&u->ring)) {
		int ret = io_uring_submit(&u->ring);

		if (ret >= 0)
			continue;
		if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;
		/* The kernel is short of resources or the CQ is backed up:
		 * make room by handling completions, then try again. */
		if (++tries > 1000)
			return ret;
		prec_uring__reap(u, false);
	}
	return 0;
}

int prec_uring__reap(struct prec_uring *u, bool wait)
{
	struct io_uring_cqe *cqe;

	if (wait) {
		int ret = io_uring_wait_cqe(&u->ring, &cqe);

		if (ret < 0)
			return ret;
	}
	/* Consume each CQE before handling it: a handler may need an SQE,
	 * which can submit and reap again (re-entry sees a consistent CQ). */
	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		uint64_t kind = ud >> PREC_UR_KIND_SHIFT;
		int res = cqe->res;
		unsigned int flags = cqe->flags;

		io_uring_cqe_seen(&u->ring, cqe);
		if (kind < PREC_UR_KINDS && u->fn[kind])
			u->fn[kind](u->ctx[kind], prec_uring__val(ud), res, flags);
	}
	/* What the handlers queued (resubmissions of short writes...). */
	if (io_uring_sq_ready(&u->ring) && prec_uring__submit(u) < 0 && u->err_fn)
		u->err_fn(u->err_ctx, -EIO);
	return 0;
}

int prec_uring__wait(struct prec_uring *u)
{
	return io_uring_submit_and_wait(&u->ring, 1);
}

int prec_uring__register_slots(struct prec_uring *u, unsigned int n)
{
	return io_uring_register_buffers_sparse(&u->ring, n);
}

int prec_uring__set_slot(struct prec_uring *u, unsigned int slot, void *base, size_t len)
{
	struct iovec v = { .iov_base = base, .iov_len = base ? len : 0 };
	int ret = io_uring_register_buffers_update_tag(&u->ring, slot, &v, NULL, 1);

	return ret == 1 ? 0 : ret < 0 ? ret : -EIO;
}

int prec_uring__worker_cpus(struct prec_uring *u, const cpu_set_t *cpus)
{
	struct io_uring_sqe *sqe;
	int ret;

	if (!u->ok)
		return -EINVAL;
	/* The workers belong to the submitting thread's io_uring context,
	 * made at its first submission: a thread that has not submitted yet
	 * gets EINVAL, so submit a no-op first. */
	sqe = prec_uring__sqe(u);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_IGNORE, 0));
	ret = prec_uring__submit(u);
	if (ret)
		return ret;
	return io_uring_register_iowq_aff(&u->ring, sizeof(*cpus), cpus);
}
