// SPDX-License-Identifier: MIT
// Mapped files' build-ids read by a small pool of child processes, each
// given up to WINDOW files in flight over its own socket, answering them in
// order, waited for with a deadline.
//
// Why processes: a read that a FUSE server took and never answers (or a
// hard NFS mount) waits uninterruptibly, through SIGKILL. A thread in that
// wait keeps its whole process from being reaped: prec's exit would hang
// until the server answered, the recording complete but the shell waiting.
// A child in that wait is killed and left; it holds nothing of ours (its
// descriptors closed at birth) and init reaps it when the wait ends.
//
// A worker is forked, not executed anew: its name is prec-bid from its
// first system call (record's --exclude-perf filters it by that name) and
// it needs no arguments. A fork copies page references, not pages, but
// each page the parent writes afterwards is copied once while the worker
// lives; so the first worker is forked at the recorder's start, before the
// rings and buffers exist (prec_buildid_workers__start), and lives as
// long as the recorder. The pool grows only when a file stalls.
#include "util/buildid_workers.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "util/clock.h"
#include "util/log.h"

/* A file not done this long after the last one was is taken as stuck (a
 * FUSE or NFS server that does not answer): another worker takes the
 * files nobody took yet, up to RESOLVE_WORKERS; with none left to take,
 * the files still out get -ETIMEDOUT. A local read takes microseconds. */
#define RESOLVE_STALL_MS 1000u
#define RESOLVE_WORKERS 4
/* Whatever the files do, resolve() returns after this long: a recording's
 * close must end. */
#define RESOLVE_TOTAL_MS 5000u
/* Killed workers remembered to be reaped by a later call; past this many
 * (each a file system that hung) init reaps them once we have gone. */
#define LEFT_MAX 32

/* A request: this head, then the path's bytes (no NUL; none: no path). */
struct ask_head {
	uint32_t seq;
	int32_t pid;
	uint32_t maj, min;
	uint64_t ino, map_start, map_end;
	uint32_t has_path;
};

struct answer {
	uint32_t seq;
	int32_t ret;
	uint8_t id[20];
};

/* Requests in flight per worker: it answers them in order and never
 * waits for us between two files (a round trip per file cost 45 us on a
 * 2-CPU VM, three times the read itself). */
#define WINDOW 32

struct flight {
	size_t req;            /* index in the call's reqs */
	uint32_t seq;
};

struct worker {
	pid_t pid;
	int sock;              /* -1: no worker in this slot */
	bool used;             /* given files in this call */
	bool stalled;          /* silent for RESOLVE_STALL_MS: given nothing
				* more in this call (its socket still holds the
				* files given back); its oldest may still be
				* answered */
	struct flight out[WINDOW]; /* asked, not answered: oldest at head */
	unsigned int head, count;
};

/* A call's files not (or no longer) in a worker's hands: a ring of the
 * call's nr indices (each is here, in flight, or answered). */
struct queue {
	size_t *idx;
	size_t nr, head, count;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker pool[RESOLVE_WORKERS] = {
	{ .sock = -1 }, { .sock = -1 }, { .sock = -1 }, { .sock = -1 },
};
static pid_t left[LEFT_MAX];
static int nr_left;
static uint32_t last_seq;

static uint64_t mono_ms(void)
{
	return prec_now_ns(CLOCK_MONOTONIC) / 1000000u;
}

/* ---- the worker's side ---- */

static _Noreturn void serve(int sock)
{
	static uint8_t buf[sizeof(struct ask_head) + PATH_MAX];
	static char path[PATH_MAX + 1];

	/* a worker ends with its socket (the recorder gone) or by SIGKILL */
	for (;;) {
		ssize_t n = recv(sock, buf, sizeof(buf), MSG_TRUNC);
		struct prec_buildid_req r = { 0 };
		struct ask_head h;
		struct answer a = { 0 };

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(h) || n > (ssize_t)sizeof(buf))
			_exit(0);
		memcpy(&h, buf, sizeof(h));
		r.pid = h.pid;
		r.maj = h.maj;
		r.min = h.min;
		r.ino = h.ino;
		r.map_start = h.map_start;
		r.map_end = h.map_end;
		if (h.has_path) {
			size_t len = (size_t)n - sizeof(h);

			memcpy(path, buf + sizeof(h), len);
			path[len] = '\0';
			r.path = path;
		}
		a.seq = h.seq;
		a.ret = prec_buildid__read_mapped(&r, a.id);
		if (send(sock, &a, sizeof(a), MSG_NOSIGNAL) != (ssize_t)sizeof(a))
			_exit(0);
	}
}

/* ---- the pool ---- */

