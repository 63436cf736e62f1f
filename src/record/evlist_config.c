// SPDX-License-Identifier: MIT
// The events' attrs: what perf record's options and each event's own
// terms make of the perf_event_attr every parsed event carries
// (sample_type, period or frequency, callchains, clock, wake-ups,
// inherit, enable_on_exec, the tracking event's side band, perf's group
// rules), and the user-space fallback that renames an event as perf does.
// Its own file because it is perf's evsel__config: one pass over the
// list, after parsing and before any open, that touches no descriptor.
#include "record/evlist_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/evlist_internal.h"
#include "record/internal.h"
#include "record/options.h"
#include "record/sample_regs.h"
#include "util/log.h"

uint64_t prec_evlist__sample_base(const struct prec_evlist *el)
{
	(void)el;
	return PREC_SAMPLE_BASE;
}

/* bpf-output: its samples carry what BPF programs write (RAW), one each */
/* perf's branch stack for --call-graph lbr (and call-graph=lbr) */
#define LBR_BRANCHES                                                                    \
	(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_NO_FLAGS | \
	 PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_HW_INDEX)

static bool is_bpf_output(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_BPF_OUTPUT;
}

static void config_period(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	struct perf_event_attr *a = &ev->attr;

	a->freq = 0;
	a->sample_period = ev->term_period;
	if (!ev->sampling) {
		if (!ev->term_period)
			a->sample_period = 1;
		return;
	}
	/* As perf: an event's period= term wins over -c and -F (period=0
	 * too: no period, no frequency). */
	if (ev->term_period || ev->terms.zero_period)
		return;
	if (o->period) {
		a->sample_period = o->period;
	} else if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else if (ev->default_period || is_bpf_output(a)) {
		/* as perf's evsel: a bpf-output attr (by its name or by a
		 * config= term, software/config=10/) samples each write,
		 * period 1 */
		a->sample_period = ev->default_period ? ev->default_period : 1;
	} else {
		a->freq = 1;
		a->sample_freq = PREC_RECORD_DEFAULT_FREQ;
	}
}

/* As perf: a sample carries its period where the period varies (frequency
 * mode; a tracepoint's hits, as perf's tracepoint events have it) or -P asks
 * for it. Not for a fixed period otherwise: a software event with PERIOD
 * and no freq is sampled by the kernel at every hit, with period 1,
 * whatever -c says (perf_swevent_event()). */
static bool wants_period(const struct prec_evsel *ev, const struct prec_record_opts *o)
{
	const struct perf_event_attr *a = &ev->attr;

	if (!ev->sampling)
		return false;
	/* as perf: a period= term drops PERIOD */
	if (ev->term_period || ev->terms.zero_period)
		return false;
	return a->freq || a->type == PERF_TYPE_TRACEPOINT || o->sample_period ||
	       is_bpf_output(a);
}

/* The callchain an event records: -g / --call-graph, unless its own
 * call-graph=, stack-size= or max-stack= terms say otherwise (as perf,
 * any of them replaces the global setting: stack-size= alone records
 * none, max-stack= alone frame pointers). */
struct chain {
	int mode;              /* enum prec_callgraph */
	uint32_t stack;
	uint16_t max;
};

static struct chain event_chain(const struct prec_evsel *ev, const struct prec_record_opts *o)
{
	const struct prec_evterms *t = &ev->terms;
	struct chain c = { o->callgraph, o->stack_size, o->max_stack };

	if (!ev->sampling)
		return (struct chain){ PREC_CG_NONE, 0, 0 };
	if (t->cg_failed || (t->callgraph < 0 && !t->stack_size && !t->max_stack))
		return c;
	c.mode = t->callgraph >= 0 ? t->callgraph : t->max_stack ? PREC_CG_FP : PREC_CG_NONE;
	/* the attr's 16 bits of perf's 32; call-graph='fp,N' over it */
	c.max = t->cg_max ? t->cg_max : (uint16_t)t->max_stack;
	c.stack = t->stack_size ? (t->stack_size + 7u) & ~7u :
		  t->cg_stack ? t->cg_stack : PREC_RECORD_DEFAULT_STACK;
	return c;
}

/* Whether an event's own call-graph=dwarf term asks for data addresses
 * (perf's sample_address for that event, whatever --no-data says). */
static bool own_dwarf(const struct prec_evsel *ev)
{
	return ev->sampling && !ev->terms.cg_failed && ev->terms.callgraph == PREC_CG_DWARF;
}

/* Whether some event samples data addresses (--data, which --call-graph
 * dwarf turns on and a later --no-data off, or an event's own dwarf
 * term), as perf's mmap_data goes with them: the tracking event then
 * maps data too, for the unwinder. */
