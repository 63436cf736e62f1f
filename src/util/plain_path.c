// SPDX-License-Identifier: MIT
// The walk of a hostile absolute path by descriptor: only root's own links
// followed, only a regular file on a real file system opened at its end.
#include "util/plain_path.h"
#include "util/file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINKS 40

bool prec_plain_path__ok(const char *p)
{
	if (!p || p[0] != '/')
		return false;
	for (p++;; ) {
		size_t n = strcspn(p, "/");

		if (!n || n > NAME_MAX || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
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
 * Returns 0 or -1. */
static int step(struct walk *w, struct stat *st)
{
	size_t n = strcspn(w->rest, "/");
	char comp[NAME_MAX + 1];
	int fd, err;

	if (n > NAME_MAX)
		return -1;
	memcpy(comp, w->rest, n);
	comp[n] = '\0';
	w->rest += n;
	fd = openat(w->cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISLNK(st->st_mode)) {
		close(w->cur);
		w->cur = fd;
		return !w->rest[strspn(w->rest, "/")] || S_ISDIR(st->st_mode) ? 0 : -1;
	}
	if (!root_link(w->cur, st)) {
		close(fd);
		return -1;
	}
	err = follow(w, fd);
	close(fd);
	return err ? -1 : 0;
}

/* Whether the walk's end (an O_PATH fd at *st) may be opened for reading:
 * a regular file on a file system that stores files, bigger than an ELF
 * header (a kernel's made-up files say 0 or 4096), not past max. */
static bool openable(int fd, const struct stat *st, uint64_t max)
{
	return S_ISREG(st->st_mode) && st->st_size > (off_t)sizeof(Elf64_Ehdr) &&
	       (uint64_t)st->st_size <= max && !prec_file__on_pseudo_fs(fd);
}

int prec_plain_path__open(const char *p, uint64_t max_size, struct stat *st)
{
	struct walk *w;
	int fd = -ENOENT;

	if (strlen(p) >= sizeof(w->path))
		return -ENAMETOOLONG;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	memcpy(w->path, p, strlen(p) + 1);
	w->rest = w->path;
	w->links = 0;
	w->cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR;
	while (w->cur >= 0 && *(w->rest += strspn(w->rest, "/")))
		if (step(w, st) < 0)
			goto out;
	if (w->cur >= 0 && openable(w->cur, st, max_size)) {
		fd = prec_file__reopen(w->cur, st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		fd = fd < 0 ? -ENOENT : fd;
	}
out:
	if (w->cur >= 0)
		close(w->cur);
	free(w);
	return fd;
}
