// SPDX-License-Identifier: MIT
// The disk budget (--max-disk): two shard writers share a budget many times
// smaller than what they append (buffered and O_DIRECT); the count never
// passes it by more than a chunk, the files' blocks stay under it plus the
// slack, the oldest segments go first from the shard whose next segment is
// oldest, and the trimmed shards read back from their first kept chunk with
// consecutive seqs and the writers' kept totals; O_DIRECT shards are written
// in segment files, of which the oldest are gone (unlinked, the shard's own
// file cut back to its header) and the pre-opened next one is not left
// behind; a header whose first chunk lies inside it is refused; the
// manifest's MAX_DISK section round-trips. What waits in staging while the
// writes stall is counted but not dropped for by the appending thread.
#include "store/budget_member.h"
#include "store/store.h"
#include "../lib/test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LIMIT (4u * 1024u * 1024u)
#define PAYLOAD (32u * 1024u)
#define CHUNKS 800

static unsigned char payload[PAYLOAD];

static uint64_t blocks(int dirfd, const char *name)
{
	struct stat st;

	CHECK(fstatat(dirfd, name, &st, 0) == 0);
	return (uint64_t)st.st_blocks * 512;
}

/* The blocks of every file in the directory, and of name's segment files
 * ("name.N") the count and the lowest and highest N. */
static uint64_t dir_blocks(int dirfd, const char *name, uint32_t *nseg, uint32_t *lo,
			   uint32_t *hi)
{
	DIR *d = fdopendir(openat(dirfd, ".", O_RDONLY | O_DIRECTORY));
	size_t nlen = strlen(name);
	struct dirent *e;
	uint64_t sum = 0;

	CHECK(d);
	*nseg = *lo = *hi = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		sum += blocks(dirfd, e->d_name);
		if (!strncmp(e->d_name, name, nlen) && e->d_name[nlen] == '.') {
			uint32_t n = (uint32_t)strtoul(e->d_name + nlen + 1, NULL, 10);

			(*nseg)++;
			if (!*lo || n < *lo)
				*lo = n;
			if (n > *hi)
				*hi = n;
		}
	}
	closedir(d);
	return sum;
}

struct shard_read {
	uint64_t chunks, first_time, last_time;
	uint32_t first_seq;
	uint64_t first_chunk;
};

static void read_back(int dirfd, const char *name, struct shard_read *out)
{
	struct prec_shard_reader *r;
	const struct prec_shard_header *h;
	struct prec_chunk c;
	uint32_t seq = 0;
	int n;

	memset(out, 0, sizeof(*out));
	CHECK_EQ(prec_shard_reader__open(&r, dirfd, name), 0);
	h = prec_shard_reader__header(r);
	out->first_seq = h->first_seq;
	out->first_chunk = h->first_chunk;
	seq = h->first_seq;
	while ((n = prec_shard_reader__next(r, &c)) > 0) {
		CHECK_EQ(c.hdr.seq, seq);
		seq++;
		if (!out->chunks)
			CHECK_EQ(c.offset, h->flags & PREC_SHARD_TRIMMED ? h->first_chunk : 64);
		CHECK_EQ(c.len, PAYLOAD);
		CHECK(!memcmp(c.payload, payload, PAYLOAD));
		if (!out->first_time || c.hdr.first_time < out->first_time)
			out->first_time = c.hdr.first_time;
		if (c.hdr.last_time > out->last_time)
			out->last_time = c.hdr.last_time;
		out->chunks++;
	}
	CHECK_EQ(n, 0);
	prec_shard_reader__close(r);
}

