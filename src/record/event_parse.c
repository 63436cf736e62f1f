// SPDX-License-Identifier: MIT
// The text of one -e event to its attr, perf's grammar (perf-list(1)):
// hardware, software and hw-cache names with perf's aliases, raw rNNN,
// breakpoints mem:ADDR[/LEN][:rwx], tracepoints (id from tracefs), PMU
// events pmu/term=value,.../ and pmu/alias/ (type, term bits and aliases
// from sysfs) and a PMU alias named alone (alias/terms/ too), perf's config
// terms on any event (name=, period=, freq=, call-graph=, ...), perf's
// modifiers with perf's attr bits; and tracepoint globs to the names they
// match. docs/events.md says which names come from where.
#include "record/event_parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/hw_breakpoint.h>
#include <strings.h>

#include "record/auxpmu.h"
#include "record/callgraph_mode.h"
#include "record/evlist.h"
#include "record/perm.h"
#include "record/pfm.h"
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
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	/* perf's tool events: perf stat reads them from its own clocks;
	 * perf record opens a dummy in their name. */
	{ "duration_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "user_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "system_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
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
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* perf's hw-cache names: CACHE[-OP][-RESULT] (or CACHE-RESULT), each part
 * one of its spellings, in its case (perf's lexer knows no other: llc-loads
 * is no event), OP read and RESULT access when left out. The ops a
 * cache takes are perf's (an instruction cache is not written). */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};
static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};
static const uint8_t cache_op_ok[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = 7, [PERF_COUNT_HW_CACHE_L1I] = 5,
	[PERF_COUNT_HW_CACHE_LL] = 7, [PERF_COUNT_HW_CACHE_DTLB] = 7,
	[PERF_COUNT_HW_CACHE_ITLB] = 1, [PERF_COUNT_HW_CACHE_BPU] = 1,
	[PERF_COUNT_HW_CACHE_NODE] = 7,
};

/* The longest spelling of table that s starts with, followed by '-' or
 * its end; its row in *row. Returns the spelling's length or 0. */
static size_t match_part(const char *s, const char *const (*table)[5], int rows, int *row)
{
	size_t best = 0;

	for (int r = 0; r < rows; r++)
		for (int i = 0; i < 5 && table[r][i]; i++) {
			size_t n = strlen(table[r][i]);

			if (n > best && !strncmp(s, table[r][i], n) &&
			    (s[n] == '-' || !s[n])) {
				best = n;
				*row = r;
			}
		}
	return best;
}

/* name as a hw-cache event: its config, or -1 when it is none. */
static int64_t cache_config(const char *name)
{
	int cache = 0, op = -1, result = -1, row = 0;
	size_t n = match_part(name, cache_names, PERF_COUNT_HW_CACHE_MAX, &cache);
	const char *p = name + n;

	if (!n)
		return -1;
	while (*p == '-') {
		p++;
		if (op < 0 && result < 0 &&
		    (n = match_part(p, cache_ops, PERF_COUNT_HW_CACHE_OP_MAX, &row))) {
			op = row;
		} else if (result < 0 &&
			   (n = match_part(p, cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX, &row))) {
			result = row;
		} else {
			return -1;
		}
		p += n;
	}
	if (*p)
		return -1;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_op_ok[cache] & (1u << op)))
		return -1;
	return cache | op << 8 | result << 16;
}

/* rNNN: a raw event, NNN hex. */
static bool raw_config(const char *name, uint64_t *config)
{
	char *end;

	/* perf's lexer: r and hex digits only (r0x1a8 is no raw event) */
	if (name[0] != 'r' || !isxdigit((unsigned char)name[1]) ||
	    name[1 + strspn(name + 1, "0123456789abcdefABCDEF")])
		return false;
	errno = 0;
	*config = strtoull(name + 1, &end, 16);
	return !errno && !*end;
}

/* A name of perf's tables (named, hw-cache, raw) as type and config. */
static bool lookup(const char *name, uint32_t *type, uint64_t *config)
{
	int64_t c;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i].name)) {
			*type = named[i].type;
			*config = named[i].config;
			return true;
		}
	c = cache_config(name);
	if (c >= 0) {
		*type = PERF_TYPE_HW_CACHE;
		*config = (uint64_t)c;
		return true;
	}
	if (raw_config(name, config)) {
		*type = PERF_TYPE_RAW;
		return true;
	}
	return false;
}

static bool is_named(const char *name)
{
	uint32_t t;
	uint64_t c;

	return lookup(name, &t, &c);
}

/* A copy of an event's text with a byte to spare, which split_mods takes
 * to cut pmu/terms/mods after the slash. NULL: no memory. */
static char *dup_item(const char *full)
{
	size_t n = strlen(full) + 1;
	char *item = malloc(n + 1);

	if (item)
		memcpy(item, full, n);
	return item;
}

/* perf's grammar refused in one line: a second ':' of modifiers, or a
 * ':' after the terms of a PMU or a named event. */
