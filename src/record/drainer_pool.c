// SPDX-License-Identifier: MIT
// The drainers of a recording as one object: the fan-out start and the
// requests to all of them over one latch (util/latch.h).
//
// Each enable is made by each drainer for its own CPU, from that CPU (an
// enable ioctl of a CPU-bound event waits for that CPU to carry it out), and
// the main thread sleeps on the latch until all have: the side band is read,
// and the command started, only once every CPU's events are on. A stop
// (workload exit, SIGINT/SIGTERM/SIGHUP, -p targets gone, --control stop,
// --max-size) wakes each drainer through its eventfd; each disables its own
// CPU's events on that CPU, all CPUs at once, drains to empty, waits for its
// writes and fsyncs. A flight recording's events are enabled and disabled by
// the main thread instead, first at the stop, for the last snapshot.
#include "record/drainer_pool.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "record/capture.h"
#include "record/size_gate.h"
#include "util/latch.h"

/* What a drainer's thread runs first: start its children in the
 * fan-out's heap (2i + 1, 2i + 2). */
struct fan_slot {
	struct prec_drainer_pool *p;
	int i;
};

struct prec_drainer_pool {
	int n;
	struct prec_drainer **d;
	struct fan_slot *fan;
	struct prec_latch latch; /* the answers to the request under way */
	int efd;                 /* the drainers' first errors */
	cpu_set_t anywhere;      /* the caller's CPUs, for a refused CPU set */
	bool fanning;            /* start() fans out */
	struct prec_drainer_cut *cut; /* each drainer's side of a cut under way */
	struct prec_capture **caps;   /* &cut[i].capture, for the side band */
	struct prec_size_gate gate;   /* --max-size, --switch-output=SIZE */
	bool counting;                /* the drainers count on the gate */
	uint64_t cut_bytes;           /* ring bytes before the last cut's moves */
};

int prec_drainer_pool__new(struct prec_drainer_pool **out, int n)
{
	struct prec_drainer_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->n = n;
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->d = calloc((size_t)n, sizeof(*p->d));
	p->fan = calloc((size_t)n, sizeof(*p->fan));
	/* A few hundred bytes: made here so that a cut cannot fail half
	 * way for want of them. */
	p->cut = calloc((size_t)n, sizeof(*p->cut));
	p->caps = calloc((size_t)n, sizeof(*p->caps));
	if (p->efd < 0 || !p->d || !p->fan || !p->cut || !p->caps) {
		int err = p->efd < 0 ? -errno : -ENOMEM;

		prec_drainer_pool__delete(p);
		return err;
	}
	*out = p;
	return 0;
}

static void fan_out(void *ctx);

/* A drainer found --max-size reached: every one woken, to disable its
 * CPU's events before its next pass (the pool's drainers all exist by
 * then: they were added before any started). */
static void wake_all(void *ctx)
{
	struct prec_drainer_pool *p = ctx;

	for (int i = 0; i < p->n; i++)
		if (p->d[i])
			prec_drainer__wake(p->d[i]);
}

int prec_drainer_pool__add(struct prec_drainer_pool *p, int i,
			   const struct prec_drainer_opts *o)
{
	struct prec_drainer_opts own = *o;
	int err;

	if (i < 0 || i >= p->n || p->d[i])
		return -EINVAL;
	p->fan[i] = (struct fan_slot){ p, i };
	own.started = fan_out;
	own.started_ctx = &p->fan[i];
	own.size_gate = p->counting ? &p->gate : NULL;
	if (p->gate.stop_at) {
		own.limit_reached = wake_all;
		own.limit_ctx = p;
	}
	err = prec_drainer__new(&p->d[i], &own);
	if (!err)
		prec_drainer__set_notify(p->d[i], p->efd);
	return err;
}

/* Drainer k of the fan-out and the ones below it (k's heap subtree). */
static int subtree(int k, int n)
{
	return k >= n ? 0 : 1 + subtree(2 * k + 1, n) + subtree(2 * k + 2, n);
}

/* Start drainer k, counted off the latch once its thread exists; it
 * starts its own children. When it cannot be, neither can they: all
 * counted off. */
static void start_one(struct prec_drainer_pool *p, int k)
{
	int err = prec_drainer__spawn(p->d[k], &p->anywhere);

	if (!err) {
		prec_latch__count_down(&p->latch);
		return;
	}
	prec_latch__fail(&p->latch, err);
	for (int m = subtree(k, p->n); m > 0; m--)
		prec_latch__count_down(&p->latch);
}

static void fan_out(void *ctx)
{
	const struct fan_slot *f = ctx;
	struct prec_drainer_pool *p = f->p;

	if (!p->fanning)
		return;
	for (int k = 2 * f->i + 1; k <= 2 * f->i + 2 && k < p->n; k++)
		start_one(p, k);
}

int prec_drainer_pool__start(struct prec_drainer_pool *p)
{
	bool fan = p->n > 0;

	for (int i = 0; i < p->n; i++) {
		if (!p->d[i])
			return -EINVAL;
		fan &= prec_drainer__pinned(p->d[i]);
	}
	/* Unpinned drainers would inherit their creator's CPUs: the main
	 * thread's are theirs, so it starts them. */
	if (!fan || sched_getaffinity(0, sizeof(p->anywhere), &p->anywhere)) {
		for (int i = 0; i < p->n; i++) {
			int err = prec_drainer__spawn(p->d[i], NULL);

			if (err)
				return err;
		}
		return 0;
	}
	/* Creating a thread on another CPU waits on that CPU (its wake-up,
	 * the move there): each drainer starts two, so the waits overlap
	 * and the last starts after log2(n) of them, not n. */
	p->fanning = true;
	prec_latch__begin(&p->latch, p->n);
	start_one(p, 0);
	return prec_latch__wait(&p->latch);
}

