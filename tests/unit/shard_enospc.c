// SPDX-License-Identifier: MIT
// Shard writer on a full file system (a 1 MiB tmpfs): the writer reports
// -ENOSPC, every later call fails the same way, and the file reads back
// valid, holding every chunk reported done and ending at a chunk boundary.
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_CHUNKS 4096

static unsigned char *pay[MAX_CHUNKS];
static uint32_t len[MAX_CHUNKS];

static void fill(uint64_t *rng, int i)
{
	len[i] = (uint32_t)(test_rand(rng) % (PREC_CHUNK_MAX_PAYLOAD + 1));
	if (i % 5 == 0)
		len[i] = (uint32_t)(test_rand(rng) % 300);
	pay[i] = malloc(len[i] ? len[i] : 1);
	CHECK(pay[i]);
	for (uint32_t k = 0; k < len[i]; k++)
		pay[i][k] = (unsigned char)test_rand(rng);
}

/* Append until the writer fails. Returns the chunk count appended; *done
 * is the highest ticket done() ever reported. */
static int fill_up(struct prec_shard_writer *w, uint64_t *rng, int64_t *done)
{
	int n = 0;

	*done = 0;
	for (;;) {
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = (uint32_t)n };
		struct iovec v[2];
		int64_t t, d;
		uint32_t cut;

		CHECK(n < MAX_CHUNKS);
		fill(rng, n);
		cut = len[n] ? (uint32_t)(test_rand(rng) % len[n]) : 0;
		v[0].iov_base = pay[n];
		v[0].iov_len = cut;
		v[1].iov_base = pay[n] + cut;
		v[1].iov_len = len[n] - cut;
		t = prec_shard_writer__append(w, &m, v, 2);
		d = prec_shard_writer__done(w);
		if (d > *done)
			*done = d;
		if (t < 0) {
			CHECK_EQ(t, -ENOSPC);
			return n;
		}
		CHECK_EQ(t, n + 1);
		n++;
	}
}

static void run(const char *mnt, int copy, uint64_t *rng)
{
	struct prec_shard_writer_opts o = { .cpu = 1, .copy = copy, .queue_depth = 8,
					    .batch_bytes = 200 * 1024 };
	struct prec_shard_writer *w;
	struct prec_shard_writer_stats st;
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int dirfd = open(mnt, O_DIRECTORY | O_RDONLY);
	int64_t done;
	int n, got = 0, res;
	struct prec_chunk_meta m = { .type = PREC_CHUNK_MARKER };

	CHECK(dirfd >= 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "cpu001.shard", &o), 0);
	n = fill_up(w, rng, &done);
	/* The error sticks. */
	CHECK_EQ(prec_shard_writer__error(w), -ENOSPC);
	CHECK_EQ(prec_shard_writer__append(w, &m, NULL, 0), -ENOSPC);
	CHECK_EQ(prec_shard_writer__flush(w), -ENOSPC);
	CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 1000), -ENOSPC);
	prec_shard_writer__stats(w, &st);
	CHECK_EQ(prec_shard_writer__close(w), -ENOSPC);
	if (!copy)
		CHECK((uint64_t)done <= st.chunks);
	printf("%s: appended %d, done %lld, in file %llu chunks, %llu bytes\n",
	       copy ? "copy" : "zero-copy", n, (long long)done,
	       (unsigned long long)st.chunks, (unsigned long long)st.file_bytes);
	CHECK(st.chunks > 0 && st.chunks <= (uint64_t)n);

	CHECK_EQ(prec_shard_reader__open(&r, dirfd, "cpu001.shard"), 0);
	while ((res = prec_shard_reader__next(r, &c)) == 1) {
		CHECK_EQ(c.len, len[got]);
		CHECK(memcmp(c.payload, pay[got], len[got]) == 0);
		got++;
	}
	if (res)
		fprintf(stderr, "reader: %s at 0x%llx\n", prec_shard_reader__why(r),
			(unsigned long long)prec_shard_reader__offset(r));
	/* The writer cut the file back to its last whole chunk. */
	CHECK_EQ(res, 0);
	CHECK_EQ(got, st.chunks);
	CHECK_EQ(prec_shard_reader__offset(r), st.file_bytes);
	prec_shard_reader__close(r);
	for (int i = 0; i <= n; i++)
		free(pay[i]);
	unlinkat(dirfd, "cpu001.shard", 0);
	close(dirfd);
}

static char *mnt_dir;

/* CHECK exits on failure: never leave the tmpfs mounted behind. */
static void unmount_at_exit(void)
{
	if (umount2(mnt_dir, 0) < 0)
		umount2(mnt_dir, MNT_DETACH);
	test_rmdir(mnt_dir);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint64_t rng = test_seed();
	char *dir = test_tmpdir("shard-enospc");

	if (mount("tmpfs", dir, "tmpfs", 0, "size=1m") < 0) {
		perror("mount tmpfs");
		test_rmdir(dir);
		printf("skip: cannot mount a tmpfs (needs root)\n");
		return TEST_SKIP;
	}
	mnt_dir = dir;
	atexit(unmount_at_exit);
	run(dir, 0, &rng);
	run(dir, 1, &rng);
	printf("ok\n");
	return 0;
}
