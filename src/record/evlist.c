// SPDX-License-Identifier: MIT
// The event list: the events of the -e arguments (each parsed by
// event_parse.c) and the tracking dummy; the channel each event writes to
// and the attr bits every prec event shares; the AUX event, which owns each
// CPU's ring (the kernel maps an AUX area only on a fd whose PMU has one,
// and every other event on the CPU follows it with SET_OUTPUT), its area's
// size, the switch records a decoder needs, cs_etm's per-CPU checks and the
// manifest's AUXTRACE_INFO words; opening: one fd per (event, CPU, task),
// one ring per CPU and channel (drained; flight) owned by the first fd
// opened into it, SET_OUTPUT for the rest, ids, filters, enable/disable,
// and the PERF_FORMAT_LOST counts at the end.
#include "record/evlist.h"
#include "record/sample_regs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/aux_mode.h"
#include "record/auxpmu.h"
#include "record/cs_etm.h"
#include "record/event_parse.h"
#include "record/internal.h"
#include "record/options.h"
#include "record/perfclock.h"
#include "record/perm.h"
#include "record/pmu_sysfs.h"
#include "record/ring.h"
#include "record/tracefs.h"
#include "store/store.h"
#include "util/buildid.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/log.h"

/* ---- the events ---- */

static struct prec_evsel *new_evsel(struct prec_evlist *el, const char *name)
{
	struct prec_evsel *n = realloc(el->evsel, (size_t)(el->nr + 1) * sizeof(*n));

	if (!n)
		return NULL;
	el->evsel = n;
	n += el->nr;
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return NULL;
	n->attr.size = PERF_ATTR_SIZE_VER7;
	n->sampling = true;
	n->midx = -1;
	n->spec = -1;
	n->cgroup_fd = -1;
	/* As perf's new events: the host only, until a modifier says. */
	n->attr.exclude_guest = 1;
	n->terms.inherit = n->terms.time = n->terms.callgraph = -1;
	n->leader = -1;
	el->nr++;
	return n;
}

/* One item of an -e list: a tracepoint glob's matches (each in turn, as
 * perf takes them), else one event. */
static int add_one(struct prec_evlist *el, const char *full, const char *root)
{
	struct prec_evsel *ev;
	char **items;
	int n = prec_event__expand(full, &items), err = 0;

	if (n < 0)
		return n;
	if (n > 0) {
		for (int i = 0; i < n && !err; i++)
			err = add_one(el, items[i], root);
		prec_tracefs__free_list(items, n);
		return err;
	}
	ev = new_evsel(el, full);
	if (!ev)
		return -ENOMEM;
	return prec_event__parse(ev, full, root);
}

/* Events [first, el->nr) one group, led by the first; mods (after the
 * closing brace, or NULL) over each member's own, as perf's group
 * modifiers. Returns 0 or -EINVAL after one line. */
static int close_group(struct prec_evlist *el, int first, const char *text,
		       const char *mods)
{
	if (first >= el->nr) {
		pr_err("event list '%s': empty group {}", text);
		return -EINVAL;
	}
	for (int i = first; i < el->nr; i++) {
		el->evsel[i].leader = first;
		if (mods && prec_event__modify(&el->evsel[i], text, mods, true, i == first))
			return -EINVAL;
	}
	el->evsel[first].nr_members = el->nr - first;
	return 0;
}

void prec_evlist__group_all(struct prec_evlist *el)
{
	int first = -1;

	for (int i = 0; i < el->nr; i++) {
		if (el->evsel[i].tracking)
			continue;
		if (first < 0)
			first = i;
		el->evsel[i].leader = first;
		el->evsel[i].nr_members = 0;
	}
	if (first >= 0)
		el->evsel[first].nr_members = el->nr - first;
}

/* One item of the list, a group's braces cut: "{" opens one (at
 * *group), "}" or "}:mods" closes it. */
static int add_item(struct prec_evlist *el, const char *text, char *item,
		    const char *root, int *group)
{
	char *close = strchr(item, '}');
	const char *mods = NULL;
	int err;

	if (*item == '{') {
		if (*group >= 0) {
			pr_err("event list '%s': a group inside a group", text);
			return -EINVAL;
		}
		*group = el->nr;
		item++;
	}
	if (close) {
		if (*group < 0 || (close[1] && (close[1] != ':' || !close[2]))) {
			pr_err("event list '%s': '}' without its '{', or not followed by :modifiers",
			       text);
			return -EINVAL;
		}
		*close = 0;
		mods = close[1] ? close + 2 : NULL;
	}
	if (!*item) {
		pr_err("event list '%s': empty event name", text);
		return -EINVAL;
	}
	err = add_one(el, item, root);
	if (err < 0 || !close)
		return err;
	err = close_group(el, *group, text, mods);
	*group = -1;
	return err;
}

int prec_evlist__add(struct prec_evlist *el, const char *text,
		     const char *filter, const char *pmu_root)
{
	const char *p = text, *start = text;
	int slashes = 0, err = 0, first = el->nr, group = -1;

	if (!*text) {
		pr_err("event '': empty event list");
		return -EINVAL;
	}
	el->pmu_root = pmu_root ? pmu_root : PREC_PMU_ROOT;
	/* Split on commas outside pmu/.../ */
	for (;; p++) {
		char item[1024];
		size_t len;

		if (*p == '/')
			slashes++;
		if (*p && (*p != ',' || slashes % 2))
			continue;
		len = (size_t)(p - start);
		if (!len || len >= sizeof(item)) {
			pr_err("event list '%s': empty or too long event name", text);
			return -EINVAL;
		}
		memcpy(item, start, len);
		item[len] = 0;
		err = add_item(el, text, item, pmu_root ? pmu_root : PREC_PMU_ROOT, &group);
		if (err < 0 || !*p)
			break;
		start = p + 1;
	}
	if (!err && group >= 0) {
		pr_err("event list '%s': group '{' without its '}'", text);
		err = -EINVAL;
	}
	if (err < 0 || !filter)
		return err;
	/* Like perf, --filter applies to every event of the -e before it (a
	 * list or a glob), which must all be tracepoints. */
	for (int i = first; i < el->nr; i++)
		if (el->evsel[i].attr.type != PERF_TYPE_TRACEPOINT) {
			pr_err("option --filter '%s': '%s' of the -e before it is not a tracepoint",
			       filter, el->evsel[i].name);
			return -EINVAL;
		}
	for (int i = first; i < el->nr; i++) {
		el->evsel[i].filter = strdup(filter);
		if (!el->evsel[i].filter)
			return -ENOMEM;
	}
	return 0;
}

