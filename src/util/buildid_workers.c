// SPDX-License-Identifier: MIT
// Mapped files' build-ids read by a small pool of child processes, each
// asked one file at a time over its own socket and waited for with a
// deadline.
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

struct worker {
	pid_t pid;
	int sock;              /* -1: no worker in this slot */
	bool busy;             /* asked, not answered */
	bool used;             /* given files in this call */
	uint32_t seq;          /* its request's */
	size_t req;            /* its request's index in this call */
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
		/* idle (a call leaves none busy), waiting in recv: SIGKILL
		 * ends it at once (its socket's end may live on in another
		 * child of ours, one forked and not yet executed) */
		close(w->sock);
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		*w = (struct worker){ .sock = -1 };
	}
	reap_left();
	pthread_mutex_unlock(&pool_lock);
}

/* Ask w for reqs[i]. Returns 0, or -errno (the worker is dropped). */
static int ask(struct worker *w, const struct prec_buildid_req *r, size_t i)
{
	uint8_t buf[sizeof(struct ask_head) + PATH_MAX];
	struct ask_head h = { .seq = ++last_seq, .pid = r->pid, .maj = r->maj, .min = r->min,
			      .ino = r->ino, .map_start = r->map_start, .map_end = r->map_end,
			      .has_path = r->path != NULL };
	size_t len = r->path ? strlen(r->path) : 0;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), r->path ? r->path : "", len);
	if (send(w->sock, buf, sizeof(h) + len, MSG_NOSIGNAL) != (ssize_t)(sizeof(h) + len)) {
		int err = -errno;

		drop(w);
		return err ? err : -EIO;
	}
	w->busy = true;
	w->seq = h.seq;
	w->req = i;
	return 0;
}

/* A worker for this call: an idle one not yet used, or a new one. */
static struct worker *enlist(int *err)
{
	struct worker *free_slot = NULL;

	for (int i = 0; i < RESOLVE_WORKERS; i++) {
		if (pool[i].sock >= 0 && !pool[i].busy && !pool[i].used) {
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

/* Each answer waiting on a busy worker's socket, within ms. Returns how
 * many requests were answered. */
static size_t collect(struct prec_buildid_req *reqs, unsigned int ms)
{
	struct pollfd pf[RESOLVE_WORKERS];
	struct worker *of[RESOLVE_WORKERS];
	size_t answered = 0;
	int n = 0;

	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && pool[i].busy) {
			pf[n] = (struct pollfd){ .fd = pool[i].sock, .events = POLLIN };
			of[n++] = &pool[i];
		}
	if (!n || poll(pf, (nfds_t)n, (int)ms) <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct worker *w = of[i];
		struct answer a;
		ssize_t got;

		if (!pf[i].revents)
			continue;
		got = recv(w->sock, &a, sizeof(a), MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got != (ssize_t)sizeof(a)) {
			/* the worker died in this file (a fault in the
			 * parser, an OOM kill): read, and not answered */
			reqs[w->req].ret = -EIO;
			answered++;
			drop(w);
			continue;
		}
		if (a.seq != w->seq)
			continue; /* a late answer to a request given up */
		w->busy = false;
		reqs[w->req].ret = a.ret;
		memcpy(reqs[w->req].id, a.id, sizeof(a.id));
		answered++;
	}
	return answered;
}

void prec_buildid_workers__resolve(struct prec_buildid_req *reqs, size_t nr)
{
	prec_buildid_workers__resolve_within(reqs, nr, RESOLVE_TOTAL_MS);
}

/* Each idle worker of this call takes the next file. Returns the files
 * answered here (paths too long to send, answered -ENAMETOOLONG). */
static size_t hand_out(struct prec_buildid_req *reqs, size_t nr, size_t *next)
{
	size_t answered = 0;

	for (int i = 0; i < RESOLVE_WORKERS && *next < nr; i++) {
		struct worker *w = &pool[i];

		while (*next < nr && reqs[*next].path && strlen(reqs[*next].path) >= PATH_MAX) {
			reqs[(*next)++].ret = -ENAMETOOLONG;
			answered++;
		}
		if (*next == nr || w->sock < 0 || w->busy || !w->used)
			continue;
		if (!ask(w, &reqs[*next], *next))
			(*next)++;
	}
	return answered;
}

static bool any_busy(void)
{
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && pool[i].busy)
			return true;
	return false;
}

void prec_buildid_workers__resolve_within(struct prec_buildid_req *reqs, size_t nr,
					  unsigned int total_ms)
{
	uint64_t start = mono_ms(), end = start + total_ms, progress = start;
	size_t next = 0, done = 0;
	int enlisted = 0, err = 0;

	if (!nr)
		return;
	for (size_t i = 0; i < nr; i++)
		reqs[i].ret = -ETIMEDOUT;
	pthread_mutex_lock(&pool_lock);
	reap_left();
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		pool[i].used = false;
	for (;;) {
		uint64_t now, until;
		size_t got;

		done += hand_out(reqs, nr, &next);
		now = mono_ms();
		if (done == nr || now >= end)
			break;
		until = progress + RESOLVE_STALL_MS;
		if (!enlisted || now >= until || !any_busy()) {
			/* the first worker; or stuck (or every worker of this
			 * call gone): the files nobody took go to another, and
			 * with none left to take the stuck ones are given up */
			if (enlisted && (next == nr || enlisted == RESOLVE_WORKERS))
				break;
			if (!enlist(&err))
				break;
			enlisted++;
			progress = now;
			continue;
		}
		got = collect(reqs, (unsigned int)((until < end ? until : end) - now));
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
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && pool[i].busy)
			drop(&pool[i]);
	if (!enlisted)
		for (size_t i = 0; i < nr; i++)
			if (reqs[i].ret == -ETIMEDOUT)
				reqs[i].ret = err;
	pthread_mutex_unlock(&pool_lock);
}
