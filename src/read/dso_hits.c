// SPDX-License-Identifier: MIT
// Which mapped files a recording's samples hit: per task, its maps sorted
// by address (as the kernel's VMAs: a new map cuts what it overlaps), a
// fork copying the parent's, an exec clearing them; each sample's IP and
// call chain looked up there (kernel addresses in the modules' maps, else
// the kernel itself). What `prec archive` packs by default.
#include "read/dso_hits.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_PID (-1)
#define NAME_KERNEL "[kernel.kallsyms]"

struct name {
	char *s;
	bool hit;
};

struct map {
	uint64_t start, end;   /* [start, end) */
	uint32_t name;         /* index in names */
};

struct task {
	int32_t pid;
	uint32_t nr, cap;
	struct map *maps;      /* sorted by start, never overlapping */
};

struct event_fmt {
	uint64_t id, sample_type, read_format;
};

struct prec_dso_hits {
	struct event_fmt *evs; /* sorted by id */
	uint32_t nr_evs;
	struct name *names;    /* every name seen, an index for life */
	uint32_t nr_names;
	uint32_t *slots;       /* names' index + 1 hashed by string, 0 empty */
	uint32_t slots_cap;
	struct task *tasks;    /* hashed by pid, open addressing */
	uint32_t tasks_cap, nr_tasks;
	uint32_t kernel_name;  /* NAME_KERNEL's index */
	uint64_t samples;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The slot of s in the hash: where its index + 1 is, or a 0 to put it. */
static uint32_t name_slot(const struct prec_dso_hits *h, const char *s)
{
	uint32_t i = (uint32_t)hash_str(s) & (h->slots_cap - 1);

	while (h->slots[i] && strcmp(h->names[h->slots[i] - 1].s, s))
		i = (i + 1) & (h->slots_cap - 1);
	return i;
}

static int grow_names(struct prec_dso_hits *h)
{
	uint32_t cap = h->slots_cap ? h->slots_cap * 2 : 256;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	struct name *names = realloc(h->names, cap / 2 * sizeof(*names));

	if (names)
		h->names = names;
	if (!slots || !names) {
		free(slots);
		return -ENOMEM;
	}
	free(h->slots);
	h->slots = slots;
	h->slots_cap = cap;
	for (uint32_t i = 0; i < h->nr_names; i++)
		h->slots[name_slot(h, h->names[i].s)] = i + 1;
	return 0;
}

/* The index of name s, added if new; -ENOMEM. */
static int64_t intern(struct prec_dso_hits *h, const char *s)
{
	uint32_t i;

	if ((h->nr_names + 1) * 2 > h->slots_cap && grow_names(h) < 0)
		return -ENOMEM;
	i = name_slot(h, s);
	if (!h->slots[i]) {
		h->names[h->nr_names] = (struct name){ strdup(s), false };
		if (!h->names[h->nr_names].s)
			return -ENOMEM;
		h->slots[i] = ++h->nr_names;
	}
	return h->slots[i] - 1;
}

static struct task *find_task(struct prec_dso_hits *h, int32_t pid, bool add)
{
	uint32_t i;

	if (!h->tasks_cap)
		return NULL;
	i = (uint32_t)((uint64_t)(uint32_t)pid * 0x9E3779B97F4A7C15ull >> 40) & (h->tasks_cap - 1);
	while (h->tasks[i].maps || h->tasks[i].cap) {
		if (h->tasks[i].pid == pid)
			return &h->tasks[i];
		i = (i + 1) & (h->tasks_cap - 1);
	}
	if (!add)
		return NULL;
	h->tasks[i].pid = pid;
	h->tasks[i].cap = 0;
	h->nr_tasks++;
	return &h->tasks[i];
}

static int grow_tasks(struct prec_dso_hits *h)
{
	struct task *old = h->tasks;
	uint32_t cap = h->tasks_cap;

	h->tasks_cap = cap ? cap * 2 : 256;
	h->tasks = calloc(h->tasks_cap, sizeof(*h->tasks));
	if (!h->tasks) {
		h->tasks = old;
		h->tasks_cap = cap;
		return -ENOMEM;
	}
	h->nr_tasks = 0;
	for (uint32_t i = 0; i < cap; i++) {
		if (!old[i].cap)
			continue;
		*find_task(h, old[i].pid, true) = old[i];
	}
	free(old);
	return 0;
}

/* pid's task, made (with room for maps) when it has none. */
static struct task *get_task(struct prec_dso_hits *h, int32_t pid)
{
	struct task *t;

