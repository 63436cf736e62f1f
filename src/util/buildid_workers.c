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
// it needs no arguments. Every worker is forked by one small process, the
// spawner, itself forked at the recorder's start (before the rings, the
// staging and the drainers exist: prec_buildid_workers__start), which
// hands each new worker's socket and pidfd back over its own socket and
// reaps the workers. A worker forked from the running recorder would map
// every page the recorder had (its staging, hundreds of MiB after a
// stall), and one stuck in a hung read keeps them after the recorder has
// gone. A worker stuck at a call's end is killed and left; while it lives,
// its file's device is taken as hung: its files get -ETIMEDOUT at once,
// not a new worker each call, and at most STUCK_MAX are ever left.
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
#include <sys/syscall.h>
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
/* Killed workers still alive (each in a read of a hung file system) past
 * which no worker is started: the files get -ETIMEDOUT. */
#define STUCK_MAX 8
/* The spawner's wait between two reapings of its workers. */
#define REAP_MS 1000
/* Our wait for the spawner's answer (it forks, nothing more). */
#define SPAWN_MS 5000

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
	int pidfd;             /* the spawner's child: no pid of ours */
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

/* A killed worker not yet seen dead, and the device of the file it was
 * in (0:0: none, it was not in one). */
struct stuck {
	int pidfd;
	uint32_t maj, min;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker pool[RESOLVE_WORKERS] = {
	{ .sock = -1 }, { .sock = -1 }, { .sock = -1 }, { .sock = -1 },
};
static struct stuck left[STUCK_MAX + RESOLVE_WORKERS];
static int nr_left;
static uint32_t last_seq;
static pid_t spawner_pid;
static int spawner_sock = -1;
static pid_t owner; /* the process whose pool this is */

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

/* ---- the spawner's side ---- */

static void reap_workers(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Fork a worker; its socket's end and pidfd to sock (or the error). */
static void spawn_one(int sock)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} ctl = { 0 };
	int32_t err = 0; /* sent with the worker's socket and pidfd, or alone */
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2], fds[2] = { -1, -1 };
	pid_t pid = -1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		err = -errno;
	} else {
		pid = prec_child__fork(PREC_BUILDID_THREAD_NAME, sv[1]);
		if (pid == 0)
			serve(sv[1]);
		close(sv[1]);
		/* before any reaping: the pid is still our child's */
		fds[1] = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
		err = pid < 0 ? (int)pid : fds[1] < 0 ? -errno : 0;
		if (pid > 0 && fds[1] < 0)
			kill(pid, SIGKILL);
		fds[0] = sv[0];
	}
	if (!err) {
		m.msg_control = ctl.buf;
		m.msg_controllen = sizeof(ctl.buf);
		CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), fds, sizeof(fds));
	}
	if (sendmsg(sock, &m, MSG_NOSIGNAL) < 0)
		_exit(0);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* A worker per byte asked; the workers reaped as they end. Ends when told
 * ('q', the recorder's stop) or with its socket (the recorder gone: a
 * child of the recorder may hold a copy of its end, so the stop does not
 * count on that), once it has reaped the workers already dead (the stop
 * killed the idle ones and saw them die first, so their time counts in
 * ours); a worker still in a hung read goes to init. */
static _Noreturn void spawner(int sock)
{
	for (;;) {
		struct pollfd pf = { .fd = sock, .events = POLLIN };
		int r = poll(&pf, 1, REAP_MS);
		char c;

		reap_workers();
		if (r < 0 && errno != EINTR)
			_exit(0);
		if (r <= 0)
			continue;
		if (recv(sock, &c, 1, 0) != 1 || c == 'q')
			break;
		spawn_one(sock);
	}
	reap_workers();
	_exit(0);
}

/* ---- the pool ---- */

static int start_spawner(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = prec_child__fork(PREC_BUILDID_THREAD_NAME, sv[1]);
	if (pid == 0)
		spawner(sv[1]);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return (int)pid;
	}
	spawner_pid = pid;
	spawner_sock = sv[0];
	return 0;
}

/* The spawner's end: told to, it reaps what has died and goes; waited
 * for (it never reads a file, so it cannot hang). */
