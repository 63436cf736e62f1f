// SPDX-License-Identifier: MIT
// The text of one -e event to its attr: software/hardware event names,
// tracepoints (id from tracefs), dynamic PMUs pmu/term=value,.../ (type and
// term bit ranges from sysfs), perf's config terms on any event
// (name/overwrite/), :u/:k modifiers; and tracepoint globs to the names
// they match.
#include "record/event_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/auxpmu.h"
#include "record/evlist.h"
#include "record/perm.h"
#include "record/tracefs.h"
#include "util/file.h"
#include "util/log.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} named[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

static bool is_named(const char *name)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i].name))
			return true;
	return false;
}

/* Split "name:mods" (mods only u/k letters); returns the modifier string
 * or NULL. For PMU events the modifier follows the closing slash. */
static const char *split_mods(char *item)
{
	char *slash = strrchr(item, '/'), *colon;

	if (slash) {
		if (slash[1] != ':')
			return NULL;
		*++slash = 0;
		return slash + 1;
	}
	colon = strrchr(item, ':');
	if (!colon || colon == item)
		return NULL;
	*colon = 0;
	/* After a named event anything is a modifier (and a bad one is
	 * reported as such); after system:name only u/k letters are. */
	if (is_named(item) || (colon[1] && strspn(colon + 1, "uk") == strlen(colon + 1)))
		return colon + 1;
	*colon = ':';
	return NULL;
}

static int apply_mods(struct prec_evsel *ev, const char *full, const char *mods)
{
	bool u = false, k = false;

	if (!mods)
		return 0;
	for (const char *p = mods; *p; p++) {
		if (*p == 'u')
			u = true;
		else if (*p == 'k')
			k = true;
		else
			goto bad;
	}
	if (!*mods)
		goto bad;
	if (u && !k) {
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
	} else if (k && !u) {
		ev->attr.exclude_user = 1;
		ev->attr.exclude_hv = 1;
	}
	return 0;
bad:
	pr_err("event '%s': unknown modifier ':%s' (use :u or :k)", full, mods);
	return -EINVAL;
}

/* A user's tracefs is root's alone (mode 0700) where the kernel refuses
 * the user tracepoints anyway: the one line naming both. */
static bool denied(const char *full, int err)
{
	char what[300];

	if ((err != -ENODEV && err != -EACCES) || prec_perm__allows(PREC_PERM_TRACEPOINT))
		return false;
	snprintf(what, sizeof(what), "event '%s'", full);
	prec_perm__deny(PREC_PERM_TRACEPOINT, what);
	return true;
}

static int add_tracepoint(struct prec_evsel *ev, const char *full, char *item)
{
	char *colon = strchr(item, ':');
	const char *root;
	uint64_t id;
	int err;

	*colon = 0;
	if (!*item || !colon[1] || strchr(colon + 1, ':')) {
		pr_err("event '%s': expected a tracepoint as system:name", full);
		return -EINVAL;
	}
	err = prec_tracefs__event_id(item, colon + 1, &id);
	if (denied(full, err))
		return -EACCES;
	root = prec_tracefs__root();
	if (err == -ENOENT) {
		pr_err("event '%s': no such tracepoint (no %s/events/%s/%s)", full,
		       root ? root : "tracefs", item, colon + 1);
		return -EINVAL;
	}
	if (err == -ENODEV) {
		pr_err("event '%s': tracefs is not mounted (tried /sys/kernel/tracing and /sys/kernel/debug/tracing)",
		       full);
		return err;
	}
	if (err < 0) {
		pr_err("event '%s': reading its tracefs id: %s", full, strerror(-err));
		return err;
	}
	ev->tp_system = strdup(item);
	ev->tp_name = strdup(colon + 1);
	if (!ev->tp_system || !ev->tp_name)
		return -ENOMEM;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	return 0;
}

static __u64 *config_field(struct perf_event_attr *a, const char *name)
{
	if (!strcmp(name, "config"))
		return &a->config;
	if (!strcmp(name, "config1"))
		return &a->config1;
	if (!strcmp(name, "config2"))
		return &a->config2;
	return NULL;
}

/* Spread v over a format such as "config:0-7,32-35" (low bits first).
 * Returns 0 or -EINVAL (bad format, or v does not fit). */
static int put_bits(struct perf_event_attr *a, const char *format, uint64_t v)
{
	char field[16];
	const char *p = strchr(format, ':');
	__u64 *dst;

	if (!p || (size_t)(p - format) >= sizeof(field))
		return -EINVAL;
	memcpy(field, format, (size_t)(p - format));
	field[p - format] = 0;
	dst = config_field(a, field);
	if (!dst)
		return -EINVAL;
	while (*++p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return -EINVAL;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++, v >>= 1)
			*dst = (*dst & ~(1ull << b)) | ((v & 1) << b);
		p = end;
		if (*p != ',')
			break;
	}
	return v || *p ? -EINVAL : 0;
}