int prec_evlist__mark_exclude_self(struct prec_evlist *el, int spec)
{
	for (int i = 0; i < el->nr; i++) {
		if (el->evsel[i].spec != spec)
			continue;
		if (el->evsel[i].attr.type != PERF_TYPE_TRACEPOINT) {
			pr_err("option --exclude-perf: '%s' of the -e before it is not a tracepoint (the exclusion is a tracepoint filter, as perf's)",
			       el->evsel[i].name);
			return -EINVAL;
		}
		el->evsel[i].exclude_self = true;
	}
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* "comm != "prec-bid" && common_pid != A && (common_pid < B || common_pid
 * > C) ..." for tids (sorted here), runs of consecutive ids (the drainers,
 * started one after the other, usually are) as one range; the build-id
 * readers, started later, by their name. Returns the length or -E2BIG. */
static int tids_filter(char *buf, size_t size, pid_t *tids, int nr)
{
	size_t n;

	qsort(tids, (size_t)nr, sizeof(*tids), cmp_tid);
	n = (size_t)snprintf(buf, size, "comm != \"%s\"", PREC_BUILDID_THREAD_NAME);
	for (int i = 0; i < nr;) {
		int j = i;
		int w;

		while (j + 1 < nr && tids[j + 1] <= tids[j] + 1)
			j++;
		if (tids[i] == tids[j])
			w = snprintf(buf + n, size - n, "%scommon_pid != %d", n ? " && " : "",
				     (int)tids[i]);
		else
			w = snprintf(buf + n, size - n, "%s(common_pid < %d || common_pid > %d)",
				     n ? " && " : "", (int)tids[i], (int)tids[j]);
		if (w < 0 || (size_t)w >= size - n)
			return -E2BIG;
		n += (size_t)w;
		i = j + 1;
	}
	return (int)n;
}

/* The kernel copies a filter of at most a page, its NUL included. */
#define FILTER_MAX 4096