/* Fork a worker into w. */
static int spawn(struct worker *w)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = prec_child__fork(PREC_BUILDID_THREAD_NAME, sv[1]);
	if (pid == 0)
		serve(sv[1]);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return (int)pid;
	}
	*w = (struct worker){ .pid = pid, .sock = sv[0] };
	return 0;
}

static void reap_left(void)
{
	for (int i = 0; i < nr_left;) {
		pid_t p = waitpid(left[i], NULL, WNOHANG);

		if (p == left[i] || (p < 0 && errno == ECHILD))
			left[i] = left[--nr_left];
		else
			i++;
	}
}

/* A worker gone, or stuck past its use: killed (it dies when its wait
 * ends, at once if it was not in one), reaped now if it can be, else
 * later, and its slot freed. */
static void drop(struct worker *w)
{
	close(w->sock);
	kill(w->pid, SIGKILL);
	if (waitpid(w->pid, NULL, WNOHANG) != w->pid && nr_left < LEFT_MAX)
		left[nr_left++] = w->pid;
	*w = (struct worker){ .sock = -1 };
}

int prec_buildid_workers__start(void)
{
	int err = 0;

	pthread_mutex_lock(&pool_lock);
	if (pool[0].sock < 0)
		err = spawn(&pool[0]);
	pthread_mutex_unlock(&pool_lock);
	return err;
}

void prec_buildid_workers__stop(void)
{
	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < RESOLVE_WORKERS; i++) {
		struct worker *w = &pool[i];

		if (w->sock < 0)
			continue;
		/* idle (a call leaves none with files), waiting in recv:
		 * SIGKILL ends it at once (its socket's end may live on in
		 * another child of ours, one forked and not yet executed) */
		close(w->sock);
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		*w = (struct worker){ .sock = -1 };
	}
	reap_left();
	pthread_mutex_unlock(&pool_lock);
}

static void queue_push(struct queue *q, size_t i)
{
	q->idx[(q->head + q->count++) % q->nr] = i;
}

static void queue_pop(struct queue *q)
{
	q->head = (q->head + 1) % q->nr;
	q->count--;
}

/* The worker's files in flight but its oldest go back to the queue: it
 * reads them one after the other, so it has not started them. */
static void give_back(struct worker *w, struct queue *q)
{
	for (unsigned int k = 1; k < w->count; k++)
		queue_push(q, w->out[(w->head + k) % WINDOW].req);
	if (w->count > 1)
		w->count = 1;
}

/* The worker died (a fault in the parser, an OOM kill): the file it was
 * on was read and not answered (-EIO); the others go back. */
static size_t died(struct worker *w, struct prec_buildid_req *reqs, struct queue *q)
{
	size_t answered = 0;

	give_back(w, q);
	if (w->count) {
		reqs[w->out[w->head].req].ret = -EIO;
		answered = 1;
	}
	drop(w);
	return answered;
}

/* Ask w for reqs[i], without waiting: 0, -EAGAIN (its socket is full),
 * or -errno (it has gone). */
static int ask(struct worker *w, const struct prec_buildid_req *r, size_t i)
{
	uint8_t buf[sizeof(struct ask_head) + PATH_MAX];
	struct ask_head h = { .seq = ++last_seq, .pid = r->pid, .maj = r->maj, .min = r->min,
			      .ino = r->ino, .map_start = r->map_start, .map_end = r->map_end,
			      .has_path = r->path != NULL };
	size_t len = r->path ? strlen(r->path) : 0;
	ssize_t n;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), r->path ? r->path : "", len);
	n = send(w->sock, buf, sizeof(h) + len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != (ssize_t)(sizeof(h) + len))
		return n < 0 && errno ? -errno : -EIO;
	w->out[(w->head + w->count++) % WINDOW] = (struct flight){ .req = i, .seq = h.seq };
	return 0;
}

/* A worker for this call: an idle one not yet used, or a new one. */
static struct worker *enlist(int *err)
{
	struct worker *free_slot = NULL;

	for (int i = 0; i < RESOLVE_WORKERS; i++) {
		if (pool[i].sock >= 0 && !pool[i].count && !pool[i].used) {
			pool[i].used = true;
			return &pool[i];
		}
		if (pool[i].sock < 0 && !free_slot)
			free_slot = &pool[i];
	}
	if (!free_slot) {
		*err = -EAGAIN;
		return NULL;
	}
	*err = spawn(free_slot);
	if (*err)
		return NULL;
	free_slot->used = true;
	return free_slot;
}

/* Each worker of this call that is not stalled takes queued files up to
 * its window. Returns the files answered here (paths too long to send,
 * -ENAMETOOLONG; a worker found gone, -EIO). */
