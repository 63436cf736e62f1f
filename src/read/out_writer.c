// SPDX-License-Identifier: MIT
// The perf.data writer's output: two buffers, one filled by the merge while
// the other is written by an io_uring worker on another CPU, so the merge
// does not stop for the page-cache copy of every flush; or plain write()
// calls in the merge's own thread where that cannot be had.
//
// A file's writes go to an io_uring worker (IOSQE_ASYNC, explicit offsets);
// a pipe keeps write() in the merge's thread (the reader sets the pace, and
// its going away must come back as EPIPE; merge_output.c grows the pipe to
// the flush size).
#include "read/internal.h"
#include "util/file.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct prec_out_writer {
	int fd;
	bool uring;       /* writes go through ring, one in flight at most */
	struct io_uring ring;
	uint8_t *buf[2];  /* the one being filled is handed out by put() */
	/* in flight: buf[busy][0, busy_len) at file offset busy_off */
	int busy;
	size_t busy_len;
	uint64_t busy_off;
	uint64_t pos;     /* where the next put() goes */
	int err;          /* first write error; every later call returns it */
};

/* Write len bytes at pos by a worker: IOSQE_ASYNC skips the inline
 * attempt, which for a buffered file would do the copy here, in the
 * merge's thread, after all. Explicit offsets, not the file position: a
 * short io_uring write on 6.18 left the position where it was. */
static int submit(struct prec_out_writer *w, int b, size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int r;

	if (!sqe)
		return -EBUSY; /* cannot happen: one write at a time */
	io_uring_prep_write(sqe, w->fd, w->buf[b], (unsigned int)len, w->pos);
	sqe->flags |= IOSQE_ASYNC;
	r = io_uring_submit(&w->ring);
	if (r != 1)
		return r < 0 ? r : -EIO;
	w->busy = b;
	w->busy_len = len;
	w->busy_off = w->pos;
	w->pos += len;
	return 0;
}

/* Wait for the write in flight; a short one is finished with pwrite(). */
static int reap(struct prec_out_writer *w)
{
	struct io_uring_cqe *cqe;
	size_t len = w->busy_len;
	int r, res;

	if (!len)
		return w->err;
	w->busy_len = 0;
	do
		r = io_uring_wait_cqe(&w->ring, &cqe);
	while (r == -EINTR);
	if (r < 0)
		return w->err = r;
	res = cqe->res;
	io_uring_cqe_seen(&w->ring, cqe);
	if (res == -EINTR || res == -EAGAIN)
		res = 0; /* nothing written: pwrite() does it all */
	if (res < 0)
		return w->err = res;
	if ((size_t)res < len)
		w->err = prec_file__pwrite_all(w->fd, w->buf[w->busy] + res,
					       len - (size_t)res, w->busy_off + (uint64_t)res);
	return w->err;
}

int prec_out_writer__new(struct prec_out_writer **out, int fd, size_t size,
			 bool async)
{
	struct prec_out_writer *w = calloc(1, sizeof(*w));
	/* Not seekable, or no io_uring (kernel.io_uring_disabled, seccomp):
	 * write() it is. */
	off_t pos = async ? lseek(fd, 0, SEEK_CUR) : -1;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->pos = pos > 0 ? (uint64_t)pos : 0;
	w->uring = pos >= 0 && io_uring_queue_init(2, &w->ring, 0) == 0;
	w->buf[0] = malloc(size);
	w->buf[1] = w->uring ? malloc(size) : NULL;
	if (!w->buf[0] || (w->uring && !w->buf[1])) {
		prec_out_writer__delete(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

bool prec_out_writer__async(const struct prec_out_writer *w)
{
	return w->uring;
}

uint8_t *prec_out_writer__first(struct prec_out_writer *w)
{
	return w->buf[0];
}

int prec_out_writer__put(struct prec_out_writer *w, uint8_t **buf, size_t len)
{
	int b = *buf == w->buf[0] ? 0 : 1;

	if (w->err || !len)
		return w->err;
	if (!w->uring)
		return w->err = prec_file__write_all(w->fd, *buf, len);
	if (reap(w))
		return w->err;
	w->err = submit(w, b, len);
	if (w->err == 0)
		*buf = w->buf[1 - b];
	return w->err;
}

/* As write() would have left it, for whoever writes to fd next. */
int prec_out_writer__wait(struct prec_out_writer *w)
{
	if (!w->uring || reap(w))
		return w->err;
	if (lseek(w->fd, (off_t)w->pos, SEEK_SET) < 0)
		w->err = -errno;
	return w->err;
}

void prec_out_writer__delete(struct prec_out_writer *w)
{
	if (!w)
		return;
	if (w->uring) {
		reap(w);
		io_uring_queue_exit(&w->ring);
	}
	free(w->buf[0]);
	free(w->buf[1]);
	free(w);
}