static bool some_data(const struct prec_evlist *el, const struct prec_record_opts *o)
{
	if (o->data)
		return true;
	for (int i = 0; i < el->nr; i++)
		if (own_dwarf(&el->evsel[i]))
			return true;
	return false;
}

/* An event's own call graph terms over the global one, as perf's
 * evsel__apply_config_terms: the global's bits reset (--call-graph lbr's
 * branch stack, but for its NO_FLAGS|NO_CYCLES), then call-graph=lbr's
 * own, as --call-graph lbr's above. */
static void own_chain_branches(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	const struct prec_evterms *t = &ev->terms;
	struct perf_event_attr *a = &ev->attr;

	if (!ev->sampling || t->cg_failed || (t->callgraph < 0 && !t->stack_size && !t->max_stack))
		return;
	if (o->callgraph == PREC_CG_LBR) {
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type &= ~(uint64_t)(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
						     PERF_SAMPLE_BRANCH_HW_INDEX);
	}
	if (t->callgraph == PREC_CG_LBR && !o->sample.branch_type && !a->exclude_user) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = LBR_BRANCHES;
	}
}

/* perf's terms over the options, as perf applies them after its config:
 * freq=, inherit / no-inherit, branch_type=; period= (config_period)
 * drops PERIOD. A
 * time=0 term keeps TIME: prec's merge orders every record by it
 * (docs/events.md). */
static void apply_terms(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	struct perf_event_attr *a = &ev->attr;

	if ((ev->terms.freq || ev->terms.zero_freq) && ev->sampling) {
		a->freq = 1;
		a->sample_freq = ev->terms.freq;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (ev->terms.inherit >= 0)
		a->inherit = (unsigned)ev->terms.inherit;
	if (ev->terms.branch.last >= 0) {
		uint64_t type = a->sample_type, bst = a->branch_sample_type;

		prec_branch_terms__apply(&ev->terms.branch, &type, &bst);
		a->sample_type = type;
		a->branch_sample_type = bst;
	}
	own_chain_branches(ev, o);
	if (!ev->terms.time)
		pr_warn("event '%s': time=0 ignored: prec's merge needs every record's time", ev->name);
	(void)o;
}

/* -W's bit, as perf 6.1's arch hook picks it: x86's load-latency events
 * fill the two-part WEIGHT_STRUCT, every other architecture (arm64 too)
 * asks for the plain u64 WEIGHT */
static uint64_t weight_bit(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return PERF_SAMPLE_WEIGHT_STRUCT;
#else
	return PERF_SAMPLE_WEIGHT;
#endif
}

/* perf record's options for what a sample carries, on the events that
 * sample, as perf's evsel__config sets them. */
static void config_sample_opts(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	const struct prec_sample_opts *so = &o->sample;
	struct perf_event_attr *a = &ev->attr;
	uint64_t branch = so->branch_type;

	/* --call-graph lbr, as perf's: the call stack from the branch stack
	 * unless -b/-j asks for that (perf then falls back to frame
	 * pointers) or the event counts no user space (:k) */
	if (o->callgraph == PREC_CG_LBR && ev->sampling && !branch && !a->exclude_user)
		branch = LBR_BRANCHES;
	if (o->callgraph != PREC_CG_NONE && ev->sampling) {
		if (so->kernel_callchains)
			a->exclude_callchain_user = 1;
		if (so->user_callchains)
			a->exclude_callchain_kernel = 1;
	}
	if (branch) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = branch;
	}
	if (so->regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = so->regs_intr;
	}
	if (so->regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= so->regs_user;
	}
	if (so->weight)
		a->sample_type |= weight_bit();
	if (so->transaction)
		a->sample_type |= PERF_SAMPLE_TRANSACTION;
	if (so->phys_data)
		a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (so->data_page_size)
		a->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (so->code_page_size)
		a->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (so->raw)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (so->running_time)
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->inherit_stat = so->inherit_stat;
	if (so->no_samples && ev->sampling) {
		/* perf -n: the counter runs, nothing samples (its freq bit
		 * stays, with no rate) */
		a->sample_period = 0;
	}
}

/* The side band the tracking event asks the kernel for. */
static void config_tracking(struct perf_event_attr *a, const struct prec_record_opts *o,
			    bool data)
{
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	/* Only when asked, as perf: the kernel ORs the build-id flag into
	 * an MMAP2 header it then reuses for every other event the mmap is
	 * reported to, whose record carries maj/min/ino under that flag
	 * (docs/events.md, "build_id"). The files give the ids instead. */
	a->build_id = o->buildid_mmap;
	/* As perf with data addresses (dwarf's, unless --no-data): its
	 * unwinder reads the binaries' non-code segments (.eh_frame_hdr...)
	 * through the maps it knows, and without these it stops after one
	 * frame. */
	a->mmap_data = data;
	/* As perf --all-cgroups: CGROUP records for cgroups made meanwhile. */
	a->cgroup = o->all_cgroups;
	if (o->switch_events)
		a->context_switch = 1;
	a->namespaces = o->namespaces;
	/* As perf: BPF programs (and other kernel text) that come and go
	 * during the recording get a symbol, so samples in them resolve;
	 * --no-bpf-event leaves the programs' load records (BPF_EVENT) out,
	 * not their symbols. */
	a->ksymbol = 1;
	a->bpf_event = !o->no_bpf_event;
}

