// SPDX-License-Identifier: MIT
// The output directory's life: made (or an empty one of ours taken), -f's
// old one moved aside under a random name and removed only once the new
// recording is complete, or put back when it never starts. Everything is
// relative to the parent's descriptor, never through a symlink at the
// name: the parent may be writable by others (/tmp).

#include "record/out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dirtree.h"
#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

/* -f's random names for the old output tried before giving up */
#define ASIDE_TRIES 16

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* 1 if the directory open at fd holds nothing, 0 if it holds something,
 * or -errno. fd stays open (and its offset at the start: it is only ever
 * used as a base for *at calls). */
static int dir_empty(int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), n = 0;
	struct dirent *e;
	DIR *d;

	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		n = -errno;
		close(dup_fd);
		return n;
	}
	/* The dup shares the offset an earlier look left at the end. */
	rewinddir(d);
	while (!n && (e = readdir(d)))
		n = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	rewinddir(d);
	closedir(d);
	return !n;
}

/* The refusal of an output some other user owns, with or without -f: in a
 * directory others may write to, whatever we do with it by name is theirs
 * to redirect (and its contents theirs to swap while we remove them). */
static int refuse_owner(const struct prec_out_dir *d, uid_t uid)
{
	struct passwd pw, *p = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p))
		p = NULL;
	pr_err("%s: exists and belongs to another user, %s (uid %u); not replacing it",
	       d->path, p ? p->pw_name : "unknown", (unsigned int)uid);
	return -EEXIST;
}

/* Keep path (trailing slashes cut) in d->path, its last component in
 * d->name, and open its parent: every later step (the checks, -f's
 * rename, mkdir, the clean-up) is relative to that descriptor, so a
 * swap of a directory above cannot move them elsewhere midway. The parent
 * itself is the user's choice and is followed like any path. */
static int open_parent(struct prec_out_dir *d, const char *path)
{
	size_t len = strlen(path);
	const char *why = NULL, *bad = NULL;
	char *slash, *parent;
	int err = 0;

	while (len > 1 && path[len - 1] == '/')
		len--;
	d->path = strndup(path, len);
	if (!d->path)
		return -ENOMEM;
	slash = strrchr(d->path, '/');
	d->name = slash && slash[1] ? slash + 1 : d->path;
	if (!slash)
		parent = strdup(".");
	else
		parent = strndup(d->path, slash == d->path ? 1 : (size_t)(slash - d->path));
	if (!parent)
		return -ENOMEM;
	d->parentfd = prec_path__open_dir(parent, &why, &bad);
	if (d->parentfd < 0) {
		err = d->parentfd;
		if (err == -EPERM && bad)
			pr_err("%s: opening its parent directory %s: %s: %s, not followed",
			       d->path, parent, bad, why);
		else
			pr_err("%s: opening its parent directory %s: %s", d->path, parent,
			       strerror(-err));
	}
	free(parent);
	return err;
}

/* An existing directory of ours, *st, is used if it is empty: opened
 * without following a link and checked to be the one looked at, closed
 * to others (0700, so no one can plant files in it any more) and looked
 * at again. Returns 0 with d->fd set, -ENOTEMPTY, or -errno (one line
 * printed). */
static int use_empty(struct prec_out_dir *d, const struct stat *st)
{
	struct stat now;
	int fd, err;

	fd = openat(d->parentfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_err("%s: open: %s", d->path, strerror(-err));
		return err;
	}
	err = fstat(fd, &now) ? -errno : 0;
	if (!err && (!same_file(&now, st) || now.st_uid != geteuid())) {
		pr_err("%s: replaced while prec looked at it; not using it", d->path);
		err = -EAGAIN;
	}
	if (!err)
		err = dir_empty(fd);
	if (err == 1)
		err = fchmod(fd, 0700) ? -errno : dir_empty(fd);
	if (err == 1) {
		d->fd = fd;
		return 0;
	}
	close(fd);
	if (err == 0)
		return -ENOTEMPTY;
	if (err != -EAGAIN)
		pr_err("%s: %s", d->path, strerror(-err));
	return err;
}

