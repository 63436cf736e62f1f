// SPDX-License-Identifier: MIT
// A recording's build-ids at its close, and perf's build-id cache.
//
// Each (path, file) the drainers saw takes the id buildid_reader.c read
// for its file; the files never read (a full queue, a reader turned off)
// are read now, once per file, by workers under a 5 s deadline. The
// synthesized maps' ids were read with the side band; the kernel's and
// modules' come from /sys/kernel/notes and /sys/module/*/notes. The vDSO
// has no file: when a [vdso] map was seen, its id comes from the
// recorder's own vDSO (the same kernel's image, vdso.c), kept as vdso.so.
// The table is a hash and bounded as the manifest's (docs/security.md,
// "The build-id table is bounded"; bench/buildid_stop.sh). No pass over
// the data: the drainers saw every MMAP2, so the manifest is on disk soon
// after the stop whatever the trace size.
#include "record/buildid_collect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/buildid_fill.h"
#include "record/vdso.h"
#include "util/buildid.h"
#include "util/buildid_workers.h"
#include "util/log.h"

static bool have_buildid(struct prec_manifest *m, const char *path)
{
	return prec_manifest__has_buildid(m, path) == 1;
}

/* qsort order of requests: by file (device, inode) alone, an O(1)
 * comparison however long and alike the paths are. */
static int req_cmp(const void *pa, const void *pb)
{
	const struct prec_buildid_req *a = pa, *b = pb;

	if (a->maj != b->maj)
		return a->maj < b->maj ? -1 : 1;
	if (a->min != b->min)
		return a->min < b->min ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

/* Every map the drainers saw, one after another: pos starts zeroed; NULL
 * at the end. */
struct seen_pos {
	int c, i, nr;
	const struct prec_seen_map *maps;
};

static const struct prec_seen_map *next_seen(const struct prec_seen_maps *s, struct seen_pos *p)
{
	while (p->i >= p->nr) {
		if (p->c >= s->nr)
			return NULL;
		const struct prec_drainer_handover *h = s->hand ? &s->hand[p->c] : NULL;

		p->i = 0;
		p->maps = h && h->present ? h->maps : NULL;
		p->nr = p->maps ? h->nr_maps : 0;
		p->c++;
	}
	return &p->maps[p->i++];
}

/* (path, id) into the manifest; a table over its bounds counts it. */
static void add_one(struct prec_manifest *m, const char *path, uint16_t cpumode,
		    const uint8_t *id, int size)
{
	struct prec_manifest_buildid b = { .pid = -1, .path = (char *)path,
		.cpumode = cpumode, .size = (uint8_t)size };

	memcpy(b.id, id, sizeof(b.id));
	if (prec_manifest__add_buildid(m, &b))
		pr_warn("build-id %s: %s", path, strerror(ENOMEM));
}

/* The maps without an id, one request per (file, path) as the drainers
 * saw them (a pair two CPUs saw comes twice: the manifest keeps one),
 * sorted by file: each file read once (a workload's N paths to one file
 * cost one read and N log N, never N^2). The build-ids the recording's
 * reader got early go straight in; a file it found with no usable note
 * needs no read. */
static size_t want_reads(struct prec_manifest *m, const struct prec_seen_maps *s,
			 struct prec_buildid_reader *early, struct prec_buildid_req **out,
			 uint16_t **modes_out)
{
	struct prec_buildid_req *reqs = NULL, *n;
	uint16_t *modes = NULL, *nm;
	size_t nr = 0, cap = 0;
	struct seen_pos pos = { 0 };
	const struct prec_seen_map *sm;
	uint8_t id[20];
	int ret;

	while ((sm = next_seen(s, &pos))) {
		if (sm->size || !sm->path || sm->path[0] != '/' || have_buildid(m, sm->path))
			continue;
		ret = early ? prec_buildid_reader__find(early, sm->maj, sm->min, sm->ino, id) : 0;
		if (ret > 0) {
			add_one(m, sm->path, sm->cpumode, id, ret);
			continue;
		}
		if (ret == -ENODATA || ret == -ENOEXEC || ret == -EINVAL)
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			n = realloc(reqs, cap * sizeof(*reqs));
			if (n)
				reqs = n;
			nm = n ? realloc(modes, cap * sizeof(*modes)) : NULL;
			if (!nm) {
				pr_warn("build-ids: %s", strerror(ENOMEM));
				break;
			}
			modes = nm;
		}
		/* the mode rides in pid's place until sorted */
		reqs[nr++] = (struct prec_buildid_req){ .path = sm->path,
			.pid = sm->cpumode, .maj = sm->maj, .min = sm->min, .ino = sm->ino };
	}
	if (nr)
		qsort(reqs, nr, sizeof(*reqs), req_cmp);
	for (size_t i = 0; i < nr; i++) {
		modes[i] = (uint16_t)reqs[i].pid;
		reqs[i].pid = 0;
	}
	*out = reqs;
	*modes_out = modes;
	return nr;
}

