// SPDX-License-Identifier: MIT
// prec archive: a tar of the files a recording's build-id table names, in
// perf's ~/.debug layout, for `perf report` on another machine. Each path
// comes from the workload (hostile): opened without following a symlink,
// taken only as a regular file still holding the recorded build-id.
#include "read/internal.h"
#include "read/owner.h"
#include "read/read.h"
#include "read/tar_writer.h"
#include "util/buildid.h"
#include "util/cli.h"
#include "util/file.h"
#include "util/log.h"

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

/* A file bigger than this is left out (a debug build of a browser fits). */
#define FILE_MAX (4ull << 30)
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
};

struct archive {
	const char *dir;
	int dirfd;
	struct prec_tar_writer *tar;
	int64_t now;
	uint32_t files, left_out;
	uint64_t file_bytes;
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
		"usage: prec archive DIR [-o FILE] [-f]\n"
		"  -o, --output FILE     write FILE instead of DIR.tar ('-' = stdout)\n"
		"  -f, --force           replace FILE (or a symlink there) if it exists, and read\n"
		"                        a recording of another user's\n"
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'f': a->force = true; break;
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

/* Whether read_fd's result is b's id; else e->why says what is there. */
static bool id_matches(struct entry *e, int ret, const uint8_t *id)
{
	char got[41];

	if (ret > 0 && same_id(e->b, id, ret))
		return true;
	if (ret > 0) {
		struct prec_manifest_buildid now = { .size = (uint8_t)ret };

		memcpy(now.id, id, (size_t)ret);
		hex_of(&now, got);
		snprintf(e->why, sizeof(e->why), "build-id on disk is %s", got);
	} else if (ret == -ENODATA) {
		snprintf(e->why, sizeof(e->why), "no build-id on disk");
	} else if (ret == -ENOEXEC) {
		snprintf(e->why, sizeof(e->why), "not an ELF file (a compressed module?)");
	} else {
		snprintf(e->why, sizeof(e->why), "build-id unreadable: %s", strerror(-ret));
	}
	return false;
}

/* A link on a mapped file's path that only root could have made: root's,
 * in a directory (dirfd) root owns and no one else may write. The
 * system's own (/lib -> usr/lib on a merged /usr, where prec names
 * modules) are such; a link the workload planted never is. */
static bool root_link(int dirfd, const struct stat *link)
{
	struct stat dir;

	return link->st_uid == 0 && fstat(dirfd, &dir) == 0 && dir.st_uid == 0 &&
	       !(dir.st_mode & (S_IWGRP | S_IWOTH));
}

/* A walk down an absolute path from "/", by descriptor. */
#define MAX_LINKS 40
struct walk {
	char path[2 * PATH_MAX];
	const char *rest;      /* the components still to walk, in path */
	int cur;               /* O_PATH descriptor of where the walk stands */
	int links;             /* root links followed */
};

/* The link at w->cur/comp (its descriptor fd, checked by root_link) read
 * through that descriptor, and its target put before w->rest: the walk
 * goes on from there (from "/" for an absolute target). Returns 0 or an
 * errno. */
static int follow(struct walk *w, int fd)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(fd, "", target, sizeof(target));
	size_t r = strlen(w->rest);

	if (len < 0)
		return errno;
	if (!len || (size_t)len + 1 + r + 1 > sizeof(w->path) || (size_t)len >= sizeof(target))
		return len ? ENAMETOOLONG : ENOENT;
	if (++w->links > MAX_LINKS)
		return ELOOP;
	memmove(w->path + len + 1, w->rest, r + 1);
	memcpy(w->path, target, (size_t)len);
	w->path[len] = '/';
	w->rest = w->path;
	if (target[0] == '/') {
		close(w->cur);
		w->cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (w->cur < 0)
			return errno;
	}
	return 0;
}

/* One component of the walk, opened O_PATH|O_NOFOLLOW (nothing is opened
 * that could act or block) from where the walk stands: a directory to
 * stand in, the last component (in *st), or a root link to follow.
 * Returns 0, or -1 with e->why. */
