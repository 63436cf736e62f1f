// SPDX-License-Identifier: MIT
// A format 1.0 DATA chunk over 64 KiB (read in parts by the merge) holding
// one record no kernel writes, in a chunk whose checksum, framing and count
// are right: a perf user record, or a SAMPLE whose size field lies short
// with a perf user record in the bytes it gave up. prec merge, prec dump and
// the merge iterator refuse the chunk as info --check does, with the same
// reason, and hand out none of its records, wherever in the chunk the bad
// record sits; the same chunk without it goes through all of them.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/internal.h"
#include "read/read.h"
#include "store/store.h"

#define NREC 2000u /* 96000 bytes: two parts */
#define T0 1000000000ull
#define SHARD "cpu000.shard"
#define OUT_MAX (1u << 20)

enum bad { GOOD, USER_TYPE, SHORT_SAMPLE };

static uint8_t chunk[64 + PREC_CHUNK_READ_MAX];
static char out[OUT_MAX];

static void put_u16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The chunk's payload at chunk + 64; the bad record at record index at.
 * Returns the payload length, *records their count. */
static uint32_t fill(enum bad bad, uint32_t at, uint32_t *records)
{
	uint8_t *p = chunk + 64;

	for (uint32_t i = 0; i < NREC; i++)
		test_put_sample(p + 48 * i, T0 + i * 1000ull);
	*records = NREC;
	if (bad == USER_TYPE) {
		p[48 * at] = 68; /* PERF_RECORD_FINISHED_ROUND: perf's own */
	} else if (bad == SHORT_SAMPLE) {
		/* 16 bytes by its header, then a 32-byte record of perf's */
		put_u16(p + 48 * at + 6, 16);
		memset(p + 48 * at + 16, 0, 8);
		p[48 * at + 16] = 64; /* PERF_RECORD_HEADER_ATTR */
		put_u16(p + 48 * at + 16 + 6, 32);
		++*records;
	}
	return 48 * NREC;
}

/* dir/manifest (complete, its totals those of the shard) and dir/SHARD with
 * the one big chunk, written by hand: the writer refuses chunks that big. */
static void make(const char *dir, enum bad bad, uint32_t at)
{
	struct prec_shard_writer_opts wo = { .cpu = 0 };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_shard_writer *w;
	struct prec_chunk_header h = { .magic = PREC_CHUNK_MAGIC, .type = PREC_CHUNK_DATA,
				       .header_size = 64 };
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY), fd;
	uint32_t records, len = fill(bad, at, &records);
	struct prec_manifest_shard s = { .name = SHARD, .cpu = 0, .chunks = 1,
		.records = records, .bytes = len, .raw_bytes = len, .first_time = T0,
		.last_time = T0 + (NREC - 1) * 1000ull };

	CHECK(m && dirfd >= 0 && len > PREC_CHUNK_MAX_PAYLOAD);
	m->state = PREC_STATE_COMPLETE;
	test_manifest_add_event(m, 1000);
	CHECK_EQ(prec_manifest__add_shard(m, &s), 0);
	unlinkat(dirfd, PREC_MANIFEST_NAME, 0);
	CHECK_EQ(prec_manifest__write(m, dirfd), 0);
	unlinkat(dirfd, SHARD, 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, SHARD, &wo), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	h.payload_len = h.raw_len = len;
	h.records = records;
	h.first_time = s.first_time;
	h.last_time = h.watermark = s.last_time;
	memcpy(chunk, &h, 64);
	h.checksum = prec_crc32c(prec_crc32c(0, chunk, 64), chunk + 64, len);
	memcpy(chunk, &h, 64);
	fd = openat(dirfd, SHARD, O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, chunk, 64 + len), (ssize_t)(64 + len));
	close(fd);
	prec_manifest__delete(m);
	close(dirfd);
}

/* The reason info --check gives for the chunk ("record at +0x... ): ...",
 * to the line's end), into why; "" when it finds nothing wrong. */