/* Cut "term=value" at the '=' into *eq (NULL without one) and *v (1
 * without one). Returns 0 or -EINVAL after one line. */
static int term_value(const char *full, char *term, char **eq, uint64_t *v)
{
	char *end;

	*eq = strchr(term, '=');
	*v = 1;
	if (!*eq)
		return 0;
	**eq = 0;
	errno = 0;
	*v = strtoull(*eq + 1, &end, 0);
	if (errno || end == *eq + 1 || *end) {
		pr_err("event '%s': term '%s': bad value '%s'", full, term, *eq + 1);
		return -EINVAL;
	}
	return 0;
}

/* perf's config terms that every event takes: period=N, and overwrite /
 * no-overwrite (which channel its records go to, over --overwrite).
 * Returns 1 when term is one of them (applied), 0 when not, -EINVAL after
 * one line. */
static int event_term(struct prec_evsel *ev, const char *full, const char *term,
		      const char *eq, uint64_t v)
{
	bool ow = !strcmp(term, "overwrite");

	if (!strcmp(term, "period")) {
		if (!eq || !v) {
			pr_err("event '%s': term 'period' wants a value above 0 (period=N)", full);
			return -EINVAL;
		}
		ev->attr.sample_period = v;
		ev->term_period = v;
		return 1;
	}
	if (!ow && strcmp(term, "no-overwrite"))
		return 0;
	if (eq) {
		pr_err("event '%s': term '%s' takes no value", full, term);
		return -EINVAL;
	}
	ev->ow_term = ow ? PREC_OW_ON : PREC_OW_OFF;
	return 1;
}

static int pmu_terms(struct prec_evsel *ev, const char *full, const char *root,
		     const char *pmu, char *terms, int depth);

static int pmu_term(struct prec_evsel *ev, const char *full, const char *root,
		    const char *pmu, char *term, int depth)
{
	char path[PATH_MAX], text[4096], *eq;
	uint64_t v;
	__u64 *field;
	int err = term_value(full, term, &eq, &v);

	if (!err)
		err = event_term(ev, full, term, eq, v);
	if (err)
		return err < 0 ? err : 0;
	field = config_field(&ev->attr, term);
	if (field) {
		*field = v;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s/format/%s", root, pmu, term);
	if (prec_file__read_line(path, text, sizeof(text)) > 0) {
		if (put_bits(&ev->attr, text, v) < 0) {
			pr_err("event '%s': term '%s=%s' does not fit format '%s'",
			       full, term, eq ? eq + 1 : "1", text);
			return -EINVAL;
		}
		return 0;
	}
	/* An alias from PMU/events/NAME ("event=0x3c,umask=0x01"). */
	snprintf(path, sizeof(path), "%s/%s/events/%s", root, pmu, term);
	if (!eq && depth == 0 && prec_file__read_line(path, text, sizeof(text)) > 0)
		return pmu_terms(ev, full, root, pmu, text, depth + 1);
	pr_err("event '%s': PMU '%s' has no term '%s' (see %s/%s/format)", full,
	       pmu, term, root, pmu);
	return -EINVAL;
}

static int pmu_terms(struct prec_evsel *ev, const char *full, const char *root,
		     const char *pmu, char *terms, int depth)
{
	char *save = NULL;

	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int err = pmu_term(ev, full, root, pmu, t, depth);

		if (err < 0)
			return err;
	}
	return 0;
}

static int add_pmu(struct prec_evsel *ev, const char *full, char *item,
		   const char *root)
{
	char path[PATH_MAX], text[64], *slash = strchr(item, '/'), *close;
	unsigned long type;
	char *end;

	*slash = 0;
	close = strrchr(slash + 1, '/');
	if (!*item || !close || close[1]) {
		pr_err("event '%s': expected pmu/term=value,.../", full);
		return -EINVAL;
	}
	*close = 0;
	snprintf(path, sizeof(path), "%s/%s/type", root, item);
	if (strchr(item, '.') || prec_file__read_line(path, text, sizeof(text)) <= 0) {
		pr_err("event '%s': PMU '%s' not found (no %s/%s)", full, item, root, item);
		return -EINVAL;
	}
	type = strtoul(text, &end, 10);
	if (*end || type > UINT32_MAX) {
		pr_err("event '%s': %s: bad PMU type '%s'", full, path, text);
		return -EINVAL;
	}
	ev->attr.type = (uint32_t)type;
	ev->pmu = strdup(item);
	if (!ev->pmu)
		return -ENOMEM;
	ev->aux = prec_auxpmu__kind(item);
	if (ev->aux) {
		/* As perf: the PMU's defaults first, the user's terms over
		 * them; the event is not sampled at a frequency (period 1, or
		 * arm_spe's interval). */
		prec_auxpmu__default_config(&ev->attr, root, item, &ev->term_period);
		ev->sampling = false;
	}
	return pmu_terms(ev, full, root, item, slash + 1, 0);
}

