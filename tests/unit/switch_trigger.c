// SPDX-License-Identifier: MIT
// prec_switch_trigger: --switch-output=SIZE and =TIME due exactly at their
// threshold counted from the last cut, whatever made it; the poll timeout
// never sleeps past a TIME cut; signal mode (neither) is never due.
#include "record/switch_trigger.h"
#include "../lib/test.h"

#define MS 1000000ull

static void test_signal_only(void)
{
	struct prec_switch_trigger t;

	prec_switch_trigger__init(&t, 0, 0, 0, 5 * MS);
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 0, 5 * MS), -1);
	CHECK(!prec_switch_trigger__due(&t, UINT64_MAX / 2, UINT64_MAX / 2));
}

static void test_size(void)
{
	struct prec_switch_trigger t;

	/* 1000 bytes drained before the start count for nothing */
	prec_switch_trigger__init(&t, 4096, 0, 1000, 0);
	/* the size wakes no poll (the drainers do), until it is due */
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 1000 + 4095, 0), -1);
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 1000 + 4096, 0), 0);
	CHECK_EQ(prec_switch_trigger__next_bytes(&t), 1000 + 4096);
	CHECK(!prec_switch_trigger__due(&t, 1000 + 4095, 10000 * MS));
	CHECK(prec_switch_trigger__due(&t, 1000 + 4096, 0));
	/* a cut by a signal meanwhile: counted anew from there */
	prec_switch_trigger__reset(&t, 3000, 0);
	CHECK(!prec_switch_trigger__due(&t, 1000 + 4096, 0));
	CHECK(prec_switch_trigger__due(&t, 3000 + 4096, 0));
}

static void test_time(void)
{
	struct prec_switch_trigger t;

	prec_switch_trigger__init(&t, 0, 1500, 0, 100 * MS);
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 0, 100 * MS), 1500);
	/* rounded up: a wake-up never comes before the cut is due */
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 0, 100 * MS + 1), 1500);
	CHECK(!prec_switch_trigger__due(&t, UINT64_MAX / 2, 1599 * MS));
	CHECK(prec_switch_trigger__due(&t, 0, 1600 * MS));
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 0, 1700 * MS), 0);
	prec_switch_trigger__reset(&t, 0, 1600 * MS);
	CHECK(!prec_switch_trigger__due(&t, 0, 1600 * MS));
	/* a day: poll() still wakes at least once a minute */
	prec_switch_trigger__init(&t, 0, 86400000, 0, 0);
	CHECK_EQ(prec_switch_trigger__timeout_ms(&t, 0, 0), 60000);
}

int main(void)
{
	test_signal_only();
	test_size();
	test_time();
	return 0;
}
