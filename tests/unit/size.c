// SPDX-License-Identifier: MIT
// prec_size__*: the one size parser of prec record's -m, --aux-size and
// --max-size: suffixes, page rounding, zero, garbage, and overflow refused
// (never wrapped to a small size).
#include "util/size.h"
#include "../lib/test.h"

#include <errno.h>

#define PS 4096u

static uint64_t ring(const char *arg)
{
	uint64_t b = 0;

	CHECK_EQ(prec_size__parse(arg, PS, &b), 0);
	return b;
}

static int ring_err(const char *arg)
{
	uint64_t b = 12345;
	int err = prec_size__parse(arg, PS, &b);

	CHECK_EQ(b, 12345); /* untouched on error */
	return err;
}

static uint64_t bytes(const char *arg)
{
	uint64_t b = 0;

	CHECK_EQ(prec_size__bytes(arg, PREC_SIZE_BYTES, 1, &b), 0);
	return b;
}

static int bytes_err(const char *arg)
{
	uint64_t b = 12345;
	int err = prec_size__bytes(arg, PREC_SIZE_BYTES, 1, &b);

	CHECK_EQ(b, 12345);
	return err;
}

static const struct prec_size_tag tags[] = {
	{ 'B', 1 }, { 'K', 1024 }, { 'M', 1u << 20 }, { 'G', 1u << 30 }, { 0, 0 },
};

/* perf's parse_tag_value: the value, or -1 for none */
static long long tag(const char *arg)
{
	uint64_t v = 0;

	return prec_size__perf_tag(arg, tags, &v) ? -1 : (long long)v;
}

static void test_perf_tag(void)
{
	CHECK_EQ(tag("5M"), 5ll << 20);
	CHECK_EQ(tag("0B"), 0);
	CHECK_EQ(tag("5M5"), 5ll << 20);   /* what follows the tag ignored */
	CHECK_EQ(tag("1Mx"), 1ll << 20);
	CHECK_EQ(tag(" +2K"), 2048);       /* strtoul's blanks and sign */
	CHECK_EQ(tag("010K"), 10240);      /* decimal */
	CHECK_EQ(tag("1MB"), -1);          /* B is looked for first */
	CHECK_EQ(tag("4KiB"), -1);
	CHECK_EQ(tag("4k"), -1);           /* the tags' case only */
	CHECK_EQ(tag("100"), -1);          /* no tag: none */
	CHECK_EQ(tag("1.5M"), -1);
	CHECK_EQ(tag("-1M"), -1);          /* strtoul's wrap, over 64 bits */
	CHECK_EQ(tag("17179869184G"), -1); /* 2^64 */
	CHECK_EQ(tag("8589934591G"), (long long)(8589934591ull << 30));
	CHECK_EQ(tag("18446744073709551615B"), -1); /* all bits: perf's none */
}