/* perf's group rules, once every attr is set: a member is enabled and
 * disabled with its leader (its own disabled and enable_on_exec 0); with
 * :S each event's samples read the whole group (read_format GROUP, no
 * inherit: the kernel refuses inherited group reads) and a member led by
 * a :S leader takes no samples of its own, its sample_type the leader's
 * (its period= or freq= term giving it a period, not a sample_type of its
 * own, as perf 6.1 does it). */
static void config_group(struct prec_evlist *el, struct prec_evsel *ev)
{
	struct perf_event_attr *a = &ev->attr;
	const struct prec_evsel *l;

	if (ev->leader < 0)
		return;
	l = &el->evsel[ev->leader];
	if (ev->sample_read && l->nr_members > 1) {
		a->read_format |= PERF_FORMAT_GROUP;
		a->inherit = 0;
	}
	if (l == ev)
		return;
	a->disabled = 0;
	a->enable_on_exec = 0;
	if (l->sample_read) {
		a->freq = 0;
		a->sample_freq = 0;
		a->write_backward = 0;
		a->sample_type = l->attr.sample_type;
		/* As perf: but for the member's own period= or freq=, which
		 * set its period and not its sample_type (perf sets the
		 * leader's after the terms) */
		if (ev->term_period) {
			a->sample_period = ev->term_period;
		} else if (ev->terms.freq) {
			a->freq = 1;
			a->sample_freq = ev->terms.freq;
		}
	}
}

/* The user registers of a dwarf call chain, as perf's
 * evsel__config_callchain: all of them, but where --user-regs names some
 * (on arm64 also -g's lr) only the two an unwinder cannot do without,
 * to which the named ones are added later (config_sample_opts), with
 * perf's warning, once per event as perf's. */
static uint64_t dwarf_regs(const struct prec_record_opts *o)
{
	uint64_t all = prec_sample_regs__user_default();
	uint64_t least = prec_sample_regs__dwarf_minimal();

	if (!o->sample.regs_user || least == all)
		return all;
	pr_warn("The use of --call-graph=dwarf may require all the user registers, specifying a subset with --user-regs may render DWARF unwinding unreliable, so the minimal registers set (IP, SP) is explicitly forced.");
	return least;
}

