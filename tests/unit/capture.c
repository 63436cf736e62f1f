// SPDX-License-Identifier: MIT
// A cut's capture (record/capture.c): only task records stamped since its
// time are taken, a full buffer counts what it drops, and the records of
// several drainers are written back merged by time (ties in capture, then
// ring order), in chunks that never pass the payload limit, each record
// once, read back byte-exact from the shard.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/test.h"
#include "record/capture.h"
#include "store/store.h"

static const struct prec_time_layout layout = { 32, 24 };

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* A record of type with a body of body bytes (tag in its first byte) and
 * the TIME|CPU|IDENTIFIER trailer stamped time; returns its size. */
static uint16_t make(uint8_t *rec, uint32_t type, uint16_t body, uint8_t tag,
		     uint64_t time)
{
	struct perf_event_header h = { type, PERF_RECORD_MISC_USER,
				       (uint16_t)(8 + body + 32) };

	memset(rec, 0, h.size);
	memcpy(rec, &h, sizeof(h));
	rec[8] = tag;
	put64(rec + h.size - 24, time);
	put64(rec + h.size - 8, 7);
	return h.size;
}

static void test_filter(void)
{
	struct prec_capture c;
	uint8_t rec[128];
	uint16_t n;

	/* the wanted types, in kernel order: 8 x 56 bytes, 7 fit in 400 */
	static const uint32_t task[] = {
		PERF_RECORD_MMAP, PERF_RECORD_COMM, PERF_RECORD_FORK, PERF_RECORD_MMAP2,
		PERF_RECORD_NAMESPACES, PERF_RECORD_KSYMBOL, PERF_RECORD_BPF_EVENT,
		PERF_RECORD_CGROUP,
	};
	unsigned int k = 0;

	CHECK_EQ(prec_capture__init(&c, 400, 1000), 0);
	n = make(rec, PERF_RECORD_COMM, 16, 1, 999); /* before its time */
	prec_capture__add(&c, rec, n, 999);
	n = make(rec, PERF_RECORD_LOST, 16, 2, 2000); /* not a task record */
	prec_capture__add(&c, rec, n, 2000);
	n = make(rec, PERF_RECORD_EXIT, 24, 3, 2000);
	prec_capture__add(&c, rec, n, 2000);
	CHECK_EQ(c.len, 0);
	/* every type the kernel numbers up to TEXT_POKE: the task's taken */
	for (uint32_t type = PERF_RECORD_MMAP; type <= PERF_RECORD_TEXT_POKE; type++) {
		n = make(rec, type, 16, (uint8_t)type, 1000);
		prec_capture__add(&c, rec, n, 1000);
	}
	/* 8 x 56 bytes do not fit in 400: the last is dropped, counted. */
	CHECK_EQ(c.records, 7);
	CHECK_EQ(c.len, 7 * 56);
	CHECK_EQ(c.dropped, 1);
	for (uint32_t off = 0; off < c.len; off += 56, k++)
		CHECK_EQ(c.buf[off + 8], task[k]);
	prec_capture__exit(&c);
	/* No room at all (a failed init) drops, never writes. */
	memset(&c, 0, sizeof(c));
	n = make(rec, PERF_RECORD_MMAP2, 16, 1, 1000);
	prec_capture__add(&c, rec, n, 1000);
	CHECK_EQ(c.dropped, 1);
	CHECK_EQ(c.len, 0);
}

/* Three captures of interleaved times, some equal, with big records so the
 * write needs several chunks. */
static void test_write(const char *dir)
{
	enum { CAPS = 3, PER = 300 };
	struct prec_capture c[CAPS], *caps[CAPS + 1];
	struct prec_shard_writer_opts wo = { .cpu = -1 };
	struct prec_shard_writer *w;
	struct prec_shard_reader *r;
	struct prec_chunk ch;
	uint64_t prev = 0, prev_tag = 0, rng = test_seed(), want_len = 0, got_len = 0;
	uint32_t chunks = 0, records = 0;
	uint8_t rec[2048];
	int dfd = open(dir, O_DIRECTORY | O_CLOEXEC), rc;

	CHECK(dfd >= 0);
	for (int i = 0; i < CAPS; i++) {
		uint64_t t = 1000;

		CHECK_EQ(prec_capture__init(&c[i], 1u << 20, 0), 0);
		caps[i] = &c[i];
		for (int k = 0; k < PER; k++) {
			/* tag: capture i, place k; the time goes up in steps
			 * of 0..2 so the captures tie often */
			uint16_t body = (uint16_t)(8 * (2 + test_rand(&rng) % 200));
			uint16_t n = make(rec, PERF_RECORD_MMAP2, body, 0, t);

			put64(rec + 16, (uint64_t)i << 16 | (uint64_t)k);
			prec_capture__add(&c[i], rec, n, t);
			want_len += n;
			t += test_rand(&rng) % 3;
		}
		CHECK_EQ(c[i].dropped, 0);
	}
	caps[CAPS] = NULL; /* an entry with no capture is skipped */
	CHECK_EQ(prec_shard_writer__open(&w, dfd, "sb.shard", &wo), 0);
	CHECK_EQ(prec_capture__write(caps, CAPS + 1, &layout, w), CAPS * PER);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_shard_reader__open(&r, dfd, "sb.shard"), 0);
	while ((rc = prec_shard_reader__next(r, &ch)) == 1) {
		uint64_t lo = 0, hi = 0;
		uint32_t n = 0;

		CHECK_EQ(ch.hdr.type, PREC_CHUNK_DATA);
		CHECK(ch.len <= PREC_CHUNK_MAX_PAYLOAD);
		for (uint32_t off = 0; off < ch.len; n++) {
			struct perf_event_header h;
			uint64_t t, tag;

			memcpy(&h, ch.payload + off, sizeof(h));
			t = prec_time_layout__time(&layout, ch.payload + off, h.size);
			memcpy(&tag, ch.payload + off + 16, 8);
			CHECK(t >= prev);
			/* equal times: capture order, then ring order */
			CHECK(t > prev || !records || tag > prev_tag);
			lo = n ? lo : t;
			hi = t;
			prev = t;
			prev_tag = tag;
			off += h.size;
			got_len += h.size;
			records++;
		}
		CHECK_EQ(ch.hdr.records, n);
		CHECK_EQ(ch.hdr.first_time, lo);
		CHECK_EQ(ch.hdr.last_time, hi);
		CHECK_EQ(ch.hdr.watermark, lo);
		chunks++;
	}
	CHECK_EQ(rc, 0);
	prec_shard_reader__close(r);
	CHECK_EQ(records, CAPS * PER);
	CHECK_EQ(got_len, want_len);
	CHECK(chunks >= 3);
	for (int i = 0; i < CAPS; i++)
		prec_capture__exit(&c[i]);
	close(dfd);
	printf("capture write: %u records in %u chunks\n", records, chunks);
}

int main(void)
{
	char *dir = test_tmpdir("capture");

	test_filter();
	/* the rest writes shards */
	if (test_syscall_missing(SYS_io_uring_setup)) {
		test_rmdir(dir);
		printf("io_uring_setup: %s (an emulator?): skipping the rest\n", strerror(ENOSYS));
		return TEST_SKIP;
	}
	test_write(dir);
	test_rmdir(dir);
	free(dir);
	return 0;
}
