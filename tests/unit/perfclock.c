// SPDX-License-Identifier: MIT
// The perf clock from a control page: the uapi formula on hand-worked
// values (a realistic x86 shift, a time_zero that wraps, a narrow counter
// that wrapped with cap_user_time_short), the seqlock (a torn read retried,
// a writer in progress, a starved reader), pages without the capability,
// a drainer on the perf clock writing watermarks from a fake page, and a
// real software event's page bracketing the time the kernel stamps.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/test.h"
#include "record/drainer.h"
#include "record/perfclock.h"
#include "record/ring.h"
#include "store/store.h"

static void page_init(struct perf_event_mmap_page *pc, uint16_t shift,
		      uint32_t mult, uint64_t zero)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 4;
	pc->time_shift = shift;
	pc->time_mult = mult;
	pc->time_zero = zero;
	pc->cap_user_time = 1;
	pc->cap_user_time_zero = 1;
}

/* A fake counter that can play the kernel's writer on chosen calls. */
struct fake {
	struct perf_event_mmap_page *pc;
	uint64_t cyc;
	int calls;
	int rewrite_on;    /* on this call: bump lock by 2, new time_zero */
	uint64_t new_zero;
	int finish_on;     /* on this call: an odd lock becomes even */
	bool none;         /* no counter at all */
};

static bool fake_counter(void *arg, uint64_t *cyc)
{
	struct fake *f = arg;

	f->calls++;
	if (f->calls == f->rewrite_on) {
		f->pc->lock++;
		f->pc->time_zero = f->new_zero;
		f->pc->lock++;
	}
	if (f->calls == f->finish_on)
		f->pc->lock++;
	*cyc = f->cyc;
	return !f->none;
}

static void test_formula(void)
{
	struct prec_time_conv tc = { .time_zero = 1000000, .time_mult = 3000,
				     .time_shift = 10, .cap_user_time_zero = true };

	/* 5000 = 4 * 1024 + 904: 1000000 + 4 * 3000 + (904 * 3000 >> 10) */
	CHECK_EQ(prec_time_conv__ns(&tc, 5000), 1000000 + 12000 + 2648);
	CHECK_EQ(prec_time_conv__ns(&tc, 0), 1000000);
	/* 2 GHz TSC: mult = 0.5 * 2^31. time_zero "negative" (the kernel's
	 * offset): 2^40 cycles = 549755813888 ns, less 2^32. */
	tc = (struct prec_time_conv){ .time_zero = 0xffffffff00000000ull,
				      .time_mult = 1u << 30, .time_shift = 31 };
	CHECK_EQ(prec_time_conv__ns(&tc, 1ull << 40), 549755813888ull - 4294967296ull);
	/* A 32-bit counter that wrapped since the kernel saw 0x1fffffff0:
	 * raw 0x10 is 0x20 counts later, 0x200000010 in full. */
	tc = (struct prec_time_conv){ .time_zero = 100, .time_mult = 1, .time_shift = 0,
				      .time_cycles = 0x1fffffff0ull,
				      .time_mask = 0xffffffffull,
				      .cap_user_time_short = true };
	CHECK_EQ(prec_time_conv__ns(&tc, 0x10), 100 + 0x200000010ull);
	/* Without cap_user_time_short the same raw value is taken as is. */
	tc.cap_user_time_short = false;
	CHECK_EQ(prec_time_conv__ns(&tc, 0x10), 116);
	tc.time_shift = 64;
	CHECK_EQ(prec_time_conv__ns(&tc, 0x10), 0);
}

