// SPDX-License-Identifier: MIT
// A perf_event_attr in perf 6.1's -vv layout: the fields it prints, in its
// order, with its names and number formats (the layout was read off perf's
// output; no perf code is used).
#include "record/attr_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define RULE "------------------------------------------------------------\n"

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* In perf 6.1's order (IDENTIFIER before DATA_SRC and WEIGHT), which is
 * not the bits'; TRANSACTION is not among perf's names: it prints none
 * for it. */
static const struct bit_name sample_bits[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" },
	{ PERF_SAMPLE_TIME, "TIME" }, { PERF_SAMPLE_ADDR, "ADDR" },
	{ PERF_SAMPLE_READ, "READ" }, { PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
	{ PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
	{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
	{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_REGS_INTR, "REGS_INTR" },
	{ PERF_SAMPLE_DATA_SRC, "DATA_SRC" }, { PERF_SAMPLE_WEIGHT, "WEIGHT" },
	{ PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { PERF_SAMPLE_AUX, "AUX" },
	{ PERF_SAMPLE_CGROUP, "CGROUP" }, { PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	{ PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct bit_name read_bits[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" },
	{ PERF_FORMAT_LOST, "LOST" },
	{ 0, NULL },
};

static const struct bit_name branch_bits[] = {
	{ PERF_SAMPLE_BRANCH_USER, "USER" }, { PERF_SAMPLE_BRANCH_KERNEL, "KERNEL" },
	{ PERF_SAMPLE_BRANCH_HV, "HV" }, { PERF_SAMPLE_BRANCH_ANY, "ANY" },
	{ PERF_SAMPLE_BRANCH_ANY_CALL, "ANY_CALL" },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, "ANY_RETURN" },
	{ PERF_SAMPLE_BRANCH_IND_CALL, "IND_CALL" },
	{ PERF_SAMPLE_BRANCH_ABORT_TX, "ABORT_TX" }, { PERF_SAMPLE_BRANCH_IN_TX, "IN_TX" },
	{ PERF_SAMPLE_BRANCH_NO_TX, "NO_TX" }, { PERF_SAMPLE_BRANCH_COND, "COND" },
	{ PERF_SAMPLE_BRANCH_CALL_STACK, "CALL_STACK" },
	{ PERF_SAMPLE_BRANCH_IND_JUMP, "IND_JUMP" }, { PERF_SAMPLE_BRANCH_CALL, "CALL" },
	{ PERF_SAMPLE_BRANCH_NO_FLAGS, "NO_FLAGS" },
	{ PERF_SAMPLE_BRANCH_NO_CYCLES, "NO_CYCLES" },
	{ PERF_SAMPLE_BRANCH_TYPE_SAVE, "TYPE_SAVE" },
	{ PERF_SAMPLE_BRANCH_HW_INDEX, "HW_INDEX" },
	{ PERF_SAMPLE_BRANCH_PRIV_SAVE, "PRIV_SAVE" },
	{ 0, NULL },
};

enum fmt { DEC, HEX, SIGNED, SAMPLE, READ, BRANCH };

struct out {
	FILE *f;
	int n;
	bool failed;
};

/* perf names only the bits it knows, as these tables do. */
static void bits(char *buf, size_t len, uint64_t v, const struct bit_name *t)
{
	size_t used = 0;

	buf[0] = 0;
	for (; t->name; t++) {
		int w;

		if (!(v & t->bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", t->name);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
}

static void line(struct out *o, const char *name, uint64_t v, enum fmt fmt)
{
	char val[512];
	int w;

	if (!v)
		return;
	switch (fmt) {
	case HEX:
		snprintf(val, sizeof(val), "%#" PRIx64, v);
		break;
	case SIGNED:
		snprintf(val, sizeof(val), "%" PRId64, (int64_t)v);
		break;
	case SAMPLE:
		bits(val, sizeof(val), v, sample_bits);
		break;
	case READ:
		bits(val, sizeof(val), v, read_bits);
		break;
	case BRANCH:
		bits(val, sizeof(val), v, branch_bits);
		break;
	default:
		snprintf(val, sizeof(val), "%" PRIu64, v);
	}
	w = fprintf(o->f, "  %-32s %s\n", name, val);
	if (w < 0)
		o->failed = true;
	else
		o->n += w;
}

#define FLAG(o, a, field) line(o, #field, (a)->field, DEC)

/* The one-bit flags, in the order of the attr's bit field. */
static void flags(struct out *o, const struct perf_event_attr *a)
{
	FLAG(o, a, disabled);
	FLAG(o, a, inherit);
	FLAG(o, a, pinned);
	FLAG(o, a, exclusive);
	FLAG(o, a, exclude_user);
	FLAG(o, a, exclude_kernel);
	FLAG(o, a, exclude_hv);
	FLAG(o, a, exclude_idle);
	FLAG(o, a, mmap);
	FLAG(o, a, comm);
	FLAG(o, a, freq);
	FLAG(o, a, inherit_stat);
	FLAG(o, a, enable_on_exec);
	FLAG(o, a, task);
	FLAG(o, a, watermark);
	FLAG(o, a, precise_ip);
	FLAG(o, a, mmap_data);
	FLAG(o, a, sample_id_all);
	FLAG(o, a, exclude_host);
	FLAG(o, a, exclude_guest);
	FLAG(o, a, exclude_callchain_kernel);
	FLAG(o, a, exclude_callchain_user);
	FLAG(o, a, mmap2);
	FLAG(o, a, comm_exec);
	FLAG(o, a, use_clockid);
	FLAG(o, a, context_switch);
	FLAG(o, a, write_backward);
	FLAG(o, a, namespaces);
	FLAG(o, a, ksymbol);
	FLAG(o, a, bpf_event);
	FLAG(o, a, aux_output);
	FLAG(o, a, cgroup);
	FLAG(o, a, text_poke);
	FLAG(o, a, build_id);
	FLAG(o, a, inherit_thread);
	FLAG(o, a, remove_on_exec);
	FLAG(o, a, sigtrap);
}

int prec_attr__fprintf(FILE *f, const struct perf_event_attr *a)
{
	struct out o = { .f = f };

	if (fputs(RULE "perf_event_attr:\n", f) < 0)
		return -EIO;
	line(&o, "type", a->type, DEC);
	line(&o, "size", a->size, DEC);
	line(&o, "config", a->config, HEX);
	line(&o, "{ sample_period, sample_freq }", a->sample_period, DEC);
	line(&o, "sample_type", a->sample_type, SAMPLE);
	line(&o, "read_format", a->read_format, READ);
	flags(&o, a);
	line(&o, "{ wakeup_events, wakeup_watermark }", a->wakeup_events, DEC);
	line(&o, "bp_type", a->bp_type, DEC);
	line(&o, "{ bp_addr, config1 }", a->bp_addr, HEX);
	line(&o, "{ bp_len, config2 }", a->bp_len, HEX);
	line(&o, "branch_sample_type", a->branch_sample_type, BRANCH);
	line(&o, "sample_regs_user", a->sample_regs_user, HEX);
	line(&o, "sample_stack_user", a->sample_stack_user, DEC);
	line(&o, "clockid", (uint64_t)(int64_t)a->clockid, SIGNED);
	line(&o, "sample_regs_intr", a->sample_regs_intr, HEX);
	line(&o, "aux_watermark", a->aux_watermark, DEC);
	line(&o, "sample_max_stack", a->sample_max_stack, DEC);
	line(&o, "aux_sample_size", a->aux_sample_size, DEC);
	line(&o, "sig_data", a->sig_data, DEC);
	if (o.failed || fputs(RULE, f) < 0)
		return -EIO;
	return o.n + 2 * (int)strlen(RULE) + (int)strlen("perf_event_attr:\n");
}
