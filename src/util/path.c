// SPDX-License-Identifier: MIT
// The directory part of a path, opened component by component from
// descriptors, so that root never follows a link another user planted in
// a shared directory (/tmp/x -> /etc) or in a directory of their own
// (~user/results -> /root) to write where that user chose. The kernel
// refuses the first only with fs.protected_symlinks set, and never the
// second; prec must not depend on a sysctl.
#include "util/path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 40 /* the kernel's own limit on a path's links */

static __thread char bad_name[NAME_MAX + 1];

/* May another user have planted a link in dir? Yes where someone other
 * than root and us may write it: a directory of another user's (their
 * home, a project tree; the kernel's protected_symlinks rule trusts the
 * directory's owner, and here the owner is the one to fear), or one whose
 * group or others may write (/tmp). */
static bool others_write(const struct stat *dir)
{
	return (dir->st_uid != 0 && dir->st_uid != geteuid()) ||
	       (dir->st_mode & (S_IWGRP | S_IWOTH));
}

/* Why not to follow link (in dir), or NULL to follow it. Anywhere only
 * root and we write, follow. Elsewhere only a link of root's or ours,
 * which no one else can have made, and with one name: a second name is a
 * hard link that someone else put there (fs.protected_hardlinks=0 lets
 * anyone hard-link root's links). */
static const char *not_to_follow(const struct stat *link, const struct stat *dir)
{
	if (!others_write(dir))
		return NULL;
	if (link->st_uid != 0 && link->st_uid != geteuid())
		return "a symbolic link of another user in a directory another user may write";
	if (link->st_nlink != 1)
		return "a symbolic link with a second name (a hard link) in a directory another user may write";
	return NULL;
}

/* rest becomes target + "/" + after (after may point into rest). */
static int replace_head(char *rest, size_t cap, const char *target, size_t tlen,
		  const char *after)
{
	size_t alen = strlen(after);

	if (tlen + 1 + alen + 1 > cap)
		return -ENAMETOOLONG;
	memmove(rest + tlen + 1, after, alen + 1);
	memcpy(rest, target, tlen);
	rest[tlen] = '/';
	return 0;
}

static int refuse(const char *comp, size_t len, const char *reason, const char **why,
		  const char **bad)
{
	memcpy(bad_name, comp, len);
	bad_name[len] = '\0';
	if (why)
		*why = reason;
	if (bad)
		*bad = bad_name;
	return -EPERM;
}

int prec_path__open_dir(const char *dir, const char **why, const char **bad)
{
	char rest[2 * PATH_MAX], target[PATH_MAX], comp[NAME_MAX + 1];
	const char *p = rest;
	int fd, links = 0, err;

	if (strlen(dir) >= sizeof(rest) / 2)
		return -ENAMETOOLONG;
	strcpy(rest, dir);
	fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		struct stat st, parent;
		const char *reason;
		size_t len;
		ssize_t tlen;
		int next;

		while (*p == '/')
			p++;
		if (!*p)
			return fd;
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto close_fd;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		if (!strcmp(comp, "."))
			continue;
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			err = -errno;
			goto close_fd;
		}
		if (fstat(next, &st) || fstat(fd, &parent)) {
			err = -errno;
			close(next);
			goto close_fd;
		}
		if (S_ISDIR(st.st_mode)) {
			close(fd);
			fd = next;
			continue;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(next);
			err = -ENOTDIR;
			goto close_fd;
		}
		reason = not_to_follow(&st, &parent);
		if (reason) {
			close(next);
			err = refuse(comp, len, reason, why, bad);
			goto close_fd;
		}
		tlen = readlinkat(next, "", target, sizeof(target));
		err = tlen < 0 ? -errno : 0;
		close(next);
		if (!err && (size_t)tlen >= sizeof(target))
			err = -ENAMETOOLONG;
		if (!err && ++links > MAX_LINKS)
			err = -ELOOP;
		if (!err)
			err = replace_head(rest, sizeof(rest), target, (size_t)tlen, p);
		if (err)
			goto close_fd;
		p = rest;
		if (target[0] == '/') {
			close(fd);
			fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return -errno;
		}
	}
close_fd:
	close(fd);
	return err;
}