int prec_evlist__exclude_tids(struct prec_evlist *el, const pid_t *tids, int nr)
{
	char own[FILTER_MAX], all[FILTER_MAX];
	pid_t *sorted;
	int len;

	if (nr <= 0)
		return 0;
	sorted = malloc((size_t)nr * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, tids, (size_t)nr * sizeof(*sorted));
	len = tids_filter(own, sizeof(own), sorted, nr);
	free(sorted);
	for (int e = 0; e < el->nr; e++) {
		const struct prec_evsel *ev = &el->evsel[e];
		int w;

		if (!ev->exclude_self)
			continue;
		/* as perf appends a filter to one there: (old) && (new) */
		w = len < 0 ? -1 : ev->filter ?
		    snprintf(all, sizeof(all), "(%s) && (%s)", ev->filter, own) :
		    snprintf(all, sizeof(all), "%s", own);
		if (w < 0 || (size_t)w >= sizeof(all)) {
			pr_err("option --exclude-perf: '%s': the filter naming prec's %d threads is longer than the kernel takes (%d bytes)",
			       ev->name, nr, FILTER_MAX - 1);
			return -E2BIG;
		}
		for (int i = 0; i < el->nr_cpus * el->nr_tasks; i++) {
			int fd = el->fds[(size_t)e * (size_t)el->nr_cpus * (size_t)el->nr_tasks + (size_t)i];

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, all)) {
				int err = -errno;

				pr_err("option --exclude-perf: '%s': filter '%s': %s", ev->name, all,
				       strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

int prec_evlist__add_pfm(struct prec_evlist *el, const char *text)
{
	const char *p = text;
	int group = -1, err = 0;

	/* perf's split: events between commas and braces, '{' opens a
	 * group, '}' closes it (no modifiers: libpfm4's are in the names) */
	while (*p && !err) {
		size_t len = strcspn(p, ",{}");
		char item[1024];
		struct prec_evsel *ev;

		if (len >= sizeof(item)) {
			pr_err("option --pfm-events '%s': event name too long", text);
			return -EINVAL;
		}
		if (len) {
			memcpy(item, p, len);
			item[len] = 0;
			ev = new_evsel(el, item);
			err = ev ? prec_event__parse_pfm(ev, item) : -ENOMEM;
		}
		p += len;
		if (err || !*p)
			break;
		if (*p == '{' && group >= 0) {
			pr_err("option --pfm-events '%s': nested event groups are not supported", text);
			return -EINVAL;
		}
		if (*p == '}' && group < 0) {
			pr_err("option --pfm-events '%s': '}' closes no group", text);
			return -EINVAL;
		}
		if (*p == '{')
			group = el->nr;
		else if (*p == '}') {
			if (group < el->nr)
				err = close_group(el, group, text, NULL);
			group = -1;
		}
		p++;
	}
	if (!err && group >= 0) {
		pr_err("option --pfm-events '%s': group '{' without its '}'", text);
		err = -EINVAL;
	}
	return err;
}

int prec_evlist__add_tracking(struct prec_evlist *el)
{
	struct prec_evsel *ev = new_evsel(el, "dummy"), tmp;

	if (!ev)
		return -ENOMEM;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_DUMMY;
	ev->tracking = true;
	ev->sampling = false;
	tmp = *ev;
	memmove(el->evsel + 1, el->evsel, (size_t)(el->nr - 1) * sizeof(*ev));
	el->evsel[0] = tmp;
	for (int i = 1; i < el->nr; i++)
		if (el->evsel[i].leader >= 0)
			el->evsel[i].leader++;
	return 0;
}

/* The side-band ring in pages of this machine: a power of two, >= 1. */
static size_t sideband_pages(size_t page_size)
{
	size_t n = 1;

	while (n * page_size < PREC_RECORD_SIDEBAND_RING)
		n *= 2;
	return n;
}

int prec_evlist__channels(struct prec_evlist *el, const struct prec_record_opts *o)
{
	long ps = sysconf(_SC_PAGESIZE);
	bool drained = false;
	int n = 0;

	for (int i = 0; i < el->nr; i++) {
		struct prec_evsel *ev = &el->evsel[i];

		/* The tracking event never: its records name the tasks and
		 * maps every later sample needs, over the whole recording. */
		ev->overwrite = !ev->tracking &&
				(ev->ow_term == PREC_OW_ON ||
				 (ev->ow_term == PREC_OW_DEFAULT && o->overwrite && ev->sampling));
		n += ev->overwrite;
		drained |= !ev->overwrite && !ev->tracking && ev->sampling;
	}
	el->overwrite = n > 0;
	el->drain_pages = o->mmap_pages;
	el->flight_pages = n ? o->mmap_pages : 0;
	if (!n)
		return 0;
	if (el->aux_bytes) {
		pr_err("event '%s': an AUX area event cannot be in a flight recording (an event with overwrite): -S is the flight recorder of an AUX area",
		       el->evsel[el->aux_owner].name);
		return -EINVAL;
	}
	/* Only the side band left to drain: its own small ring. */
	if (!drained)
		el->drain_pages = sideband_pages(ps > 0 ? (size_t)ps : 4096);
	return n;
}

uint64_t prec_evlist__now(const struct prec_evlist *el, int clockid)
{
	if (clockid != PREC_CLOCK_PERF)
		return prec_now_ns(clockid);
	return el->rings && el->nr_cpus ? prec_perfclock__now(el->rings[0].page) : 0;
}

uint64_t prec_evlist__sample_base(const struct prec_evlist *el)
{
	(void)el;
	return PREC_SAMPLE_BASE;
}

/* bpf-output: its samples carry what BPF programs write (RAW), one each */
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
	/* As perf: an event's period= term wins over -c and -F. */
	if (ev->term_period)
		return;
	if (o->period) {
		a->sample_period = o->period;
	} else if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else if (ev->default_period) {
		a->sample_period = ev->default_period;
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
	if (ev->term_period) /* as perf: a period= term drops PERIOD */
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
	struct chain c = { o->callgraph, o->stack_size, 0 };

	if (!ev->sampling)
		return (struct chain){ PREC_CG_NONE, 0, 0 };
	if (t->callgraph < 0 && !t->stack_size && !t->max_stack)
		return c;
	c.mode = t->callgraph >= 0 ? t->callgraph : t->max_stack ? PREC_CG_FP : PREC_CG_NONE;
	c.max = t->max_stack;
	c.stack = t->stack_size ? (t->stack_size + 7u) & ~7u : PREC_RECORD_DEFAULT_STACK;
	return c;
}

/* Whether some event records DWARF callchains: the tracking event then
 * maps data too, for the unwinder. */
static bool some_dwarf(const struct prec_evlist *el, const struct prec_record_opts *o)
{
	for (int i = 0; i < el->nr; i++)
		if (event_chain(&el->evsel[i], o).mode == PREC_CG_DWARF)
			return true;
	return false;
}

/* perf's terms over the options, as perf applies them after its config:
 * freq=, inherit / no-inherit; period= (config_period) drops PERIOD. A
 * time=0 term keeps TIME: prec's merge orders every record by it
 * (docs/events.md). */
static void apply_terms(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	struct perf_event_attr *a = &ev->attr;

	if (ev->terms.freq && ev->sampling) {
		a->freq = 1;
		a->sample_freq = ev->terms.freq;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (ev->terms.inherit >= 0)
		a->inherit = (unsigned)ev->terms.inherit;
	if (!ev->terms.time)
		pr_warn("event '%s': time=0 ignored: prec's merge needs every record's time", ev->name);
	(void)o;
}

/* perf record's options for what a sample carries, on the events that
 * sample, as perf's evsel__config sets them. */
static void config_sample_opts(struct prec_evsel *ev, const struct prec_record_opts *o)
{
	const struct prec_sample_opts *so = &o->sample;
	struct perf_event_attr *a = &ev->attr;
	uint64_t branch = so->branch_type;

	if (o->callgraph == PREC_CG_LBR && ev->sampling) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		branch = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
			 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
			 PERF_SAMPLE_BRANCH_HW_INDEX;
	}
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
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
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
			    bool dwarf)
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
	/* As perf for dwarf: its unwinder reads the binaries' non-code
	 * segments (.eh_frame_hdr...) through the maps it knows, and without
	 * these it stops after one frame. */
	a->mmap_data = dwarf || o->data;
	/* As perf --all-cgroups: CGROUP records for cgroups made meanwhile. */
	a->cgroup = o->all_cgroups;
	if (o->switch_events)
		a->context_switch = 1;
	a->namespaces = o->namespaces;
	/* As perf: BPF programs (and other kernel text) that come and go
	 * during the recording get a symbol, so samples in them resolve. */
	a->ksymbol = !o->no_bpf_event;
	a->bpf_event = !o->no_bpf_event;
}

/* perf's group rules, once every attr is set: a member is enabled and
 * disabled with its leader (its own disabled and enable_on_exec 0); with
 * :S each event's samples read the whole group (read_format GROUP, no
 * inherit: the kernel refuses inherited group reads) and a member led by
 * a :S leader takes no samples of its own, its sample_type the leader's,
 * unless its period= or freq= term says otherwise (perf's attr case
 * test-record-group2). */
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
		/* As perf: but for the member's own period= or freq= (its
		 * config terms come after this) */
		if (ev->term_period) {
			a->sample_period = ev->term_period;
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
		} else if (ev->terms.freq) {
			a->freq = 1;
			a->sample_freq = ev->terms.freq;
			a->sample_type |= PERF_SAMPLE_PERIOD;
		}
	}
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
		if (chain.mode == PREC_CG_DWARF) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = prec_sample_regs__user_default();
			a->sample_stack_user = chain.stack;
			a->exclude_callchain_user = 1;
		}
		/* As perf: a dwarf callchain samples the data address too. */
		if (chain.mode == PREC_CG_DWARF)
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
			config_tracking(a, o, some_dwarf(el, o));
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