static int step(struct walk *w, struct entry *e, struct stat *st)
{
	size_t n = strcspn(w->rest, "/");
	char comp[NAME_MAX + 1];
	int fd, err;

	if (n > NAME_MAX) {
		snprintf(e->why, sizeof(e->why), "%s", strerror(ENAMETOOLONG));
		return -1;
	}
	memcpy(comp, w->rest, n);
	comp[n] = '\0';
	w->rest += n;
	fd = openat(w->cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) < 0) {
		snprintf(e->why, sizeof(e->why), "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISLNK(st->st_mode)) {
		close(w->cur);
		w->cur = fd;
		if (!w->rest[strspn(w->rest, "/")] || S_ISDIR(st->st_mode))
			return 0;
		snprintf(e->why, sizeof(e->why), "%s", strerror(ENOTDIR));
		return -1;
	}
	if (!root_link(w->cur, st)) {
		close(fd);
		snprintf(e->why, sizeof(e->why), "%.64s: a symbolic link not root's in "
			 "a directory only root writes, not followed", comp);
		return -1;
	}
	err = follow(w, fd);
	close(fd);
	if (err)
		snprintf(e->why, sizeof(e->why), "%.64s: %s", comp, strerror(err));
	return err ? -1 : 0;
}

/* The absolute path p walked from "/" a component at a time, a symlink
 * followed only if root_link() (at most MAX_LINKS), then its last
 * component, a regular file, reopened for reading by that very inode.
 * Returns the fd with *st, or -1 with e->why. */
