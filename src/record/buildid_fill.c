// SPDX-License-Identifier: MIT
// The end of a recording's build-id cache fill: the table's files, the
// kernel's kallsyms and the vDSO checked and put in perf's cache by a
// child process the stop waits for only so long.
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
// the worker stops at its next file; the rest is counted in one warning;
// a worker in a read that never ends, a hung FUSE server's, is left
// there: a process, so that it holds only itself, not prec's exit);
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
#include "util/child.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/plain_path.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
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

/* What the worker tells the caller, in a page both map: the worker is a
 * child process (a read on a hung file system holds only it), working on
 * its own copy of the fill. */
struct shared {
	int stop;              /* the caller's deadline passed */
	int finished;
	struct prec_buildid_fill_stats st;
};

struct prec_buildid_fill {
	struct item *items;
	uint32_t nr, cap;
	struct shared *sh;     /* the worker's (its own mapping of the page) */
};

int prec_buildid_fill__new(struct prec_buildid_fill **out)
{
	struct prec_buildid_fill *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
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
				it->size, fd, &st, NULL, 0, &f->sh->stop) : -ESTALE;
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
					      it->size, -1, NULL, buf, (size_t)len, &f->sh->stop);
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
				       v.image, v.len, &f->sh->stop);
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

/* Publish the worker's totals so far, each field whole (the caller may
 * read them at its deadline, mid-fill). */
static void publish(struct shared *sh, const struct prec_buildid_fill_stats *st)
{
	__atomic_store_n(&sh->st.put, st->put, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.there, st->there, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.skipped, st->skipped, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.linked, st->linked, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.left, st->left, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.copied, st->copied, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->st.err, st->err, __ATOMIC_RELAXED);
}

static void read_published(const struct shared *sh, struct prec_buildid_fill_stats *st)
{
	st->put = __atomic_load_n(&sh->st.put, __ATOMIC_RELAXED);
	st->there = __atomic_load_n(&sh->st.there, __ATOMIC_RELAXED);
	st->skipped = __atomic_load_n(&sh->st.skipped, __ATOMIC_RELAXED);
	st->linked = __atomic_load_n(&sh->st.linked, __ATOMIC_RELAXED);
	st->left = __atomic_load_n(&sh->st.left, __ATOMIC_RELAXED);
	st->copied = __atomic_load_n(&sh->st.copied, __ATOMIC_RELAXED);
	st->err = __atomic_load_n(&sh->st.err, __ATOMIC_RELAXED);
}

/* The child: every item, until done or told to stop. */
static _Noreturn void worker(struct prec_buildid_fill *f)
{
	struct prec_buildid_fill_stats st = { .left = f->nr };
	struct prec_buildid_cache *c = NULL;
	int err = prec_buildid_cache__open(&c);

	st.err = err == -ENOENT ? 0 : err;
	if (err)
		st.left = 0; /* no cache to fill (-ENOENT: none asked for) */
	publish(f->sh, &st);
	for (uint32_t i = 0; !err && i < f->nr && !__atomic_load_n(&f->sh->stop, __ATOMIC_RELAXED);
	     i++) {
		int ret = put_one(f, c, &f->items[i]);

		st.left--;
		if (ret > 0)
			st.put++;
		else if (!ret)
			st.there++;
		else if (ret != -ETIMEDOUT)
			st.skipped++;
		else
			st.left++;
		st.copied = prec_buildid_cache__copied(c);
		st.linked = prec_buildid_cache__linked(c);
		publish(f->sh, &st);
	}
	prec_buildid_cache__close(c);
	__atomic_store_n(&f->sh->finished, 1, __ATOMIC_RELEASE);
	_exit(0);
}

static uint64_t mono_ms(void)
{
	return prec_now_ns(CLOCK_MONOTONIC) / 1000000u;
}

void prec_buildid_fill__run(struct prec_buildid_fill *f, unsigned int ms,
			    struct prec_buildid_fill_stats *st)
{
	uint64_t end = mono_ms() + ms;
	int done[2] = { -1, -1 };
	pid_t pid = -1;

	memset(st, 0, sizeof(*st));
	if (!f->nr) { /* nothing to put: no worker, no cache opened (nor made) */
		prec_buildid_fill__delete(f);
		return;
	}
	f->sh = mmap(NULL, sizeof(*f->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (f->sh == MAP_FAILED) {
		st->err = -errno;
		f->sh = NULL;
	} else if (pipe2(done, O_CLOEXEC) < 0) {
		st->err = -errno;
	} else {
		/* the worker's end of the pipe closes when it exits */
		pid = prec_child__fork(PREC_BUILDID_THREAD_NAME, done[1]);
		if (pid == 0)
			worker(f);
		close(done[1]);
		if (pid < 0)
			st->err = (int)pid;
	}
	if (pid > 0) {
		struct pollfd pf = { .fd = done[0], .events = POLLIN };
		uint64_t now;

		while ((now = mono_ms()) < end && !(poll(&pf, 1, (int)(end - now)) > 0 && pf.revents))
			;
		if (pf.revents) /* its end closed: it has exited */
			waitpid(pid, NULL, 0);
		if (!__atomic_load_n(&f->sh->finished, __ATOMIC_ACQUIRE))
			/* past the deadline: it stops at its next file or
			 * chunk, or is left in a read that does not end (and
			 * init reaps it once we have gone) */
			__atomic_store_n(&f->sh->stop, 1, __ATOMIC_RELAXED);
		read_published(f->sh, st);
	}
	if (done[0] >= 0)
		close(done[0]);
	if (f->sh)
		munmap(f->sh, sizeof(*f->sh));
	prec_buildid_fill__delete(f);
}