/* ---- the AUX event ---- */

/* perf's "privileged" for AUX sizes: root, or perf_event_paranoid -1. */
static bool privileged(void)
{
	FILE *f;
	int v = 2;

	if (!geteuid())
		return true;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v <= -1;
}

static int find_owner(const struct prec_evlist *el)
{
	int owner = -1;

	for (int e = 0; e < el->nr; e++) {
		if (!el->evsel[e].aux)
			continue;
		if (owner >= 0) {
			pr_err("events '%s' and '%s': only one AUX area event per recording",
			       el->evsel[owner].name, el->evsel[e].name);
			return -EINVAL;
		}
		owner = e;
	}
	return owner;
}

/* A decoder follows threads through context switches: the tracking event
 * records them (CPU-wide with -a/-C: perf's have_sched_switch 3; per task
 * otherwise: 2). intel_pt only needs them when it has timestamps (tsc);
 * perf 6.1 asks for them with cs_etm and arm_spe always. */
static void track_switches(struct prec_evlist *el, const struct prec_evsel *ev,
			   const struct prec_record_opts *o)
{
	if (ev->aux == PREC_AUX_INTEL_PT &&
	    !(ev->attr.config & prec_pmu_sysfs__format_mask(el->pmu_root, ev->pmu, "tsc")))
		return;
	for (int e = 0; e < el->nr; e++)
		if (el->evsel[e].tracking)
			el->evsel[e].attr.context_switch = 1;
	el->have_sched_switch = o->all_cpus ? 3 : 2;
}

/* perf 6.1 reads every recorded CPU's ETM registers when the recording
 * starts and refuses options the ETM cannot do; prec does both before any
 * event is opened, so a missing file is one line and no recording. */
static int cs_etm_check(const struct prec_evlist *el, const struct prec_evsel *ev,
			const struct prec_record_opts *o)
{
	struct prec_auxpmu_src s = { .root = el->pmu_root, .pmu = ev->pmu,
				     .config = ev->attr.config,
				     .cpus = o->cpus, .nr_cpus = o->nr_cpus };
	int *online = NULL, err;

	if (!o->cpus) {
		s.nr_cpus = prec_cpu_list__online(&online);
		if (s.nr_cpus <= 0) {
			pr_err("/sys/devices/system/cpu/online: cannot read the online CPUs");
			return s.nr_cpus < 0 ? s.nr_cpus : -ENODEV;
		}
		s.cpus = online;
	}
	err = prec_cs_etm__check(&s, ev->name);
	free(online);
	return err;
}

int prec_evlist__aux_setup(struct prec_evlist *el,
			   const struct prec_record_opts *o)
{
	int owner = find_owner(el);
	const struct prec_evsel *ev;
	int64_t bytes64;
	size_t bytes;

	if (owner < 0)
		return owner == -1 ? 0 : owner;
	ev = &el->evsel[owner];
	if (ev->aux != PREC_AUX_INTEL_PT && ev->aux != PREC_AUX_ARM_SPE &&
	    ev->aux != PREC_AUX_CS_ETM) {
		pr_err("event '%s': PMU '%s' writes an AUX area whose AUXTRACE_INFO prec does not write (intel_pt, arm_spe and cs_etm only)",
		       ev->name, ev->pmu);
		return -EINVAL;
	}
	if (o->overwrite) {
		pr_err("event '%s': --overwrite cannot be combined with an AUX area event (-S is the flight recorder of an AUX area)",
		       ev->name);
		return -EINVAL;
	}
	bytes64 = prec_aux_mode__bytes(el, owner, o, prec_auxpmu__default_bytes(privileged()));
	if (bytes64 < 0)
		return (int)bytes64;
	bytes = (size_t)bytes64;
	if (ev->aux == PREC_AUX_CS_ETM) {
		int err = cs_etm_check(el, ev, o);

		if (err)
			return err;
	}
	el->aux_owner = owner;
	el->aux_bytes = bytes;
	track_switches(el, ev, o);
	return 0;
}

int prec_evlist__aux_clock(const struct prec_evlist *el,
			   const struct prec_record_opts *o)
{
	const struct prec_evsel *ev;

	if (!el->aux_bytes)
		return 0;
	ev = &el->evsel[el->aux_owner];
	/* perf decodes PT packet times with the control page's TSC
	 * conversion, i.e. onto its own clock, and refuses -k with intel_pt:
	 * records on any other clock would not line up with them. perf 6.1
	 * refuses -k with cs_etm too. */
	if ((ev->aux == PREC_AUX_INTEL_PT || ev->aux == PREC_AUX_CS_ETM) &&
	    o->clock_set && o->clockid != PREC_CLOCK_PERF) {
		pr_err("option -k: event '%s' records on the perf clock its trace is decoded on (as perf, which refuses -k with %s): leave -k out",
		       ev->name, ev->pmu);
		return -EINVAL;
	}
	/* SPE times reach the perf clock through TIME_CONV; perf allows -k
	 * there, so only say what it costs. */
	if (o->clock_set && o->clockid != PREC_CLOCK_PERF) {
		pr_warn("event '%s': its trace is decoded on the perf clock, the records on the -k clock: their times will not line up",
			ev->name);
		return 0;
	}
	if (o->markers) {
		pr_err("option --markers: event '%s' records on the perf clock, which markers cannot follow (prec reads no perf clock for their watermarks)",
		       ev->name);
		return -EINVAL;
	}
	return 1;
}

