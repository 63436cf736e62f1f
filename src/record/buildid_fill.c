// SPDX-License-Identifier: MIT
// The end of a recording's build-id cache fill: the table's files, the
// kernel's kallsyms and the vDSO checked and put in perf's cache by a
// worker thread the stop waits for only so long.
//
// Filled as perf record fills ~/.debug, once the final manifest is written
// and the drainers joined, so that `perf report` of the merged file
// resolves a binary deleted or rebuilt since, and the vDSO, which perf
// looks up by build-id only there. What goes in: every file of the table
// whose path still names the mapped file (the device and inode the
// drainers saw, when they saw one) holding the recorded id, as PATH/ID/elf;
// the running kernel's /proc/kallsyms as [kernel.kallsyms]/ID/kallsyms when
// it is the recorded kernel and shows its addresses; the vDSO as
// [vdso]/ID/vdso; each with its .build-id/XX/REST link. perf 6.1 caches
// the files samples hit (a pass over its data at the end) or, with
// --buildid-all, every mapped file; prec's table is always the
// --buildid-all one (no pass over the data), so its cache is a superset.
// An entry is a hard link of the checked descriptor when the file lies on
// the cache's file system and has no set-id bit, as perf links; else a
// copy (copy_file_range, holes kept) with no name until whole, named then,
// dropped if the file's size, mtime or ctime moved meanwhile. An entry
// already there is not looked at again. The stop waits 5 s at most (then
// the worker stops at its next file; the rest is counted in one warning);
// files over FILE_MAX are left out. The base is perf's (--buildid-dir,
// buildid.dir of ~/.perfconfig then /etc/perfconfig owned by the user or
// root, else $HOME/.debug: util/buildid_cache.c). -N, -B and
// --switch-output skip it, as perf's. A binary gone by the stop keeps its
// id in the table but has no cache entry, as with perf. Cost:
// bench/buildid_cache.sh.
#include "record/buildid_fill.h"
#include "record/vdso.h"
#include "util/buildid.h"
#include "util/buildid_cache.h"
#include "util/file.h"
#include "util/plain_path.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* A file bigger than this is not put in the cache (prec archive's bound
 * too): perf has none, but a copy must end. */
#define FILE_MAX (4ull << 30)
/* /proc/kallsyms is read whole (its size is known only at its end). */
#define KALLSYMS_MAX (256u << 20)

enum kind { KIND_FILE, KIND_KERNEL, KIND_VDSO };

struct item {
	char *path;            /* KIND_FILE */
	enum kind kind;
	uint8_t id[20];
	uint8_t size;
	bool known;            /* maj, min, ino: the mapped file */
	uint32_t maj, min;
	uint64_t ino;
};

/* Shared by the caller and its worker; the last one out frees it. */
struct prec_buildid_fill {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;
	int stop;              /* the caller's deadline passed */
	bool finished;
	struct item *items;
	uint32_t nr, cap;
	struct prec_buildid_fill_stats st;
};

int prec_buildid_fill__new(struct prec_buildid_fill **out)
{
	struct prec_buildid_fill *f = calloc(1, sizeof(*f));
	pthread_condattr_t ca;

	if (!f)
		return -ENOMEM;
	pthread_mutex_init(&f->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cond, &ca);
	pthread_condattr_destroy(&ca);
	f->refs = 1;
	*out = f;
	return 0;
}

void prec_buildid_fill__delete(struct prec_buildid_fill *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nr; i++)
		free(f->items[i].path);
	free(f->items);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static struct item *add_item(struct prec_buildid_fill *f, enum kind kind, const uint8_t *id,
			     uint8_t size)
{
	struct item *it;

	if (!size || size > sizeof(it->id))
		return NULL;
	if (f->nr == f->cap) {
		uint32_t cap = f->cap ? 2 * f->cap : 64;
		struct item *n = realloc(f->items, cap * sizeof(*n));

		if (!n)
			return NULL;
		f->items = n;
		f->cap = cap;
	}
	it = &f->items[f->nr];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	memcpy(it->id, id, size);
	it->size = size;
	return it;
}

int prec_buildid_fill__add_file(struct prec_buildid_fill *f, const char *path,
				const uint8_t *id, uint8_t size, bool known,
				uint32_t maj, uint32_t min, uint64_t ino)
{
	struct item *it;

	if (!prec_plain_path__ok(path))
		return 0; /* no name perf's cache could have */
	it = add_item(f, KIND_FILE, id, size);
	if (!it)
		return size && size <= 20 ? -ENOMEM : 0;
	it->path = strdup(path);
	if (!it->path)
		return -ENOMEM;
	it->known = known;
	it->maj = maj;
	it->min = min;
	it->ino = ino;
	f->nr++;
	return 0;
}

int prec_buildid_fill__add_kernel(struct prec_buildid_fill *f, const uint8_t *id, uint8_t size)
{
	if (!add_item(f, KIND_KERNEL, id, size))
		return size && size <= 20 ? -ENOMEM : 0;
	f->nr++;
	return 0;
}

int prec_buildid_fill__add_vdso(struct prec_buildid_fill *f, const uint8_t *id, uint8_t size)
{
	if (!add_item(f, KIND_VDSO, id, size))
		return size && size <= 20 ? -ENOMEM : 0;
	f->nr++;
	return 0;
}

static bool same_id(const struct item *it, const uint8_t *id, int len)
{
	return len == it->size && !memcmp(it->id, id, (size_t)len);
}

/* The mapped file, only if its path (walked without a link but root's)
 * names a regular file that is still the mapped inode and holds the
 * recorded id; copied from that very descriptor. */
