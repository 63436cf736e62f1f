/* SPDX-License-Identifier: MIT */
/* Private to src/store: the shard writer's io_uring. It hands out SQEs,
 * submits, reaps, and gives each completion to the handler its kind (the
 * top byte of user_data) was given; it knows no handler by name. */
#ifndef PREC_STORE_URING_H
#define PREC_STORE_URING_H

#include <liburing.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

/* What an SQE is for: the top byte of its user_data, the rest a value for
 * its handler. A kind with no handler (IGNORE) completes unseen. */
enum prec_uring_kind {
	PREC_UR_WRITE = 0,   /* a buffered batch; value: its first slot */
	PREC_UR_POLL = 1,    /* a drain wait's poll; value: generation, index */
	PREC_UR_TIMEOUT = 2, /* a drain wait's timeout; value: generation */
	PREC_UR_IGNORE = 3,  /* nobody waits for it */
	PREC_UR_DIO = 4,     /* the O_DIRECT write in flight */
	PREC_UR_KINDS
};

#define PREC_UR_KIND_SHIFT 56

static inline uint64_t prec_uring__ud(enum prec_uring_kind kind, uint64_t val)
{
	return (uint64_t)kind << PREC_UR_KIND_SHIFT | val;
}

static inline uint64_t prec_uring__val(uint64_t ud)
{
	return ud & ((1ull << PREC_UR_KIND_SHIFT) - 1);
}

/* A completion: val as the SQE was tagged, res and flags as the CQE has
 * them. A handler may take SQEs (and so submit and reap again: it must
 * cope with being re-entered). */
typedef void prec_uring_fn(void *ctx, uint64_t val, int res, unsigned int flags);
/* SQEs that handlers queued during a reap could not be submitted. */
typedef void prec_uring_err_fn(void *ctx, int err);

/* Used by one thread at a time, the shard writer's; nothing here blocks but
 * reap(wait) and wait(). */
struct prec_uring {
	struct io_uring ring;
	bool ok;
	prec_uring_fn *fn[PREC_UR_KINDS];
	void *ctx[PREC_UR_KINDS];
	prec_uring_err_fn *err_fn;
	void *err_ctx;
};

/* Set up a ring of entries SQEs with no handlers. Returns 0 or -errno.
 * exit() takes a ring whose init failed or never ran (zeroed). */
int prec_uring__init(struct prec_uring *u, unsigned int entries);
void prec_uring__exit(struct prec_uring *u);

/* Give completions of kind to fn(ctx, ...). */
void prec_uring__on(struct prec_uring *u, enum prec_uring_kind kind,
		    prec_uring_fn *fn, void *ctx);
/* Give failed resubmissions after a reap to fn(ctx, err). */
void prec_uring__on_error(struct prec_uring *u, prec_uring_err_fn *fn, void *ctx);

/* An SQE, submitting queued ones to make room. NULL only when the ring is
 * broken (callers then fail with -EBUSY). */
struct io_uring_sqe *prec_uring__sqe(struct prec_uring *u);

/* Submit queued SQEs; on EINTR/EAGAIN/EBUSY handle completions to make
 * room and try again. Returns 0 or -errno. */
int prec_uring__submit(struct prec_uring *u);

/* Hand every available completion to its handler; with wait, first block
 * for one. Then submit what the handlers queued (a failure goes to the
 * error handler). Returns 0, or the wait's -errno (-EINTR on a signal). */
int prec_uring__reap(struct prec_uring *u, bool wait);

/* Submit and block until a completion is there, without handling it.
 * Returns >= 0 or -errno (-EINTR on a signal). */
int prec_uring__wait(struct prec_uring *u);

/* A table of n fixed-buffer slots, all empty (IORING_RSRC_REGISTER_SPARSE,
 * Linux 5.19). Returns 0 or -errno. */
int prec_uring__register_slots(struct prec_uring *u, unsigned int n);
/* Have slot be [base, base + len) from now on, or empty with base NULL:
 * the old buffer's pages are unpinned once no write in flight reads them,
 * with no wait for the ring to go idle, as unregistering would. Pinning
 * faults the new buffer's pages in. Returns 0 or -errno. */
int prec_uring__set_slot(struct prec_uring *u, unsigned int slot, void *base, size_t len);

/* Run the io_uring workers of the calling thread on cpus
 * (IORING_REGISTER_IOWQ_AFF). Returns 0 or -errno. */
int prec_uring__worker_cpus(struct prec_uring *u, const cpu_set_t *cpus);

#endif