static bool same_mapped(const struct prec_buildid_req *a, const struct prec_buildid_req *b)
{
	return !req_cmp(a, b);
}

/* The maps the kernel gave no id for (--buildid-mmap not asked, or the ELF
 * header page not in the page cache at mmap time) and the recording's
 * reader did not read: the notes of their files, read once per file
 * through its first path, only where that path still names the mapped
 * file, and within resolve()'s deadline: the manifest gets written
 * whatever the files do. */
static void add_file_buildids(struct prec_manifest *m, const struct prec_seen_maps *s,
			      struct prec_buildid_reader *early)
{
	struct prec_buildid_req *reqs = NULL, *files;
	uint16_t *modes = NULL;
	size_t nr = want_reads(m, s, early, &reqs, &modes), nf = 0;

	files = nr ? malloc(nr * sizeof(*files)) : NULL;
	if (nr && !files) {
		pr_warn("build-ids: %s", strerror(ENOMEM));
		goto out_free;
	}
	for (size_t i = 0; i < nr; i++)
		if (!i || !same_mapped(&reqs[i - 1], &reqs[i]))
			files[nf++] = reqs[i];
	prec_buildid_workers__resolve(files, nf);
	for (size_t f = 0, i = 0; f < nf; f++) {
		if (prec_buildid__unread(files[f].ret))
			m->buildids_unread++;
		if (files[f].ret <= 0)
			pr_debug("build-id %s: %s", files[f].path, strerror(-files[f].ret));
		/* every path the file was mapped by */
		for (; i < nr && same_mapped(&reqs[i], &files[f]); i++)
			if (files[f].ret > 0)
				add_one(m, reqs[i].path, modes[i], files[f].id, files[f].ret);
	}
out_free:
	free(files);
	free(modes);
	free(reqs);
}

static void collect_maps(struct prec_manifest *m, const struct prec_seen_maps *s,
			 struct prec_buildid_reader *early)
{
	struct seen_pos pos = { 0 };
	const struct prec_seen_map *sm;

	while ((sm = next_seen(s, &pos)))
		if (sm->size)
			add_one(m, sm->path, sm->cpumode, sm->id, sm->size);
	add_file_buildids(m, s, early);
}

static bool saw_vdso(const struct prec_seen_maps *s)
{
	struct seen_pos pos = { 0 };
	const struct prec_seen_map *sm;

	while ((sm = next_seen(s, &pos)))
		if (!strcmp(sm->path, PREC_VDSO_MAP))
			return true;
	return false;
}

/* When a [vdso] was mapped (an exec's MMAP2 in the rings, or the side
 * band's, which added the id already), the vDSO's build-id, and its image
 * as vdso.so for `prec archive` (perf's cache gets it at the stop). */
static void collect_vdso(struct prec_manifest *m, const struct prec_seen_maps *s,
			 int dirfd, const char *dir)
{
	bool have = have_buildid(m, PREC_VDSO_MAP);
	int err;

	if (!have && !saw_vdso(s))
		return;
	err = prec_vdso__save(dirfd, have ? NULL : m);
	if (err)
		pr_warn("%s/%s: %s", dir, PREC_VDSO_NAME, strerror(-err));
}

/* The pairs the drainers' own tables had no room for (at a cut: in the
 * epoch it ends) counted with those the manifest dropped. */