static int syntax_error(const char *full)
{
	pr_err("event '%s': event syntax error, as perf's: modifiers are one ':' and letters after an event (cpu-clock:uk, sched:sched_switch/call-graph=fp/:u), right after the terms of a PMU or a named event (cpu-clock/period=10/uk)",
	       full);
	return -EINVAL;
}

/* perf's separator: one ':' that ends an event is no modifiers
 * (cpu-clock:, sched:sched_switch:, mem:0x1000:rw:, r1a8/period=1/:);
 * it is cut off.
 * Returns whether there was one. */
static bool cut_bare_colon(char *item)
{
	size_t n = strlen(item);

	if (n < 2 || item[n - 1] != ':' || item[n - 2] == ':')
		return false;
	item[n - 1] = 0;
	return true;
}

/* A ':' right after terms (X/.../:mods) follows perf's grammar only for
 * a tracepoint, a raw or a hw-cache event; a PMU's and a named event's
 * modifiers follow the '/' (perf's event_pmu and value_sym rules). */
static bool colon_after_terms_ok(const char *item)
{
	const char *last = strrchr(item, '/'), *first = strchr(item, '/');
	char head[256];
	uint64_t config;

	if (!last || last[1] != ':' || !strncmp(item, "mem:", 4))
		return true;
	if ((size_t)(first - item) >= sizeof(head))
		return false;
	memcpy(head, item, (size_t)(first - item));
	head[first - item] = 0;
	return strchr(head, ':') || raw_config(head, &config) || cache_config(head) >= 0;
}

/* Split "name:mods" where mods are perf's modifier letters; returns the
 * modifier string or NULL. For PMU and termed events the modifier follows
 * the closing slash. */
static const char *split_mods(char *item)
{
	char *slash = strrchr(item, '/'), *colon;

	if (slash) {
		/* pmu/terms/mods, or sys:name/terms/:mods (colon_after_terms_ok
		 * has refused the ':' where perf's grammar does) */
		if (slash[1] == ':') {
			*++slash = 0;
			return slash + 1;
		}
		if (!slash[1] || strspn(slash + 1, PREC_EVENT_MODS) != strlen(slash + 1))
			return NULL;
		memmove(slash + 2, slash + 1, strlen(slash + 1) + 1);
		slash[1] = 0;
		return slash + 2;
	}
	colon = strrchr(item, ':');
	if (!colon || colon == item)
		return NULL;
	*colon = 0;
	/* After a named event anything is a modifier (and a bad one is
	 * reported as such); after system:name, or a PMU alias or vendor
	 * name (tsc:u, as perf), only modifier letters are. */
	if (is_named(item) || (colon[1] && strspn(colon + 1, PREC_EVENT_MODS) == strlen(colon + 1)))
		return colon + 1;
	*colon = ':';
	return NULL;
}

/* perf's modifier rules: the first of u/k/h excludes the other two (of
 * G/H likewise); u and p also exclude guests unless G/H are given; a
 * letter twice (but p) or more p than 3 is refused. Over a group's
 * members (add: their own modifiers kept) the same letters apply on top.
 * Returns 0 or -EINVAL after one line. */
