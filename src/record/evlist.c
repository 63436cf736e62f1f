// SPDX-License-Identifier: MIT
// The event list as parsed: the events of the -e and --pfm-events
// arguments (each parsed by event_parse.c), their groups, the tracking
// dummy, and the channel each event writes to (drained, or a flight
// ring). What their attrs become is evlist_config.c's, the AUX event's
// part evlist_aux.c's, the descriptors opened for them evlist_open.c's,
// the manifest's view of them evlist_manifest.c's: this file is the list
// those four work on, its accessors for the other files (the struct is
// evlist_internal.h's), its life (new, delete).
#include "record/evlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/event_blanks.h"
#include "record/event_parse.h"
#include "record/evlist_internal.h"
#include "record/evlist_open.h"
#include "record/options.h"
#include "record/perfclock.h"
#include "record/pmu_sysfs.h"
#include "record/ring.h"
#include "record/tracefs.h"
#include "util/clock.h"
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
	n->terms.branch.last = -1;
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
		/* As perf's --group: the one group keeps its leader's name;
		 * a NAME{} of a later group leads nothing now, and a name
		 * on no leader is a manifest the merge refuses. */
		if (i != first) {
			free(el->evsel[i].group_name);
			el->evsel[i].group_name = NULL;
		}
	}
	if (first >= 0)
		el->evsel[first].nr_members = el->nr - first;
}

/* The name perf's lexer gives the event at s (its PE_EVENT_NAME): the
 * longest of NAME and NAME/.../REST, NAME and REST without , { } /, the
 * middle without /. So a breakpoint's mem:0x1000/8:w is "mem:0x1000", and
 * the middle may run over a ',': its length. */
static size_t perf_name_len(const char *s)
{
	size_t name = strcspn(s, ",{}/"), mid;

	if (!name || s[name] != '/')
		return name;
	mid = name + 1 + strcspn(s + name + 1, "/");
	return s[mid] == '/' ? mid + 1 + strcspn(s + mid + 1, ",{}/") : name;
}

/* Past the bytes perf's lexer skips where an event starts (the list's
 * start, after a ',' or a group's '{'): there it reads an event's name or
 * a group, and skips any byte neither starts, '/' and '}' (so /cpu-clock
 * and {cpu-clock,}task-clock} are perf's events, named without them). */
static const char *past_event_start(const char *s)
{
	return s + strspn(s, "/}");
}

/* As perf: an event is named as its text names it (blanks and all,
 * "cpu-clock :u", from at, the item's place in the list, past a group's
 * '{' in raw); events [first, el->nr) that kept their text, clean (its
 * blanks dropped), take that name, but tracepoints (system:name). */
static int name_as_written(struct prec_evlist *el, int first, const char *clean,
			   const char *at, const char *raw)
{
	const char *open = strchr(raw, '{');
	const char *start = open ? past_event_start(at + (open - raw) + 1) : at;
	size_t len = perf_name_len(start);

	if (!len || (strlen(clean) == len && !strncmp(clean, start, len)))
		return 0;
	for (int i = first; i < el->nr; i++) {
		char *name;

		/* a tracepoint is named system:name, as perf names it */
		if (strcmp(el->evsel[i].name, clean) || (el->evsel[i].tp_system && !el->evsel[i].pmu))
			continue;
		name = strndup(start, len);
		if (!name)
			return -ENOMEM;
		free(el->evsel[i].name);
		el->evsel[i].name = name;
	}
	return 0;
}

/* One item of the list, a group's braces cut: "{" opens one (at
 * *group), "}" or "}:mods" closes it. raw is as written, blanks and all
 * (perf's lexer drops them between its tokens). */
