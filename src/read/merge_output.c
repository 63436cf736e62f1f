// SPDX-License-Identifier: MIT
// Where `prec merge` writes: stdout, a FIFO or device written in place, or
// a regular file (new, existing with -f, or a symlink's target) written as
// a temp file beside it and renamed over it only once the merge is whole:
// a full disk or a killed merge never leaves a truncated perf.data, and -f
// never destroys the old file before the new one exists.
#include "read/internal.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEMP_SUFFIX ".prec-XXXXXX"

/* A merge stopped by SIGINT, SIGTERM or SIGHUP removes its temp file on the
 * way out (SIGKILL cannot be caught: that one stays, FILE.prec-XXXXXX). The
 * handler only reads this copy of the name, and unlink, sigaction and
 * raise are async-signal-safe. */
static char sig_tmp[PATH_MAX];
static volatile sig_atomic_t sig_armed;
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static void on_fatal_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (sig_armed)
		unlink(sig_tmp);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered, and fatal, once the handler returns */
}

/* Signals the user set to be ignored (nohup) stay ignored. */
static void arm_signals(const char *tmp)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	if (strlen(tmp) >= sizeof(sig_tmp))
		return;
	memcpy(sig_tmp, tmp, strlen(tmp) + 1);
	sig_armed = 1;
	for (size_t i = 0; i < NR_FATAL; i++) {
		struct sigaction old;

		if (sigaction(fatal_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);
	}
}

static int fail(const char *name, const char *what, int err)
{
	pr_err("merge %s: %s: %s", name, what, strerror(-err));
	return err;
}

static int refuse_existing(const char *name)
{
	pr_err("merge %s: output exists (use -f to overwrite)", name);
	return -EEXIST;
}

/* path + ".prec-XXXXXX", or dir/.prec-XXXXXX when that would pass NAME_MAX. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dir_len = (size_t)(base - path);
	size_t n = strlen(path) + sizeof(TEMP_SUFFIX) + 1;
	char *tmp = malloc(n);

	if (!tmp)
		return NULL;
	if (strlen(base) + sizeof(TEMP_SUFFIX) - 1 <= NAME_MAX)
		snprintf(tmp, n, "%s" TEMP_SUFFIX, path);
	else
		snprintf(tmp, n, "%.*s" TEMP_SUFFIX, (int)dir_len, path);
	return tmp;
}

/* A regular file's destination: the name itself, or, for a symlink to a
 * regular file, its target (the link stays a link). */
static int open_temp(struct prec_merge_output *o, const char *name)
{
	sigset_t fatal, old;
	struct stat lst;
	int err;

	if (lstat(name, &lst) == 0 && S_ISLNK(lst.st_mode))
		o->path = realpath(name, NULL);
	else
		o->path = strdup(name);
	if (!o->path)
		return fail(name, "cannot resolve output", -errno);
	o->tmp = temp_name(o->path);
	if (!o->tmp)
		return fail(name, "cannot create output", -ENOMEM);
	/* Blocked from before the file exists until the handlers know its
	 * name: a signal in between would leave it behind. */
	sigemptyset(&fatal);
	for (size_t i = 0; i < NR_FATAL; i++)
		sigaddset(&fatal, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &fatal, &old);
	o->fd = mkostemp(o->tmp, O_CLOEXEC); /* 0600, O_EXCL */
	err = -errno;
	if (o->fd >= 0)
		arm_signals(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return fail(name, "cannot create output", err);
	}
	return 0;
}

static int open_named(struct prec_merge_output *o, const char *name)
{
	struct stat st;

	if (stat(name, &st) < 0) {
		struct stat lst;

		if (errno != ENOENT)
			return fail(name, "cannot open output", -errno);
		if (lstat(name, &lst) == 0)
			return fail(name, "output is a symbolic link to nothing", -ENOENT);
		return open_temp(o, name);
	}
	/* -f guards a file's contents; a FIFO, a pipe (/dev/stdout) or a
	 * device (/dev/null) holds nothing to lose. */
	if (S_ISREG(st.st_mode))
		return o->force ? open_temp(o, name) : refuse_existing(name);
	o->fd = open(name, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0)
		return fail(name, "cannot open output", -errno);
	return 0;
}