void prec_evlist__open_order(const struct prec_evlist *el, int *order)
{
	int owner = el->aux_bytes ? el->aux_owner : 0, n = 0;

	order[n++] = owner;
	for (int e = 0; e < el->nr; e++)
		if (e != owner)
			order[n++] = e;
}

static void set_info(struct prec_manifest *m, uint32_t type, uint64_t *priv,
		     uint32_t nr)
{
	free(m->auxtrace_priv);
	m->auxtrace_priv = priv;
	m->nr_auxtrace_priv = nr;
	m->auxtrace_type = type;
}

/* cs_etm's words name the CPUs opened, and a register that stopped
 * reading since the check is named too. */
static int cs_etm_info(const struct prec_evlist *el, const struct prec_evsel *ev,
		       struct prec_auxpmu_src *src, struct prec_manifest *m)
{
	char bad[4096] = "";
	uint64_t *priv;
	uint32_t nr;
	int err;

	src->cpus = el->cpus;
	src->nr_cpus = el->nr_cpus;
	src->config = ev->attr.config;
	err = prec_cs_etm__info(src, &priv, &nr, bad, sizeof(bad));
	if (err) {
		/* bad names the register file; ENOMEM and friends have none */
		pr_err("event '%s': AUXTRACE_INFO for PMU '%s': %s%s%s", ev->name,
		       ev->pmu, bad, bad[0] ? ": " : "", strerror(-err));
		return err;
	}
	set_info(m, PREC_AUXTRACE_CS_ETM, priv, nr);
	return 0;
}

int prec_evlist__aux_info(const struct prec_evlist *el, struct prec_manifest *m)
{
	const struct prec_evsel *ev;
	struct prec_auxpmu_src src = { .root = el->pmu_root, .per_cpu_mmaps = true };
	uint64_t *priv;
	uint32_t nr, type;
	int err;

	if (!el->aux_bytes)
		return 0;
	ev = &el->evsel[el->aux_owner];
	src.pmu = ev->pmu;
	src.pmu_type = ev->attr.type;
	src.have_sched_switch = el->have_sched_switch;
	src.snapshot = el->aux_snapshot;
	/* Every ring's control page holds the same TSC conversion. */
	if (el->rings && el->nr_cpus && el->rings[0].page)
		src.pc = el->rings[0].page;
	if (ev->aux == PREC_AUX_INTEL_PT)
		prec_auxpmu__tsc_ctc(&src.tsc_ctc_n, &src.tsc_ctc_d);
	if (ev->aux == PREC_AUX_CS_ETM)
		return cs_etm_info(el, ev, &src, m);
	err = prec_auxpmu__info(&src, &type, &priv, &nr);
	if (err) {
		pr_err("event '%s': AUXTRACE_INFO for PMU '%s': %s", ev->name, ev->pmu,
		       strerror(-err));
		return err;
	}
	set_info(m, type, priv, nr);
	return 0;
}

/* ---- opening ---- */

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd,
			  PERF_FLAG_FD_CLOEXEC | flags);

	return fd < 0 ? -errno : (int)fd;
}

/* Raise RLIMIT_NOFILE to the hard limit, and the hard limit itself when
 * root may. Returns 0 if the soft limit grew. */
static int raise_nofile(void)
{
	struct rlimit rl;
	rlim_t old;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	old = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (1u << 20)) {
		struct rlimit big = { 1u << 20, 1u << 20 };

		if (!setrlimit(RLIMIT_NOFILE, &big))
			return 0;
	}
	if (rl.rlim_cur == old || setrlimit(RLIMIT_NOFILE, &rl))
		return -EMFILE;
	return 0;
}

/* EACCES/EPERM: the scope the kernel refused, named with the setting and
 * the capability that allow it; else prec_perm knows of nothing missing. */
static void denied(const struct prec_evsel *ev, pid_t task, int err)
{
	const struct perf_event_attr *a = &ev->attr;
	char what[320];

	snprintf(what, sizeof(what), "%s '%s'", ev->tracking ? "tracking event" : "event",
		 ev->name);
	if (!prec_perm__allows(PREC_PERM_USER)) /* refused, so Debian's 3 */
		prec_perm__deny(PREC_PERM_USER, what);
	else if (task == -1 && !prec_perm__allows(PREC_PERM_CPU))
		prec_perm__deny(PREC_PERM_CPU, what);
	else if (a->type == PERF_TYPE_TRACEPOINT && !prec_perm__allows(PREC_PERM_TRACEPOINT))
		prec_perm__deny(PREC_PERM_TRACEPOINT, what);
	else if (!a->exclude_kernel && !prec_perm__allows(PREC_PERM_KERNEL))
		prec_perm__deny(PREC_PERM_KERNEL, what);
	else if (task > 0)
		pr_err("%s: task %d: perf_event_open: %s (another user's task needs CAP_PERFMON, or ptrace access to it)",
		       what, (int)task, strerror(-err));
	else
		pr_err("%s: perf_event_open: %s (kernel.perf_event_paranoid is %d)",
		       what, strerror(-err), prec_perm__paranoid());
}

