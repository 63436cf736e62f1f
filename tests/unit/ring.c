// SPDX-License-Identifier: MIT
// Ring tests: the simulated layout of prec_ring__init_mem, prec_ring__map of
// data + AUX areas from a memfd standing in for an AUX PMU's perf fd, and
// prec_ring__map on a real software event (sizes, argument checks, the
// kernel's refusal of an AUX area on a PMU without one, records arriving in
// the data area).
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/test.h"
#include "record/internal.h"
#include "record/ring.h"

static void test_init_mem(void)
{
	uint64_t size = 8192, aux = 16384;
	uint8_t *mem = malloc(4096 + size + aux);
	struct prec_ring r;

	CHECK(mem);
	memset(mem, 0xff, 4096 + size + aux);
	prec_ring__init_mem(&r, mem, size, aux);
	CHECK((void *)r.page == (void *)mem);
	CHECK(r.data == mem + 4096);
	CHECK(r.aux == mem + 4096 + size);
	CHECK_EQ(r.size, size);
	CHECK_EQ(r.aux_size, aux);
	CHECK_EQ(r.fd, -1);
	CHECK(r.map == NULL && !r.overwrite);
	CHECK_EQ(r.page->data_offset, 4096);
	CHECK_EQ(r.page->data_size, size);
	CHECK_EQ(r.page->aux_offset, 4096 + size);
	CHECK_EQ(r.page->aux_size, aux);
	CHECK_EQ(r.page->data_head, 0);
	CHECK_EQ(r.page->data_tail, 0);
	CHECK_EQ(r.page->aux_head, 0);
	CHECK_EQ(r.page->aux_tail, 0);
	/* The data bytes are the caller's: init does not touch them. */
	CHECK_EQ(r.data[0], 0xff);
	prec_ring__unmap(&r); /* simulated: nothing to unmap */
	CHECK_EQ(mem[4096], 0xff);
	prec_ring__init_mem(&r, mem, size, 0);
	CHECK(r.aux == NULL);
	CHECK_EQ(r.page->aux_offset, 0);
	prec_ring__unmap(NULL);
	free(mem);
}

/* This machine has no AUX PMU: a memfd takes the perf fd's place (mmap at
 * an offset works on it), so the control-page protocol and both mappings
 * are checked against the bytes of the file. */
static void test_map_memfd(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t data_pages = 8, aux = 16 * (size_t)ps;
	uint64_t off = 0, size = 0;
	struct prec_ring r;
	uint8_t b = 0;
	int fd = memfd_create("prec-ring-aux", MFD_CLOEXEC);

	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, (off_t)((1 + data_pages) * (size_t)ps + aux)), 0);
	CHECK_EQ(prec_ring__map(&r, fd, data_pages, aux, false), 0);
	CHECK(r.aux != NULL);
	CHECK_EQ(r.aux_size, aux);
	CHECK_EQ(r.size, data_pages * (size_t)ps);
	CHECK(r.data == (uint8_t *)r.map + ps);
	/* What the kernel reads before the second mmap, as stored in the fd. */
	CHECK_EQ(pread(fd, &off, 8, offsetof(struct perf_event_mmap_page, aux_offset)), 8);
	CHECK_EQ(pread(fd, &size, 8, offsetof(struct perf_event_mmap_page, aux_size)), 8);
	CHECK_EQ(off, (1 + data_pages) * (size_t)ps);
	CHECK_EQ(size, aux);
	/* The AUX mapping is the fd at aux_offset, writable (normal mode:
	 * the drainer moves aux_tail, the kernel honours it). */
	b = 0x5a;
	CHECK_EQ(pwrite(fd, &b, 1, (off_t)(off + 4097)), 1);
	CHECK_EQ(r.aux[4097], 0x5a);
	r.aux[aux - 1] = 0xa5;
	CHECK_EQ(pread(fd, &b, 1, (off_t)(off + aux - 1)), 1);
	CHECK_EQ(b, 0xa5);
	r.data[0] = 0x11;
	CHECK_EQ(pread(fd, &b, 1, ps), 1);
	CHECK_EQ(b, 0x11);
	prec_ring__unmap(&r);
	CHECK(r.map == NULL && r.aux == NULL && r.fd == -1);
	/* Bad AUX sizes and AUX with overwrite are refused, nothing left mapped. */
	CHECK_EQ(prec_ring__map(&r, fd, data_pages, 3 * (size_t)ps, false), -EINVAL);
	CHECK(r.map == NULL && r.aux == NULL);
	CHECK_EQ(prec_ring__map(&r, fd, data_pages, 100, false), -EINVAL);
	CHECK_EQ(prec_ring__map(&r, fd, data_pages, aux, true), -EINVAL);
	CHECK(r.map == NULL);
	close(fd);
}

static int open_clock(void)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 50000;
	a.sample_type = PREC_SAMPLE_BASE;
	a.sample_id_all = 1;
	a.disabled = 1;
	a.exclude_kernel = 0;
	/* This thread, any CPU. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static void spin_ms(unsigned int ms)
{
	struct timespec a, b;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 <
		 (long)ms);
}

static int test_map(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	struct prec_ring r;
	struct perf_event_header h;
	uint64_t head;
	int fd = open_clock(), fd2;

	if (fd < 0) {
		printf("perf_event_open: %s: skipping\n", strerror(errno));
		return TEST_SKIP;
	}
	CHECK_EQ(prec_ring__map(&r, fd, 3, 0, false), -EINVAL);
	CHECK_EQ(prec_ring__map(&r, fd, 0, 0, false), -EINVAL);
	CHECK_EQ(prec_ring__map(&r, fd, 8, 0, false), 0);
	CHECK_EQ(r.fd, fd);
	CHECK_EQ(r.size, 8 * ps);
	CHECK_EQ(r.map_len, 9 * ps);
	CHECK(r.data == (uint8_t *)r.map + ps);
	CHECK(r.aux == NULL && !r.overwrite);
	CHECK_EQ(r.page->data_size, 8 * ps);

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(50);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = __atomic_load_n(&r.page->data_head, __ATOMIC_ACQUIRE);
	CHECK(head >= 48);
	memcpy(&h, r.data, sizeof(h));
	/* The first record is a sample of the layout we asked for (header,
	 * identifier, ip, pid/tid, time, cpu/res). */
	CHECK_EQ(h.type, PERF_RECORD_SAMPLE);
	CHECK_EQ(h.size, 48);
	prec_ring__unmap(&r);
	CHECK(r.map == NULL && r.page == NULL && r.fd == -1);

	/* A second event: cpu-clock has no AUX area and the kernel says so;
	 * the data mapping made first must be undone. */
	fd2 = open_clock();
	CHECK(fd2 >= 0);
	CHECK_EQ(prec_ring__map(&r, fd2, 1, (size_t)ps, false), -EOPNOTSUPP);
	CHECK(r.map == NULL && r.aux == NULL);
	CHECK_EQ(prec_ring__map(&r, fd2, 1, (size_t)ps * 3, false), -EINVAL);
	/* Read-only mapping: the kernel's overwrite mode. */
	CHECK_EQ(prec_ring__map(&r, fd2, 2, 0, true), 0);
	CHECK(r.overwrite);
	CHECK_EQ(r.size, 2 * ps);
	prec_ring__unmap(&r);
	close(fd2);
	close(fd);
	return 0;
}

int main(void)
{
	test_init_mem();
	test_map_memfd();
	return test_map();
}