static void end_spawner(void)
{
	if (spawner_sock < 0)
		return;
	if (send(spawner_sock, "q", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
		kill(spawner_pid, SIGKILL); /* gone already, or its socket full */
	close(spawner_sock);
	spawner_sock = -1;
	while (waitpid(spawner_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* A worker from the spawner into w (the spawner started if there is none,
 * or again if it has gone). */
static int spawn(struct worker *w)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} ctl;
	int32_t born = -EIO;
	struct iovec iov = { .iov_base = &born, .iov_len = sizeof(born) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct pollfd pf;
	struct cmsghdr *c;
	int fds[2] = { -1, -1 }, err;
	size_t nfd = 0;
	ssize_t n;

	for (int attempt = 0;; attempt++) {
		if (spawner_sock < 0 && (err = start_spawner()))
			return err;
		if (send(spawner_sock, "w", 1, MSG_NOSIGNAL) == 1)
			break;
		end_spawner();
		if (attempt)
			return -EIO;
	}
	pf = (struct pollfd){ .fd = spawner_sock, .events = POLLIN };
	if (poll(&pf, 1, SPAWN_MS) != 1) {
		end_spawner();
		return -ETIMEDOUT;
	}
	n = recvmsg(spawner_sock, &m, MSG_CMSG_CLOEXEC);
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), (nfd < 2 ? nfd : 2) * sizeof(int));
	}
	if (n == (ssize_t)sizeof(born) && !born && nfd == 2) {
		*w = (struct worker){ .sock = fds[0], .pidfd = fds[1] };
		return 0;
	}
	for (size_t i = 0; i < nfd && i < 2; i++)
		close(fds[i]);
	if (n <= 0)
		end_spawner();
	return n == (ssize_t)sizeof(born) && born ? born : -EIO;
}

/* The left workers seen dead forgotten (their devices answer again). */
static void reap_left(void)
{
	for (int i = 0; i < nr_left;) {
		struct pollfd pf = { .fd = left[i].pidfd, .events = POLLIN };

		if (poll(&pf, 1, 0) != 0) {
			close(left[i].pidfd);
			left[i] = left[--nr_left];
		} else {
			i++;
		}
	}
}

/* Is the device maj:min that of a file a killed worker is still in? */
static bool hung_device(uint32_t maj, uint32_t min)
{
	for (int i = 0; i < nr_left; i++)
		if (left[i].maj == maj && left[i].min == min && (maj || min))
			return true;
	return false;
}

/* A worker gone, or stuck past its use: killed (it dies when its wait
 * ends, at once if it was not in one) and its slot freed; one in a file
 * (r: its oldest file in flight; NULL: none) is remembered until it is
 * seen dead. */
static void drop(struct worker *w, const struct prec_buildid_req *r)
{
	close(w->sock);
	syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
	if (nr_left < (int)(sizeof(left) / sizeof(left[0])))
		left[nr_left++] = (struct stuck){ .pidfd = w->pidfd, .maj = r ? r->maj : 0,
						  .min = r ? r->min : 0 };
	else
		close(w->pidfd);
	*w = (struct worker){ .sock = -1, .pidfd = -1 };
}

/* In a forked child of the pool's owner: the owner's workers and spawner
 * are the owner's (their answers go to whoever reads first), so the
 * child forgets them, closing only its copies, and starts its own. */
static void adopt(void)
{
	if (owner == getpid())
		return;
	if (owner) {
		for (int i = 0; i < RESOLVE_WORKERS; i++)
			if (pool[i].sock >= 0) {
				close(pool[i].sock);
				close(pool[i].pidfd);
				pool[i] = (struct worker){ .sock = -1, .pidfd = -1 };
			}
		for (int i = 0; i < nr_left; i++)
			close(left[i].pidfd);
		nr_left = 0;
		if (spawner_sock >= 0)
			close(spawner_sock);
		spawner_sock = -1;
	}
	owner = getpid();
}

int prec_buildid_workers__start(void)
{
	int err = 0;

	pthread_mutex_lock(&pool_lock);
	adopt();
	if (pool[0].sock < 0)
		err = spawn(&pool[0]);
	pthread_mutex_unlock(&pool_lock);
	return err;
}

void prec_buildid_workers__stop(void)
{
	pthread_mutex_lock(&pool_lock);
	adopt();
	for (int i = 0; i < RESOLVE_WORKERS; i++) {
		struct worker *w = &pool[i];
		struct pollfd pf = { .fd = w->pidfd, .events = POLLIN };

		if (w->sock < 0)
			continue;
		/* idle (a call leaves none with files), waiting in recv:
		 * SIGKILL ends it at once; seen dead before the spawner goes,
		 * so that it reaps it */
		close(w->sock);
		syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
		while (poll(&pf, 1, SPAWN_MS) < 0 && errno == EINTR)
			;
		close(w->pidfd);
		*w = (struct worker){ .sock = -1, .pidfd = -1 };
	}
	reap_left();
	end_spawner();
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

/* The answers waiting on w's socket, taken without waiting. Returns how
 * many; *bad: the worker answered out of turn or its socket ended. */
static size_t take_answers(struct worker *w, struct prec_buildid_req *reqs, bool *bad)
{
	size_t answered = 0;

	*bad = false;
	while (w->count) {
		struct flight *f = &w->out[w->head];
		struct answer a;
		ssize_t got = recv(w->sock, &a, sizeof(a), MSG_DONTWAIT);

		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (got != (ssize_t)sizeof(a) || a.seq != f->seq) {
			*bad = true;
			break;
		}
		reqs[f->req].ret = a.ret;
		memcpy(reqs[f->req].id, a.id, sizeof(a.id));
		w->head = (w->head + 1) % WINDOW;
		w->count--;
		answered++;
	}
	return answered;
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
	drop(w, NULL);
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
	reap_left();
	if (nr_left >= STUCK_MAX) {
		*err = -EDEADLK;
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
 * -ENAMETOOLONG; on a device a killed worker is still in, -ETIMEDOUT; a
 * worker found gone, what it had answered, and -EIO for its file). */
static size_t hand_out(struct prec_buildid_req *reqs, struct queue *q)
{
	size_t answered = 0;

	for (int k = 0; k < RESOLVE_WORKERS; k++) {
		struct worker *w = &pool[k];

		while (w->sock >= 0 && w->used && !w->stalled && w->count < WINDOW && q->count) {
			size_t i = q->idx[q->head];
			bool bad;
			int err;

			if (reqs[i].path && strlen(reqs[i].path) >= PATH_MAX) {
				reqs[i].ret = -ENAMETOOLONG;
				queue_pop(q);
				answered++;
				continue;
			}
			if (hung_device(reqs[i].maj, reqs[i].min)) {
				reqs[i].ret = -ETIMEDOUT;
				queue_pop(q);
				answered++;
				continue;
			}
			err = ask(w, &reqs[i], i);
			if (err == -EAGAIN)
				break;
			if (err) {
				answered += take_answers(w, reqs, &bad);
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
		bool bad;

		if (!pf[i].revents)
			continue;
		answered += take_answers(of[i], reqs, &bad);
		if (bad)
			answered += died(of[i], reqs, q);
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

int prec_buildid_workers__resolve(struct prec_buildid_req *reqs, size_t nr)
{
	return prec_buildid_workers__resolve_within(reqs, nr, RESOLVE_TOTAL_MS);
}

int prec_buildid_workers__resolve_within(struct prec_buildid_req *reqs, size_t nr,
					 unsigned int total_ms)
{
	uint64_t start = mono_ms(), end = start + total_ms, progress = start;
	struct queue q = { .nr = nr, .count = nr };
	size_t done = 0;
	int enlisted = 0, err = 0;

	if (!nr)
		return 0;
	q.idx = malloc(nr * sizeof(*q.idx));
	for (size_t i = 0; i < nr; i++) {
		reqs[i].ret = q.idx ? -ETIMEDOUT : -ENOMEM;
		if (q.idx)
			q.idx[i] = i;
	}
	if (!q.idx)
		return -ENOMEM;
	pthread_mutex_lock(&pool_lock);
	adopt();
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
		if (enlisted && now >= until) {
			/* an answer that came as the wait ended counts: its
			 * worker is not stuck */
			got = collect(reqs, &q, 0);
			done += got;
			if (got) {
				progress = mono_ms();
				continue;
			}
		}
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
	if (!enlisted && err == -EDEADLK)
		pr_warn("build-ids: %d worker processes are still in reads of hung file systems: none started, %zu mapped files without a build-id",
			nr_left, nr - done);
	else if (!enlisted && done < nr)
		pr_warn("build-ids: starting a worker process: %s", strerror(-err));
	else if (done < nr)
		pr_warn("build-ids: %zu mapped files did not answer within %.1f s: no build-id for them",
			nr - done, (double)(mono_ms() - start) / 1e3);
	/* A worker with files in flight is stuck, or late past the deadline;
	 * one that stalled still holds the files given back (it would read
	 * them, and answer them to the next call): both go. */
	for (int i = 0; i < RESOLVE_WORKERS; i++)
		if (pool[i].sock >= 0 && (pool[i].count || pool[i].stalled))
			drop(&pool[i], pool[i].count ? &reqs[pool[i].out[pool[i].head].req] : NULL);
	if (!enlisted && done < nr)
		for (size_t i = 0; i < nr; i++)
			if (reqs[i].ret == -ETIMEDOUT)
				reqs[i].ret = err;
	pthread_mutex_unlock(&pool_lock);
	free(q.idx);
	return enlisted || done == nr ? 0 : err;
}