static void open_error(const struct prec_evsel *ev, int cpu, pid_t task, int err)
{
	const struct perf_event_attr *a = &ev->attr;
	bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		  a->type == PERF_TYPE_RAW;

	if (hw && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
		pr_err("event '%s': no hardware PMU on this machine (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else if (err == -EACCES || err == -EPERM)
		denied(ev, task, err);
	else if (err == -ESRCH)
		pr_err("event '%s': task %d: no such process", ev->name, (int)task);
	else if (err == -EMFILE)
		pr_err("event '%s' on cpu %d: perf_event_open: %s (raise 'ulimit -n')",
		       ev->name, cpu, strerror(-err));
	else if (err == -EINVAL && (a->cgroup || (a->sample_type & PERF_SAMPLE_CGROUP)))
		pr_err("event '%s': perf_event_open: %s (--all-cgroups needs Linux >= 5.7)",
		       ev->name, strerror(-err));
	else if (err == -EINVAL && a->use_clockid && !prec_clock__nmi_safe((int)a->clockid))
		pr_err("event '%s': the kernel takes -k realtime, boottime or tai only for software events: use -k monotonic or monotonic_raw",
		       ev->name);
	else
		pr_err("event '%s' on cpu %d: perf_event_open: %s%s", ev->name, cpu,
		       strerror(-err), err == -EINVAL && a->type >= PERF_TYPE_MAX ?
		       " (the PMU may not support sampling, or these terms)" : "");
}

/* -vv: one open as perf -vv shows it (its flags with the CLOEXEC every
 * prec open has), then "(event N)": the attr dump's N-th block. */
static void show_open(const struct prec_evlist *el, const struct prec_evsel *ev, pid_t pid,
		      int cpu, int group_fd, unsigned long flags, int fd)
{
	int e = (int)(ev - el->evsel);

	flags |= PERF_FLAG_FD_CLOEXEC;
	if (fd >= 0)
		fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx = %d  (event %d)\n",
			(int)pid, cpu, group_fd, flags, fd, e);
	else
		fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx  (event %d)\nsys_perf_event_open failed, error %d\n",
			(int)pid, cpu, group_fd, flags, e, fd);
}

/* Open with the fallbacks older kernels need: without build_id (< 5.12),
 * without ksymbol and bpf_event (< 5.1), without PERF_FORMAT_LOST (< 6.0);
 * EMFILE raises the fd limit once. */
static int open_evsel(struct prec_evlist *el, struct prec_evsel *ev, pid_t pid,
		      int cpu, int group_fd)
{
	/* -G: on a CPU, the cgroup's directory stands for the task. */
	bool cg = ev->cgroup_fd >= 0 && pid == -1;
	struct perf_event_attr asked = ev->attr;

	for (;;) {
		unsigned long flags = cg ? PERF_FLAG_PID_CGROUP : 0;
		int fd = sys_perf_event_open(&ev->attr, cg ? ev->cgroup_fd : pid, cpu,
					     group_fd, flags);

		if (el->show_opens)
			show_open(el, ev, cg ? ev->cgroup_fd : pid, cpu, group_fd, flags, fd);
		if (fd >= 0)
			return fd;
		if (fd == -EMFILE && !el->raised_nofile) {
			el->raised_nofile = true;
			if (!raise_nofile())
				continue;
		}
		if (fd == -EINVAL && ev->attr.build_id) {
			pr_info("event '%s': kernel refused build_id in MMAP2 (< 5.12?): reading ELF notes at the end instead",
				ev->name);
			ev->attr.build_id = 0;
			continue;
		}
		if (fd == -EINVAL && (ev->attr.ksymbol || ev->attr.bpf_event)) {
			pr_debug("event '%s': kernel refused ksymbol/bpf_event (< 5.1?)", ev->name);
			ev->attr.ksymbol = ev->attr.bpf_event = 0;
			continue;
		}
		/* :P: the most precise level this PMU takes, as perf */
		if ((fd == -EINVAL || fd == -EOPNOTSUPP) && ev->precise_max &&
		    ev->attr.precise_ip) {
			ev->attr.precise_ip--;
			continue;
		}
		if (fd == -EINVAL && (ev->attr.read_format & PERF_FORMAT_LOST)) {
			pr_debug("event '%s': kernel refused PERF_FORMAT_LOST (< 6.0?)", ev->name);
			ev->attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			continue;
		}
		/* A weak group's member the kernel refuses in its group:
		 * prec_evlist__open opens it alone, nothing to say yet. */
		if (!(group_fd >= 0 && ev->weak && (fd == -EINVAL || fd == -EBADF)))
			open_error(ev, cpu, pid, fd);
		else
			ev->attr = asked; /* no fallback was the cause */
		return fd;
	}
}

static int alloc_tables(struct prec_evlist *el, const int *cpus, int nr_cpus,
			const pid_t *tasks, int nr_tasks)
{
	size_t n = (size_t)el->nr * (size_t)nr_cpus * (size_t)nr_tasks;

	el->cpus = calloc((size_t)nr_cpus, sizeof(*el->cpus));
	el->tasks = calloc((size_t)nr_tasks, sizeof(*el->tasks));
	el->fds = malloc(n * sizeof(*el->fds));
	el->ids = calloc(n, sizeof(*el->ids));
	el->rings = calloc((size_t)nr_cpus, sizeof(*el->rings));
	el->ring_fd = malloc((size_t)nr_cpus * sizeof(*el->ring_fd));
	if (!el->cpus || !el->tasks || !el->fds || !el->ids || !el->rings || !el->ring_fd)
		return -ENOMEM;
	if (el->overwrite) {
		el->flight_rings = calloc((size_t)nr_cpus, sizeof(*el->flight_rings));
		el->flight_ring_fd = malloc((size_t)nr_cpus * sizeof(*el->flight_ring_fd));
		if (!el->flight_rings || !el->flight_ring_fd)
			return -ENOMEM;
	}
	memcpy(el->cpus, cpus, (size_t)nr_cpus * sizeof(*cpus));
	memcpy(el->tasks, tasks, (size_t)nr_tasks * sizeof(*tasks));
	el->nr_cpus = nr_cpus;
	el->nr_tasks = nr_tasks;
	for (size_t i = 0; i < n; i++)
		el->fds[i] = -1;
	for (int c = 0; c < nr_cpus; c++) {
		el->ring_fd[c] = -1;
		el->rings[c].fd = -1;
		if (el->flight_rings) {
			el->flight_ring_fd[c] = -1;
			el->flight_rings[c].fd = -1;
		}
	}
	return 0;
}

/* Attach fd to CPU c's ring of ev's channel: the first fd maps it (the
 * ring owner, opened first: with an AUX event, that event and its AUX
 * area; in the flight channel, read-only), the others follow it. */