int prec_drainer_pool__enable(struct prec_drainer_pool *p, bool tracking)
{
	prec_latch__begin(&p->latch, p->n);
	for (int i = 0; i < p->n; i++)
		prec_drainer__ask_enable(p->d[i], tracking, &p->latch);
	return prec_latch__wait(&p->latch);
}

void prec_drainer_pool__cut_begin(struct prec_drainer_pool *p,
				  struct prec_shard_writer *const *writers, uint64_t since)
{
	for (int i = 0; i < p->n; i++) {
		p->cut[i] = (struct prec_drainer_cut){ .writer = writers[i] };
		/* no room: every record dropped, and said at the replay */
		prec_capture__init(&p->cut[i].capture, PREC_CAPTURE_BYTES, since);
		p->caps[i] = &p->cut[i].capture;
		prec_drainer__set_capture(p->d[i], &p->cut[i]);
	}
}

int prec_drainer_pool__cut_move(struct prec_drainer_pool *p, struct prec_drainer_handover *h)
{
	int err;

	prec_latch__begin(&p->latch, p->n);
	for (int i = 0; i < p->n; i++)
		prec_drainer__ask_cut(p->d[i], &p->cut[i], &p->latch);
	err = prec_latch__wait(&p->latch);
	p->cut_bytes = 0;
	for (int i = 0; i < p->n; i++) {
		const struct prec_drainer_cut *c = &p->cut[i];

		/* one that had exited drains nothing more: all its bytes */
		p->cut_bytes += c->moved ? c->bytes : p->d[i] ? prec_drainer__bytes(p->d[i]) : 0;

		h[i] = (struct prec_drainer_handover){ .present = c->moved,
			.st = { .lost = c->lost, .lost_samples = c->lost_samples,
				.maps_dropped = c->maps_dropped },
			.maps = c->maps, .nr_maps = (int)c->nr_maps };
	}
	return err;
}

struct prec_capture *const *prec_drainer_pool__captures(const struct prec_drainer_pool *p)
{
	return p->caps;
}

void prec_drainer_pool__cut_end(struct prec_drainer_pool *p)
{
	for (int i = 0; p->cut && i < p->n; i++) {
		prec_drainer__free_maps(p->cut[i].maps, p->cut[i].nr_maps);
		prec_capture__exit(&p->cut[i].capture);
		p->cut[i] = (struct prec_drainer_cut){ 0 };
	}
}

int prec_drainer_pool__stop(struct prec_drainer_pool *p, struct prec_drainer_handover *h)
{
	int err = 0;

	prec_latch__begin(&p->latch, p->n);
	for (int i = 0; i < p->n; i++)
		prec_drainer__ask_done(p->d[i], &p->latch);
	prec_latch__wait(&p->latch);
	for (int i = 0; i < p->n && !err; i++)
		err = p->d[i] ? prec_drainer__error(p->d[i]) : 0;
	for (int i = 0; h && i < p->n; i++)
		if (p->d[i])
			prec_drainer__handover(p->d[i], &h[i]);
		else
			h[i] = (struct prec_drainer_handover){ .present = false };
	return err;
}

int prec_drainer_pool__join(struct prec_drainer_pool *p)
{
	int err = 0;

	for (int i = 0; i < p->n; i++)
		if (p->d[i])
			prec_drainer__stop(p->d[i]);
	for (int i = 0; i < p->n; i++) {
		int e = p->d[i] ? prec_drainer__join(p->d[i]) : 0;

		if (e && !err)
			err = e;
	}
	return err;
}

void prec_drainer_pool__count(struct prec_drainer_pool *p, uint64_t max)
{
	prec_size_gate__init(&p->gate, max);
	p->counting = true;
}

bool prec_drainer_pool__limit_reached(const struct prec_drainer_pool *p, uint64_t *used)
{
	*used = p ? prec_size_gate__used(&p->gate) : 0;
	return p && p->gate.stop_at && *used >= p->gate.stop_at;
}

uint64_t prec_drainer_pool__counted(const struct prec_drainer_pool *p)
{
	return p ? prec_size_gate__used(&p->gate) : 0;
}

uint64_t prec_drainer_pool__cut_bytes(const struct prec_drainer_pool *p)
{
	return p ? p->cut_bytes : 0;
}

bool prec_drainer_pool__mark_cut(struct prec_drainer_pool *p, uint64_t at)
{
	return prec_size_gate__mark_cut(&p->gate, at);
}

int prec_drainer_pool__notify_fd(const struct prec_drainer_pool *p)
{
	return p ? p->efd : -1;
}

struct prec_drainer *prec_drainer_pool__at(const struct prec_drainer_pool *p, int i)
{
	return p && i >= 0 && i < p->n ? p->d[i] : NULL;
}

int prec_drainer_pool__size(const struct prec_drainer_pool *p)
{
	return p ? p->n : 0;
}

uint64_t prec_drainer_pool__bytes(const struct prec_drainer_pool *p)
{
	uint64_t sum = 0;

	for (int i = 0; p && i < p->n; i++)
		if (p->d[i])
			sum += prec_drainer__bytes(p->d[i]);
	return sum;
}

void prec_drainer_pool__delete(struct prec_drainer_pool *p)
{
	if (!p)
		return;
	if (p->d) {
		prec_drainer_pool__join(p);
		for (int i = 0; i < p->n; i++)
			prec_drainer__delete(p->d[i]);
	}
	if (p->efd >= 0)
		close(p->efd);
	prec_drainer_pool__cut_end(p);
	free(p->d);
	free(p->fan);
	free(p->cut);
	free(p->caps);
	free(p);
}
