// SPDX-License-Identifier: MIT
// Record timestamp layout: offsets derived from sample_type, checked against
// SAMPLE and non-SAMPLE records laid out by hand as the kernel writes them.
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put_hdr(unsigned char *p, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };

	memcpy(p, &h, sizeof(h));
}

static void init_rules(void)
{
	struct prec_time_layout tl;
	uint64_t base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;

	CHECK_EQ(prec_time_layout__init(&tl, PERF_SAMPLE_TIME), -EINVAL);
	CHECK_EQ(prec_time_layout__init(&tl, PERF_SAMPLE_IDENTIFIER), -EINVAL);
	CHECK_EQ(prec_time_layout__init(&tl, base | PERF_SAMPLE_ID), -EINVAL);
	CHECK_EQ(prec_time_layout__init(&tl, base | PERF_SAMPLE_STREAM_ID), -EINVAL);
	CHECK_EQ(prec_time_layout__init(&tl, base), 0);
	CHECK_EQ(tl.sample_time_off, 16);
	CHECK_EQ(tl.trailer_time_back, 16);
	CHECK_EQ(prec_time_layout__init(&tl, base | PERF_SAMPLE_IP | PERF_SAMPLE_TID), 0);
	CHECK_EQ(tl.sample_time_off, 32);
	CHECK_EQ(tl.trailer_time_back, 16);
	CHECK_EQ(prec_time_layout__init(&tl, base | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
					     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW), 0);
	CHECK_EQ(tl.sample_time_off, 32);
	CHECK_EQ(tl.trailer_time_back, 24);
}

/* perf record's cpu-clock layout: IP|TID|TIME|CPU|PERIOD|IDENTIFIER. */
static void records(void)
{
	struct prec_time_layout tl;
	unsigned char rec[256];
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	uint16_t size;

	CHECK_EQ(prec_time_layout__init(&tl, st), 0);
	/* SAMPLE: hdr, id, ip, pid/tid, time, cpu/res, period. */
	memset(rec, 0xee, sizeof(rec));
	size = 8 + 8 + 8 + 8 + 8 + 8 + 8;
	put_hdr(rec, PERF_RECORD_SAMPLE, size);
	put64(rec + 8, 77);                    /* identifier */
	put64(rec + 16, 0xffffffff81000000ull); /* ip */
	put64(rec + 24, 0x0000002a0000002aull); /* pid, tid */
	put64(rec + 32, 123456789012ull);       /* time */
	CHECK_EQ(prec_time_layout__time(&tl, rec, size), 123456789012ull);
	/* Too short to hold the time field. */
	CHECK_EQ(prec_time_layout__time(&tl, rec, 32), 0);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 39), 0);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 40), 123456789012ull);

	/* COMM "ls": hdr, pid, tid, comm[8], then trailer
	 * pid/tid, time, cpu/res, identifier. */
	memset(rec, 0xee, sizeof(rec));
	size = 8 + 8 + 8 + 8 + 8 + 8 + 8;
	put_hdr(rec, PERF_RECORD_COMM, size);
	memcpy(rec + 16, "ls\0\0\0\0\0\0", 8);
	put64(rec + 24, 0x0000002a0000002aull); /* trailer pid/tid */
	put64(rec + 32, 987654321ull);          /* trailer time */
	put64(rec + 40, 3);                     /* cpu 3, res 0 */
	put64(rec + 48, 77);                    /* identifier */
	CHECK_EQ(prec_time_layout__time(&tl, rec, size), 987654321ull);
	/* A record too short for any trailer. */
	put_hdr(rec, PERF_RECORD_LOST, 16);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 16), 0);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 32), 0xeeeeeeeeeeeeeeeeull);
	/* User types (>= 64) have no time. */
	put_hdr(rec, 68 /* PERF_RECORD_FINISHED_ROUND */, 8);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 8), 0);
	put_hdr(rec, 71 /* AUXTRACE */, 48);
	CHECK_EQ(prec_time_layout__time(&tl, rec, 48), 0);
}

int main(void)
{
	test_seed();
	init_rules();
	records();
	printf("ok\n");
	return 0;
}