static int attach(struct prec_evlist *el, const struct prec_evsel *ev, int c,
		  int fd, size_t pages)
{
	size_t aux = ev->aux && el->aux_bytes ? el->aux_bytes : 0;
	struct prec_ring *ring = ev->overwrite ? &el->flight_rings[c] : &el->rings[c];
	int *owner = ev->overwrite ? &el->flight_ring_fd[c] : &el->ring_fd[c];
	size_t want = ev->overwrite ? el->flight_pages : el->drain_pages;
	int err;

	if (want)
		pages = want;
	if (*owner < 0) {
		err = prec_ring__map(ring, fd, pages, aux,
				     (ev->overwrite ? PREC_RING_OVERWRITE : 0) |
				     (el->aux_overwrite ? PREC_RING_AUX_OVERWRITE : 0));
		if (err < 0) {
			pr_err("event '%s' on cpu %d: mmap of %zu pages%s: %s%s", ev->name,
			       el->cpus[c], pages, aux ? " and its AUX area" : "",
			       strerror(-err),
			       err == -EPERM || err == -ENOMEM ?
			       " (see /proc/sys/kernel/perf_event_mlock_kb, or a smaller -m / --aux-size)" : "");
			return err;
		}
		*owner = fd;
		return 0;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *owner)) {
		err = -errno;
		pr_err("event '%s' on cpu %d: PERF_EVENT_IOC_SET_OUTPUT: %s", ev->name,
		       el->cpus[c], strerror(-err));
		return err;
	}
	return 0;
}

static int open_one(struct prec_evlist *el, int e, int c, int t, size_t pages,
		    int *failed)
{
	struct prec_evsel *ev = &el->evsel[e];
	size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) * (size_t)el->nr_tasks + (size_t)t;
	int fd, err, group_fd = -1;

	/* A member joins its leader's fd on the same CPU and task (the
	 * leader comes first in the list, so it is open). */
	if (ev->leader >= 0 && ev->leader != e)
		group_fd = el->fds[((size_t)ev->leader * (size_t)el->nr_cpus + (size_t)c) *
				   (size_t)el->nr_tasks + (size_t)t];
	fd = open_evsel(el, ev, el->tasks[t], el->cpus[c], group_fd);
	if (fd < 0) {
		*failed = group_fd >= 0 ? e : -1;
		return fd;
	}
	el->fds[i] = fd;
	err = attach(el, ev, c, fd, pages);
	if (err < 0)
		return err;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &el->ids[i])) {
		err = -errno;
		pr_err("event '%s' on cpu %d: PERF_EVENT_IOC_ID: %s", ev->name,
		       el->cpus[c], strerror(-err));
		return err;
	}
	if (ev->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter)) {
		err = -errno;
		pr_err("event '%s': filter '%s': %s", ev->name, ev->filter,
		       err == -EINVAL ? "the kernel rejected it (check field names and syntax)" :
		       strerror(-err));
		return err;
	}
	return 0;
}

/* The soft fd limit goes up to the hard one before any event is opened
 * (the workload, forked before, keeps its own): a recording's fds grow
 * with CPUs, and the estimate below leaves only a fixed margin for what
 * else the session opens. Then the estimate (the events, a few per CPU:
 * docs/many-cpus.md counts them): a hard limit below it is one line and
 * no recording. */
static int reserve_fds(struct prec_evlist *el)
{
	uint64_t need = (uint64_t)el->nr * (uint64_t)el->nr_cpus * (uint64_t)el->nr_tasks +
			(el->overwrite ? 6ull : 4ull) * (uint64_t)el->nr_cpus + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	el->raised_nofile = true;
	raise_nofile();
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur >= need)
		return 0;
	pr_err("events: %llu fds needed, RLIMIT_NOFILE is %llu and cannot be raised (raise 'ulimit -n')",
	       (unsigned long long)need, (unsigned long long)rl.rlim_cur);
	return -EMFILE;
}

/* perf's :W fallback: the group of member e, which the kernel refused
 * in it, becomes events of their own (perf's message, at -v). Its members
 * keep their attrs but for being enabled as a lone event is (perf keeps
 * a member's disabled 0 and enable_on_exec 0, so a command's member
 * would count from its open, before the exec: docs/events.md). */
static void break_group(struct prec_evlist *el, int e)
{
	int l = el->evsel[e].leader;
	const struct perf_event_attr *la = &el->evsel[l].attr;

	pr_debug("Weak group for %s/%d failed", el->evsel[l].name, el->evsel[l].nr_members);
	for (int i = 0; i < el->nr; i++) {
		struct prec_evsel *ev = &el->evsel[i];

		if (ev->leader != l)
			continue;
		if (i != l) {
			ev->attr.disabled = la->disabled;
			ev->attr.enable_on_exec = la->enable_on_exec;
		}
		ev->leader = -1;
		ev->nr_members = 0;
	}
}

/* prec_evlist__open's work, once; on a failure in a group *failed is the
 * member that failed (-1: none). */