int main(void)
{
	uint64_t n, m;

	test_perf_tag();

	/* A bare number counts pages; suffixes are binary, any case, with
	 * an optional B or iB. */
	CHECK_EQ(ring("1"), PS);
	CHECK_EQ(ring("256"), 256ull * PS);
	CHECK_EQ(ring("010"), 16ull * PS);  /* decimal, as perf's: 10, rounded up */
	CHECK_EQ(ring_err("0x10"), -EINVAL); /* not hex: the number is 0 */
	CHECK_EQ(ring("512K"), 512ull << 10);
	CHECK_EQ(ring("512k"), 512ull << 10);
	CHECK_EQ(ring("4M"), 4ull << 20);
	CHECK_EQ(ring("4MB"), 4ull << 20);
	CHECK_EQ(ring("4mib"), 4ull << 20);
	CHECK_EQ(ring("1G"), 1ull << 30);
	CHECK_EQ(ring("1024G"), 1ull << 40); /* PREC_SIZE_RING_MAX itself */

	/* Rounded up to a power-of-two number of pages. */
	CHECK_EQ(ring("3"), 4ull * PS);
	CHECK_EQ(ring("5"), 8ull * PS);
	CHECK_EQ(ring("1K"), PS);
	CHECK_EQ(ring("5K"), 2ull * PS);
	CHECK_EQ(ring("3M"), 4ull << 20);
	CHECK_EQ(ring("1025"), 2048ull * PS);

	/* Zero, garbage, unknown suffixes. */
	CHECK_EQ(ring_err("0"), -EINVAL);
	CHECK_EQ(ring_err("0K"), -EINVAL);
	CHECK_EQ(ring_err(""), -EINVAL);
	CHECK_EQ(ring_err("abc"), -EINVAL);
	CHECK_EQ(ring_err("-4M"), -EINVAL);
	CHECK_EQ(ring_err(" 4M"), -EINVAL);
	CHECK_EQ(ring_err("+4"), -EINVAL);
	CHECK_EQ(ring_err("4Q"), -EOPNOTSUPP);
	CHECK_EQ(ring_err("4B"), -EOPNOTSUPP); /* B alone: --max-size only */
	CHECK_EQ(ring_err("4MX"), -EOPNOTSUPP);
	CHECK_EQ(ring_err("4M "), -EOPNOTSUPP);
	CHECK_EQ(ring_err("4KiBs"), -EOPNOTSUPP);
	/* Fractions: whole numbers only, as perf's sizes, said so. */
	CHECK_EQ(ring_err("1.5M"), -EDOM);
	CHECK_EQ(ring_err("0.5M"), -EDOM);
	CHECK_EQ(ring_err("1."), -EOPNOTSUPP);

	/* Overflow: past the ring limit, past 64 bits in the product, past
	 * 64 bits in the number itself; never a wrapped small size. */
	CHECK_EQ(ring_err("1025G"), -ERANGE);
	CHECK_EQ(ring_err("268435457"), -ERANGE);     /* pages past 1 TiB */
	CHECK_EQ(ring_err("17179869185G"), -ERANGE);  /* wraps to 1G */
	CHECK_EQ(ring_err("4503599627370497"), -ERANGE); /* pages * 4096 wraps */
	CHECK_EQ(ring_err("18446744073709551615"), -ERANGE);
	CHECK_EQ(ring_err("18446744073709551616"), -EOVERFLOW);
	CHECK_EQ(ring_err("99999999999999999999G"), -EOVERFLOW);

	/* --max-size's syntax: decimal, bare bytes, a B alone too. */
	CHECK_EQ(bytes("1"), 1);
	CHECK_EQ(bytes("500"), 500);
	CHECK_EQ(bytes("500B"), 500);
	CHECK_EQ(bytes("500b"), 500);
	CHECK_EQ(bytes("500K"), 500ull << 10);
	CHECK_EQ(bytes("500MB"), 500ull << 20);
	CHECK_EQ(bytes("2GiB"), 2ull << 30);
	CHECK_EQ(bytes("010"), 10);                   /* not octal */
	CHECK_EQ(bytes_err("0x10"), -EINVAL);         /* not hex: the number is 0 */
	CHECK_EQ(bytes_err("1x10"), -EOPNOTSUPP);
	CHECK_EQ(bytes_err("0"), -EINVAL);
	CHECK_EQ(bytes_err("M"), -EINVAL);
	CHECK_EQ(bytes_err("5X"), -EOPNOTSUPP);
	CHECK_EQ(bytes_err("5BB"), -EOPNOTSUPP);
	CHECK_EQ(bytes_err("1.5G"), -EDOM);
	CHECK_EQ(bytes_err("0.5G"), -EDOM);
	CHECK_EQ(bytes("18446744073709551615"), UINT64_MAX);
	CHECK_EQ(bytes("17179869183G"), 17179869183ull << 30);
	CHECK_EQ(bytes_err("17179869184G"), -ERANGE); /* exactly 2^64 */
	CHECK_EQ(bytes_err("17179869185G"), -ERANGE);
	CHECK_EQ(bytes_err("18446744073709551616"), -EOVERFLOW);
	CHECK_EQ(bytes_err("99999999999999999999G"), -EOVERFLOW);

	/* split: the number and the suffix's multiplier, 0 for none. */
	CHECK_EQ(prec_size__split("64", 0, &n, &m), 0);
	CHECK(n == 64 && m == 0);
	CHECK_EQ(prec_size__split("3K", 0, &n, &m), 0);
	CHECK(n == 3 && m == 1024);
	CHECK_EQ(prec_size__split("7B", PREC_SIZE_BYTES, &n, &m), 0);
	CHECK(n == 7 && m == 1);

	/* Another page size: the unit follows it. */
	{
		uint64_t b;

		CHECK_EQ(prec_size__parse("3", 65536, &b), 0);
		CHECK_EQ(b, 4ull * 65536);
		CHECK_EQ(prec_size__parse("8K", 65536, &b), 0);
		CHECK_EQ(b, 65536);
	}
	printf("size: suffixes, page rounding, zero, garbage and overflow refused\n");
	return 0;
}
