// SPDX-License-Identifier: MIT
// prec archive: a tar of the files a recording's samples hit (--all: every
// file its build-id table names), in perf's ~/.debug layout, for `perf
// report` on another machine. Each path comes from the workload or the
// recording's owner (hostile): opened without following a symlink, taken
// only as a regular file on a real file system that the owner may read and
// that still holds the recorded build-id; the tar kept under a bound.
//
// Unless --all, the records are read once (dso_hits.c) to keep the files
// samples hit, as perf archive does. Entries in perf's build-id cache
// layout: PATH/ID/elf, [vdso]/ID/vdso from the recording's vdso.so,
// [kernel.kallsyms]/ID/kallsyms from /proc/kallsyms when the running kernel
// is the recorded one and an event other than the tracking dummy counts
// kernel space, each with the .build-id/xx/rest link perf resolves an id by.
// Paths are walked by util/plain_path.c, as the recording's owner when root
// archives another user's (util/fs_creds.c). Each file is opened, checked
// and read by a child (archive_fetch.c) under a 5 s stall deadline: a file
// system that stops answering costs one file, never the archive, and a file
// that changes under the copy gets no link. kallsyms, whose size is known
// only once read, is the one entry held in memory. The output is
// merge_output.c's: a temporary renamed into place once whole.
#include "read/archive_fetch.h"
#include "read/crash_window.h"
#include "read/dso_hits.h"
#include "read/internal.h"
#include "read/owner.h"
#include "read/read.h"
#include "read/tar_writer.h"
#include "util/buildid.h"
#include "util/cli.h"
#include "util/file.h"
#include "util/fs_creds.h"
#include "util/log.h"
#include "util/plain_path.h"
#include "util/size.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

/* A file bigger than this is left out (a debug build of a browser fits). */
#define FILE_MAX (4ull << 30)
/* The archive's default bound (--max-size): a few such builds. */
#define ARCHIVE_MAX_DEFAULT (8ull << 30)
/* Why any file on disk is left out, whatever it was: missing, unreadable
 * to the recording's owner, a link not followed, not a regular file on a
 * real file system, not ELF, another build-id. One message for all, so
 * that the archive tells nothing about a file that did not match. */
#define NOT_THERE "no file the recording's owner may read holds this build-id there"
/* /proc/kallsyms is read whole (its size is known only at its end). */
#define KALLSYMS_MAX (256u << 20)
/* Where `prec record` keeps the vDSO image it read from itself. */
#define VDSO_FILE "vdso.so"
#define NAME_KALLSYMS "[kernel.kallsyms]"
#define NAME_VDSO "[vdso]"

struct archive_args {
	const char *dir, *out;
	char *out_default;     /* DIR.tar when there is no -o */
	bool force;
	bool all;              /* every file of the table, hit or not */
	uint64_t max_size;     /* the tar's bound in bytes */
};

struct archive {
	const char *dir;
	int dirfd;
	struct prec_tar_writer *tar;
	int64_t now;
	uint32_t files, left_out, not_hit;
	/* corrupt chunks or shards the hits were read without: the files
	 * only their samples hit are missing, an error once the tar is out */
	uint32_t unread;
	uint64_t max_size;
	int out_fd;            /* the tar's, closed in each fetch's child */
	uint64_t file_bytes;
	struct prec_dso_hits *hits; /* NULL: --all */
	bool for_owner;        /* files read as the recording's owner */
	const struct prec_manifest_buildid **done; /* ids archived so far */
	uint32_t nr_done;
	bool kernel_samples; /* an event may sample kernel space */
};

#define WHY_LEN 160

/* One table entry on its way into the archive. */
struct entry {
	const struct prec_manifest_buildid *b;
	char hex[41];
	char why[WHY_LEN];     /* why it is left out */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: prec archive DIR [-o FILE] [-f] [--all] [--max-size SIZE]\n"
		"  -o, --output FILE     write FILE instead of DIR.tar ('-' = stdout)\n"
		"  -f, --force           replace FILE (or a symlink there) if it exists, and read\n"
		"                        a recording of another user's\n"
		"  -a, --all             every mapped file, not only those samples hit\n"
		"      --max-size SIZE   the archive's bound (default 8G): a file that would\n"
		"                        pass it is left out\n"
		"  -h, --help            this text\n"
		"Unpack on the machine that reads the recording: tar xf FILE -C ~/.debug\n");
}