static void run(bool direct)
{
	char *dir = test_tmpdir("budget");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	struct prec_disk_budget *b;
	struct prec_disk_budget_stats bs;
	struct prec_shard_writer *w[2];
	struct prec_shard_writer_stats ws[2];
	struct shard_read rd[2];
	const char *names[2] = { "cpu000.shard", "cpu001.shard" };
	uint64_t appended[2] = { 0, 0 };
	int fifo;

	CHECK(dirfd >= 0);
	CHECK_EQ(prec_disk_budget__new(&b, LIMIT, 2), 0);
	/* The trimmer SCHED_FIFO, as prec record runs it as root: the bounds
	 * below hold while it keeps up with the appends (it opens each next
	 * segment file, without which a segment grows and no drop can make
	 * room), which a loaded machine does not let a SCHED_OTHER thread do
	 * against this loop (4.5 MiB on disk for 4, stuck, in 44 of 200 runs
	 * four at a time). Without the right (not root) it runs as it is. */
	fifo = prec_disk_budget__fifo(b, 1);
	CHECK(fifo == 0 || fifo == -EPERM);
	for (int i = 0; i < 2; i++) {
		struct prec_shard_writer_opts o = { .cpu = i, .copy = true, .direct = direct,
						    .staging_bytes = 1024 * 1024, .budget = b };

		CHECK_EQ(prec_shard_writer__open(&w[i], dirfd, names[i], &o), 0);
	}
	/* cpu0 writes 3 chunks for each of cpu1's, at the same times: cpu1's
	 * segments span three times as long, so its next segment is older
	 * and it loses its oldest first as often as its share allows. */
	for (int k = 0; k < CHUNKS; k++) {
		int i = k % 4 == 3;
		uint64_t t = 1000000ull * (uint64_t)(k + 1);
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = 1,
					     .first_time = t, .last_time = t + 10, .watermark = t };
		struct iovec v = { .iov_base = payload, .iov_len = PAYLOAD };

		CHECK(prec_shard_writer__append(w[i], &m, &v, 1) > 0);
		appended[i]++;
		prec_disk_budget__stats(b, &bs);
		/* on disk; what staging holds is counted, not dropped for */
		CHECK(bs.used - bs.staged <= LIMIT + PAYLOAD + PREC_CHUNK_HDR_SIZE);
		CHECK(bs.staged <= 2 * 1024 * 1024);
	}
	/* as prec record's stop: no drop after the totals are taken, none
	 * while the shards are read back */
	prec_disk_budget__stop(b);
	/* a flush may drop (any shard's oldest) to bring what it wrote from
	 * staging within the budget: every flush before any total */
	for (int i = 0; i < 2; i++)
		CHECK_EQ(prec_shard_writer__flush(w[i]), 0);
	for (int i = 0; i < 2; i++)
		prec_shard_writer__stats(w[i], &ws[i]);
	prec_disk_budget__stats(b, &bs);
	CHECK_EQ(bs.limit, LIMIT);
	CHECK_EQ(bs.segment, PREC_DISK_SEGMENT_MIN);
	CHECK(bs.segments > 0);
	CHECK(bs.stuck == 0);
	CHECK(bs.used <= LIMIT);
	/* the blocks: the budget, plus 8 KiB per shard (or per segment file:
	 * its last block padded) and the extent tree */
	{
		uint32_t nseg[2], lo[2], hi[2];
		uint64_t sum = dir_blocks(dirfd, names[0], &nseg[0], &lo[0], &hi[0]);

		dir_blocks(dirfd, names[1], &nseg[1], &lo[1], &hi[1]);
		CHECK(sum <= LIMIT + 2 * 8192 + (nseg[0] + nseg[1]) * 4096 + 16384);
		for (int i = 0; i < 2; i++) {
			/* segment files with O_DIRECT, the oldest gone, the
			 * one opened ahead (never written) gone at the close */
			CHECK_EQ(nseg[i] > 0, direct);
			if (!direct)
				continue;
			CHECK(lo[i] > 1);
			CHECK_EQ(hi[i] - lo[i] + 1, nseg[i]);
			CHECK(nseg[i] <= 2 * (LIMIT / PREC_DISK_SEGMENT_MIN));
		}
	}
	for (int i = 0; i < 2; i++) {
		read_back(dirfd, names[i], &rd[i]);
		CHECK_EQ(rd[i].chunks, ws[i].chunks);
		CHECK_EQ(rd[i].first_time, ws[i].first_time);
		CHECK_EQ(rd[i].last_time, ws[i].last_time);
		CHECK_EQ(rd[i].first_seq, appended[i] - rd[i].chunks);
		CHECK(rd[i].first_seq > 0); /* both lost their oldest */
		/* before the first chunk kept: holes, but the header's block;
		 * with segment files, the shard's own file is its header */
		{
			int fd = openat(dirfd, names[i], O_RDONLY);
			off_t d = lseek(fd, 4096, SEEK_DATA);

			if (direct)
				CHECK_EQ(lseek(fd, 0, SEEK_END), 64);
			else
				CHECK(d >= (off_t)(rd[i].first_chunk & ~4095ull));
			close(fd);
		}
	}
	CHECK_EQ(bs.chunks, appended[0] + appended[1] - rd[0].chunks - rd[1].chunks);
	CHECK_EQ(bs.records, bs.chunks);
	CHECK_EQ(bs.first_time, 1000000ull);
	/* what was dropped ends before what is kept, on both */
	CHECK(bs.last_time < rd[0].first_time || bs.last_time < rd[1].first_time);
	CHECK_EQ(bs.window, rd[0].first_time > rd[1].first_time ? rd[0].first_time : rd[1].first_time);
	/* oldest first: the kept spans start within a segment and a staging
	 * (what may not be whole on disk yet, so not droppable) of cpu1's of
	 * each other, its chunks 4 ms apart; a segment file may grow to two
	 * segments when the trimmer is late opening the next */
	{
		uint64_t a = rd[0].first_time, c = rd[1].first_time, d = a > c ? a - c : c - a;
		uint64_t seg = direct ? 2 * PREC_DISK_SEGMENT_MIN : PREC_DISK_SEGMENT_MIN;

		CHECK(d <= 4 * ((seg + 1024 * 1024) / PAYLOAD + 2) * 1000000ull);
	}
	for (int i = 0; i < 2; i++)
		CHECK_EQ(prec_shard_writer__close(w[i]), 0);
	/* closed: the file opened ahead and never written is gone */
	for (int i = 0; direct && i < 2; i++) {
		uint32_t nseg, lo, hi;
		char last[64];
		struct stat st;

		dir_blocks(dirfd, names[i], &nseg, &lo, &hi);
		snprintf(last, sizeof(last), "%s.%u", names[i], hi);
		CHECK(fstatat(dirfd, last, &st, 0) == 0 && st.st_size > 0);
	}
	prec_disk_budget__delete(b);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
}

