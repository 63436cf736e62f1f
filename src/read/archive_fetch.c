// SPDX-License-Identifier: MIT
// One file of prec archive, fetched by a child process through a pipe: the
// child opens, checks and reads; the archive waits for each answer with a
// deadline and kills a child that went quiet (a FUSE or NFS read that never
// returns waits killably), so one file cannot hold the archive for ever.
// The protocol: the head, its extents, the bytes (the extents' in order, or
// the whole file), one byte saying whether the file changed meanwhile.
#include "read/archive_fetch.h"
#include "util/buildid.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64u << 10)

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* In the child: len bytes of fd from off into the pipe. Returns 0, 1 (the
 * file ended first) or -1 (the pipe broke: the archive is gone). */
static int stream(int fd, int out, uint64_t off, uint64_t len, char *buf)
{
	for (uint64_t end = off + len; off < end;) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		if (prec_file__write_all(out, buf, (size_t)n))
			return -1;
		off += (uint64_t)n;
	}
	return 0;
}

/* The child's whole life: never returns. */
static void child(struct prec_fetch *f, prec_fetch_open_fn open_fn, void *ctx,
		  const uint8_t *id, uint8_t id_len, int out)
{
	static char buf[CHUNK];
	struct stat st, now;
	uint8_t got[20];
	uint8_t changed = 0;
	int fd = open_fn(ctx, &st), r = 0;

	memset(&f->head, 0, sizeof(f->head));
	if (fd >= 0 && prec_buildid__read_fd(fd, got) == (int)id_len && id_len &&
	    !memcmp(got, id, id_len)) {
		f->head = (struct prec_fetch_head){
			.found = 1, .size = (uint64_t)st.st_size, .mode = st.st_mode & 0755,
			.mtime = st.st_mtime,
			.nr = prec_tar_writer__extents(fd, (uint64_t)st.st_size, f->x),
		};
	}
	if (prec_file__write_all(out, &f->head, sizeof(f->head)) ||
	    prec_file__write_all(out, f->x, f->head.nr * sizeof(f->x[0])))
		_exit(1);
	if (!f->head.found)
		_exit(0);
	if (!f->head.nr)
		r = stream(fd, out, 0, f->head.size, buf);
	for (uint32_t i = 0; i < f->head.nr && !r; i++)
		r = stream(fd, out, f->x[i].off, f->x[i].len, buf);
	if (r < 0)
		_exit(1);
	changed = r || fstat(fd, &now) < 0 || !same_stat(&st, &now);
	/* a file that ended early stops the stream short: no byte after */
	if (!r)
		(void)prec_file__write_all(out, &changed, 1);
	_exit(0);
}

/* Exactly len bytes from the pipe, each wait at most the stall deadline.
 * Returns the bytes read (less at its end), or -ETIMEDOUT, -errno. */
static ssize_t read_full(struct prec_fetch *f, void *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
		int pr = poll(&pfd, 1, (int)PREC_FETCH_STALL_MS);
		ssize_t n;

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr < 0 ? -errno : -ETIMEDOUT;
		n = read(f->fd, (char *)p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int prec_fetch__open(struct prec_fetch *f, prec_fetch_open_fn open_fn, void *ctx,
		     const uint8_t *id, uint8_t id_len, int close_fd)
{
	int p[2];
	ssize_t n;

	f->pid = -1;
	f->fd = -1;
	f->dead = false;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	f->pid = fork();
	if (f->pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (f->pid == 0) {
		close(p[0]);
		if (close_fd >= 0)
			close(close_fd);
		child(f, open_fn, ctx, id, id_len, p[1]);
	}
	close(p[1]);
	f->fd = p[0];
	n = read_full(f, &f->head, sizeof(f->head));
	if (n == (ssize_t)sizeof(f->head) && f->head.nr > PREC_TAR_EXTENTS_MAX + 1)
		n = -EBADMSG;
	if (n == (ssize_t)sizeof(f->head) && f->head.nr)
		n = read_full(f, f->x, f->head.nr * sizeof(f->x[0])) ==
				    (ssize_t)(f->head.nr * sizeof(f->x[0])) ? n : -EBADMSG;
	if (n == (ssize_t)sizeof(f->head))
		return 0;
	f->dead = true;
	return n < 0 ? (int)n : -EBADMSG;
}

ssize_t prec_fetch__read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct prec_fetch *f = ctx;
	ssize_t n;

	(void)off; /* the child sends the bytes in the order the tar asks */
	if (f->dead)
		return 0;
	n = read_full(f, buf, len);
	if (n <= 0)
		f->dead = true;
	return n < 0 ? 0 : n;
}

int prec_fetch__changed(struct prec_fetch *f)
{
	uint8_t changed = 1;

	if (f->dead || read_full(f, &changed, 1) != 1)
		return 1;
	return changed != 0;
}

void prec_fetch__close(struct prec_fetch *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->pid <= 0)
		return;
	if (f->dead)
		kill(f->pid, SIGKILL);
	/* a killed child ends at once, unless what it waits on does not
	 * even take SIGKILL: then it is left (reaped at our exit) */
	for (int i = 0; i < 100; i++) {
		struct timespec ms = { 0, 1000000 };

		if (waitpid(f->pid, NULL, WNOHANG) != 0)
			break;
		if (!f->dead && i == 50)
			kill(f->pid, SIGKILL);
		nanosleep(&ms, NULL);
	}
	f->pid = -1;
}