int prec_event__modify(struct prec_evsel *ev, const char *full, const char *mods,
		       bool add, bool leader)
{
	struct perf_event_attr *a = &ev->attr;
	int eu = add ? a->exclude_user : 0, ek = add ? a->exclude_kernel : 0;
	int eh = add ? a->exclude_hv : 0, eH = add ? a->exclude_host : 0;
	int eG = add ? a->exclude_guest : 0, eI = add ? a->exclude_idle : 0;
	int precise = add ? a->precise_ip : 0, exclude = eu | ek | eh;
	bool GH = add && ev->exclude_GH, pinned = add && a->pinned;
	bool exclusive = add && a->exclusive;

	if (!*mods || strlen(mods) > strlen("ukhGHpppPSDIWeb"))
		goto bad;
	for (const char *p = mods; *p; p++) {
		if (*p != 'p' && strchr(p + 1, *p))
			goto bad;
		switch (*p) {
		case 'u': case 'k': case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (*p == 'u' && !GH)
				eG = 1;
			*(*p == 'u' ? &eu : *p == 'k' ? &ek : &eh) = 0;
			break;
		case 'G': case 'H':
			if (!GH) {
				GH = true;
				eG = eH = 1;
			}
			*(*p == 'G' ? &eG : &eH) = 0;
			break;
		case 'I': eI = 1; break;
		case 'p':
			precise++;
			if (!GH)
				eG = 1;
			break;
		case 'P': ev->precise_max = true; break;
		case 'S': ev->sample_read = true; break;
		case 'D': pinned = true; break;
		case 'e': exclusive = true; break;
		case 'W': ev->weak = true; break;
		case 'b': break; /* perf stat's BPF counters: nothing to record */
		default: goto bad;
		}
	}
	if (precise > 3)
		goto bad;
	a->exclude_user = (unsigned)eu;
	a->exclude_kernel = (unsigned)ek;
	a->exclude_hv = (unsigned)eh;
	a->exclude_host = (unsigned)eH;
	a->exclude_guest = (unsigned)eG;
	a->exclude_idle = (unsigned)eI;
	a->precise_ip = (unsigned)precise;
	ev->exclude_GH = GH;
	if (leader) {
		a->pinned = pinned;
		a->exclusive = exclusive;
	}
	return 0;
bad:
	pr_err("event '%s': %s modifier ':%s' (perf's letters " PREC_EVENT_MODS ", each once, p up to 3 times)",
	       full, *mods && strspn(mods, PREC_EVENT_MODS) == strlen(mods) ? "repeated" : "unknown",
	       mods);
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
	char *colon = strchr(item, ':'), *name;
	const char *root;
	uint64_t id;
	int err;

	*colon = 0;
	if (*item && (strchr(colon + 1, ':') || is_named(item)))
		return syntax_error(full);
	if (!*item || !colon[1]) {
		pr_err("event '%s': expected a tracepoint as system:name", full);
		return -EINVAL;
	}
	err = prec_tracefs__event_id(item, colon + 1, &id);
	if (denied(full, err))
		return -EACCES;
	root = prec_tracefs__root();
	/* tsc:u:k, an alias's modifiers twice: no tracepoint "tsc:u" */
	if (err == -ENOENT && strspn(colon + 1, PREC_EVENT_MODS) == strlen(colon + 1))
		return syntax_error(full);
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
	ev->default_period = 1;
	/* As perf: a tracepoint is named system:name, whatever modifiers or
	 * terms follow (a name= term after this renames it). */
	name = malloc(strlen(item) + strlen(colon + 1) + 2);
	if (!name)
		return -ENOMEM;
	sprintf(name, "%s:%s", item, colon + 1);
	free(ev->name);
	ev->name = name;
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
	/* perf's lexer: decimal digits, or hex after "0x" (010 is ten) */
	*v = strtoull(*eq + 1, &end, strncmp(*eq + 1, "0x", 2) ? 10 : 16);
	/* perf's lexer has no '-' before a number (strtoull would wrap it) */
	if (errno || end == *eq + 1 || *end || strchr(*eq + 1, '-')) {
		pr_err("event '%s': term '%s': bad value '%s'", full, term, *eq + 1);
		return -EINVAL;
	}
	return 0;
}

/* A name= (or metric-id=) value as perf's lexer takes it: its quotes cut
 * (*v, *len the name between them). Returns 0 or -EINVAL after one
 * line. */
static int name_value(const char *full, const char *term, const char **v, size_t *len);

/* name=NEW: the event's name, as perf shows it (the text after '=' up to
 * the term's end); the first name= of the event, as perf's
 * get_config_name takes it. Returns 0 or -errno after one line. */
static int name_term(struct prec_evsel *ev, const char *full, const char *v)
{
	size_t len;
	char *n;

	if (name_value(full, "name", &v, &len))
		return -EINVAL;
	if (ev->terms.named)
		return 0;
	ev->terms.named = true;
	n = strndup(v, len);
	if (!n)
		return -ENOMEM;
	free(ev->name);
	ev->name = n;
	return 0;
}

static int name_value(const char *full, const char *term, const char **value, size_t *out)
{
	const char *v = *value;
	size_t len = strlen(v);

	/* As perf's lexer: a name may be quoted, the quotes not its own;
	 * single quotes may hold ',' and '=' (name='a,b', cut as one term,
	 * next_term). perf's lexer has no name with a blank or a byte
	 * outside ASCII, starting with a digit, '-' or ':', nor with '='
	 * or ',' outside single quotes: those are its syntax errors. */
	char quote = len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0] ? v[0] : 0;

	if (quote) {
		v++;
		len -= 2;
	}
	if (!len) {
		pr_err("event '%s': event syntax error, as perf's: term '%s' wants a name (%s=NAME)",
		       full, term, term);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		if (!isgraph((unsigned char)v[i]) || (unsigned char)v[i] > 0x7e ||
		    (quote != '\'' && strchr("=,'\"", v[i])) || (!i && strchr("0123456789-:", v[i]))) {
			pr_err("event '%s': event syntax error, as perf's: %s= takes no blank, no digit, - or : first, and ',' or '=' only in single quotes",
			       full, term);
			return -EINVAL;
		}
	*value = v;
	*out = len;
	return 0;
}

/* branch_type=NAME or no: one of perf's branch filter names, as a
 * name perf's lexer reads (quoted, a list: 'any,u') */
static int branch_term(struct prec_evsel *ev, const char *full, const char *v)
{
	size_t len;

	if (name_value(full, "branch_type", &v, &len))
		return -EINVAL;
	if (prec_branch_terms__add(&ev->terms.branch, v, len)) {
		pr_err("event '%s': term 'branch_type=%.*s': unknown branch filter (perf's: any, any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type, stack, priv, u, k, hv, or no)",
		       full, (int)len, v);
		return -EINVAL;
	}
	return 0;
}