static size_t hand_out(struct prec_buildid_req *reqs, struct queue *q)
{
	size_t answered = 0;

	for (int k = 0; k < RESOLVE_WORKERS; k++) {
		struct worker *w = &pool[k];

		while (w->sock >= 0 && w->used && !w->stalled && w->count < WINDOW && q->count) {
			size_t i = q->idx[q->head];
			int err;

			if (reqs[i].path && strlen(reqs[i].path) >= PATH_MAX) {
				reqs[i].ret = -ENAMETOOLONG;
				queue_pop(q);
				answered++;
				continue;
			}
			err = ask(w, &reqs[i], i);
			if (err == -EAGAIN)
				break;
			if (err) {
				answered += died(w, reqs, q);
				break;
			}
			queue_pop(q);
		}
	}
	return answered;
}

/* The answers waiting on the sockets of workers with files in flight,
 * within ms. Returns how many files were answered. */
static size_t collect(struct prec_buildid_req *reqs, struct queue *q, unsigned int ms)
{
	struct pollfd pf[RESOLVE_WORKERS];
	struct worker *of[RESOLVE_WORKERS];
	size_t answered = 0;
	int n = 0;

	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && pool[i].count) {
			pf[n] = (struct pollfd){ .fd = pool[i].sock, .events = POLLIN };
			of[n++] = &pool[i];
		}
	if (!n || poll(pf, (nfds_t)n, (int)ms) <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct worker *w = of[i];

		while (pf[i].revents && w->sock >= 0 && w->count) {
			struct flight *f = &w->out[w->head];
			struct answer a;
			ssize_t got = recv(w->sock, &a, sizeof(a), MSG_DONTWAIT);

			if (got < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (got != (ssize_t)sizeof(a) || a.seq != f->seq) {
				answered += died(w, reqs, q);
				break;
			}
			reqs[f->req].ret = a.ret;
			memcpy(reqs[f->req].id, a.id, sizeof(a.id));
			w->head = (w->head + 1) % WINDOW;
			w->count--;
			answered++;
		}
	}
	return answered;
}

static bool any_in_flight(void)
{
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && pool[i].count)
			return true;
	return false;
}

void prec_buildid_workers__resolve(struct prec_buildid_req *reqs, size_t nr)
{
	prec_buildid_workers__resolve_within(reqs, nr, RESOLVE_TOTAL_MS);
}

void prec_buildid_workers__resolve_within(struct prec_buildid_req *reqs, size_t nr,
					  unsigned int total_ms)
{
	uint64_t start = mono_ms(), end = start + total_ms, progress = start;
	struct queue q = { .nr = nr, .count = nr };
	size_t done = 0;
	int enlisted = 0, err = 0;

	if (!nr)
		return;
	q.idx = malloc(nr * sizeof(*q.idx));
	for (size_t i = 0; i < nr; i++) {
		reqs[i].ret = q.idx ? -ETIMEDOUT : -ENOMEM;
		if (q.idx)
			q.idx[i] = i;
	}
	if (!q.idx)
		return;
	pthread_mutex_lock(&pool_lock);
	reap_left();
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		pool[i].used = pool[i].stalled = false;
	for (;;) {
		uint64_t now, until;
		size_t got;

		done += hand_out(reqs, &q);
		now = mono_ms();
		if (done == nr || now >= end)
			break;
		until = progress + RESOLVE_STALL_MS;
		if (!enlisted || now >= until || !any_in_flight()) {
			/* the first worker; or stuck (or every worker of this
			 * call gone): the files nobody started go to another,
			 * and with none left to start the stuck ones are
			 * given up */
			for (int i = 0; enlisted && i < RESOLVE_WORKERS; i++)
				if (pool[i].sock >= 0 && pool[i].count && !pool[i].stalled) {
					pool[i].stalled = true;
					give_back(&pool[i], &q);
				}
			if (enlisted && (!q.count || enlisted == RESOLVE_WORKERS))
				break;
			if (!enlist(&err))
				break;
			enlisted++;
			progress = now;
			continue;
		}
		got = collect(reqs, &q, (unsigned int)((until < end ? until : end) - now));
		if (got) {
			done += got;
			progress = mono_ms();
		}
	}
	if (!enlisted)
		pr_warn("build-ids: starting a worker process: %s", strerror(-err));
	else if (done < nr)
		pr_warn("build-ids: %zu mapped files did not answer within %.1f s: no build-id for them",
			nr - done, (double)(mono_ms() - start) / 1e3);
	/* A worker with files in flight is stuck, or late past the deadline;
	 * one that stalled still holds the files given back (it would read
	 * them, and answer them to the next call): both go. */
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && (pool[i].count || pool[i].stalled))
			drop(&pool[i]);
	if (!enlisted)
		for (size_t i = 0; i < nr; i++)
			if (reqs[i].ret == -ETIMEDOUT)
				reqs[i].ret = err;
	pthread_mutex_unlock(&pool_lock);
	free(q.idx);
}