static void test_read(void)
{
	struct perf_event_mmap_page pc;
	struct prec_time_conv tc;

	page_init(&pc, 31, 1u << 30, 77);
	pc.cap_user_time_short = 1;
	pc.time_cycles = 0x1234;
	pc.time_mask = 0xffff;
	CHECK_EQ(prec_perfclock__read(&pc, &tc), 0);
	CHECK_EQ(tc.time_shift, 31);
	CHECK_EQ(tc.time_mult, 1u << 30);
	CHECK_EQ(tc.time_zero, 77);
	CHECK_EQ(tc.time_cycles, 0x1234);
	CHECK_EQ(tc.time_mask, 0xffff);
	CHECK(tc.cap_user_time_zero && tc.cap_user_time_short);
	/* No cap_user_time_zero (a KVM guest's software events): the words
	 * are copied anyway, the caller is told they do not convert. */
	pc.cap_user_time_zero = 0;
	CHECK_EQ(prec_perfclock__read(&pc, &tc), -EOPNOTSUPP);
	CHECK_EQ(tc.time_mult, 1u << 30);
	CHECK(!tc.cap_user_time_zero);
	/* A writer that never finishes. */
	pc.lock = 5;
	CHECK_EQ(prec_perfclock__read(&pc, &tc), -EAGAIN);
	CHECK_EQ(tc.time_mult, 0);
	CHECK_EQ(prec_perfclock__read(NULL, &tc), -EINVAL);
}

static void test_now(void)
{
	struct perf_event_mmap_page pc;
	struct fake f = { .pc = &pc, .cyc = 5000 };

	page_init(&pc, 10, 3000, 1000000);
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 1014648);
	CHECK_EQ(f.calls, 1);
	/* Torn: the kernel rewrites the words while the counter is read; the
	 * second pass reads the new time_zero with a counter read of its own. */
	f = (struct fake){ .pc = &pc, .cyc = 5000, .rewrite_on = 1, .new_zero = 2000000 };
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 2014648);
	CHECK_EQ(f.calls, 2);
	CHECK_EQ(pc.lock, 6);
	/* A writer in progress at entry (odd lock) finishes a pass later. */
	pc.lock = 7;
	pc.time_zero = 3000000;
	f = (struct fake){ .pc = &pc, .cyc = 5000, .finish_on = 1 };
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 3014648);
	CHECK_EQ(f.calls, 2);
	/* Starved, no capability, no counter, no page: 0, never a guess. */
	pc.lock = 9;
	f = (struct fake){ .pc = &pc, .cyc = 5000 };
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 0);
	pc.lock = 10;
	pc.cap_user_time_zero = 0;
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 0);
	pc.cap_user_time_zero = 1;
	f.none = true;
	CHECK_EQ(prec_perfclock__now_with(&pc, fake_counter, &f), 0);
	CHECK_EQ(prec_perfclock__now(NULL), 0);
}

static char *tmp;

/* One SAMPLE at time t (PREC_SAMPLE_BASE layout: time at byte 32). */
static void put_sample(struct prec_ring *r, uint64_t t)
{
	uint64_t rec[6] = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, sizeof(rec) };
	uint64_t head = r->page->data_head;

	memcpy(rec, &h, sizeof(h));
	rec[4] = t;
	memcpy(r->data + (head & (r->size - 1)), rec, sizeof(rec));
	r->page->data_head = head + sizeof(rec);
}

/* A drainer on the perf clock (clockid -1) takes its watermarks from the
 * clock page: time_mult 1, shift 0, zero 0 make them the raw counter, so
 * each lies between counter reads taken around the pass. Without the
 * capability they are 0, as before. */
static void drain_with(const struct perf_event_mmap_page *clock_page,
		       bool want_counter)
{
	void *mem = calloc(1, 4096 + 8192);
	struct prec_shard_writer_opts wo = { .cpu = 0, .copy = true };
	struct prec_drainer_opts o = { .cpu = 0, .layout = { 32, 24 },
				       .clockid = -1, .clock_page = clock_page,
				       .copy = true, .pin_cpu = -1 };
	struct prec_shard_reader *rd;
	struct prec_drainer *d;
	struct prec_ring r;
	struct prec_chunk c;
	uint64_t before = 0, after = 0;
	int dirfd = open(tmp, O_DIRECTORY | O_RDONLY), n = 0;

	CHECK(mem && dirfd >= 0);
	prec_ring__init_mem(&r, mem, 8192, 0);
	o.ring = &r;
	CHECK_EQ(prec_shard_writer__open(&o.writer, dirfd, "cpu000.shard", &wo), 0);
	CHECK_EQ(prec_drainer__new(&d, &o), 0);
	put_sample(&r, 1000);
	CHECK(prec_perfclock__counter(&before) || !want_counter);
	CHECK_EQ(prec_drainer__drain(d), 1);
	prec_perfclock__counter(&after);
	CHECK_EQ(prec_shard_writer__flush(o.writer), 0);
	prec_drainer__delete(d);
	prec_shard_writer__close(o.writer);
	CHECK_EQ(prec_shard_reader__open(&rd, dirfd, "cpu000.shard"), 0);
	while (prec_shard_reader__next(rd, &c) == 1) {
		n++;
		CHECK_EQ(c.hdr.first_time, 1000);
		if (want_counter)
			CHECK(c.hdr.watermark >= before && c.hdr.watermark <= after);
		else
			CHECK_EQ(c.hdr.watermark, 0);
	}
	CHECK_EQ(n, 1);
	prec_shard_reader__close(rd);
	unlinkat(dirfd, "cpu000.shard", 0);
	close(dirfd);
	free(mem);
}

