// SPDX-License-Identifier: MIT
// The in-memory manifest: construction, the copying add_* helpers, and
// delete(). Encoding lives in manifest_codec.c, files in manifest_io.c.
#include "store/store.h"
#include "util/hash.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

struct prec_manifest *prec_manifest__new(void)
{
	struct prec_manifest *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->state = PREC_STATE_RECORDING;
	m->clockid = -1; /* perf clock until the recorder says otherwise */
	return m;
}

static void free_event(struct prec_manifest_event *e)
{
	free(e->name);
	free(e->group_name);
	free(e->ids);
	free(e->id_cpus);
	free(e->id_tids);
	free(e->id_lost);
}

static void free_tracepoint(struct prec_manifest_tracepoint *t)
{
	free(t->system);
	free(t->name);
	free(t->format);
}

/* The build-id table's hash: open addressing on the path (index + 1, 0 =
 * free), and the table's capacity and sizes against its bounds. */
struct prec_manifest_buildid_index {
	uint32_t *slots;
	uint32_t nr_slots;     /* a power of two, > 2 * nr */
	uint32_t nr;           /* entries indexed: m->nr_buildids when current */
	uint32_t cap;          /* room in m->buildids */
	uint32_t files, others; /* entries of each kind (bounds) */
	uint64_t file_bytes;
};

static void free_index(struct prec_manifest *m)
{
	if (m->bid_index)
		free(m->bid_index->slots);
	free(m->bid_index);
	m->bid_index = NULL;
}

static void free_arrays(struct prec_manifest *m)
{
	uint32_t i;

	for (i = 0; m->events && i < m->nr_events; i++)
		free_event(&m->events[i]);
	free(m->events);
	for (i = 0; m->tracepoints && i < m->nr_tracepoints; i++)
		free_tracepoint(&m->tracepoints[i]);
	free(m->tracepoints);
	for (i = 0; m->shards && i < m->nr_shards; i++)
		free(m->shards[i].name);
	free(m->shards);
	for (i = 0; m->buildids && i < m->nr_buildids; i++)
		free(m->buildids[i].path);
	free(m->buildids);
	free_index(m);
}

void prec_manifest__clear_buildids(struct prec_manifest *m)
{
	for (uint32_t i = 0; m->buildids && i < m->nr_buildids; i++)
		free(m->buildids[i].path);
	free(m->buildids);
	m->buildids = NULL;
	m->nr_buildids = 0;
	m->buildids_dropped = 0;
	free_index(m);
}

void prec_manifest_pmu__exit(struct prec_manifest_pmu *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; p->caps && i < p->nr_caps; i++) {
		free(p->caps[i].name);
		free(p->caps[i].value);
	}
	free(p->caps);
	free(p->name);
	memset(p, 0, sizeof(*p));
}

void prec_manifest_cache__exit(struct prec_manifest_cache *c)
{
	if (!c)
		return;
	free(c->type);
	free(c->size);
	free(c->map);
	memset(c, 0, sizeof(*c));
}

void prec_manifest__delete(struct prec_manifest *m)
{
	if (!m)
		return;
	free(m->hostname);
	free(m->os_release);
	free(m->arch);
	free(m->cpu_desc);
	free(m->cpu_id);
	free(m->version);
	free(m->cpus);
	for (uint32_t i = 0; m->numa_nodes && i < m->nr_numa_nodes; i++) {
		free(m->numa_nodes[i].cpus);
		free(m->numa_nodes[i].mem_blocks);
	}
	free(m->numa_nodes);
	for (uint32_t i = 0; m->pmus && i < m->nr_pmus; i++)
		prec_manifest_pmu__exit(&m->pmus[i]);
	free(m->pmus);
	for (uint32_t i = 0; m->caches && i < m->nr_caches; i++)
		prec_manifest_cache__exit(&m->caches[i]);
	free(m->caches);
	for (uint32_t i = 0; m->bpf_progs && i < m->nr_bpf_progs; i++)
		free(m->bpf_progs[i].rec);
	free(m->bpf_progs);
	for (uint32_t i = 0; m->btfs && i < m->nr_btfs; i++)
		free(m->btfs[i].data);
	free(m->btfs);
	for (uint32_t i = 0; m->argv && i < m->argc; i++)
		free(m->argv[i]);
	free(m->argv);
	free_arrays(m);
	free(m->header_page);
	free(m->header_event);
	free(m->printk_formats);
	free(m->saved_cmdlines);
	free(m->auxtrace_priv);
	free(m);
}