/* call-graph=MODE as perf reads it: no, or its --call-graph parser's
 * words (callgraph_mode.c): fp, dwarf, lbr, and in quotes a size or a
 * depth ('dwarf,1024', 'fp,5', which a stack-size= term overrides and
 * which overrides a max-stack= term, as perf's). perf takes any other
 * word, says it cannot read it and keeps the global call graph
 * (cg_failed); the last call-graph= is the one read. */
static int callgraph_term(struct prec_evsel *ev, const char *full, const char *v)
{
	struct prec_callgraph_mode m;
	const char *why = NULL;
	char mode[64];
	size_t len;

	if (!strcmp(v, "no")) {
		ev->terms.callgraph = PREC_CG_NONE;
		ev->terms.cg_failed = false;
		return 0;
	}
	if (name_value(full, "call-graph", &v, &len))
		return -EINVAL;
	if (len < sizeof(mode)) {
		memcpy(mode, v, len);
		mode[len] = 0;
	}
	if (len >= sizeof(mode) || prec_callgraph_mode__parse(mode, &m, &why)) {
		pr_warn("event '%s': call-graph=%.*s: %s: the global call graph applies, as perf applies it",
			full, (int)len, v, why ? why : "too long");
		ev->terms.cg_failed = true;
		return 0;
	}
	ev->terms.callgraph = (int8_t)m.mode;
	ev->terms.cg_max = m.max_stack;
	ev->terms.cg_stack = m.mode == PREC_CG_DWARF ? m.stack_size : 0;
	ev->terms.cg_failed = false;
	return 0;
}

/* One flag term (no value): 1 applied, 0 not one of them, -EINVAL. */
static int flag_term(struct prec_evsel *ev, const char *full, const char *term)
{
	static const char *const flags[] = { "overwrite", "no-overwrite", "inherit",
					     "no-inherit" };
	int i = 0;

	while (i < 4 && strcmp(term, flags[i]))
		i++;
	if (i == 4)
		return 0;
	if (i < 2)
		ev->ow_term = i == 0 ? PREC_OW_ON : PREC_OW_OFF;
	else
		ev->terms.inherit = i == 2;
	(void)full;
	return 1;
}

/* perf's config terms that every event takes: name=, period=, freq=,
 * time=, branch_type=, call-graph=, stack-size=, max-stack=, inherit,
 * no-inherit, and overwrite / no-overwrite (which channel its records go to, over
 * --overwrite). term is "key" or "key=value" and is cut at the '='.
 * Returns 1 when term is one of them (applied), 0 when not (term as it
 * was), -EINVAL after one line. */
static int event_term(struct prec_evsel *ev, const char *full, char *term)
{
	char *eq = strchr(term, '=');
	uint64_t v;
	int err = flag_term(ev, full, term);

	if (err)
		return err;
	if (!eq && (!strcmp(term, "period") || !strcmp(term, "freq") || !strcmp(term, "time") ||
		    !strcmp(term, "stack-size") || !strcmp(term, "max-stack"))) {
		/* perf's grammar: a number term alone is 1 (cpu-clock/period/) */
		char one[16];

		snprintf(one, sizeof(one), "%s=1", term);
		return event_term(ev, full, one);
	}
	if (!eq)
		return 0;
	*eq = 0;
	/* perf's inherit=N, no-inherit=N, overwrite=N and no-overwrite=N:
	 * a number, 0 the other way */
	if (!strcmp(term, "inherit") || !strcmp(term, "no-inherit")) {
		bool no = term[0] == 'n';

		*eq = '=';
		err = term_value(full, term, &eq, &v);
		if (err)
			return err;
		ev->terms.inherit = no ? !v : !!v;
		return 1;
	}
	if (!strcmp(term, "overwrite") || !strcmp(term, "no-overwrite")) {
		bool no = term[0] == 'n';

		*eq = '=';
		err = term_value(full, term, &eq, &v);
		if (err)
			return err;
		ev->ow_term = (no ? !v : !!v) ? PREC_OW_ON : PREC_OW_OFF;
		return 1;
	}
	if (!strcmp(term, "name"))
		return name_term(ev, full, eq + 1) ?: 1;
	if (!strcmp(term, "call-graph"))
		return callgraph_term(ev, full, eq + 1) ?: 1;
	if (!strcmp(term, "branch_type"))
		return branch_term(ev, full, eq + 1) ?: 1;
	if (strcmp(term, "period") && strcmp(term, "freq") && strcmp(term, "time") &&
	    strcmp(term, "stack-size") && strcmp(term, "max-stack")) {
		*eq = '=';
		return 0;
	}
	*eq = '=';
	err = term_value(full, term, &eq, &v);
	if (err)
		return err;
	if (!strcmp(term, "time")) {
		/* perf's grammar: 0 or 1, its "expected 0 or 1" */
		if (v > 1) {
			pr_err("event '%s': term 'time=%s': expected 0 or 1", full, eq + 1);
			return -EINVAL;
		}
		ev->terms.time = v != 0;
		return 1;
	}
	/* period= is perf's u64, as the attr's (the kernel judges it);
	 * period=0 and freq=0 too (struct prec_evterms). freq= above 32
	 * bits is above any kernel.perf_event_max_sample_rate: refused
	 * here, where perf's open is refused. */
	if (!strcmp(term, "period")) {
		ev->attr.sample_period = ev->term_period = v;
		ev->terms.zero_period = !v;
	} else if (!strcmp(term, "freq")) {
		if (v > UINT32_MAX) {
			pr_err("event '%s': term 'freq=%s': out of range", full, eq + 1);
			return -EINVAL;
		}
		ev->terms.freq = v;
		ev->terms.zero_freq = !v;
	} else if (!strcmp(term, "stack-size")) {
		/* perf keeps the number in 32 bits: 4294967296 is 0, which,
		 * as stack-size=0, is no term at all (its dump size counts
		 * from 1) */
		ev->terms.stack_size = (uint32_t)v;
	} else {
		/* perf keeps the number in 32 bits (0 there: no term, as
		 * max-stack=0), the attr's sample_max_stack its low 16 */
		ev->terms.max_stack = (uint32_t)v;
	}
	return 1;
}