/* A trimmed header whose first chunk would be inside it: refused. */
static void bad_first_chunk(void)
{
	unsigned char buf[64 + 64];
	struct prec_shard_header h = { 0 };
	struct prec_shard_reader *r;

	h.magic = htole64(PREC_SHARD_MAGIC);
	h.version_major = htole16(PREC_FORMAT_MAJOR);
	h.version_minor = htole16(PREC_FORMAT_MINOR);
	h.header_size = htole32(64);
	h.flags = htole32(PREC_SHARD_TRIMMED);
	h.first_chunk = htole64(32);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(prec_shard_reader__open_mem(&r, buf, sizeof(buf), NULL), -EBADMSG);
	/* at the end of the file: a clean, empty shard */
	h.first_chunk = htole64(sizeof(buf));
	h.first_seq = htole32(7);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	memcpy(buf, &h, sizeof(h));
	CHECK_EQ(prec_shard_reader__open_mem(&r, buf, sizeof(buf), NULL), 0);
	{
		struct prec_chunk c;

		CHECK_EQ(prec_shard_reader__next(r, &c), 0);
		CHECK_EQ(prec_shard_reader__header(r)->first_seq, 7);
	}
	prec_shard_reader__close(r);
}

/* m's next chunk of CHUNK bytes at *pos, whole on disk up to durable;
 * returns the ns the append's own drops held it */
#define CHUNK (64u * 1024u)
static uint64_t append_at(struct prec_budget_member *m, uint64_t *pos, uint64_t durable,
			  uint32_t *seq)
{
	uint64_t t = 1000ull * (*seq + 1), held;
	struct prec_budget_chunk c = { .off = *pos, .end = *pos + CHUNK,
		.durable = durable < *pos + CHUNK ? durable : *pos + CHUNK, .seq = (*seq)++,
		.records = 1, .payload = CHUNK - 64, .raw = CHUNK - 64,
		.first_time = t, .last_time = t, .time = t };

	held = prec_disk_budget__append(m, &c);
	*pos += CHUNK;
	return held;
}