static void count_dropped(struct prec_manifest *m, const struct prec_seen_maps *s)
{
	for (int c = 0; s->hand && c < s->nr; c++) {
		const struct prec_drainer_stats *ds = &s->hand[c].st;
		uint64_t n;

		if (ds->unflagged)
			pr_debug("cpu%d: %llu MMAP2 records with another session's build-id flag",
				 s->cpus[c], (unsigned long long)ds->unflagged);
		n = m->buildids_dropped + ds->maps_dropped;
		m->buildids_dropped = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
}

void prec_buildid_collect__manifest(struct prec_manifest *m, const struct prec_seen_maps *s,
				    struct prec_buildid_reader *early, int dirfd, const char *dir)
{
	collect_maps(m, s, early);
	collect_vdso(m, s, dirfd, dir);
	count_dropped(m, s);
}

/* perf's build-id cache gets this long at the stop, whatever the files
 * and the cache's file system do (the build-id reads' own bound). */
#define BUILDID_FILL_MS 5000u

static int seen_cmp(const void *pa, const void *pb)
{
	const struct prec_seen_map *a = *(const struct prec_seen_map *const *)pa;
	const struct prec_seen_map *b = *(const struct prec_seen_map *const *)pb;

	return strcmp(a->path, b->path);
}

/* The maps the drainers saw with their file's device and inode, sorted
 * by path; *nr of them. NULL when there are none (or no memory: the
 * files are then checked by their build-id alone). */
static const struct prec_seen_map **seen_by_path(const struct prec_seen_maps *s, size_t *nr)
{
	const struct prec_seen_map **v = NULL, **n, *sm;
	struct seen_pos pos = { 0 };
	size_t cap = 0;

	*nr = 0;
	while ((sm = next_seen(s, &pos))) {
		if (sm->size || !sm->path || sm->path[0] != '/')
			continue;
		if (*nr == cap) {
			cap = cap ? 2 * cap : 256;
			n = realloc(v, cap * sizeof(*v));
			if (!n) {
				free(v);
				*nr = 0;
				return NULL;
			}
			v = n;
		}
		v[(*nr)++] = sm;
	}
	if (*nr)
		qsort(v, *nr, sizeof(*v), seen_cmp);
	return v;
}

/* The mapped file path was, if the drainers saw it as one file only. */
static const struct prec_seen_map *mapped_as(const struct prec_seen_map **v, size_t nr,
					     const char *path)
{
	struct prec_seen_map key = { .path = (char *)path };
	const struct prec_seen_map *kp = &key, **hit, **lo, **hi;

	hit = nr ? bsearch(&kp, v, nr, sizeof(*v), seen_cmp) : NULL;
	if (!hit)
		return NULL;
	for (lo = hit; lo > v && !strcmp(lo[-1]->path, path); lo--)
		;
	for (hi = hit; hi + 1 < v + nr && !strcmp(hi[1]->path, path); hi++)
		;
	for (; lo <= hi; lo++)
		if (lo[0]->maj != (*hit)->maj || lo[0]->min != (*hit)->min ||
		    lo[0]->ino != (*hit)->ino)
			return NULL;
	return *hit;
}

/* perf's build-id cache filled as `perf record` fills it, from the final
 * build-id table: off the drain path (the drainers are joined), after
 * the manifest (a crash here loses nothing), under BUILDID_FILL_MS. */
void prec_buildid_collect__fill_cache(const struct prec_manifest *m, const struct prec_seen_maps *s)
{
	struct prec_buildid_fill *f = NULL;
	struct prec_buildid_fill_stats st;
	const struct prec_seen_map **seen, *sm;
	size_t nseen;
	int err = prec_buildid_fill__new(&f);

	seen = err ? NULL : seen_by_path(s, &nseen);
	for (uint32_t i = 0; !err && i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *b = &m->buildids[i];

		if (!b->path || b->pid != -1)
			continue;
		if (!strcmp(b->path, "[kernel.kallsyms]"))
			err = prec_buildid_fill__add_kernel(f, b->id, b->size);
		else if (!strcmp(b->path, PREC_VDSO_MAP))
			err = prec_buildid_fill__add_vdso(f, b->id, b->size);
		else if (b->path[0] == '/') {
			sm = mapped_as(seen, nseen, b->path);
			err = prec_buildid_fill__add_file(f, b->path, b->id, b->size, sm != NULL,
							  sm ? sm->maj : 0, sm ? sm->min : 0,
							  sm ? sm->ino : 0);
		}
	}
	free(seen);
	if (err) {
		pr_warn("build-id cache: %s", strerror(-err));
		prec_buildid_fill__delete(f);
		return;
	}
	prec_buildid_fill__run(f, BUILDID_FILL_MS, &st);
	if (st.err)
		pr_debug("build-id cache: %s", strerror(-st.err));
	pr_debug("build-id cache: %u put (%u linked, %.1f MB copied), %u there, %u skipped, %u left",
		 st.put, st.linked, (double)st.copied / 1e6, st.there, st.skipped, st.left);
	if (st.left && !st.err)
		pr_warn("build-id cache: %u files not put in it within %u s", st.left,
			BUILDID_FILL_MS / 1000u);
}