static int open_no_links(struct entry *e, const char *p, struct stat *st)
{
	struct walk *w = malloc(sizeof(*w));
	int fd = -1;

	if (!w || strlen(p) >= sizeof(w->path)) {
		snprintf(e->why, sizeof(e->why), "%s", strerror(w ? ENAMETOOLONG : ENOMEM));
		free(w);
		return -1;
	}
	memcpy(w->path, p, strlen(p) + 1);
	w->rest = w->path;
	w->links = 0;
	w->cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR;
	if (w->cur < 0)
		snprintf(e->why, sizeof(e->why), "/: %s", strerror(errno));
	while (w->cur >= 0 && *(w->rest += strspn(w->rest, "/")))
		if (step(w, e, st) < 0)
			goto out;
	if (w->cur < 0) {
		if (!e->why[0])
			snprintf(e->why, sizeof(e->why), "/: %s", strerror(errno));
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(e->why, sizeof(e->why), "not a regular file");
	} else if ((uint64_t)st->st_size > FILE_MAX) {
		snprintf(e->why, sizeof(e->why), "bigger than %llu GiB",
			 (unsigned long long)(FILE_MAX >> 30));
	} else {
		fd = prec_file__reopen(w->cur, st, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			snprintf(e->why, sizeof(e->why), "%s", fd == -ESTALE ?
				 "replaced while being opened" : strerror(-fd));
		fd = fd < 0 ? -1 : fd;
	}
out:
	if (w->cur >= 0)
		close(w->cur);
	free(w);
	return fd;
}

/* cache/<id>/base, and .build-id/xx/rest -> ../../cache/<id>: perf's
 * layout (a link to the directory, the file named for its kind). */
static int put_entry(struct archive *a, struct entry *e, const char *cache,
		     const char *base, int fd, const void *mem, uint64_t size,
		     uint32_t mode, int64_t mtime)
{
	size_t n = strlen(cache) + strlen(e->hex) + strlen(base) + 16;
	char *name = malloc(n), *target = malloc(n + 8), link[64];
	int err = -ENOMEM;

	if (!name || !target)
		goto out;
	snprintf(name, n, "%s/%s/%s", cache, e->hex, base);
	snprintf(target, n + 8, "../../%s/%s", cache, e->hex);
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", e->hex, e->hex + 2);
	if (fd >= 0)
		err = prec_tar_writer__add_file(a->tar, name, fd, size, mode, mtime);
	else
		err = prec_tar_writer__add_mem(a->tar, name, mem, (size_t)size, mode, mtime);
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

/* A file (fd at *st) whose build-id is to be b's. Returns 0 (archived, or
 * left out with e->why set) or the tar's -errno. */
static int put_file(struct archive *a, struct entry *e, const char *cache,
		    const char *base, int fd, const struct stat *st)
{
	uint8_t id[20];
	int err = 0;

	if (id_matches(e, prec_buildid__read_fd(fd, id), id)) {
		err = put_entry(a, e, cache, base, fd, NULL, (uint64_t)st->st_size,
				st->st_mode & 0755, st->st_mtime);
		/* The file got shorter while being copied: the tar is cut. */
		if (err == -ENODATA)
			pr_err("archive %s: %s: shrank while being copied", a->dir, cache);
	}
	close(fd);
	return err;
}

/* A mapped file by its path: absolute, with only plain components (a
 * tar name), no symlink on the way. */
static int put_path(struct archive *a, struct entry *e)
{
	const char *path = e->b->path;
	struct stat st;
	int fd;

	if (path[0] != '/' || !prec_tar_writer__name_ok(path + 1) ||
	    strlen(path) + 48 > PREC_TAR_NAME_MAX) {
		snprintf(e->why, sizeof(e->why), path[0] == '[' ? "no file of that name" :
			 "not a plain absolute path");
		return 0;
	}
	fd = open_no_links(e, path, &st);
	return fd < 0 ? 0 : put_file(a, e, path + 1, "elf", fd, &st);
}

/* The vDSO image the recording keeps (DIR/vdso.so), as perf's cache
 * holds one: [vdso]/<id>/vdso. */
static int put_vdso(struct archive *a, struct entry *e)
{
	const char *why = NULL;
	struct stat st;
	int fd = prec_file__open_regular(a->dirfd, VDSO_FILE, &why);

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(e->why, sizeof(e->why), "%s/%s: %s", a->dir, VDSO_FILE,
			 fd == -ENOENT ? "not in the recording" : why ? why : strerror(-fd));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	return put_file(a, e, NAME_VDSO, "vdso", fd, &st);
}

/* The running kernel's symbols, when it is the recorded one (its
 * build-id), as [kernel.kallsyms]/<id>/kallsyms: /proc/kallsyms as perf
 * copies it. */
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
	len = prec_file__read_text("/proc/kallsyms", &buf, &cap, KALLSYMS_MAX);
	if (len < 0)
		snprintf(e->why, sizeof(e->why), "/proc/kallsyms: %s", strerror((int)-len));
	/* Addresses all zeros: hidden by kernel.kptr_restrict. */
	else if (strspn(buf, "0") >= 8 && buf[strspn(buf, "0")] == ' ')
		snprintf(e->why, sizeof(e->why),
			 "/proc/kallsyms hides its addresses (kernel.kptr_restrict)");
	else
		err = put_entry(a, e, NAME_KALLSYMS, "kallsyms", -1, buf, (uint64_t)len,
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
	/* Nothing of the kernel to resolve (perf archive takes only the
	 * files samples hit): not kallsyms, nor a line saying a user may
	 * not read its addresses. */
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

static int write_archive(struct archive *a, const struct prec_manifest *m, int fd)
{
	char (*why)[WHY_LEN] = calloc(m->nr_buildids + 1, WHY_LEN);
	int err = prec_tar_writer__new(&a->tar, fd);

	a->done = calloc(m->nr_buildids + 1, sizeof(*a->done));
	if (err || !a->done || !why) {
		free(why);
		return -ENOMEM;
	}
	a->kernel_samples = kernel_samples(m);
	for (uint32_t i = 0; i < m->nr_buildids && !err; i++)
		err = put_one(a, &m->buildids[i], why[i]);
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
	return err;
}

int prec_cmd_archive(int argc, char **argv)
{
	struct archive_args args = { 0 };
	struct archive a = { .dirfd = -1 };
	struct prec_manifest *m = NULL;
	struct prec_merge_output out = { .fd = -1 };
	int rc = 1, err;

	err = parse_args(argc, argv, &args);
	if (err) {
		free(args.out_default);
		return err > 0 ? 0 : 2;
	}
	signal(SIGPIPE, SIG_IGN);
	a.dir = args.dir;
	a.now = (int64_t)time(NULL);
	if (read_manifest(args.dir, &a.dirfd, &m, args.force) < 0)
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
	err = write_archive(&a, m, out.fd);
	if (err)
		pr_err("archive %s: writing %s: %s", args.dir, strcmp(args.out, "-") ?
		       args.out : "stdout", strerror(-err));
	if (prec_merge_output__finish(&out, !err) == 0 && !err) {
		rc = 0;
		pr_info("archive %s: %u file%s, %llu bytes (%llu KiB of tar) -> %s, %u left out",
			args.dir, a.files, a.files == 1 ? "" : "s", (unsigned long long)a.file_bytes,
			(unsigned long long)(prec_tar_writer__bytes(a.tar) >> 10),
			strcmp(args.out, "-") ? args.out : "stdout", a.left_out);
	}
out:
	prec_tar_writer__delete(a.tar);
	free(a.done);
	prec_manifest__delete(m);
	if (a.dirfd >= 0)
		close(a.dirfd);
	free(args.out_default);
	return rc;
}
