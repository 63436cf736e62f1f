// SPDX-License-Identifier: MIT
// Test helper: the one event a hand-built manifest needs to be read back.
#include "test.h"

#include <linux/perf_event.h>
#include <string.h>

#include "record/internal.h"
#include "store/store.h"

void test_manifest_add_event(struct prec_manifest *m, uint64_t id)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 128,
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = PREC_SAMPLE_BASE,
				     .sample_id_all = 1, .sample_period = 100000 };
	uint8_t attr[128] = { 0 };

	memcpy(attr, &a, sizeof(a) < 128 ? sizeof(a) : 128);
	m->sample_type = PREC_SAMPLE_BASE;
	CHECK_EQ(prec_time_layout__init(&m->time_layout, PREC_SAMPLE_BASE), 0);
	CHECK_EQ(prec_manifest__add_event(m, attr, "cpu-clock"), 0);
	CHECK_EQ(prec_manifest__add_event_id(m, 0, id, 0, -1), 0);
}