/* Whether st is the file dirfd/name (followed as a reader opens it). */
static bool same_file(const struct stat *st, int dirfd, const char *name)
{
	struct stat f;

	return name && fstatat(dirfd, name, &f, 0) == 0 &&
	       f.st_dev == st->st_dev && f.st_ino == st->st_ino;
}

int prec_merge_output__check_target(const char *name, const char *dir, int dirfd,
				    const struct prec_manifest *m)
{
	const char *hit = NULL;
	struct stat st;
	int r;

	/* By inode, so a symlink, a hard link or a path spelt another way
	 * is caught too; a target that does not exist yet is no part of it. */
	if (name && strcmp(name, "-"))
		r = stat(name, &st);
	else
		r = fstat(STDOUT_FILENO, &st); /* prec merge DIR >>DIR/cpu000.shard */
	if (r < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (same_file(&st, dirfd, PREC_MANIFEST_NAME))
		hit = PREC_MANIFEST_NAME;
	for (uint32_t i = 0; i < m->nr_shards && !hit; i++)
		if (same_file(&st, dirfd, m->shards[i].name))
			hit = m->shards[i].name;
	if (!hit)
		return 0;
	pr_err("merge %s: output is %s/%s of the recording being read (never written, even with -f)",
	       name && strcmp(name, "-") ? name : "stdout", dir, hit);
	return -EINVAL;
}

/* A pipe's default 64 KiB makes the writer and the reader (perf, cat)
 * take turns every 64 KiB: give it the size of the writer's flushes, or
 * as much of it as the system allows (fs.pipe-max-size). */
static void grow_pipe(int fd)
{
	for (int size = PREC_PERFDATA_FLUSH_BYTES; size >= (64 << 10); size /= 2)
		if (fcntl(fd, F_SETPIPE_SZ, size) >= 0)
			return;
}

int prec_merge_output__open(struct prec_merge_output *o, const char *name,
			    bool force)
{
	struct stat st;
	int fl, err;

	*o = (struct prec_merge_output){ .fd = STDOUT_FILENO, .force = force };
	if (name && strcmp(name, "-")) {
		o->name = name;
		err = open_named(o, name);
		if (err) {
			free(o->path);
			o->path = NULL;
			return err;
		}
	} else if (isatty(o->fd)) {
		pr_err("merge: refusing to write perf.data to a terminal (use -o FILE or a pipe)");
		return -EINVAL;
	}
	fl = fcntl(o->fd, F_GETFL);
	o->mode = PREC_PERFDATA_PIPE;
	if (fstat(o->fd, &st) < 0)
		return 0;
	if (S_ISFIFO(st.st_mode))
		grow_pipe(o->fd);
	if (S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND) &&
	    lseek(o->fd, 0, SEEK_CUR) == 0)
		o->mode = PREC_PERFDATA_FILE;
	return 0;
}

/* Into place without replacing anything (no -f): renameat2's NOREPLACE, or
 * link + unlink where the filesystem lacks it. */
static int put_in_place(const struct prec_merge_output *o)
{
	if (o->force)
		return rename(o->tmp, o->path) < 0 ? -errno : 0;
	if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	if (link(o->tmp, o->path) < 0)
		return -errno;
	unlink(o->tmp);
	return 0;
}

int prec_merge_output__finish(struct prec_merge_output *o, bool keep)
{
	int err = 0;

	if (o->fd != STDOUT_FILENO && o->fd >= 0 && close(o->fd) < 0 && keep)
		err = fail(o->name, "close", -errno);
	o->fd = -1;
	if (o->tmp && keep && !err) {
		err = put_in_place(o);
		if (err == -EEXIST)
			refuse_existing(o->name);
		else if (err)
			pr_err("merge %s: cannot rename %s into place: %s", o->name,
			       o->tmp, strerror(-err));
	}
	if (o->tmp && (!keep || err))
		unlink(o->tmp);
	sig_armed = 0;
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return err;
}