/* DIR.tar beside DIR: DIR less its trailing slashes, when its last
 * component is a name (not ".", ".." or "/"). */
static char *default_out(const char *dir)
{
	size_t len = strlen(dir);
	const char *base;
	char *out;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (base = dir + len; base > dir && base[-1] != '/'; base--)
		;
	if (!len || base == dir + len || (dir + len - base == 1 && *base == '.') ||
	    (dir + len - base == 2 && !strncmp(base, "..", 2)))
		return NULL;
	out = malloc(len + sizeof(".tar"));
	if (out) {
		memcpy(out, dir, len);
		memcpy(out + len, ".tar", sizeof(".tar"));
	}
	return out;
}

/* Returns 0, 1 for -h (done), or -EINVAL after printing the problem. */
static int parse_args(int argc, char **argv, struct archive_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "max-size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	a->max_size = ARCHIVE_MAX_DEFAULT;
	while ((c = getopt_long(argc, argv, "o:fah", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'f': a->force = true; break;
		case 'a': a->all = true; break;
		case 'S':
			if (prec_size__bytes(optarg, PREC_SIZE_BYTES, 1, &a->max_size) < 0) {
				prec_cli__bad_args("archive", "--max-size wants a size such as 512M or 4G");
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); return 1;
		default: prec_cli__bad_option("archive", argv); return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		prec_cli__bad_args("archive", "want exactly one directory");
		return -EINVAL;
	}
	a->dir = argv[optind];
	if (a->out)
		return 0;
	a->out = a->out_default = default_out(a->dir);
	if (!a->out) {
		pr_err("archive %s: the default DIR.tar needs a directory's name: give -o FILE", a->dir);
		return -EINVAL;
	}
	return 0;
}

static void hex_of(const struct prec_manifest_buildid *b, char *hex)
{
	for (unsigned int i = 0; i < b->size; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->id[i]);
	hex[2 * b->size] = '\0';
}

static bool same_id(const struct prec_manifest_buildid *b, const uint8_t *id, int len)
{
	return len == b->size && !memcmp(b->id, id, (size_t)len);
}

/* The absolute path p opened by prec_plain_path__open(). Returns the fd
 * with *st, or -1 with e->why: NOT_THERE whatever the reason (a path no
 * one may read looks like a missing one), but for a path too long to walk. */
static int open_no_links(struct entry *e, const char *p, struct stat *st)
{
	int fd = prec_plain_path__open(p, FILE_MAX, st);

	if (fd == -ENAMETOOLONG || fd == -ENOMEM)
		snprintf(e->why, sizeof(e->why), "%s", strerror(-fd));
	else if (fd < 0)
		snprintf(e->why, sizeof(e->why), NOT_THERE);
	return fd < 0 ? -1 : fd;
}

/* cache/<id>/base, and .build-id/xx/rest -> ../../cache/<id>: perf's
 * layout (a link to the directory, the file named for its kind). The
 * bytes come from the fetch f, or mem when f is NULL. A file that changed
 * while being copied (it shrank and was padded, its size, mtime or ctime
 * moved, or its child went quiet) keeps its entry, which the stream
 * cannot take back, but gets no link: perf never finds it. Returns 0
 * (archived, or left out with e->why) or the tar's -errno. */
static int put_entry(struct archive *a, struct entry *e, const char *cache,
		     const char *base, struct prec_fetch *f, const void *mem,
		     uint64_t size, uint32_t mode, int64_t mtime)
{
	size_t n = strlen(cache) + strlen(e->hex) + strlen(base) + 16;
	char *name = malloc(n), *target = malloc(n + 8), link[64];
	int err = -ENOMEM;

	if (!name || !target)
		goto out;
	snprintf(name, n, "%s/%s/%s", cache, e->hex, base);
	snprintf(target, n + 8, "../../%s/%s", cache, e->hex);
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", e->hex, e->hex + 2);
	if (f)
		err = prec_tar_writer__add_extents(a->tar, name, size, f->x, f->head.nr,
						   prec_fetch__read, f, mode, mtime);
	else
		err = prec_tar_writer__add_mem(a->tar, name, mem, (size_t)size, mode, mtime);
	if (err == -EFBIG) {
		snprintf(e->why, sizeof(e->why), "would take the archive past --max-size "
			 "(%llu bytes)", (unsigned long long)a->max_size);
		err = 0;
		goto out;
	}
	if (!err && f && prec_fetch__changed(f))
		err = 1;
	if (err == 1) {
		snprintf(e->why, sizeof(e->why), "changed while being copied: its entry "
			 "is in the tar, with no .build-id link to it");
		err = 0;
		goto out;
	}
	if (!err)
		err = prec_tar_writer__add_symlink(a->tar, link, target, a->now);
	if (!err) {
		a->done[a->nr_done++] = e->b;
		a->files++;
		a->file_bytes += size;
	}
out:
	free(name);
	free(target);
	return err;
}

/* The file open_fn(ctx) opens, fetched by a child (archive_fetch.c) and
 * archived if it holds e's build-id. Returns 0 (archived, or left out
 * with e->why set) or the tar's -errno. */
static int put_file(struct archive *a, struct entry *e, const char *cache, const char *base,
		    prec_fetch_open_fn open_fn, void *ctx)
{
	struct prec_fetch *f = malloc(sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	err = prec_fetch__open(f, open_fn, ctx, e->b->id, e->b->size, a->out_fd);
	if (err == -ETIMEDOUT)
		snprintf(e->why, sizeof(e->why), "no answer in %u s (a stuck file system?)",
			 PREC_FETCH_STALL_MS / 1000);
	else if (err)
		snprintf(e->why, sizeof(e->why), "%s", strerror(-err));
	else if (!f->head.found)
		snprintf(e->why, sizeof(e->why), NOT_THERE);
	else
		err = put_entry(a, e, cache, base, f, NULL, f->head.size, f->head.mode,
				f->head.mtime);
	prec_fetch__close(f);
	free(f);
	/* a fetch that failed is this file's loss, not the archive's */
	return err == -ETIMEDOUT || err == -EBADMSG ? 0 : err;
}

/* In the fetch's child: the walk of open_no_links(), for a path. */
static int open_path(void *ctx, struct stat *st)
{
	struct entry *e = ctx;

	return open_no_links(e, e->b->path, st);
}

/* A mapped file by its path: absolute, with only plain components (a
 * tar name), no symlink on the way. */
static int put_path(struct archive *a, struct entry *e)
{
	const char *path = e->b->path;

	if (path[0] != '/' || !prec_tar_writer__name_ok(path + 1) ||
	    strlen(path) + 48 > PREC_TAR_NAME_MAX) {
		snprintf(e->why, sizeof(e->why), path[0] == '[' ? "no file of that name" :
			 "not a plain absolute path");
		return 0;
	}
	return put_file(a, e, path + 1, "elf", open_path, e);
}

/* In the fetch's child: the recording's vdso.so, a regular file opened
 * as its other files are, on a real file system. */
static int open_vdso(void *ctx, struct stat *st)
{
	const struct archive *a = ctx;
	const char *why = NULL;
	int fd = prec_file__open_regular(a->dirfd, VDSO_FILE, &why);

	if (fd >= 0 && (fstat(fd, st) < 0 || prec_file__on_pseudo_fs(fd))) {
		close(fd);
		fd = -1;
	}
	return fd < 0 ? -1 : fd;
}

/* The vDSO image the recording keeps (DIR/vdso.so), as perf's cache
 * holds one: [vdso]/<id>/vdso. */
static int put_vdso(struct archive *a, struct entry *e)
{
	int err = put_file(a, e, NAME_VDSO, "vdso", open_vdso, a);

	if (!strcmp(e->why, NOT_THERE))
		snprintf(e->why, sizeof(e->why), "%s/%s: not in the recording, not a regular "
			 "file, or another vDSO", a->dir, VDSO_FILE);
	return err;
}

/* The running kernel's symbols, when it is the recorded one (its
 * build-id), as [kernel.kallsyms]/<id>/kallsyms: /proc/kallsyms as perf
 * copies it. */
/* Whether /proc/kallsyms shows its addresses to a user without
 * CAP_SYSLOG: kptr_restrict 0 and perf_event_paranoid at most 1. Root's
 * fsuid taken as another user keeps CAP_SYSLOG, so the kernel would show
 * them to root's read anyway: asked here instead. */
static bool kallsyms_open_to_all(void)
{
	char v[16];

	return prec_file__read_line("/proc/sys/kernel/kptr_restrict", v, sizeof(v)) > 0 &&
	       atoi(v) == 0 &&
	       prec_file__read_line("/proc/sys/kernel/perf_event_paranoid", v, sizeof(v)) > 0 &&
	       atoi(v) <= 1;
}

static int put_kallsyms(struct archive *a, struct entry *e)
{
	uint8_t id[20];
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret = prec_buildid__read_kernel(id), err = 0;

	if (ret > 0 && !same_id(e->b, id, ret)) {
		snprintf(e->why, sizeof(e->why), "not the running kernel");
		return 0;
	}
	if (ret < 0) {
		snprintf(e->why, sizeof(e->why), "running kernel's build-id: %s", strerror(-ret));
		return 0;
	}
	if (a->for_owner && !kallsyms_open_to_all()) {
		snprintf(e->why, sizeof(e->why), "/proc/kallsyms hides its addresses "
			 "from the recording's owner (kernel.kptr_restrict, perf_event_paranoid)");
		return 0;
	}
	len = prec_file__read_text("/proc/kallsyms", &buf, &cap, KALLSYMS_MAX);
	if (len < 0)
		snprintf(e->why, sizeof(e->why), "/proc/kallsyms: %s", strerror((int)-len));
	/* Addresses all zeros: hidden by kernel.kptr_restrict. */
	else if (strspn(buf, "0") >= 8 && buf[strspn(buf, "0")] == ' ')
		snprintf(e->why, sizeof(e->why),
			 "/proc/kallsyms hides its addresses (kernel.kptr_restrict)");
	else
		err = put_entry(a, e, NAME_KALLSYMS, "kallsyms", NULL, buf, (uint64_t)len,
				0644, a->now);
	free(buf);
	return err;
}

static bool archived(const struct archive *a, const struct prec_manifest_buildid *b)
{
	for (uint32_t i = 0; i < a->nr_done; i++)
		if (same_id(b, a->done[i]->id, a->done[i]->size))
			return true;
	return false;
}

/* One entry of the table: archived, left out (why says why), or a write
 * error (returned). An id archived under another path already is skipped:
 * perf finds a file by its id alone. */
static int put_one(struct archive *a, const struct prec_manifest_buildid *b,
		   char why[WHY_LEN])
{
	struct entry e = { .b = b };
	int err;

	if (!b->size || !b->path || archived(a, b))
		return 0;
	hex_of(b, e.hex);
	/* As perf archive, only the files samples hit: not even a line
	 * for the others (a user may not read the kernel's addresses). */
	if (a->hits && !prec_dso_hits__hit(a->hits, b->path)) {
		a->not_hit++;
		return 0;
	}
	/* --all: nothing of the kernel to resolve without kernel samples. */
	if (!strcmp(b->path, NAME_KALLSYMS) && !a->kernel_samples)
		return 0;
	if (!strcmp(b->path, NAME_KALLSYMS))
		err = put_kallsyms(a, &e);
	else if (!strcmp(b->path, NAME_VDSO))
		err = put_vdso(a, &e);
	else
		err = put_path(a, &e);
	memcpy(why, e.why, WHY_LEN);
	return err;
}

/* One line per entry left out, once the table is done: an id that went in
 * under another path (later in the table) is not left out. */
static void list_left_out(struct archive *a, const struct prec_manifest *m,
			  char (*why)[WHY_LEN])
{
	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *b = &m->buildids[i];
		char hex[41];

		if (!why[i][0] || archived(a, b))
			continue;
		hex_of(b, hex);
		a->left_out++;
		pr_warn("archive %s: left out %s (%s): %s", a->dir, b->path, hex, why[i]);
	}
}

/* Whether any event but the tracking dummy counts kernel space: with
 * every one excluding it (perf_event_paranoid 2 as a user, --all-user,
 * :u), no sample or call chain has a kernel address. */
static bool kernel_samples(const struct prec_manifest *m)
{
	for (uint32_t i = 0; i < m->nr_events; i++) {
		struct perf_event_attr attr = { 0 };
		size_t n = sizeof(attr) < sizeof(m->events[i].attr) ? sizeof(attr)
								    : sizeof(m->events[i].attr);

		memcpy(&attr, m->events[i].attr, n);
		if (attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_DUMMY)
			continue;
		if (!attr.exclude_kernel)
			return true;
	}
	return false;
}

/* The files the recording's samples hit, by one pass over its records
 * (a corrupt chunk ends its shard's part, as in merge: the hits so far
 * count, and a->unread says how many went). Returns 0 or -errno after
 * one line. */
static int find_hits(struct archive *a, const struct prec_manifest *m)
{
	struct prec_merge_opts o = { .salvage = true, .window_start = prec_merge__window(m) };
	struct prec_merge_rec rec;
	struct prec_merge *mg;
	int r;

	r = prec_dso_hits__new(&a->hits, m);
	if (!r)
		r = prec_merge__open(&mg, a->dirfd, m, &o);
	if (r < 0) {
		pr_err("archive %s: cannot read the samples: %s", a->dir, strerror(-r));
		return r;
	}
	while ((r = prec_merge__next(mg, &rec)) > 0)
		if (rec.rec && (r = prec_dso_hits__add(a->hits, rec.rec, rec.rec_len)) < 0)
			break;
	if (r < 0)
		pr_err("archive %s: reading the samples: %s", a->dir, strerror(-r));
	else
		a->unread = prec_merge__errors(mg);
	prec_merge__close(mg);
	return r < 0 ? r : 0;
}

/* The recording's files, read as its owner when root archives another
 * user's: what that user could not read stays out. */
static int put_all(struct archive *a, const struct prec_manifest *m, char (*why)[WHY_LEN],
		   const struct stat *owner)
{
	struct prec_fs_creds c;
	int err = 0;

	if (a->for_owner) {
		err = prec_fs_creds__init(&c, owner->st_uid, owner->st_gid);
		if (!err && prec_fs_creds__take(&c) < 0) {
			prec_fs_creds__exit(&c);
			err = -EPERM;
		}
		if (err) {
			pr_err("archive %s: cannot take the file access of its owner (uid %u): %s",
			       a->dir, (unsigned int)owner->st_uid, strerror(-err));
			return err;
		}
	}
	for (uint32_t i = 0; i < m->nr_buildids && !err; i++)
		err = put_one(a, &m->buildids[i], why[i]);
	if (a->for_owner) {
		if (prec_fs_creds__restore(&c) < 0 && !err)
			err = -EPERM;
		prec_fs_creds__exit(&c);
	}
	return err;
}

static int write_archive(struct archive *a, const struct prec_manifest *m, int fd,
			 const struct stat *owner)
{
	char (*why)[WHY_LEN] = calloc(m->nr_buildids + 1, WHY_LEN);
	int err = prec_tar_writer__new(&a->tar, fd);

	a->done = calloc(m->nr_buildids + 1, sizeof(*a->done));
	if (err || !a->done || !why) {
		free(why);
		return -ENOMEM;
	}
	prec_tar_writer__set_limit(a->tar, a->max_size);
	a->out_fd = fd;
	a->kernel_samples = kernel_samples(m);
	err = put_all(a, m, why, owner);
	if (!err)
		err = prec_tar_writer__finish(a->tar);
	if (!err)
		list_left_out(a, m, why);
	free(why);
	return err;
}

static int read_manifest(const char *dir, int *dirfd, struct prec_manifest **m, bool force)
{
	const char *why = NULL;
	int err;

	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		err = -errno;
		pr_err("archive %s: cannot open directory: %s", dir, strerror(-err));
		return err;
	}
	err = prec_owner__check("archive", dir, *dirfd, force);
	if (err < 0)
		return err;
	err = prec_manifest__read(m, *dirfd, &why);
	if (err < 0)
		pr_err("archive %s: cannot read manifest: %s", dir, why ? why : strerror(-err));
	else
		prec_merge__say_state(dir, *m);
	return err;
}

/* A recording not finished: refused while its recorder writes it (its
 * build-id table, the archive's list of files, is written when it stops:
 * a tar now would lack every file), else read as merge reads one that
 * died (its window and carry found in the directory). The manifest is
 * read again when the recorder ended between the first read and the look
 * at its lock. Returns 0 or -errno after one line. */
static int not_live(const char *dir, int dirfd, struct prec_manifest **m)
{
	struct prec_manifest *again = NULL;
	const char *why = NULL;
	int held, err;

	if ((*m)->state == PREC_STATE_COMPLETE)
		return 0;
	held = prec_writer_lock__held(dirfd);
	if (held == 1) {
		pr_err("archive %s: still being recorded: the files to archive are known "
		       "when the recording stops (prec archive it then)", dir);
		return -EBUSY;
	}
	err = prec_manifest__read(&again, dirfd, &why);
	if (err < 0) {
		pr_err("archive %s: cannot read manifest: %s", dir, why ? why : strerror(-err));
		return err;
	}
	prec_manifest__delete(*m);
	*m = again;
	if ((*m)->state == PREC_STATE_RECORDING)
		pr_warn("%s: recording did not finish (manifest says recording): archiving the files "
			"of what is readable", dir);
	return 0;
}

/* Who the recording is: its manifest's owner, or its directory's when
 * root owns the manifest. When root archives another user's recording,
 * every file is read as that user (a.for_owner). Returns 0 or -errno. */
static int owner_of(struct archive *a, struct stat *owner)
{
	struct stat dir;

	if (fstatat(a->dirfd, "manifest", owner, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstat(a->dirfd, &dir) < 0) {
		pr_err("archive %s: %s", a->dir, strerror(errno));
		return -errno;
	}
	if (!owner->st_uid)
		*owner = dir;
	a->for_owner = geteuid() == 0 && owner->st_uid != 0;
	return 0;
}

int prec_cmd_archive(int argc, char **argv)
{
	struct archive_args args = { 0 };
	struct archive a = { .dirfd = -1 };
	struct prec_manifest *m = NULL;
	struct prec_merge_output out = { .fd = -1 };
	struct stat owner;
	char not_hit[80] = "";
	int rc = 1, err;

	err = parse_args(argc, argv, &args);
	if (err) {
		free(args.out_default);
		return err > 0 ? 0 : 2;
	}
	signal(SIGPIPE, SIG_IGN);
	a.dir = args.dir;
	a.now = (int64_t)time(NULL);
	a.max_size = args.max_size;
	if (read_manifest(args.dir, &a.dirfd, &m, args.force) < 0 || owner_of(&a, &owner) < 0 ||
	    not_live(args.dir, a.dirfd, &m) < 0 ||
	    prec_crash_window__take(a.dirfd, m, "archive", args.dir) < 0)
		goto out;
	err = prec_merge_output__open_as(&out, "archive", "a tar", args.out, args.force);
	if (err) {
		rc = err == -EINVAL ? 2 : 1;
		goto out;
	}
	if (prec_merge_output__check_target(args.out, args.dir, a.dirfd, m) < 0) {
		prec_merge_output__finish(&out, false);
		rc = 2;
		goto out;
	}
	if (!args.all && find_hits(&a, m) < 0) {
		prec_merge_output__finish(&out, false);
		goto out;
	}
	err = write_archive(&a, m, out.fd, &owner);
	if (err && err != -EPERM)
		pr_err("archive %s: writing %s: %s", args.dir, strcmp(args.out, "-") ?
		       args.out : "stdout", strerror(-err));
	if (prec_merge_output__finish(&out, !err) == 0 && !err) {
		rc = 0;
		if (a.not_hit)
			snprintf(not_hit, sizeof(not_hit), ", %u not hit by a sample (--all adds them)",
				 a.not_hit);
		pr_info("archive %s: %u file%s, %llu bytes (%llu KiB of tar) -> %s, %u left out%s",
			args.dir, a.files, a.files == 1 ? "" : "s", (unsigned long long)a.file_bytes,
			(unsigned long long)(prec_tar_writer__bytes(a.tar) >> 10),
			strcmp(args.out, "-") ? args.out : "stdout", a.left_out, not_hit);
	}
	/* The tar stays (what the readable samples hit), but one missing a
	 * file a sample needs is a loss the user must hear of: as merge,
	 * an error, exit 1. Last, where it is read. */
	if (!rc && a.unread) {
		pr_err("archive %s: %u corrupt chunk%s or shard%s (said above): the files only "
		       "their samples hit are not in %s", args.dir, a.unread,
		       a.unread == 1 ? "" : "s", a.unread == 1 ? "" : "s",
		       strcmp(args.out, "-") ? args.out : "stdout");
		rc = 1;
	}
out:
	prec_tar_writer__delete(a.tar);
	prec_dso_hits__delete(a.hits);
	free(a.done);
	prec_manifest__delete(m);
	if (a.dirfd >= 0)
		close(a.dirfd);
	free(args.out_default);
	return rc;
}