	if ((h->nr_tasks + 1) * 2 > h->tasks_cap && grow_tasks(h) < 0)
		return NULL;
	t = find_task(h, pid, true);
	if (!t->cap) {
		t->maps = malloc(8 * sizeof(*t->maps));
		if (!t->maps) {
			h->nr_tasks--;
			t->pid = 0;
			return NULL;
		}
		t->cap = 8;
		t->nr = 0;
	}
	return t;
}

static int cmp_ev(const void *a, const void *b)
{
	uint64_t x = ((const struct event_fmt *)a)->id, y = ((const struct event_fmt *)b)->id;

	return x < y ? -1 : x > y;
}

int prec_dso_hits__new(struct prec_dso_hits **out, const struct prec_manifest *m)
{
	struct prec_dso_hits *h = calloc(1, sizeof(*h));
	uint32_t n = 0;
	int64_t k;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_events; i++)
		n += m->events[i].nr_ids;
	h->evs = calloc(n ? n : 1, sizeof(*h->evs));
	if (!h->evs || grow_names(h) < 0 || grow_tasks(h) < 0)
		goto fail;
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const uint8_t *a = m->events[i].attr;
		uint64_t st = prec_ld64(a + offsetof(struct perf_event_attr, sample_type));
		uint64_t rf = prec_ld64(a + offsetof(struct perf_event_attr, read_format));

		for (uint32_t j = 0; j < m->events[i].nr_ids; j++)
			h->evs[h->nr_evs++] = (struct event_fmt){ m->events[i].ids[j], st, rf };
	}
	qsort(h->evs, h->nr_evs, sizeof(*h->evs), cmp_ev);
	k = intern(h, NAME_KERNEL);
	if (k < 0)
		goto fail;
	h->kernel_name = (uint32_t)k;
	*out = h;
	return 0;
fail:
	prec_dso_hits__delete(h);
	return -ENOMEM;
}

void prec_dso_hits__delete(struct prec_dso_hits *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; i < h->nr_names; i++)
		free(h->names[i].s);
	free(h->slots);
	for (uint32_t i = 0; i < h->tasks_cap; i++)
		free(h->tasks[i].maps);
	free(h->names);
	free(h->tasks);
	free(h->evs);
	free(h);
}

/* The index of the first map whose end is past addr. */
static uint32_t lower(const struct task *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int reserve(struct task *t, uint32_t more)
{
	struct map *n;

	if (t->nr + more <= t->cap)
		return 0;
	n = realloc(t->maps, (size_t)(t->cap * 2 + more) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->maps = n;
	t->cap = t->cap * 2 + more;
	return 0;
}

/* [start, end) of name into t: what it overlaps is cut away (a map that
 * covers it on both sides is split in two). */
static int insert(struct task *t, uint64_t start, uint64_t end, uint32_t name)
{
	uint32_t i, j;

	if (reserve(t, 2) < 0)
		return -ENOMEM;
	i = lower(t, start);
	/* a map from before start into the new one: keep its head, and its
	 * tail too when it reaches past end */
	if (i < t->nr && t->maps[i].start < start) {
		struct map head = t->maps[i];

		head.end = start;
		if (t->maps[i].end > end) {
			memmove(&t->maps[i + 1], &t->maps[i], (t->nr - i) * sizeof(*t->maps));
			t->nr++;
			t->maps[i + 1].start = end;
		}
		t->maps[i++] = head;
	}
	for (j = i; j < t->nr && t->maps[j].end <= end; j++)
		;
	if (j < t->nr && t->maps[j].start < end)
		t->maps[j].start = end;
	/* maps[i, j) lie inside the new one: it takes their place */
	if (j == i) {
		memmove(&t->maps[i + 1], &t->maps[i], (t->nr - i) * sizeof(*t->maps));
		t->nr++;
	} else if (j > i + 1) {
		memmove(&t->maps[i + 1], &t->maps[j], (t->nr - j) * sizeof(*t->maps));
		t->nr -= j - i - 1;
	}
	t->maps[i] = (struct map){ start, end, name };
	return 0;
}

static const struct map *lookup(const struct task *t, uint64_t addr)
{
	uint32_t i;

	if (!t)
		return NULL;
	i = lower(t, addr);
	return i < t->nr && t->maps[i].start <= addr ? &t->maps[i] : NULL;
}

/* MMAP or MMAP2: pid, tid, addr, len at 8; the name at name_off. */
static int add_map(struct prec_dso_hits *h, const uint8_t *p, uint32_t len,
		   uint32_t name_off, bool kernel)
{
	int32_t pid = (int32_t)prec_ld32(p + 8);
	uint64_t start = prec_ld64(p + 16), size = prec_ld64(p + 24);
	const char *name = (const char *)p + name_off;
	struct task *t;
	int64_t k;

	if (len <= name_off || !memchr(name, 0, len - name_off) || !size ||
	    start + size < start)
		return 0;
	k = intern(h, name);
	if (k < 0)
		return (int)k;
	t = get_task(h, kernel ? KERNEL_PID : pid);
	return t ? insert(t, start, start + size, (uint32_t)k) : -ENOMEM;
}

/* FORK of a new process: the parent's maps, copied; not for a FORK
 * synthesized from /proc (misc FORK_EXEC, as perf's reader): the child's
 * own maps follow it. */
static int add_fork(struct prec_dso_hits *h, const uint8_t *p, uint32_t len)
{
	int32_t pid, ppid;
	struct task *child, *parent;

	if (len < 24 || (prec_ld16(p + 4) & PERF_RECORD_MISC_FORK_EXEC))
		return 0;
	pid = (int32_t)prec_ld32(p + 8);
	ppid = (int32_t)prec_ld32(p + 12);
	if (pid == ppid || !find_task(h, ppid, false))
		return 0;
	child = get_task(h, pid);
	parent = find_task(h, ppid, false); /* get_task may have moved it */
	if (!child || reserve(child, parent->nr) < 0)
		return -ENOMEM;
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*parent->maps));
	child->nr = parent->nr;
	return 0;
}