static void test_drainer(void)
{
	struct perf_event_mmap_page pc;
	uint64_t cyc;

	page_init(&pc, 0, 1, 0);
	drain_with(&pc, prec_perfclock__counter(&cyc));
	pc.cap_user_time_zero = 0;
	drain_with(&pc, false);
	drain_with(NULL, false);
}

/* The kernel's own page for a software event: whatever it offers, the
 * reader agrees with it, and a converted time never runs backwards. */
/* The time of the newest PERF_RECORD_COMM in a ring whose records carry
 * only TIME in their sample_id trailer (its last 8 bytes), or 0. */
static uint64_t comm_time(const struct perf_event_mmap_page *pc, const uint8_t *data,
			  uint64_t size)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE), t = 0;

	for (uint64_t pos = 0; pos < head;) {
		struct perf_event_header h;

		memcpy(&h, data + pos % size, sizeof(h));
		CHECK(h.size >= sizeof(h) + 8 && pos % size + h.size <= size);
		if (h.type == PERF_RECORD_COMM)
			memcpy(&t, data + pos % size + h.size - 8, 8);
		pos += h.size;
	}
	return t;
}

/* A real software event's page: the time prec computes from it and the
 * CPU's counter (rdtsc, cntvct_el0) brackets the time the kernel stamps on
 * a record, in the perf clock, between the two reads. */
static void test_real_page(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_DUMMY, .comm = 1,
				     .sample_id_all = 1, .sample_type = PERF_SAMPLE_TIME,
				     .exclude_kernel = 1 };
	long ps = sysconf(_SC_PAGESIZE);
	struct prec_time_conv tc;
	uint64_t t1, t2, tk;
	void *map;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0) {
		fprintf(stderr, "perf_event_open: %s: real page not checked\n", strerror(errno));
		return;
	}
	map = mmap(NULL, (size_t)ps * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED);
	if (prec_perfclock__read(map, &tc) == -EOPNOTSUPP) {
		fprintf(stderr, "real page: no cap_user_time_zero (a guest?): watermarks 0\n");
		CHECK_EQ(prec_perfclock__now(map), 0);
	} else {
		t1 = prec_perfclock__now(map);
		CHECK(prctl(PR_SET_NAME, "prec-perfclock") == 0);
		t2 = prec_perfclock__now(map);
		tk = comm_time(map, (uint8_t *)map + ps, (uint64_t)ps);
		fprintf(stderr, "real page: cap_user_time_zero%s, %llu <= %llu <= %llu\n",
			tc.cap_user_time_short ? " and _short" : "", (unsigned long long)t1,
			(unsigned long long)tk, (unsigned long long)t2);
		CHECK(t1 && tk && t1 <= tk && tk <= t2);
	}
	munmap(map, (size_t)ps * 2);
	close(fd);
}

int main(void)
{
	tmp = test_tmpdir("perfclock");
	test_formula();
	test_read();
	test_now();
	/* the rest writes shards */
	if (test_syscall_missing(SYS_io_uring_setup)) {
		test_rmdir(tmp);
		printf("io_uring_setup: %s (an emulator?): skipping the rest\n", strerror(ENOSYS));
		return TEST_SKIP;
	}
	test_drainer();
	test_real_page();
	test_rmdir(tmp);
	return 0;
}