static int add_item(struct prec_evlist *el, const char *text, const char *at,
		    const char *raw, const char *root, int *group)
{
	char clean[1024], *item = clean, *close, *open, *name = NULL;
	const char *mods = NULL;
	int err = prec_event__drop_blanks(text, raw, clean, sizeof(clean)), first = el->nr;

	if (err)
		return err;
	close = strchr(item, '}');
	open = strchr(item, '{');

	/* perf's named group, NAME{a,b}: its leader keeps NAME, which the
	 * merge writes in perf's GROUP_DESC */
	if (open && open > item && strspn(item, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
	    (size_t)(open - item) && !isdigit((unsigned char)*item)) {
		name = item;
		item = open;
	}
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
	if (!err)
		err = name_as_written(el, first, item, at, raw);
	if (!err && name) {
		el->evsel[*group].group_name = strndup(name, (size_t)(open - name));
		if (!el->evsel[*group].group_name)
			err = -ENOMEM;
	}
	if (err < 0 || !close)
		return err;
	err = close_group(el, *group, text, mods);
	*group = -1;
	return err;
}

/* Whether the item at s is a breakpoint (mem:, after blanks, any byte
 * perf's lexer skips, and a group's '{' or NAME{), whose first '/' is its
 * LEN's, no terms'. */
static bool starts_breakpoint(const char *s)
{
	const char *raw = s, *q;

	while (prec_event__skipped(raw, s, false))
		s++;
	q = s + strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
	if (*q == '{')
		for (s = q + 1; prec_event__skipped(raw, s, false); s++)
			;
	return !strncmp(s, "mem:", 4);
}

int prec_evlist__add(struct prec_evlist *el, const char *text,
		     const char *filter, const char *pmu_root)
{
	const char *p, *start;
	int slashes = 0, err = 0, first = el->nr, group = -1;
	bool len_slash;

	if (!*text) {
		pr_err("event '': empty event list");
		return -EINVAL;
	}
	el->pmu_root = pmu_root ? pmu_root : PREC_PMU_ROOT;
	/* Split on commas outside pmu/.../ (a breakpoint's /LEN opens none:
	 * mem:0x1000/8,cpu-clock is two events, as perf's) */
	start = p = past_event_start(text);
	len_slash = starts_breakpoint(start);
	for (;; p++) {
		char item[1024], *open;
		size_t len;

		if (*p == '{' && !(slashes % 2)) {
			/* a group's first event starts after it */
			p = past_event_start(p + 1) - 1;
			continue;
		}
		if (*p == '/' && len_slash)
			len_slash = false;
		else if (*p == '/')
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
		/* a group's first event starts after its '{' */
		open = item + strspn(item, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
		if (*open == '{')
			memmove(open + 1, past_event_start(open + 1), strlen(past_event_start(open + 1)) + 1);
		err = add_item(el, text, start, item, pmu_root ? pmu_root : PREC_PMU_ROOT, &group);
		if (err < 0 || !*p)
			break;
		start = past_event_start(p + 1);
		p = start - 1; /* the loop's p++ is the item's first byte */
		len_slash = starts_breakpoint(start);
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

int prec_evlist__nr_events(const struct prec_evlist *el)
{
	return el->nr;
}

const struct prec_evsel *prec_evlist__event(const struct prec_evlist *el, int i)
{
	return &el->evsel[i];
}

int prec_evlist__add_own(struct prec_evlist *el, const char *text,
			 const struct prec_own_event *how)
{
	int first = el->nr, err = prec_evlist__add(el, text, NULL, NULL);
	struct prec_evsel *ev;

	if (err)
		return err;
	if (el->nr != first + 1) {
		pr_err("event '%s': prec adds one event here, not %d", text, el->nr - first);
		return -EINVAL;
	}
	ev = &el->evsel[first];
	if (how->name) {
		char *name = strdup(how->name);

		if (!name)
			return -ENOMEM;
		free(ev->name);
		ev->name = name;
	}
	if (how->no_sampling)
		ev->sampling = false;
	if (how->exclude_guest)
		ev->attr.exclude_guest = 1;
	if (how->include_guest)
		ev->attr.exclude_guest = 0;
	ev->offcpu = how->offcpu;
	return 0;
}

void prec_evlist__set_cgroup(struct prec_evlist *el, int i, int fd)
{
	if (el->evsel[i].cgroup_fd >= 0)
		close(el->evsel[i].cgroup_fd);
	el->evsel[i].cgroup_fd = fd;
}

struct perf_event_attr *prec_evlist__attr_edit(struct prec_evlist *el, int i)
{
	return &el->evsel[i].attr;
}

void prec_evlist__mark_spec(struct prec_evlist *el, int first, int spec)
{
	for (int j = first; j < el->nr; j++)
		el->evsel[j].spec = spec;
}

bool prec_evlist__inherits(const struct prec_evlist *el)
{
	return el->nr && el->evsel[0].attr.inherit;
}

bool prec_evlist__overwrite(const struct prec_evlist *el)
{
	return el->overwrite;
}

size_t prec_evlist__drain_pages(const struct prec_evlist *el)
{
	return el->drain_pages;
}

const char *prec_evlist__pmu_root(const struct prec_evlist *el)
{
	return el->pmu_root;
}

void prec_evlist__show_opens(struct prec_evlist *el, bool on)
{
	el->show_opens = on;
}

/* ---- the list's life ---- */

int prec_evlist__new(struct prec_evlist **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void prec_evlist__exit(struct prec_evlist *el)
{
	if (!el)
		return;
	prec_evlist__close(el);
	for (int i = 0; i < el->nr; i++) {
		free(el->evsel[i].name);
		free(el->evsel[i].group_name);
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

void prec_evlist__delete(struct prec_evlist *el)
{
	prec_evlist__exit(el);
	free(el);
}
