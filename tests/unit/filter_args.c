// SPDX-License-Identifier: MIT
// prec merge/dump --time and --cpu: what each form gives, what is refused.
#include "read/filter_args.h"
#include "../lib/test.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static void times(void)
{
	static const char *const bad[] = {
		"1", "x,y", "1,2,3", ".,1", "-1,2", "99999999999999999999,",
		/* past the last nanosecond that fits in u64 */
		"18446744073.709551616,", "18446744074,", ",18446744074",
		"99999999999,", "184467440730,", "18446744073.9,",
	};
	uint64_t s = 7, e = 7;

	CHECK_EQ(prec_filter__parse_time("1.5,2", &s, &e), 0);
	CHECK(s == 1500000000ull && e == 2000000000ull);
	CHECK_EQ(prec_filter__parse_time(",3", &s, &e), 0);
	CHECK(s == 0 && e == 3000000000ull);
	CHECK_EQ(prec_filter__parse_time("4,", &s, &e), 0);
	CHECK(s == 4000000000ull && e == 0);
	/* nanoseconds exactly; digits past the ninth dropped */
	CHECK_EQ(prec_filter__parse_time("12.345678901,12.3456789019", &s, &e), 0);
	CHECK(s == 12345678901ull && e == 12345678901ull);
	CHECK_EQ(prec_filter__parse_time("2,1", &s, &e), -ERANGE);
	/* the last nanosecond that fits in u64; bad[] has every value past
	 * it, which once wrapped (the guard ran before the last digit) */
	CHECK_EQ(prec_filter__parse_time("18446744073.709551615,", &s, &e), 0);
	CHECK(s == UINT64_MAX && e == 0);
	CHECK_EQ(prec_filter__parse_time(",18446744073.709551615", &s, &e), 0);
	CHECK(s == 0 && e == UINT64_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ(prec_filter__parse_time(bad[i], &s, &e), -EINVAL);
}

static void cpus(void)
{
	static const char *bad[] = { "", "z", "3-1", "0,", ",0", "1-", "-1", "0--2",
				     "65536", "0-65536", "1 2", "+1" };
	bool *c = NULL;
	int nr = -1, n = 0;

	CHECK_EQ(prec_filter__parse_cpus("0-3,7", &c, &nr), 0);
	CHECK_EQ(nr, 8);
	for (int i = 0; i < PREC_FILTER_MAX_CPUS; i++)
		n += c[i];
	CHECK_EQ(n, 5);
	CHECK(c[0] && c[3] && !c[4] && c[7]);
	/* a second list replaces the first */
	CHECK_EQ(prec_filter__parse_cpus("65535", &c, &nr), 0);
	CHECK(nr == 65536 && c[65535] && !c[0]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (prec_filter__parse_cpus(bad[i], &c, &nr) != -EINVAL) {
			fprintf(stderr, "'%s' accepted\n", bad[i]);
			CHECK(0);
		}
	free(c);
}

int main(void)
{
	times();
	cpus();
	printf("ok\n");
	return 0;
}
