// SPDX-License-Identifier: MIT
// The AUX area options of prec record: -m PAGES,AUX and --aux-size take
// pages or a size, rounded up to a power of two of pages (-m's as perf's,
// ring and AUX area), and a bad value is refused with the option named (moved out of unit/auxtrace, which simulates the AUX ring).
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "record/options.h"
#include "../lib/test.h"

static void test_options(void)
{
	struct prec_record_opts o;
	char *a1[] = { "record", "-m", ",4M", "true", NULL };
	char *a2[] = { "record", "-m", "16,8M", "true", NULL };
	char *a3[] = { "record", "--aux-size", "100K", "true", NULL };
	char *a4[] = { "record", "-m", ",x", "true", NULL };
	char *a5[] = { "record", "--aux-size", "64", "true", NULL };
	char *a6[] = { "record", "-m", "128,4M", "true", NULL };
	char *a7[] = { "record", "-m", "64,1024", "true", NULL };
	char *a8[] = { "record", "--aux-size", "8M", "true", NULL };
	char *a9[] = { "record", "-m", "3,4M", "true", NULL };
	char *bad[][5] = {
		{ "record", "-m", "128,3x", "true", NULL },
		{ "record", "-m", "3,4Q", "true", NULL },
		{ "record", "--aux-size", "0", "true", NULL },
		{ "record", "--aux-size", "-4M", "true", NULL },
		{ "record", "--aux-size", "99999999999G", "true", NULL },
	};
	long ps = sysconf(_SC_PAGESIZE);

	CHECK_EQ(prec_record_opts__parse(&o, 4, a1), 0);
	CHECK_EQ(o.aux_bytes, 4u << 20);
	CHECK_EQ(o.mmap_pages * (size_t)sysconf(_SC_PAGESIZE), PREC_RECORD_DEFAULT_RING);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a2), 0);
	CHECK_EQ(o.aux_bytes, 8u << 20);
	CHECK_EQ(o.mmap_pages, 16);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a3), 0);
	CHECK_EQ(o.aux_bytes, 128u << 10); /* a power of two of pages */
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a4), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a5), 0);
	CHECK_EQ(o.aux_bytes, 64u * (uint64_t)sysconf(_SC_PAGESIZE));
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a6), 0);
	CHECK_EQ(o.mmap_pages, 128);
	CHECK_EQ(o.aux_bytes, 4u << 20);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a7), 0);
	CHECK_EQ(o.mmap_pages, 64);
	CHECK_EQ(o.aux_bytes, 1024 * (uint64_t)ps);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a8), 0);
	CHECK_EQ(o.aux_bytes, 8u << 20);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 4, a9), 0);
	CHECK_EQ(o.mmap_pages, 4);
	CHECK_EQ(o.aux_bytes, 4u << 20);
	prec_record_opts__exit(&o);
	/* an empty AUX part is no pages, which perf rounds up to one */
	{
		char *a10[] = { "record", "-m", "128,", "true", NULL };

		CHECK_EQ(prec_record_opts__parse(&o, 4, a10), 0);
		CHECK_EQ(o.mmap_pages, 128);
		CHECK_EQ(o.aux_bytes, (uint64_t)ps);
		prec_record_opts__exit(&o);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(prec_record_opts__parse(&o, 4, bad[i]), -EINVAL);
		prec_record_opts__exit(&o);
	}
}

int main(void)
{
	test_options();
	printf("aux_options: -m and --aux-size parsed, bad values refused\n");
	return 0;
}