static void mark(struct prec_dso_hits *h, int32_t pid, uint64_t ip, bool kernel)
{
	const struct map *m = lookup(find_task(h, kernel ? KERNEL_PID : pid, false), ip);

	if (m && (!kernel || h->names[m->name].s[0] == '/'))
		h->names[m->name].hit = true;
	else if (kernel)
		h->names[h->kernel_name].hit = true;
}

static const struct event_fmt *event_of(const struct prec_dso_hits *h, uint64_t id)
{
	struct event_fmt key = { .id = id };

	return bsearch(&key, h->evs, h->nr_evs, sizeof(*h->evs), cmp_ev);
}

/* Bytes of a READ field with read_format rf at p (end: the record's end);
 * 0 when it does not fit. */
static uint32_t read_size(uint64_t rf, const uint8_t *p, const uint8_t *end)
{
	uint32_t per = 8 + 8 * !!(rf & PERF_FORMAT_ID) + 8 * !!(rf & PERF_FORMAT_LOST);
	uint32_t times = 8 * !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 8 * !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return per + times;
	if (end - p < 8)
		return 0;
	nr = prec_ld64(p);
	if (nr > (uint64_t)(end - p) / per)
		return 0;
	return 8 + times + (uint32_t)nr * per;
}

static void add_sample(struct prec_dso_hits *h, const uint8_t *p, uint32_t len)
{
	const uint8_t *q = p + 16, *end = p + len;
	uint16_t misc = prec_ld16(p + 4);
	const struct event_fmt *e;
	uint64_t st, ip = 0;
	int32_t pid = 0;
	bool kernel;

	if (len < 16 || !(e = event_of(h, prec_ld64(p + 8))))
		return;
	st = e->sample_type;
	kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER && !kernel)
		return; /* a guest's or the hypervisor's: no file of ours */
	h->samples++;
	if (st & PERF_SAMPLE_IP) {
		if (end - q < 8)
			return;
		ip = prec_ld64(q);
		q += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		if (end - q < 8)
			return;
		pid = (int32_t)prec_ld32(q);
		q += 8;
	}
	if (st & PERF_SAMPLE_IP)
		mark(h, pid, ip, kernel);
	q += 8 * (!!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR) +
		  !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
		  !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_PERIOD));
	if (q > end)
		return;
	if (st & PERF_SAMPLE_READ) {
		uint32_t n = read_size(e->read_format, q, end);

		if (!n || n > (uint64_t)(end - q))
			return;
		q += n;
	}
	if (!(st & PERF_SAMPLE_CALLCHAIN) || end - q < 8)
		return;
	/* The chain: context markers say whose addresses follow. */
	uint64_t nr = prec_ld64(q);

	q += 8;
	if (nr > (uint64_t)(end - q) / 8)
		return;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = prec_ld64(q + 8 * i);

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			if (a == (uint64_t)PERF_CONTEXT_KERNEL || a == (uint64_t)PERF_CONTEXT_USER)
				kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			else
				return; /* a guest's chain */
			continue;
		}
		mark(h, pid, a, kernel);
	}
}

int prec_dso_hits__add(struct prec_dso_hits *h, const void *rec, uint32_t len)
{
	const uint8_t *p = rec;
	uint16_t misc;
	struct task *t;
	bool kernel;

	if (len < 8)
		return 0;
	misc = prec_ld16(p + 4);
	kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	switch (prec_ld32(p)) {
	case PERF_RECORD_SAMPLE:
		add_sample(h, p, len);
		return 0;
	case PERF_RECORD_MMAP:
		return len >= 48 ? add_map(h, p, len, 40, kernel) : 0;
	case PERF_RECORD_MMAP2:
		return len >= 80 ? add_map(h, p, len, 72, kernel) : 0;
	case PERF_RECORD_FORK:
		return add_fork(h, p, len);
	case PERF_RECORD_COMM:
		if (len >= 16 && (misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    (t = find_task(h, (int32_t)prec_ld32(p + 8), false)))
			t->nr = 0;
		return 0;
	default:
		return 0;
	}
}

bool prec_dso_hits__hit(const struct prec_dso_hits *h, const char *path)
{
	uint32_t i = name_slot(h, path);

	return h->slots[i] && h->names[h->slots[i] - 1].hit;
}

uint64_t prec_dso_hits__samples(const struct prec_dso_hits *h)
{
	return h->samples;
}