static int open_all(struct prec_evlist *el, const int *cpus, int nr_cpus,
		    const pid_t *tasks, int nr_tasks, size_t pages, int *failed)
{
	int err = alloc_tables(el, cpus, nr_cpus, tasks, nr_tasks), *order;

	if (err < 0) {
		pr_err("events: %s", strerror(-err));
		return err;
	}
	err = reserve_fds(el);
	if (err < 0)
		return err;
	order = malloc((size_t)el->nr * sizeof(*order));
	if (!order) {
		pr_err("events: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	prec_evlist__open_order(el, order);
	/* CPU-major, the ring owner first on each CPU: the AUX event if any,
	 * else the tracking dummy (event 0); the flight ring's is the first
	 * overwrite event. */
	for (int c = 0; c < nr_cpus && !err; c++)
		for (int i = 0; i < el->nr && !err; i++)
			for (int t = 0; t < nr_tasks && !err; t++)
				err = open_one(el, order[i], c, t, pages, failed);
	free(order);
	return err < 0 ? err : 0;
}

int prec_evlist__open(struct prec_evlist *el, const int *cpus, int nr_cpus,
		      const pid_t *tasks, int nr_tasks, size_t pages)
{
	for (;;) {
		int failed = -1, err = open_all(el, cpus, nr_cpus, tasks, nr_tasks, pages,
						&failed);
		const struct prec_evsel *ev = failed >= 0 ? &el->evsel[failed] : NULL;

		if (!ev || !ev->weak || (err != -EINVAL && err != -EBADF))
			return err;
		/* everything again, the group's events on their own */
		prec_evlist__close(el);
		break_group(el, failed);
	}
}

static size_t nr_fds(const struct prec_evlist *el)
{
	return el->fds ? (size_t)el->nr * (size_t)el->nr_cpus * (size_t)el->nr_tasks : 0;
}

int prec_evlist__enable(struct prec_evlist *el)
{
	for (size_t i = 0; i < nr_fds(el); i++) {
		if (el->fds[i] >= 0 && ioctl(el->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			int err = -errno;

			pr_err("events: PERF_EVENT_IOC_ENABLE: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

int prec_evlist__enable_tracking(struct prec_evlist *el)
{
	for (size_t i = 0; i < nr_fds(el); i++) {
		size_t e = i / ((size_t)el->nr_cpus * (size_t)el->nr_tasks);

		if (!el->evsel[e].tracking || el->fds[i] < 0)
			continue;
		if (ioctl(el->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			int err = -errno;

			pr_err("tracking event: PERF_EVENT_IOC_ENABLE: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

int prec_evlist__enable_cpu(struct prec_evlist *el, int c, bool tracking)
{
	/* The same order as enable()'s, for this CPU's fds. */
	for (int e = 0; el->fds && e < el->nr; e++)
		for (int t = 0; t < el->nr_tasks && (!tracking || el->evsel[e].tracking); t++) {
			int fd = el->fds[((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
					 (size_t)el->nr_tasks + (size_t)t];

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
				return -errno;
		}
	return 0;
}

void prec_evlist__disable(struct prec_evlist *el)
{
	/* The ring owners last: an event that keeps running a moment longer
	 * still has a ring to write into. */
	for (size_t i = nr_fds(el); i-- > 0;)
		if (el->fds[i] >= 0)
			ioctl(el->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void prec_evlist__disable_sampling(struct prec_evlist *el)
{
	for (size_t i = nr_fds(el); i-- > 0;) {
		size_t e = i / ((size_t)el->nr_cpus * (size_t)el->nr_tasks);

		if (!el->evsel[e].tracking && el->fds[i] >= 0)
			ioctl(el->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
}

void prec_evlist__disable_cpu(struct prec_evlist *el, int c)
{
	/* The same order as disable()'s, for this CPU's fds. */
	for (int e = el->nr; el->fds && e-- > 0;)
		for (int t = el->nr_tasks; t-- > 0;) {
			int fd = el->fds[((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
					 (size_t)el->nr_tasks + (size_t)t];

			if (fd >= 0)
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		}
}

/* PERF_FORMAT_LOST of one fd: value, id, lost; with GROUP the leader
 * reads nr then value, id, lost of every member (members are counted
 * there, not again on their own fds). */
static uint64_t fd_lost(const struct prec_evsel *ev, int fd)
{
	uint64_t v[1 + 3 * 64], sum = 0;
	ssize_t n;

	if (!(ev->attr.read_format & PERF_FORMAT_GROUP)) {
		n = read(fd, v, 3 * sizeof(*v));
		return n == 3 * (ssize_t)sizeof(*v) ? v[2] : 0;
	}
	if (ev->leader >= 0 && ev->nr_members == 0)
		return 0;
	n = read(fd, v, sizeof(v));
	for (uint64_t k = 0; n >= (ssize_t)sizeof(*v) && k < v[0] &&
	     (ssize_t)((4 + 3 * k) * sizeof(*v)) <= n; k++)
		sum += v[3 + 3 * k];
	return sum;
}

uint64_t prec_evlist__lost(const struct prec_evlist *el, int c)
{
	uint64_t sum = 0;

	if (!el->fds)
		return 0;
	for (int e = 0; e < el->nr; e++) {
		if (!(el->evsel[e].attr.read_format & PERF_FORMAT_LOST) ||
		    el->evsel[e].overwrite)
			continue;
		for (int t = 0; t < el->nr_tasks; t++) {
			size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
				   (size_t)el->nr_tasks + (size_t)t;

			if (el->fds[i] >= 0)
				sum += fd_lost(&el->evsel[e], el->fds[i]);
		}
	}
	return sum;
}

void prec_evlist__close(struct prec_evlist *el)
{
	if (!el)
		return;
	for (int c = 0; el->rings && c < el->nr_cpus; c++)
		if (el->rings[c].map)
			prec_ring__unmap(&el->rings[c]);
	for (int c = 0; el->flight_rings && c < el->nr_cpus; c++)
		if (el->flight_rings[c].map)
			prec_ring__unmap(&el->flight_rings[c]);
	for (size_t i = 0; i < nr_fds(el); i++)
		if (el->fds[i] >= 0)
			close(el->fds[i]);
	free(el->cpus);
	free(el->tasks);
	free(el->fds);
	free(el->ids);
	free(el->rings);
	free(el->ring_fd);
	free(el->flight_rings);
	free(el->flight_ring_fd);
	el->flight_rings = NULL;
	el->flight_ring_fd = NULL;
	el->cpus = NULL;
	el->tasks = NULL;
	el->fds = NULL;
	el->ids = NULL;
	el->rings = NULL;
	el->ring_fd = NULL;
	el->nr_cpus = el->nr_tasks = 0;
}

void prec_evlist__exit(struct prec_evlist *el)
{
	if (!el)
		return;
	prec_evlist__close(el);
	for (int i = 0; i < el->nr; i++) {
		free(el->evsel[i].name);
		free(el->evsel[i].filter);
		free(el->evsel[i].tp_system);
		free(el->evsel[i].tp_name);
		free(el->evsel[i].pmu);
		if (el->evsel[i].cgroup_fd >= 0)
			close(el->evsel[i].cgroup_fd);
	}
	free(el->evsel);
	memset(el, 0, sizeof(*el));
}