static int pmu_terms(struct prec_evsel *ev, const char *full, const char *root,
		     const char *pmu, char *terms, int depth);
static int alias_owner(const char *root, const char *name, char *pmu, size_t size);

static int pmu_term(struct prec_evsel *ev, const char *full, const char *root,
		    const char *pmu, char *term, int depth)
{
	char path[PATH_MAX], text[4096], *eq;
	uint64_t v;
	__u64 *field;
	int err = event_term(ev, full, term);

	if (!err)
		err = term_value(full, term, &eq, &v);
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

/* The next term of a terms list, cut at a ',' that is not inside single
 * quotes (perf's quoted name='a,b'); *rest moves past it, NULL after the
 * last. NULL at the end; "" for an empty term (a ',' first, last or
 * twice), which empty_term() refuses. */
static char *next_term(char **rest)
{
	char *t = *rest, *p = t;
	bool quoted = false;

	if (!t)
		return NULL;
	for (; *p && (quoted || *p != ','); p++)
		quoted ^= *p == '\'';
	*rest = *p ? p + 1 : NULL;
	*p = 0;
	return t;
}

/* perf's grammar has no empty term: cpu-clock// has none, but
 * cpu-clock/,/ and cpu-clock/period=1,/ are its syntax errors. */
static int empty_term(const char *full)
{
	pr_err("event '%s': event syntax error, as perf's: an empty term (a ',' first, last or twice between the slashes)",
	       full);
	return -EINVAL;
}

static int pmu_terms(struct prec_evsel *ev, const char *full, const char *root,
		     const char *pmu, char *terms, int depth)
{
	char *save = *terms ? terms : NULL;

	for (char *t = next_term(&save); t; t = next_term(&save)) {
		/* an alias's sysfs text (depth 1) is the kernel's: an empty
		 * term there is skipped, only the user's is perf's error */
		int err = *t ? pmu_term(ev, full, root, pmu, t, depth) :
			  depth ? 0 : empty_term(full);

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
	int err;

	*slash = 0;
	close = strrchr(slash + 1, '/');
	if (!*item || !close || close[1]) {
		pr_err("event '%s': expected pmu/term=value,.../", full);
		return -EINVAL;
	}
	*close = 0;
	snprintf(path, sizeof(path), "%s/%s/type", root, item);
	if (strchr(item, '.') || prec_file__read_line(path, text, sizeof(text)) <= 0) {
		char pmu[256], spec[PATH_MAX];

		/* perf's alias/terms/ (arm64's inst_retired/period=1000/):
		 * no PMU of that name, a PMU's alias, taken as
		 * PMU/alias,terms/ */
		if (!strchr(item, '.') && !alias_owner(root, item, pmu, sizeof(pmu)) &&
		    (size_t)snprintf(spec, sizeof(spec), "%s/%s%s%s/", pmu, item,
				     slash[1] ? "," : "", slash + 1) < sizeof(spec))
			return add_pmu(ev, full, spec, root);
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
	err = pmu_terms(ev, full, root, item, slash + 1, 0);
	if (err || ev->attr.type != PERF_TYPE_TRACEPOINT)
		return err;
	/* tracepoint/config=N/: as perf, a PMU event (sampled at -F, no
	 * RAW), its name as written; the recording carries N's format,
	 * which perf wants for any tracepoint type (it finds it by id). */
	err = prec_tracefs__name_of(ev->attr.config, &ev->tp_system, &ev->tp_name);
	if (denied(full, err))
		return -EACCES;
	if (err == -ENOENT)
		pr_err("event '%s': no tracepoint has id %llu (in %s/events/*/*/id)", full,
		       (unsigned long long)ev->attr.config, prec_tracefs__root());
	else if (err)
		pr_err("event '%s': looking its id up in tracefs: %s", full, strerror(-err));
	return err == -ENOENT ? -EINVAL : err;
}

/* The PMU whose sysfs events/ has the alias NAME, the first in name order
 * (perf takes "tsc" for msr/tsc/), into pmu; one with a type only, so
 * that add_pmu, given PMU/NAME/, never comes back here. Returns 0 or
 * -ENOENT. */
static int alias_owner(const char *root, const char *name, char *pmu, size_t size)
{
	struct dirent **pmus;
	int n = scandir(root, &pmus, NULL, alphasort), err = -ENOENT;

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX], type[PATH_MAX], text[4096];

		snprintf(path, sizeof(path), "%s/%s/events/%s", root, pmus[i]->d_name, name);
		snprintf(type, sizeof(type), "%s/%s/type", root, pmus[i]->d_name);
		if (err == -ENOENT && pmus[i]->d_name[0] != '.' && !strchr(name, '/') &&
		    strlen(pmus[i]->d_name) < size &&
		    prec_file__read_line(path, text, sizeof(text)) > 0 &&
		    prec_file__read_line(type, text, sizeof(text)) > 0) {
			strcpy(pmu, pmus[i]->d_name);
			err = 0;
		}
		free(pmus[i]);
	}
	free(pmus);
	return err;
}

/* A name no table has: an alias in some PMU's sysfs events/, as
 * PMU/alias/. Returns 0, -ENOENT (none has it) or -errno after one line. */
static int add_alias(struct prec_evsel *ev, const char *full, const char *item,
		     const char *root)
{
	char pmu[256], spec[600];

	if (alias_owner(root, item, pmu, sizeof(pmu)))
		return -ENOENT;
	snprintf(spec, sizeof(spec), "%s/%s/", pmu, item);
	return add_pmu(ev, full, spec, root);
}

/* A vendor name (br_inst_retired.near_call), where perf 6.1 reads its
 * JSON tables: libpfm4's tables of this machine's hardware PMUs give the
 * PMU's type and config words, and perf's modifiers the rest, as for a
 * sysfs alias. Returns 0, -ENOENT (none has it), -ENOSYS (no libpfm4,
 * *why says so) or -EINVAL after one line. */
static int add_vendor(struct prec_evsel *ev, const char *full, const char *item,
		      const char **why)
{
	struct perf_event_attr a = { .size = PERF_ATTR_SIZE_VER7 };
	int err = prec_pfm__encode(item, PREC_PFM_HARDWARE, &a, why);

	if (err == -EINVAL)
		pr_err("event '%s': %s", full, *why);
	if (err)
		return err;
	ev->attr.type = a.type;
	ev->attr.config = a.config;
	ev->attr.config1 = a.config1;
	ev->attr.config2 = a.config2;
	return 0;
}

static int add_named(struct prec_evsel *ev, const char *full, const char *item,
		     const char *root)
{
	const char *why = "";
	uint64_t config;
	int err;

	if (lookup(item, &ev->attr.type, &config)) {
		ev->attr.config = config;
		/* A dummy asked for is an event as any, as perf configures
		 * it (its frequency, sample_type): it takes no samples, by
		 * what it is, not by its attr. */
		/* bpf-output's period 1 goes with its attr, after the
		 * terms (evlist_config.c) */
		ev->sampling = true;
		return 0;
	}
	err = root ? add_alias(ev, full, item, root) : -ENOENT;
	if (err == -ENOENT && root)
		err = add_vendor(ev, full, item, &why);
	if (err != -ENOENT && err != -ENOSYS)
		return err;
	pr_err("event '%s': unknown event (see perf list: a hardware, software or cache name, rNNN, mem:ADDR, system:tracepoint, pmu/terms/, a PMU's alias or a vendor name%s%s)",
	       full, err == -ENOSYS ? ": " : "", err == -ENOSYS ? why : "");
	return -EINVAL;
}

/* mem:ADDR[/LEN][:rwx][:modifiers]: a hardware breakpoint, as perf
 * (rw by default; LEN 4, or a long for x, when absent or 0; period 1). */
static int add_breakpoint(struct prec_evsel *ev, const char *full, char *item,
			  const char **mods)
{
	char *p = item + 4, *end;
	uint64_t addr, len = 0;
	unsigned type = 0;

	errno = 0;
	addr = strtoull(p, &end, 0);
	if (errno || end == p)
		goto bad;
	if (*end == '/') {
		p = end + 1;
		/* 0 is the default length, as perf's */
		len = strtoull(p, &end, 0);
		if (errno || end == p || len > 8)
			goto bad;
	}
	/* mem:ADDR::u, no rwx between the colons: perf's syntax error */
	if (*end == ':' && end[1] == ':')
		return syntax_error(full);
	if (*end == ':' && end[1] && strspn(end + 1, "rwx") == strcspn(end + 1, ":")) {
		for (p = end + 1; *p && *p != ':'; p++) {
			unsigned bit = *p == 'r' ? HW_BREAKPOINT_R : *p == 'w' ? HW_BREAKPOINT_W :
				       HW_BREAKPOINT_X;

			/* a letter twice (xx) is refused, as perf's */
			if (type & bit)
				goto bad;
			type |= bit;
		}
		end = p;
	}
	if (*end == ':' && end[1])
		*mods = end + 1;
	else if (*end)
		goto bad;
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = type ? type : HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = len ? len : ev->attr.bp_type == HW_BREAKPOINT_X ?
			  sizeof(long) : HW_BREAKPOINT_LEN_4;
	ev->default_period = 1;
	return 0;
bad:
	pr_err("event '%s': expected a breakpoint as mem:ADDR[/LEN][:rwx] (LEN 1 to 8)", full);
	return -EINVAL;
}

/* perf's terms a named event takes beside event_term()'s: config=,
 * config1=, config2= set the attr's field, as perf sets them over the
 * name's; metric-id= (a name, as perf's lexer reads it), nr= and
 * percore[=0|1] are perf stat's and perf script's, and aux-output=0 asks
 * for nothing: taken with no effect on a recording, as perf record takes
 * them. Returns 1 when term is one of them, 0 when not, -EINVAL after
 * one line. */
static int named_term(struct prec_evsel *ev, const char *full, char *term)
{
	char *eq;
	uint64_t v;
	__u64 *field;
	int err;

	if (!strcmp(term, "percore"))
		return 1;
	if (!strncmp(term, "metric-id=", 10)) {
		const char *id = term + 10;
		size_t len;

		return name_value(full, "metric-id", &id, &len) ? -EINVAL : 1;
	}
	eq = strchr(term, '=');
	if (!eq)
		return 0;
	*eq = 0;
	field = config_field(&ev->attr, term);
	if (!field && strcmp(term, "nr") && strcmp(term, "percore") && strcmp(term, "aux-output")) {
		*eq = '=';
		return 0;
	}
	*eq = '=';
	err = term_value(full, term, &eq, &v);
	if (err)
		return err;
	if (field)
		*field = v;
	/* perf's "expected 0 or 1" */
	if (!strcmp(term, "percore") && v > 1) {
		pr_err("event '%s': term 'percore=%s': expected 0 or 1", full, eq + 1);
		return -EINVAL;
	}
	/* aux-output=1 asks a group's AUX area leader to take this event's
	 * samples, which no event here has: perf's open refuses it */
	if (!strcmp(term, "aux-output") && v) {
		pr_err("event '%s': term 'aux-output=%s': no AUX area event leads it (perf's open refuses it too)",
		       full, eq + 1);
		return -EINVAL;
	}
	return 1;
}

/* perf's tool events (duration_time ...): a dummy in perf record */
static bool is_tool(const char *name)
{
	return !strcmp(name, "duration_time") || !strcmp(name, "user_time") ||
	       !strcmp(name, "system_time");
}

/* perf's config_term_tracepoint: the terms a tracepoint takes (period=,
 * name=, config= ... are its "unknown term" there) */
static bool tracepoint_term(const char *term)
{
	static const char *const ok[] = { "call-graph", "stack-size", "max-stack", "inherit",
					  "no-inherit", "nr", "overwrite", "no-overwrite",
					  "aux-output", "aux-sample-size" };
	size_t n = strcspn(term, "=");

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == n && !strncmp(term, ok[i], n))
			return true;
	return false;
}