static int rename_noreplace(int dfd, const char *from, const char *to)
{
	struct stat st;

	if (!renameat2(dfd, from, dfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A file system without RENAME_NOREPLACE: look first. */
	if (!fstatat(dfd, to, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return renameat(dfd, from, dfd, to) ? -errno : 0;
}

/* --force: the old output, *st, is kept under another name until the new
 * manifest is on disk, and put back if the new one cannot be made. The
 * aside name, DIR.old.XXXXXXXX, is random: one another user could guess
 * (DIR.old.PID) they could make first, and -f would fail. It is never
 * reused from someone else (RENAME_NOREPLACE), and only *st is ever
 * removed under it (old_dev, old_ino). */
static int move_aside(struct prec_out_dir *d, const struct stat *st)
{
	int err = -EEXIST;

	if (asprintf(&d->old_path, "%s.old.XXXXXXXX", d->path) < 0) {
		d->old_path = NULL;
		return -ENOMEM;
	}
	/* old_dir is dir plus a suffix: its last component starts where
	 * dir's does. */
	d->old_name = d->old_path + (d->name - d->path);
	for (int i = 0; i < ASIDE_TRIES && err == -EEXIST; i++) {
		err = prec_file__random_name(d->old_path + strlen(d->old_path) - 8, 8);
		if (!err)
			err = rename_noreplace(d->parentfd, d->name, d->old_name);
	}
	if (err) {
		pr_err("%s: moving it aside to %s: %s", d->path, d->old_path, strerror(-err));
		free(d->old_path);
		d->old_path = NULL;
		d->old_name = NULL;
		return err;
	}
	d->old_dev = st->st_dev;
	d->old_ino = st->st_ino;
	return 0;
}

/* Put -f's old output back under its name. A symlink found there instead
 * (a user who may write to the parent swapped our new directory away) is
 * unlinked, never followed; anything else stays, and so does the old
 * output under its aside name (one warning). */
static void restore_old(struct prec_out_dir *d)
{
	struct stat st;
	int err;

	if (!d->old_path)
		return;
	if (!fstatat(d->parentfd, d->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		unlinkat(d->parentfd, d->name, 0);
	err = rename_noreplace(d->parentfd, d->old_name, d->name);
	if (err) {
		pr_warn("%s: restoring it from %s: %s", d->path, d->old_path, strerror(-err));
		return;
	}
	free(d->old_path);
	d->old_path = NULL;
	d->old_name = NULL;
}

static int make_dir(struct prec_out_dir *d)
{
	struct stat st;
	int err;

	if (mkdirat(d->parentfd, d->name, 0700)) {
		err = -errno;
		pr_err("%s: mkdir: %s", d->path, strerror(-err));
		return err;
	}
	/* NOFOLLOW: a symlink swapped in since mkdir is refused (ELOOP). */
	d->fd = openat(d->parentfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0) {
		err = -errno;
		pr_err("%s: open: %s", d->path, strerror(-err));
		return err;
	}
	/* Someone else's directory swapped in between mkdir and open. */
	err = fstat(d->fd, &st) ? -errno : 0;
	if (!err && st.st_uid != geteuid())
		err = refuse_owner(d, st.st_uid);
	/* 0700 whatever the umask. */
	if (!err && fchmod(d->fd, 0700))
		err = -errno;
	if (err) {
		if (err != -EEXIST)
			pr_err("%s: %s", d->path, strerror(-err));
		close(d->fd);
		d->fd = -1;
	}
	return err;
}

int prec_out_dir__create(struct prec_out_dir *d, const char *path, bool force)
{
	struct stat st;
	int err;

	memset(d, 0, sizeof(*d));
	d->fd = d->parentfd = -1;
	err = open_parent(d, path);
	if (err)
		return err;
	if (fstatat(d->parentfd, d->name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		if (err == -ENOENT)
			return make_dir(d);
		pr_err("%s: %s", d->path, strerror(-err));
		return err;
	}
	if (st.st_uid != geteuid())
		return refuse_owner(d, st.st_uid);
	err = S_ISDIR(st.st_mode) ? use_empty(d, &st) : -ENOTEMPTY;
	if (err != -ENOTEMPTY)
		return err;
	if (!force) {
		pr_err("%s: exists (use -f to replace it)", d->path);
		return -EEXIST;
	}
	err = move_aside(d, &st);
	if (!err)
		err = make_dir(d);
	if (err)
		restore_old(d);
	return err;
}

/* Why a tree was not removed whole. -ESTALE: its name holds something
 * else by now (left alone); -EAGAIN: another user renamed or swapped part
 * of it during the walk (what they swapped in was not followed). */
static const char *removal_error(int err)
{
	if (err == -ESTALE)
		return "replaced by someone else, left alone";
	return err == -EAGAIN ? "changed by someone else while being removed" : strerror(-err);
}

void prec_out_dir__commit(struct prec_out_dir *d)
{
	int err;

	if (!d->old_path)
		return;
	err = prec_dirtree__remove(d->parentfd, d->old_name, d->old_dev, d->old_ino);
	if (err)
		pr_warn("%s: removing the replaced recording: %s", d->old_path,
			removal_error(err));
	free(d->old_path);
	d->old_path = NULL;
	d->old_name = NULL;
}

void prec_out_dir__discard(struct prec_out_dir *d)
{
	if (d->fd >= 0) {
		struct stat st;
		int err = fstat(d->fd, &st) ? -errno : 0;

		close(d->fd);
		d->fd = -1;
		if (!err)
			err = prec_dirtree__remove(d->parentfd, d->name, st.st_dev, st.st_ino);
		if (err)
			pr_warn("%s: removing the unfinished recording: %s", d->path,
				removal_error(err));
	}
	restore_old(d);
}

void prec_out_dir__exit(struct prec_out_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	if (d->parentfd >= 0)
		close(d->parentfd);
	free(d->path);
	free(d->old_path);
	memset(d, 0, sizeof(*d));
	d->fd = d->parentfd = -1;
}