static void info_reason(const char *dir, char *why, size_t len)
{
	char *argv[] = { "info", (char *)dir, "--check", NULL };
	int rc = test_run_captured(prec_cmd_info, 3, argv, true, out, sizeof(out));
	const char *p = strstr(out, "offset 0x40: record at +0x");

	why[0] = '\0';
	if (!p) {
		CHECK(strstr(out, "check: 1 shards, 1 chunks"));
		CHECK(strstr(out, " records: ok\n"));
		CHECK_EQ(rc, 0);
		return;
	}
	CHECK_EQ(rc, 1);
	p += strlen("offset 0x40: ");
	snprintf(why, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/* A command's exit status; its output must name the chunk with the reason
 * info gave (why) when there is one, and hold no SAMPLE line of the chunk. */
static int run(int (*cmd)(int, char **), char **argv, int argc, const char *why)
{
	int rc = test_run_captured(cmd, argc, argv, true, out, sizeof(out));
	char want[160];

	if (why[0]) {
		snprintf(want, sizeof(want), "shard %s: corrupt chunk at offset 0x40: %s\n", SHARD,
			 why);
		if (!strstr(out, want)) {
			fprintf(stderr, "%s: wanted \"%s\" in:\n%.2000s\n", argv[0], want, out);
			CHECK(0);
		}
		CHECK(!strstr(out, "7/7 SAMPLE"));
	}
	return rc;
}

/* Records of the chunk the merge iterator hands out; *errors its count. */
static uint64_t merged(const char *dir, unsigned int *errors)
{
	struct prec_manifest *m = NULL;
	struct prec_merge_rec r;
	struct prec_merge *mg;
	uint64_t n = 0;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);

	CHECK(dirfd >= 0);
	CHECK_EQ(prec_manifest__read(&m, dirfd, NULL), 0);
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	while (prec_merge__next(mg, &r) > 0)
		n++;
	*errors = prec_merge__errors(mg);
	prec_merge__close(mg);
	prec_manifest__delete(m);
	close(dirfd);
	return n;
}

static void one(const char *dir, enum bad bad, uint32_t at, const char *reason)
{
	char why[128], perf[4096];
	char *dump[] = { "dump", (char *)dir, NULL };
	char *merge[] = { "merge", (char *)dir, "-o", perf, "-f", NULL };
	unsigned int errors;
	uint64_t n;
	int rc;

	printf("  %s at record %u\n", bad == GOOD ? "no bad record" :
	       bad == USER_TYPE ? "perf's own record type" : "SAMPLE whose size lies", at);
	snprintf(perf, sizeof(perf), "%s.perf.data", dir);
	make(dir, bad, at);
	info_reason(dir, why, sizeof(why));
	CHECK_EQ(!why[0], bad == GOOD);
	if (bad != GOOD && !strstr(why, reason)) {
		fprintf(stderr, "info --check says \"%s\", not \"%s\"\n", why, reason);
		CHECK(0);
	}
	rc = run(prec_cmd_dump, dump, 2, why);
	CHECK_EQ(rc, bad == GOOD ? 0 : 1);
	rc = run(prec_cmd_merge, merge, 5, why);
	CHECK_EQ(rc != 0, bad != GOOD);
	n = merged(dir, &errors);
	CHECK_EQ(n, bad == GOOD ? NREC : 0);
	CHECK_EQ(errors, bad == GOOD ? 0 : 1);
	unlink(perf);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *tmp = test_tmpdir("shard_oldformat");

	one(tmp, GOOD, 0, NULL);
	one(tmp, USER_TYPE, 10, "(size 48): not a kernel record type");
	one(tmp, USER_TYPE, 1500, "(size 48): not a kernel record type"); /* second part */
	one(tmp, SHORT_SAMPLE, 1999, "(size 16): SAMPLE too short for its fields");
	test_rmdir(tmp);
	free(tmp);
	printf("ok\n");
	return 0;
}