/* name/term,.../ or system:name/term,.../: a named event or a tracepoint
 * with perf's event terms (event_term), as perf takes
 * cpu-clock/period=1000/ or sched:sched_switch/no-overwrite/. */
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
	/* perf's grammar gives a tool event no terms: name// alone */
	if (is_tool(item) && slash[1]) {
		pr_err("event '%s': event syntax error, as perf's: a tool event (duration_time, user_time, system_time) takes no terms",
		       full);
		return -EINVAL;
	}
	err = strchr(item, ':') ? add_tracepoint(ev, full, item) :
	      add_named(ev, full, item, NULL);
	save = slash[1] ? slash + 1 : NULL;
	for (char *t = next_term(&save); t && !err; t = next_term(&save)) {
		if (!*t) {
			err = empty_term(full);
			break;
		}
		if (ev->tp_system && !tracepoint_term(t)) {
			pr_err("event '%s': unknown term '%s' (a tracepoint takes perf's call-graph=, stack-size=, max-stack=, inherit, no-inherit, nr=, overwrite, no-overwrite)",
			       full, t);
			err = -EINVAL;
			break;
		}
		err = event_term(ev, full, t);
		if (!err)
			err = named_term(ev, full, t);
		if (!err) {
			pr_err("event '%s': unknown term '%s' (a named event or tracepoint takes perf's name=, period=, freq=, time=, branch_type=, call-graph=, stack-size=, max-stack=, inherit, no-inherit, overwrite, no-overwrite, config=, config1=, config2=, metric-id=, nr=, percore)",
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

/* perf's tracepoint globs: system:name with '*' or '?' in either (a '['
 * alone is a name, no glob), before any terms */
static bool is_tracepoint_glob(const char *s)
{
	size_t head = strcspn(s, "/");
	const char *colon = memchr(s, ':', head);

	return colon && strcspn(s, "*?") < head;
}

/* As perf: with a system glob, every system it matches must have the
 * event (or, a name glob too, one event it matches), else perf's
 * "unknown tracepoint" (*:sched_switch matches systems without it).
 * Returns 0 or -errno after one line. */
static int every_system_has(const char *full, const char *sys, const char *name)
{
	char **systems, **names;
	int n, err = 0;

	if (!strpbrk(sys, "*?"))
		return 0;
	n = prec_tracefs__systems(sys, &systems);
	if (n < 0)
		return 0; /* prec_tracefs__glob's listing says it */
	for (int i = 0; i < n && !err; i++) {
		uint64_t id;
		int m = strpbrk(name, "*?") ? prec_tracefs__glob(systems[i], name, &names) :
			prec_tracefs__event_id(systems[i], name, &id) ? 0 : 1;

		if (m > 0 && strpbrk(name, "*?"))
			prec_tracefs__free_list(names, m);
		if (m <= 0) {
			pr_err("event '%s': no tracepoint %s:%s, and perf wants one in every system '%s' matches (its unknown tracepoint)",
			       full, systems[i], name, sys);
			err = -EINVAL;
		}
	}
	prec_tracefs__free_list(systems, n);
	return err;
}

int prec_event__expand(const char *full, char ***out)
{
	char *item, *colon, **names = NULL, **items, *terms;
	const char *mods = NULL;
	bool bare;
	int n;

	*out = NULL;
	if (!is_tracepoint_glob(full))
		return 0;
	item = dup_item(full);
	if (!item)
		return -ENOMEM;
	/* sys:glob/terms/mods: the terms and what follows them go to each
	 * match as written (perf takes sched:sched_sw* with call-graph=fp
	 * in slashes after it) */
	terms = strchr(item, '/');
	if (terms) {
		terms = strdup(terms);
		*strchr(item, '/') = 0;
		if (!terms) {
			free(item);
			return -ENOMEM;
		}
	} else {
		bare = cut_bare_colon(item);
		mods = split_mods(item);
		if (bare && mods) {
			free(item);
			return syntax_error(full);
		}
	}
	colon = strchr(item, ':');
	*colon = 0;
	n = every_system_has(full, item, colon + 1);
	if (n) {
		free(item);
		free(terms);
		return n;
	}
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
		free(terms);
		return n == 0 ? -EINVAL : n;
	}
	items = calloc((size_t)n, sizeof(*items));
	for (int i = 0; items && i < n; i++) {
		char one[1024];

		snprintf(one, sizeof(one), "%s%s%s%s", names[i], mods ? ":" : "",
			 mods ? mods : "", terms ? terms : "");
		items[i] = strdup(one);
		if (!items[i]) {
			prec_tracefs__free_list(items, i);
			items = NULL;
		}
	}
	prec_tracefs__free_list(names, n);
	free(item);
	free(terms);
	if (!items)
		return -ENOMEM;
	*out = items;
	return n;
}

int prec_event__parse(struct prec_evsel *ev, const char *full, const char *root)
{
	const char *mods = NULL;
	char *item = dup_item(full);
	bool bare;
	int err;

	if (!item)
		return -ENOMEM;
	if (!colon_after_terms_ok(item)) {
		free(item);
		return syntax_error(full);
	}
	bare = cut_bare_colon(item);
	if (!strncmp(item, "mem:", 4))
		err = add_breakpoint(ev, full, item, &mods);
	else if (mods = split_mods(item), is_termed(item))
		err = add_termed(ev, full, item);
	else if (strchr(item, '/'))
		err = add_pmu(ev, full, item, root);
	else if (strchr(item, ':'))
		err = add_tracepoint(ev, full, item);
	else
		err = add_named(ev, full, item, root);
	if (!err && mods && (bare || strchr(mods, ':')))
		err = syntax_error(full);
	if (!err && mods)
		err = prec_event__modify(ev, full, mods, false, true);
	free(item);
	return err;
}

int prec_event__parse_pfm(struct prec_evsel *ev, const char *text)
{
	const char *why;
	int err = prec_pfm__encode(text, PREC_PFM_ANY, &ev->attr, &why);
	struct perf_event_attr *a = &ev->attr;

	if (err) {
		pr_err("option --pfm-events: event '%s': %s", text, why);
		return err == -ENOENT ? -EINVAL : err;
	}
	/* As perf: libpfm4's period= or freq= is the event's own, as a
	 * term's (-c and -F apply only where it gives neither). */
	if (a->freq)
		ev->terms.freq = a->sample_freq;
	else
		ev->term_period = a->sample_period;
	a->freq = 0;
	a->sample_period = 0;
	return 0;
}
