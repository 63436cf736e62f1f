// SPDX-License-Identifier: MIT
// The merge output writer: every byte put() in order, at the file position
// as write() would leave it, with an async write in flight while the next
// buffer fills; a short write finished, and errors sticky and reported at
// the next put() or at wait().
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/test.h"
#include "read/internal.h"

#define BUF (64u * 1024u)

/* Fill the writer's buffers with a seeded byte stream of total bytes in
 * pieces of random length (1..BUF), checking that the two buffers take
 * turns under async. Returns put()'s first error. */
static int stream(struct prec_out_writer *w, uint64_t seed, size_t total)
{
	bool async = prec_out_writer__async(w);

	uint64_t st = seed, pat = seed;
	uint8_t *buf = prec_out_writer__first(w), *prev = NULL;
	size_t done = 0;

	while (done < total) {
		size_t n = (size_t)(test_rand(&st) % BUF) + 1;
		int r;

		if (n > total - done)
			n = total - done;
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)test_rand(&pat);
		prev = buf;
		r = prec_out_writer__put(w, &buf, n);
		if (r)
			return r;
		CHECK(async ? buf != prev : buf == prev);
		done += n;
	}
	return 0;
}

static void check_file(const char *path, uint64_t seed, size_t total)
{
	uint64_t pat = seed;
	size_t len;
	uint8_t *got = test_load(path, &len);

	CHECK_EQ(len, total);
	for (size_t i = 0; i < len; i++)
		if (got[i] != (uint8_t)test_rand(&pat)) {
			fprintf(stderr, "%s: byte %zu of %zu differs\n", path, i, total);
			CHECK(0);
		}
	free(got);
}

/* Everything arrives, in order, and the file position is where write()
 * would have left it (the perf.data writer's last pwrite() relies on
 * neither, but a caller of write() after it would). */
static void round_trip(const char *dir, bool async, uint64_t seed)
{
	char path[512];
	struct prec_out_writer *w;
	size_t total = 3u * 1024 * 1024 + 12345;
	int fd;

	snprintf(path, sizeof(path), "%s/out%d", dir, async);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_out_writer__new(&w, fd, BUF, async), 0);
	/* io_uring works on the machines this runs on; a writer that fell
	 * back to write() would not test what it should */
	CHECK_EQ(prec_out_writer__async(w), async);
	CHECK_EQ(stream(w, seed, total), 0);
	CHECK_EQ(prec_out_writer__wait(w), 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), (off_t)total);
	prec_out_writer__delete(w);
	close(fd);
	check_file(path, seed, total);
}

/* A write the fd refuses comes back from the put() after it, or wait(),
 * and stays. */
static void refused(const char *dir, bool async)
{
	char path[512];
	struct prec_out_writer *w;
	uint8_t *buf;
	int fd, r;

	snprintf(path, sizeof(path), "%s/ro", dir);
	fd = open(path, O_CREAT | O_RDONLY, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_out_writer__new(&w, fd, BUF, async), 0);
	buf = prec_out_writer__first(w);
	memset(buf, 1, 100);
	r = prec_out_writer__put(w, &buf, 100);
	if (!r)
		r = prec_out_writer__wait(w);
	CHECK_EQ(r, -EBADF);
	CHECK_EQ(prec_out_writer__put(w, &buf, 100), -EBADF);
	CHECK_EQ(prec_out_writer__wait(w), -EBADF);
	prec_out_writer__delete(w);
	close(fd);
}

/* RLIMIT_FSIZE in the middle of a write: the write in flight is cut short
 * at the limit, the rest is tried with write(), which fails with EFBIG; the
 * file holds exactly the bytes up to the limit. */
static void cut_short(const char *dir, bool async, uint64_t seed)
{
	char path[512];
	struct prec_out_writer *w;
	struct rlimit old, lim;
	size_t limit = 5u * BUF / 2;
	int fd, r;

	snprintf(path, sizeof(path), "%s/fsize%d", dir, async);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = limit;
	signal(SIGXFSZ, SIG_IGN);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	CHECK_EQ(prec_out_writer__new(&w, fd, BUF, async), 0);
	r = stream(w, seed, 4u * 1024 * 1024);
	if (!r)
		r = prec_out_writer__wait(w);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK_EQ(r, -EFBIG);
	prec_out_writer__delete(w);
	close(fd);
	check_file(path, seed, limit);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint64_t seed = test_seed();
	char *dir = test_tmpdir("out_writer");

	for (int async = 0; async <= 1; async++) {
		round_trip(dir, async, seed);
		refused(dir, async);
		cut_short(dir, async, seed);
	}
	test_rmdir(dir);
	free(dir);
	return 0;
}
