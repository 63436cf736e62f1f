// SPDX-License-Identifier: MIT
// prec_attr__fprintf against text perf 6.1's record -vv printed for the
// same attrs: its cpu-clock (freq, tracking bits, bit names joined by |),
// a breakpoint's hex words with other fields in their order, and the zero
// attr (only the frame).
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/attr_text.h"
#include "../lib/test.h"

static char *text(const struct perf_event_attr *a)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int n;

	CHECK(f);
	n = prec_attr__fprintf(f, a);
	CHECK(fclose(f) == 0);
	CHECK_EQ(n, (long long)strlen(buf));
	return buf;
}

#define RULE "------------------------------------------------------------\n"

int main(void)
{
	struct perf_event_attr a;

	/* sample_type in perf 6.1's order, TRANSACTION unnamed (perf record
	 * -vv --data --sample-identifier -W --transaction -e cpu-clock) */
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_WEIGHT_STRUCT;
	CHECK(strstr(text(&a), "  sample_type                      "
			       "IP|TID|TIME|ADDR|PERIOD|IDENTIFIER|DATA_SRC|WEIGHT_STRUCT\n"));

	/* perf record -vv -e cpu-clock -- true (perf 6.1) */
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.sample_freq = 4000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.disabled = a.inherit = a.mmap = a.comm = a.freq = a.enable_on_exec = 1;
	a.task = a.sample_id_all = a.exclude_guest = a.mmap2 = a.comm_exec = 1;
	a.ksymbol = a.bpf_event = 1;
	CHECK(!strcmp(text(&a), RULE
		"perf_event_attr:\n"
		"  type                             1\n"
		"  size                             128\n"
		"  { sample_period, sample_freq }   4000\n"
		"  sample_type                      IP|TID|TIME|ID|PERIOD\n"
		"  read_format                      ID|LOST\n"
		"  disabled                         1\n"
		"  inherit                          1\n"
		"  mmap                             1\n"
		"  comm                             1\n"
		"  freq                             1\n"
		"  enable_on_exec                   1\n"
		"  task                             1\n"
		"  sample_id_all                    1\n"
		"  exclude_guest                    1\n"
		"  mmap2                            1\n"
		"  comm_exec                        1\n"
		"  ksymbol                          1\n"
		"  bpf_event                        1\n"
		RULE));

	/* A breakpoint's lines as perf record -vv -e mem:0x1000/4:rw -c 1
	 * prints them (bp_type decimal, bp_addr and bp_len in hex), with a
	 * group leader's read_format and sample_type READ, the clock and
	 * the callchain fields in their places. */
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = 128;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	a.exclude_callchain_user = 1;
	a.wakeup_events = 1;
	a.bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	a.bp_addr = 0x1000;
	a.bp_len = 4;
	a.sample_max_stack = 127;
	a.clockid = 1;
	a.use_clockid = 1;
	CHECK(!strcmp(text(&a), RULE
		"perf_event_attr:\n"
		"  type                             5\n"
		"  size                             128\n"
		"  { sample_period, sample_freq }   1\n"
		"  sample_type                      IP|TID|TIME|READ|CALLCHAIN|ID\n"
		"  read_format                      ID|GROUP|LOST\n"
		"  exclude_callchain_user           1\n"
		"  use_clockid                      1\n"
		"  { wakeup_events, wakeup_watermark } 1\n"
		"  bp_type                          3\n"
		"  { bp_addr, config1 }             0x1000\n"
		"  { bp_len, config2 }              0x4\n"
		"  clockid                          1\n"
		"  sample_max_stack                 127\n"
		RULE));

	memset(&a, 0, sizeof(a));
	CHECK(!strcmp(text(&a), RULE "perf_event_attr:\n" RULE));
	printf("attr_text: perf -vv layout of cpu-clock, a breakpoint, the zero attr\n");
	return 0;
}