/* strdup that keeps NULL as NULL: absent and empty differ in the format. */
static int dup_str(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

int prec_manifest__set_str(struct prec_manifest *m, char **field, const char *s)
{
	char *copy;
	int err;

	(void)m;
	if (!field)
		return -EINVAL;
	err = dup_str(&copy, s);
	if (err)
		return err;
	free(*field);
	*field = copy;
	return 0;
}

int prec_manifest__set_argv(struct prec_manifest *m, int argc, char *const argv[])
{
	char **v = NULL;
	int i;

	if (argc < 0 || (argc > 0 && !argv))
		return -EINVAL;
	if (argc > 0) {
		/* NULL-terminated so it can be handed to execvp() or printed. */
		v = calloc((size_t)argc + 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	for (i = 0; i < argc; i++) {
		if (dup_str(&v[i], argv[i]))
			goto free_copies;
	}
	for (uint32_t j = 0; m->argv && j < m->argc; j++)
		free(m->argv[j]);
	free(m->argv);
	m->argv = v;
	m->argc = (uint32_t)argc;
	return 0;

free_copies:
	while (i-- > 0)
		free(v[i]);
	free(v);
	return -ENOMEM;
}

/* Grow *arr from n to n + 1 elements of size sz; the new one is zeroed.
 * Doubled when full, the room read off the allocation itself (arrays are
 * also made whole by the decoder, with no count of room beside them): a
 * realloc per element copied the whole array each time under ASan (no
 * in-place growth there), 200,000 events minutes of copying. */
static int grow(void *arr, uint32_t n, size_t sz)
{
	void **p = arr;
	void *q = *p;

	if (n == UINT32_MAX)
		return -ENOMEM;
	if (malloc_usable_size(q) < ((size_t)n + 1) * sz) {
		q = realloc(q, ((size_t)n + (n ? n : 1)) * sz);
		if (!q)
			return -ENOMEM;
	}
	memset((char *)q + (size_t)n * sz, 0, sz);
	*p = q;
	return 0;
}

int prec_manifest__add_event(struct prec_manifest *m, const void *attr128,
			     const char *name)
{
	struct prec_manifest_event *e;
	uint8_t attr[sizeof(e->attr)];
	char *copy;

	if (!attr128 || m->nr_events >= INT32_MAX)
		return -EINVAL;
	/* Copied first: attr128 may be an event's of m, which grow() moves. */
	memcpy(attr, attr128, sizeof(attr));
	if (dup_str(&copy, name))
		return -ENOMEM;
	if (grow(&m->events, m->nr_events, sizeof(*m->events))) {
		free(copy);
		return -ENOMEM;
	}
	e = &m->events[m->nr_events];
	memcpy(e->attr, attr, sizeof(e->attr));
	e->name = copy;
	return (int)m->nr_events++;
}

int prec_manifest__add_event_id(struct prec_manifest *m, uint32_t event,
				uint64_t id, int32_t cpu, int32_t tid)
{
	struct prec_manifest_event *e;

	if (event >= m->nr_events)
		return -EINVAL;
	e = &m->events[event];
	/* Three separate arrays: grow each; a failure leaves nr_ids unchanged
	 * and the arrays merely over-allocated, which delete() handles. */
	if (grow(&e->ids, e->nr_ids, sizeof(*e->ids)) ||
	    grow(&e->id_cpus, e->nr_ids, sizeof(*e->id_cpus)) ||
	    grow(&e->id_tids, e->nr_ids, sizeof(*e->id_tids)) ||
	    (e->id_lost && grow(&e->id_lost, e->nr_ids, sizeof(*e->id_lost))))
		return -ENOMEM;
	e->ids[e->nr_ids] = id;
	e->id_cpus[e->nr_ids] = cpu;
	e->id_tids[e->nr_ids] = tid;
	e->nr_ids++;
	return 0;
}

int prec_manifest__set_id_lost(struct prec_manifest *m, uint32_t event, uint32_t j,
			       uint64_t lost)
{
	struct prec_manifest_event *e;

	if (event >= m->nr_events || j >= m->events[event].nr_ids)
		return -EINVAL;
	e = &m->events[event];
	if (!e->id_lost && !lost)
		return 0;
	if (!e->id_lost) {
		e->id_lost = calloc(e->nr_ids, sizeof(*e->id_lost));
		if (!e->id_lost)
			return -ENOMEM;
	}
	e->id_lost[j] = lost;
	return 0;
}

int prec_manifest__add_tracepoint(struct prec_manifest *m, const char *system,
				  const char *name, uint64_t id,
				  const char *format)
{
	struct prec_manifest_tracepoint t = { .id = id };

	if (dup_str(&t.system, system) || dup_str(&t.name, name) ||
	    dup_str(&t.format, format))
		goto free_strings;
	if (grow(&m->tracepoints, m->nr_tracepoints, sizeof(t)))
		goto free_strings;
	m->tracepoints[m->nr_tracepoints++] = t;
	return 0;

free_strings:
	free_tracepoint(&t);
	return -ENOMEM;
}

int prec_manifest__add_shard(struct prec_manifest *m,
			     const struct prec_manifest_shard *s)
{
	struct prec_manifest_shard copy;

	if (!s)
		return -EINVAL;
	copy = *s;
	if (dup_str(&copy.name, s->name))
		return -ENOMEM;
	if (grow(&m->shards, m->nr_shards, sizeof(copy))) {
		free(copy.name);
		return -ENOMEM;
	}
	m->shards[m->nr_shards++] = copy;
	return 0;
}

static uint64_t path_hash(const char *p)
{
	return prec_hash__end(prec_hash__bytes(PREC_HASH_SEED, p, p ? strlen(p) : 0));
}

static bool same_path(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* A mapped file's entry: what a workload can multiply. */
static bool is_file(const struct prec_manifest_buildid *b)
{
	return b->path && b->path[0] == '/' && b->cpumode == PERF_RECORD_MISC_USER;
}

static void index_put(struct prec_manifest_buildid_index *x,
		      const struct prec_manifest_buildid *b, uint32_t i)
{
	uint64_t h = path_hash(b->path);

	while (x->slots[h & (x->nr_slots - 1)])
		h++;
	x->slots[h & (x->nr_slots - 1)] = i + 1;
	x->nr++;
	if (is_file(b)) {
		x->files++;
		x->file_bytes += strlen(b->path) + 1;
	} else {
		x->others++;
	}
}

/* The index of m's table as it is, with room for one more entry. */
static int index_ready(struct prec_manifest *m)
{
	struct prec_manifest_buildid_index *x = m->bid_index;
	uint32_t n;

	if (x && x->nr == m->nr_buildids && (x->nr + 1) * 2 < x->nr_slots)
		return 0;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		m->bid_index = x;
		/* decoded or filled by hand: exactly as big as it is */
		x->cap = m->nr_buildids;
	}
	for (n = 64; n <= 2 * ((uint64_t)m->nr_buildids + 1); n *= 2)
		;
	free(x->slots);
	x->slots = calloc(n, sizeof(*x->slots));
	if (!x->slots) {
		free_index(m);
		return -ENOMEM;
	}
	x->nr_slots = n;
	x->nr = x->files = x->others = 0;
	x->file_bytes = 0;
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		index_put(x, &m->buildids[i], i);
	return 0;
}

static bool over_bounds(const struct prec_manifest_buildid_index *x,
			const struct prec_manifest_buildid *b)
{
	size_t len = b->path ? strlen(b->path) : 0;

	if (len >= PREC_MANIFEST_BUILDID_PATH_MAX)
		return true;
	if (!is_file(b))
		return x->others >= PREC_MANIFEST_BUILDIDS_OTHER;
	return x->files >= PREC_MANIFEST_BUILDIDS_MAX ||
	       x->file_bytes + len + 1 > PREC_MANIFEST_BUILDID_BYTES_MAX;
}

int prec_manifest__has_buildid(struct prec_manifest *m, const char *path)
{
	uint64_t h = path_hash(path);
	uint32_t *slot;
	int err = index_ready(m);

	if (err)
		return err;
	for (;; h++) {
		slot = &m->bid_index->slots[h & (m->bid_index->nr_slots - 1)];
		if (!*slot)
			return 0;
		if (same_path(m->buildids[*slot - 1].path, path))
			return 1;
	}
}

static bool same_buildid(const struct prec_manifest_buildid *a,
			 const struct prec_manifest_buildid *b)
{
	if (a->size != b->size || memcmp(a->id, b->id, a->size))
		return false;
	if (!a->path || !b->path)
		return a->path == b->path;
	return !strcmp(a->path, b->path);
}

int prec_manifest__add_buildid(struct prec_manifest *m,
			       const struct prec_manifest_buildid *b)
{
	struct prec_manifest_buildid_index *x;
	struct prec_manifest_buildid copy;
	uint64_t h;
	int err;

	if (!b || b->size > sizeof(b->id))
		return -EINVAL;
	err = index_ready(m);
	if (err)
		return err;
	x = m->bid_index;
	for (h = path_hash(b->path);; h++) {
		uint32_t slot = x->slots[h & (x->nr_slots - 1)];

		if (!slot)
			break;
		if (same_buildid(&m->buildids[slot - 1], b))
			return 0;
	}
	if (over_bounds(x, b)) {
		if (m->buildids_dropped < UINT32_MAX)
			m->buildids_dropped++;
		return 0;
	}
	if (m->nr_buildids == x->cap) {
		uint32_t cap = x->cap < 16 ? 16 : x->cap * 2;
		void *n = realloc(m->buildids, (size_t)cap * sizeof(copy));

		if (!n)
			return -ENOMEM;
		m->buildids = n;
		x->cap = cap;
	}
	copy = *b;
	/* Bytes past size are not part of the id; zero them so two equal
	 * manifests encode to equal bytes. */
	memset(copy.id + copy.size, 0, sizeof(copy.id) - copy.size);
	if (dup_str(&copy.path, b->path))
		return -ENOMEM;
	m->buildids[m->nr_buildids] = copy;
	index_put(x, &copy, m->nr_buildids);
	m->nr_buildids++;
	return 0;
}
