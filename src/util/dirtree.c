// SPDX-License-Identifier: MIT
// Recursive removal by directory descriptor (the contract: dirtree.h):
// fstatat without following, openat with O_NOFOLLOW, unlinkat relative to
// each level's descriptor, never a path.
#include "util/dirtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

/* Passes over one directory at most: an entry that changed under the walk
 * gets another look, but a writer that keeps changing them cannot hold
 * the walk forever. */
#define PASSES 4

static int remove_entry(int dfd, const char *name, int depth, dev_t top,
			bool *changed);

static bool dots(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* -EAGAIN, noted in *changed: the entry is not what it was when listed
 * (a rename swapped it); the next pass looks at it afresh. */
static int again(bool *changed)
{
	*changed = true;
	return -EAGAIN;
}

static int unlink_one(int dfd, const char *name, bool *changed)
{
	if (!unlinkat(dfd, name, 0) || errno == ENOENT)
		return 0;
	return errno == EISDIR ? again(changed) : -errno;
}

/* Empty the directory open at fd, which is at depth below the top; fd is
 * closed here. */
static int clear(int fd, int depth, dev_t top)
{
	DIR *d = fdopendir(fd);
	int err = 0;

	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	for (int pass = 0; pass < PASSES; pass++) {
		bool changed = false;
		struct dirent *e;
		int seen = 0;

		err = 0;
		rewinddir(d);
		for (errno = 0; (e = readdir(d)); errno = 0) {
			int r;

			if (dots(e->d_name))
				continue;
			seen++;
			r = remove_entry(dirfd(d), e->d_name, depth + 1, top, &changed);
			if (r && !err)
				err = r;
		}
		if (errno && !err)
			err = -errno;
		/* Another pass to see it empty (removing while reading may
		 * skip entries on some file systems), or for entries that
		 * changed; never to retry a lasting failure, which would
		 * repeat whole subtrees at every level above. */
		if (!seen || (err && !changed))
			break;
	}
	closedir(d);
	return err;
}

/* dfd/name is the directory *st at depth (the top is 0). */
static int remove_dir(int dfd, const char *name, const struct stat *st,
		      int depth, dev_t top, bool *changed)
{
	struct stat now;
	int fd, err;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			return 0;
		/* A symlink or file swapped in: the next pass unlinks it. */
		return err == -ELOOP || err == -ENOTDIR ? again(changed) : err;
	}
	if (fstat(fd, &now) || !same(&now, st)) {
		close(fd);
		return again(changed);
	}
	err = clear(fd, depth, top);
	if (err)
		return err;
	/* rmdir only the directory just emptied, not one renamed in since. */
	if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!same(&now, st))
		return again(changed);
	if (!unlinkat(dfd, name, AT_REMOVEDIR) || errno == ENOENT)
		return 0;
	/* Swapped for a non-directory between the check and the rmdir. */
	return errno == ENOTDIR ? again(changed) : -errno;
}

static int remove_entry(int dfd, const char *name, int depth, dev_t top,
			bool *changed)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink_one(dfd, name, changed);
	if (st.st_dev != top)
		return -EXDEV;
	if (depth > PREC_DIRTREE_MAX_DEPTH)
		return -ELOOP;
	return remove_dir(dfd, name, &st, depth, top, changed);
}

int prec_dirtree__remove(int dirfd, const char *name, dev_t dev, ino_t ino)
{
	bool changed = false;
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (st.st_dev != dev || st.st_ino != ino)
		return -ESTALE;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0) ? -errno : 0;
	return remove_dir(dirfd, name, &st, 0, st.st_dev, &changed);
}