static int add_named(struct prec_evsel *ev, const char *full, const char *item)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (strcmp(item, named[i].name))
			continue;
		ev->attr.type = named[i].type;
		ev->attr.config = named[i].config;
		ev->sampling = named[i].config != PERF_COUNT_SW_DUMMY ||
			       named[i].type != PERF_TYPE_SOFTWARE;
		return 0;
	}
	pr_err("event '%s': unknown event (try cpu-clock, page-faults, system:tracepoint or pmu/config=N/)",
	       full);
	return -EINVAL;
}

/* name/term,.../ or system:name/term,.../: a named event or a tracepoint
 * with perf's event terms (event_term), as perf takes
 * cpu-clock/overwrite/ or sched:sched_switch/no-overwrite/. */
static int add_termed(struct prec_evsel *ev, const char *full, char *item)
{
	char *slash = strchr(item, '/'), *close = strrchr(slash + 1, '/'), *save = NULL;
	int err;

	if (!close || close[1]) {
		pr_err("event '%s': expected name/term,.../", full);
		return -EINVAL;
	}
	*slash = 0;
	*close = 0;
	err = strchr(item, ':') ? add_tracepoint(ev, full, item) : add_named(ev, full, item);
	for (char *t = strtok_r(slash + 1, ",", &save); t && !err;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq;
		uint64_t v;

		err = term_value(full, t, &eq, &v);
		if (!err)
			err = event_term(ev, full, t, eq, v);
		if (!err) {
			pr_err("event '%s': unknown term '%s' (a named event or tracepoint takes period=N, overwrite, no-overwrite)",
			       full, t);
			err = -EINVAL;
		}
		err = err < 0 ? err : 0;
	}
	return err;
}

/* Whether item (modifiers cut) is name/.../ or system:name/.../, not a
 * PMU's pmu/.../. */
static bool is_termed(const char *item)
{
	const char *slash = strchr(item, '/');
	char name[256];
	size_t len;

	if (!slash)
		return false;
	len = (size_t)(slash - item);
	if (memchr(item, ':', len))
		return true;
	if (len >= sizeof(name))
		return false;
	memcpy(name, item, len);
	name[len] = 0;
	return is_named(name);
}

static bool is_tracepoint_glob(const char *s)
{
	return !strchr(s, '/') && strchr(s, ':') && strpbrk(s, "*?[");
}

int prec_event__expand(const char *full, char ***out)
{
	char *item, *colon, **names = NULL, **items;
	const char *mods;
	int n;

	*out = NULL;
	if (!is_tracepoint_glob(full))
		return 0;
	item = strdup(full);
	if (!item)
		return -ENOMEM;
	mods = split_mods(item);
	colon = strchr(item, ':');
	*colon = 0;
	n = prec_tracefs__glob(item, colon + 1, &names);
	if (n <= 0) {
		if (denied(full, n))
			n = -EACCES;
		else if (n == 0)
			pr_err("event '%s': no tracepoint matches (in %s/events)", full,
			       prec_tracefs__root());
		else if (n == -ENODEV)
			pr_err("event '%s': tracefs is not mounted (tried /sys/kernel/tracing and /sys/kernel/debug/tracing)",
			       full);
		else
			pr_err("event '%s': listing tracefs: %s", full, strerror(-n));
		free(item);
		return n == 0 ? -EINVAL : n;
	}
	items = calloc((size_t)n, sizeof(*items));
	for (int i = 0; items && i < n; i++) {
		char one[512];

		snprintf(one, sizeof(one), "%s%s%s", names[i], mods ? ":" : "",
			 mods ? mods : "");
		items[i] = strdup(one);
		if (!items[i]) {
			prec_tracefs__free_list(items, i);
			items = NULL;
		}
	}
	prec_tracefs__free_list(names, n);
	free(item);
	if (!items)
		return -ENOMEM;
	*out = items;
	return n;
}

int prec_event__parse(struct prec_evsel *ev, const char *full, const char *root)
{
	const char *mods;
	char *item = strdup(full);
	int err;

	if (!item)
		return -ENOMEM;
	mods = split_mods(item);
	if (is_termed(item))
		err = add_termed(ev, full, item);
	else if (strchr(item, '/'))
		err = add_pmu(ev, full, item, root);
	else if (strchr(item, ':'))
		err = add_tracepoint(ev, full, item);
	else
		err = add_named(ev, full, item);
	if (!err)
		err = apply_mods(ev, full, mods);
	free(item);
	return err;
}
