// SPDX-License-Identifier: MIT
// A futex-word latch and the request states around it (latch.h).
#include "util/latch.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { REQ_IDLE, REQ_ASKED, REQ_EXITED };

void prec_latch__begin(struct prec_latch *l, int n)
{
	__atomic_store_n(&l->pending, n + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->err, 0, __ATOMIC_RELAXED);
}

void prec_latch__skip(struct prec_latch *l)
{
	/* Never the last: the asker's own count is still held. */
	__atomic_sub_fetch(&l->pending, 1, __ATOMIC_RELAXED);
}

void prec_latch__count_down(struct prec_latch *l)
{
	if (__atomic_sub_fetch(&l->pending, 1, __ATOMIC_ACQ_REL) == 0)
		syscall(SYS_futex, &l->pending, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void prec_latch__fail(struct prec_latch *l, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&l->err, &none, err, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

int prec_latch__wait(struct prec_latch *l)
{
	int v;

	__atomic_sub_fetch(&l->pending, 1, __ATOMIC_ACQ_REL);
	while ((v = __atomic_load_n(&l->pending, __ATOMIC_ACQUIRE)) != 0)
		syscall(SYS_futex, &l->pending, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
	return __atomic_load_n(&l->err, __ATOMIC_ACQUIRE);
}

bool prec_request__ask(struct prec_request *r, struct prec_latch *l)
{
	int idle = REQ_IDLE;

	/* The latch is published before the state: the thread reads it
	 * once it sees ASKED. */
	r->latch = l;
	if (!__atomic_compare_exchange_n(&r->state, &idle, REQ_ASKED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		prec_latch__fail(l, -ENOENT);
		prec_latch__skip(l);
		return false;
	}
	return true;
}

bool prec_request__asked(const struct prec_request *r)
{
	return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == REQ_ASKED;
}

void prec_request__answer(struct prec_request *r, int err)
{
	struct prec_latch *l = r->latch;

	if (err)
		prec_latch__fail(l, err);
	__atomic_store_n(&r->state, REQ_IDLE, __ATOMIC_RELEASE);
	prec_latch__count_down(l);
}

void prec_request__exit(struct prec_request *r)
{
	if (__atomic_exchange_n(&r->state, REQ_EXITED, __ATOMIC_ACQ_REL) == REQ_ASKED) {
		prec_latch__fail(r->latch, -ENOENT);
		prec_latch__count_down(r->latch);
	}
}
