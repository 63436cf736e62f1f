// SPDX-License-Identifier: MIT
// The files a recording's samples hit (src/read/dso_hits.c): a sample's IP
// marks the file mapped there in its task; a later map over part of an
// older one cuts it (head and tail kept, the middle the new file's); a
// fork copies the parent's maps (a FORK synthesized from /proc does not),
// an exec clears the task's; call chain entries count, each under its
// context (kernel, user); a kernel address outside every module is
// [kernel.kallsyms]; a sample of an id no event has, a guest's sample and
// a record cut short mark nothing.
#include "read/dso_hits.h"
#include "../lib/test.h"

#include <linux/perf_event.h>
#include <string.h>

#define ID 77
#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CALLCHAIN)

static uint8_t rec[512];

static void put32(uint32_t at, uint32_t v) { memcpy(rec + at, &v, 4); }
static void put64(uint32_t at, uint64_t v) { memcpy(rec + at, &v, 8); }

static void header(uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
}

static void mmap2(struct prec_dso_hits *h, int32_t pid, uint64_t start, uint64_t len,
		  const char *name, bool kernel)
{
	uint16_t size = (uint16_t)(72 + ((strlen(name) + 8) & ~7u));

	header(PERF_RECORD_MMAP2, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, size);
	put32(8, (uint32_t)pid);
	put32(12, (uint32_t)pid);
	put64(16, start);
	put64(24, len);
	memcpy(rec + 72, name, strlen(name));
	CHECK_EQ(prec_dso_hits__add(h, rec, size), 0);
}

/* A sample of id at ip in pid, with nr call chain entries chain[]. */
static void sample(struct prec_dso_hits *h, uint64_t id, uint16_t misc, int32_t pid, uint64_t ip,
		   const uint64_t *chain, uint32_t nr)
{
	uint16_t size = (uint16_t)(48 + 8 * nr);

	header(PERF_RECORD_SAMPLE, misc, size);
	put64(8, id);
	put64(16, ip);
	put32(24, (uint32_t)pid);
	put32(28, (uint32_t)pid);
	put64(32, 1000);
	put64(40, nr);
	for (uint32_t i = 0; i < nr; i++)
		put64(48 + 8 * i, chain[i]);
	CHECK_EQ(prec_dso_hits__add(h, rec, size), 0);
}

static void user_sample(struct prec_dso_hits *h, int32_t pid, uint64_t ip)
{
	sample(h, ID, PERF_RECORD_MISC_USER, pid, ip, NULL, 0);
}

int main(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 128,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_type = ST };
	struct prec_manifest *m = prec_manifest__new();
	uint8_t attr[128] = { 0 };
	struct prec_dso_hits *h;
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffffa0000010ull,
				   0xffffffff81000000ull, (uint64_t)PERF_CONTEXT_USER, 0x7000 };

	CHECK(m);
	memcpy(attr, &a, sizeof(a) < 128 ? sizeof(a) : 128);
	CHECK_EQ(prec_manifest__add_event(m, attr, "cpu-clock"), 0);
	CHECK_EQ(prec_manifest__add_event_id(m, 0, ID, 0, -1), 0);
	CHECK_EQ(prec_dso_hits__new(&h, m), 0);

	/* /a over [0x1000, 0x9000), then /b over its middle [0x3000, 0x5000) */
	mmap2(h, 10, 0x1000, 0x8000, "/a", false);
	mmap2(h, 10, 0x3000, 0x2000, "/b", false);
	user_sample(h, 10, 0x3800);
	CHECK(prec_dso_hits__hit(h, "/b") && !prec_dso_hits__hit(h, "/a"));
	user_sample(h, 10, 0x8fff); /* the tail /a kept */
	CHECK(prec_dso_hits__hit(h, "/a"));
	/* nothing mapped there, another task, an id no event has, a guest */
	mmap2(h, 10, 0x20000, 0x1000, "/c", false);
	mmap2(h, 11, 0x30000, 0x1000, "/d", false);
	user_sample(h, 10, 0x9000);
	user_sample(h, 10, 0x30000);
	sample(h, ID + 1, PERF_RECORD_MISC_USER, 10, 0x20000, NULL, 0);
	sample(h, ID, PERF_RECORD_MISC_GUEST_USER, 10, 0x20000, NULL, 0);
	CHECK(!prec_dso_hits__hit(h, "/c") && !prec_dso_hits__hit(h, "/d"));
	CHECK_EQ(prec_dso_hits__samples(h), 4); /* not the unknown id's, nor the guest's */
	/* a fork copies: the child's sample hits the parent's /c */
	header(PERF_RECORD_FORK, 0, 40);
	put32(8, 12);
	put32(12, 10);
	put32(16, 12);
	put32(20, 10);
	CHECK_EQ(prec_dso_hits__add(h, rec, 40), 0);
	user_sample(h, 12, 0x20010);
	CHECK(prec_dso_hits__hit(h, "/c"));
	/* a FORK synthesized from /proc (misc FORK_EXEC, as perf's) copies
	 * nothing: the child's own maps follow it */
	mmap2(h, 16, 0x40000, 0x1000, "/g", false);
	header(PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC, 40);
	put32(8, 17);
	put32(12, 16);
	put32(16, 17);
	put32(20, 16);
	CHECK_EQ(prec_dso_hits__add(h, rec, 40), 0);
	user_sample(h, 17, 0x40010);
	CHECK(!prec_dso_hits__hit(h, "/g"));
	/* an exec clears the task's maps: /d of pid 11 is gone */
	header(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 32);
	put32(8, 11);
	put32(12, 11);
	CHECK_EQ(prec_dso_hits__add(h, rec, 32), 0);
	user_sample(h, 11, 0x30000);
	CHECK(!prec_dso_hits__hit(h, "/d"));
	/* a chain: a module's address, the kernel's, then a user one in /e */
	mmap2(h, -1, 0xffffffffa0000000ull, 0x1000, "/lib/modules/m.ko", true);
	mmap2(h, 13, 0x7000, 0x1000, "/e", false);
	CHECK(!prec_dso_hits__hit(h, "[kernel.kallsyms]"));
	sample(h, ID, PERF_RECORD_MISC_KERNEL, 13, 0xffffffffa0000010ull, chain, 5);
	CHECK(prec_dso_hits__hit(h, "/lib/modules/m.ko"));
	CHECK(prec_dso_hits__hit(h, "[kernel.kallsyms]"));
	CHECK(prec_dso_hits__hit(h, "/e"));
	/* cut short: the chain says 5 entries, the record holds none */
	mmap2(h, 14, 0x7000, 0x1000, "/f", false);
	sample(h, ID, PERF_RECORD_MISC_USER, 14, 0x1, NULL, 0);
	put64(40, 5);
	CHECK_EQ(prec_dso_hits__add(h, rec, 48), 0);
	CHECK(!prec_dso_hits__hit(h, "/f") && !prec_dso_hits__hit(h, "/nowhere"));
	prec_dso_hits__delete(h);
	prec_manifest__delete(m);
	printf("dso_hits: ok\n");
	return 0;
}