void prec_evlist__config(struct prec_evlist *el,
			 const struct prec_record_opts *o, bool workload,
			 bool inherit)
{
	long ps = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < el->nr; i++) {
		struct prec_evsel *ev = &el->evsel[i];
		struct perf_event_attr *a = &ev->attr;
		struct chain chain;
		bool own_over_dwarf = false;
		size_t pages;

		a->size = PERF_ATTR_SIZE_VER7;
		a->sample_type = prec_evlist__sample_base(el);
		/* not tracepoint/config=N/, a PMU event for perf */
		if ((a->type == PERF_TYPE_TRACEPOINT && !ev->pmu) || is_bpf_output(a))
			a->sample_type |= PERF_SAMPLE_RAW;
		/* Only tells perf report that SPE samples carry memory info
		 * (as perf sets it); not in the sample_id trailer. */
		if (ev->aux == PREC_AUX_ARM_SPE)
			a->sample_type |= PERF_SAMPLE_DATA_SRC;
		chain = event_chain(ev, o);
		if (chain.mode != PREC_CG_NONE) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			a->sample_max_stack = chain.max;
		}
		/* As perf's evsel__config on its own dummy (-a, -C): -g's
		 * callchain bit on the tracking dummy too. perf sched timehist
		 * drops every event's chains when one event has none ("Samples
		 * do not have callchains."); the dummy samples nothing, so no
		 * record changes. */
		if (ev->tracking && o->callgraph != PREC_CG_NONE) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			a->sample_max_stack = o->max_stack;
		}
		if (chain.mode == PREC_CG_DWARF) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = dwarf_regs(o);
			a->sample_stack_user = chain.stack;
			a->exclude_callchain_user = 1;
		} else if (o->callgraph == PREC_CG_DWARF && ev->sampling) {
			/* As perf: an event's own call-graph=, stack-size= or
			 * max-stack= over --call-graph dwarf resets the dwarf
			 * sample bits only; the registers, the stack size and
			 * exclude_callchain_user stay as the global set them */
			a->sample_regs_user = dwarf_regs(o);
			a->sample_stack_user = o->stack_size;
			a->exclude_callchain_user = 1;
			own_over_dwarf = true;
		}
		/* As perf: an event's own dwarf callchain samples the data
		 * address too; --call-graph dwarf does it through --data
		 * (perf's sample_address: every event, whatever its own
		 * terms, unless a later --no-data), which perf config's
		 * dwarf under -g leaves off, as perf's (options_perfconfig.h). */
		if (own_dwarf(ev))
			a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		config_period(ev, o);
		if (wants_period(ev, o))
			a->sample_type |= PERF_SAMPLE_PERIOD;
		/* After TIME in a SAMPLE, outside the sample_id trailer: the
		 * time layout stays the session's. DATA_SRC with ADDR, as
		 * perf 6.1's -d (perf mem and c2c read both). */
		if (ev->sampling && o->data)
			a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		if (ev->sampling && o->all_cgroups)
			a->sample_type |= PERF_SAMPLE_CGROUP;
		/* --aux-sample (aux_mode.c): the group's AUX bytes */
		if (a->aux_sample_size)
			a->sample_type |= PERF_SAMPLE_AUX;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		if (!ev->tracking)
			config_sample_opts(ev, o);
		/* perf resets the global dwarf's sample bits after it added
		 * --user-regs' REGS_USER (evsel__reset_callgraph): the bit
		 * goes, the registers stay */
		if (own_over_dwarf)
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_REGS_USER;
		a->sample_id_all = 1;
		a->disabled = 1;
		a->inherit = inherit;
		a->enable_on_exec = workload && !o->all_cpus;
		a->watermark = 1;
		/* A quarter of the event's own ring (prec_evlist__channels). */
		pages = ev->overwrite ? el->flight_pages : el->drain_pages;
		if (!pages)
			pages = o->mmap_pages;
		a->wakeup_watermark = (uint32_t)(pages * (size_t)ps / 4);
		/* perf --no-buffering: a wakeup per record */
		if (o->sample.no_buffering && !ev->tracking) {
			a->watermark = 0;
			a->wakeup_events = 1;
		}
		a->write_backward = ev->overwrite;
		/* The perf clock is what the kernel uses without use_clockid. */
		a->use_clockid = o->clockid != PREC_CLOCK_PERF;
		a->clockid = a->use_clockid ? o->clockid : 0;
		if (ev->sample_read)
			a->sample_type |= PERF_SAMPLE_READ;
		/* :P: the most precise the PMU takes (the open lowers it) */
		if (ev->precise_max)
			a->precise_ip = 3;
		if (ev->tracking)
			config_tracking(a, o, some_data(el, o));
		else if (o->all_user || o->all_kernel) {
			/* As perf: over any modifier (the tracking dummy
			 * counts nothing, and its side band does not care). */
			a->exclude_kernel = o->all_user;
			a->exclude_user = o->all_kernel;
		}
		apply_terms(ev, o);
	}
	for (int i = 0; i < el->nr; i++)
		config_group(el, &el->evsel[i]);
}

/* perf's new name for an event it fell back to user space for: ":u"
 * after the name, or "u" after modifiers or a pmu/.../ already there. */
static int name_user(struct prec_evsel *ev)
{
	const char *sep = strchr(ev->name, '/') || strchr(ev->name, ':') ? "" : ":";
	size_t len = strlen(ev->name) + strlen(sep) + 2;
	char *n = malloc(len);

	if (!n)
		return -ENOMEM;
	snprintf(n, len, "%s%su", ev->name, sep);
	free(ev->name);
	ev->name = n;
	return 0;
}

int prec_evlist__user_only(struct prec_evlist *el)
{
	int changed = 0;

	for (int i = 0; i < el->nr; i++) {
		struct prec_evsel *ev = &el->evsel[i];
		struct perf_event_attr *a = &ev->attr;

		/* An event of the kernel alone (:k, --all-kernel) stays as
		 * asked: its open then says what it needs. */
		if (a->exclude_kernel || a->exclude_user)
			continue;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		if (ev->tracking)
			continue;
		if (name_user(ev))
			return -ENOMEM;
		changed++;
	}
	return changed;
}

bool prec_evlist__exclude_kernel(const struct prec_evlist *el)
{
	for (int i = 0; i < el->nr; i++)
		if (!el->evsel[i].attr.exclude_kernel)
			return false;
	return true;
}

void prec_evlist__delay_enable(struct prec_evlist *el)
{
	for (int i = 0; i < el->nr; i++)
		if (!el->evsel[i].tracking)
			el->evsel[i].attr.enable_on_exec = 0;
}