static int put_file(struct prec_buildid_fill *f, struct prec_buildid_cache *c,
		    const struct item *it)
{
	struct stat st;
	uint8_t id[20];
	int fd = prec_plain_path__open(it->path, FILE_MAX, &st), ret;

	if (fd < 0)
		return -ENOENT;
	ret = -ESTALE;
	if (!it->known || (major(st.st_dev) == it->maj && minor(st.st_dev) == it->min &&
			   st.st_ino == it->ino)) {
		ret = prec_buildid__read_fd(fd, id);
		ret = same_id(it, id, ret) ? prec_buildid_cache__add(c, it->path, "elf", it->id,
				it->size, fd, &st, NULL, 0, &f->stop) : -ESTALE;
	}
	close(fd);
	return ret;
}

/* /proc/kallsyms as perf copies it, if this kernel is the recorded one
 * and shows its addresses. */
static int put_kallsyms(struct prec_buildid_fill *f, struct prec_buildid_cache *c,
			const struct item *it)
{
	uint8_t id[20];
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = prec_buildid__read_kernel(id);

	if (!same_id(it, id, ret))
		return -ESTALE;
	len = prec_file__read_text("/proc/kallsyms", &buf, &cap, KALLSYMS_MAX);
	if (len < 0)
		ret = (int)len;
	else if (strspn(buf, "0") >= 8 && buf[strspn(buf, "0")] == ' ')
		ret = -EPERM; /* addresses hidden (kernel.kptr_restrict) */
	else
		ret = prec_buildid_cache__add(c, "[kernel.kallsyms]", "kallsyms", it->id,
					      it->size, -1, NULL, buf, (size_t)len, &f->stop);
	free(buf);
	return ret;
}

static int put_vdso(struct prec_buildid_fill *f, struct prec_buildid_cache *c,
		    const struct item *it)
{
	struct prec_vdso v;
	int ret = prec_vdso__find(&v);

	if (ret)
		return ret;
	if (!same_id(it, v.id, v.id_size))
		return -ESTALE;
	return prec_buildid_cache__add(c, PREC_VDSO_MAP, "vdso", it->id, it->size, -1, NULL,
				       v.image, v.len, &f->stop);
}

static const char *kind_name(enum kind k)
{
	return k == KIND_FILE ? "elf" : k == KIND_KERNEL ? "kallsyms" : "vdso";
}

static int put_one(struct prec_buildid_fill *f, struct prec_buildid_cache *c,
		   const struct item *it)
{
	const char *name = it->kind == KIND_FILE ? it->path :
			   it->kind == KIND_KERNEL ? "[kernel.kallsyms]" : PREC_VDSO_MAP;

	if (prec_buildid_cache__has(c, name, kind_name(it->kind), it->id, it->size))
		return 0;
	if (it->kind == KIND_FILE)
		return put_file(f, c, it);
	return it->kind == KIND_KERNEL ? put_kallsyms(f, c, it) : put_vdso(f, c, it);
}

/* Drop one reference; called with f->lock held, returns with it released. */
static void put_unlock(struct prec_buildid_fill *f)
{
	bool last = --f->refs == 0;

	pthread_mutex_unlock(&f->lock);
	if (last)
		prec_buildid_fill__delete(f);
}

static void *worker(void *arg)
{
	struct prec_buildid_fill *f = arg;
	struct prec_buildid_cache *c = NULL;
	int err = prec_buildid_cache__open(&c);

	pthread_mutex_lock(&f->lock);
	f->st.err = err == -ENOENT ? 0 : err;
	if (err)
		f->st.left = 0; /* no cache to fill (-ENOENT: none asked for) */
	for (uint32_t i = 0; !err && i < f->nr && !__atomic_load_n(&f->stop, __ATOMIC_RELAXED); i++) {
		int ret;

		pthread_mutex_unlock(&f->lock);
		ret = put_one(f, c, &f->items[i]);
		pthread_mutex_lock(&f->lock);
		f->st.left--;
		if (ret > 0)
			f->st.put++;
		else if (!ret)
			f->st.there++;
		else if (ret != -ETIMEDOUT)
			f->st.skipped++;
		else
			f->st.left++;
		f->st.copied = prec_buildid_cache__copied(c);
		f->st.linked = prec_buildid_cache__linked(c);
	}
	f->finished = true;
	pthread_cond_signal(&f->cond);
	prec_buildid_cache__close(c);
	put_unlock(f);
	return NULL;
}

static struct timespec deadline(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000u;
	ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

void prec_buildid_fill__run(struct prec_buildid_fill *f, unsigned int ms,
			    struct prec_buildid_fill_stats *st)
{
	struct timespec until = deadline(ms);
	pthread_attr_t a;
	pthread_t t;
	int err;

	memset(st, 0, sizeof(*st));
	if (!f->nr) { /* nothing to put: no thread, no cache opened (nor made) */
		prec_buildid_fill__delete(f);
		return;
	}
	pthread_mutex_lock(&f->lock);
	f->st.left = f->nr;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	f->refs++;
	err = pthread_create(&t, &a, worker, f);
	pthread_attr_destroy(&a);
	if (err) {
		f->refs--;
		f->st.err = -err;
		f->finished = true;
	}
	while (!f->finished)
		if (pthread_cond_timedwait(&f->cond, &f->lock, &until) == ETIMEDOUT)
			break;
	if (!f->finished)
		__atomic_store_n(&f->stop, 1, __ATOMIC_RELAXED);
	*st = f->st;
	put_unlock(f);
}