/* A stall: the writes wait (durable held) while the appends go on into
 * staging, past the limit. The appending thread (a drainer) drops nothing
 * then: a drop rewrites the header and punches or unlinks, which would
 * wait for the stalled file system while its ring overflows. Once the
 * writes are done, the append that finds the disk past the limit drops
 * down to it. The trimmer thread is stopped: the appends' own drops alone. */
static void staged_not_on_disk(void)
{
	char *dir = test_tmpdir("budget_staged");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	int fd = openat(dirfd, "cpu000.shard", O_RDWR | O_CREAT | O_EXCL, 0600);
	struct prec_shard_header h = { 0 };
	struct prec_disk_budget *b;
	struct prec_budget_member *m;
	struct prec_disk_budget_stats st;
	uint64_t pos = 4096, held;
	uint32_t seq = 0;

	CHECK(dirfd >= 0 && fd >= 0);
	CHECK_EQ(prec_disk_budget__new(&b, LIMIT, 1), 0);
	prec_disk_budget__stop(b);
	CHECK_EQ(prec_disk_budget__join(b, &m, fd, &h, 0, dirfd, "cpu000.shard"), 0);
	/* written as fast as appended, up to the limit */
	while (pos - 4096 + CHUNK <= LIMIT)
		append_at(m, &pos, pos + CHUNK, &seq);
	/* the stall: half the limit again, none of it written */
	held = pos;
	while (pos - held < LIMIT / 2)
		CHECK_EQ(append_at(m, &pos, held, &seq), 0);
	prec_disk_budget__stats(b, &st);
	CHECK(st.used > LIMIT);
	CHECK_EQ(st.segments, 0);
	CHECK_EQ(st.backstops, 0);
	CHECK_EQ(st.stuck, 0);
	/* the writes done: the next append drops the oldest to the limit,
	 * and says how long that held it (the writer's wait, which the loss
	 * warning reads) */
	CHECK(append_at(m, &pos, pos + CHUNK, &seq) > 0);
	prec_disk_budget__stats(b, &st);
	CHECK(st.segments > 0);
	CHECK_EQ(st.backstops, 1);
	CHECK(st.used <= LIMIT);
	CHECK(st.used > LIMIT - 2 * st.segment);
	prec_disk_budget__leave(m);
	prec_disk_budget__delete(b);
	close(fd);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
}

static void manifest_section(void)
{
	struct prec_manifest *m = prec_manifest__new(), *d = NULL;
	const char *why = NULL;
	size_t len;
	void *buf;

	CHECK(m);
	test_manifest_add_event(m, 42);
	m->max_disk = (struct prec_manifest_max_disk){ .limit = 1ull << 40, .segment = 1 << 20,
		.segments = 3, .chunks = 40, .records = 5000, .bytes = 3 << 20,
		.first_time = 11, .last_time = 99 };
	CHECK_EQ(prec_manifest__encode(m, &buf, &len), 0);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK(!memcmp(&d->max_disk, &m->max_disk, sizeof(m->max_disk)));
	free(buf);
	prec_manifest__delete(d);
	/* none: no section, zeros back */
	m->max_disk = (struct prec_manifest_max_disk){ 0 };
	CHECK_EQ(prec_manifest__encode(m, &buf, &len), 0);
	CHECK_EQ(prec_manifest__decode(&d, buf, len, &why), 0);
	CHECK_EQ(d->max_disk.limit, 0);
	free(buf);
	prec_manifest__delete(d);
	prec_manifest__delete(m);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	struct prec_disk_budget *b;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)(i * 7 + 3);
	CHECK_EQ(prec_disk_budget__new(&b, 0, 2), -EINVAL);
	CHECK_EQ(prec_disk_budget__new(&b, 1, 0), -EINVAL);
	run(false);
	run(true);
	bad_first_chunk();
	staged_not_on_disk();
	manifest_section();
	printf("disk_budget: ok\n");
	return 0;
}
