// SPDX-License-Identifier: MIT
// prec_path__open_dir: directories and links of our own are followed
// (relative, absolute, "..", chains); a link another user owns in a
// directory others can write (a sticky /tmp) is refused with its name,
// whatever fs.protected_symlinks says, and so is the same user's link in a
// directory of their own, while root's link there is followed unless it has
// a second name (a hard link someone made of it); a loop ends in -ELOOP, a
// file in the middle in -ENOTDIR.
#include "util/path.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534

static char top[PATH_MAX / 2];

static void path_of(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", top, rel);
}

static void mk(const char *rel, mode_t mode, uid_t uid)
{
	char p[PATH_MAX];

	path_of(p, rel);
	CHECK(!mkdir(p, 0700));
	CHECK(!chown(p, uid, uid));
	CHECK(!chmod(p, mode));
}

static void ln(const char *target, const char *rel, uid_t uid)
{
	char p[PATH_MAX];

	path_of(p, rel);
	CHECK(!symlink(target, p));
	CHECK(!lchown(p, uid, uid));
}

/* dev/ino of what open_dir(rel) opened equal those of want (a real dir). */
static void opens_as(const char *rel, const char *want)
{
	char p[PATH_MAX], w[PATH_MAX];
	struct stat a, b;
	int fd;

	path_of(p, rel);
	path_of(w, want);
	fd = prec_path__open_dir(p, NULL, NULL);
	if (fd < 0)
		fprintf(stderr, "open_dir(%s): %s\n", p, strerror(-fd));
	CHECK(fd >= 0);
	CHECK(!fstat(fd, &a));
	CHECK(!stat(w, &b));
	CHECK(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
}

static int open_err(const char *rel, const char **why, const char **bad)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, rel);
	fd = prec_path__open_dir(p, why, bad);
	if (fd >= 0)
		close(fd);
	return fd;
}

int main(void)
{
	const char *why = NULL, *bad = NULL;
	char p[PATH_MAX], abs_target[PATH_MAX];
	char *t;

	if (geteuid() != 0) {
		printf("skip: needs root (chown of links to another user)\n");
		return TEST_SKIP;
	}
	t = test_tmpdir("path");
	snprintf(top, sizeof(top), "%s", t);
	CHECK(!chmod(top, 0755));
	mk("victim", 0700, 0);
	mk("tmp", 01777, 0);            /* a shared, sticky directory */
	mk("tmp/mine", 0700, 0);
	mk("home", 0755, NOBODY);       /* nobody's own, only nobody writes */
	path_of(abs_target, "victim");

	/* Our own links, in a shared directory too. */
	ln("mine", "tmp/rel", 0);
	ln(abs_target, "tmp/abs", 0);
	ln("../victim", "tmp/up", 0);
	ln("rel", "tmp/chain", 0);
	opens_as("tmp/rel", "tmp/mine");
	opens_as("tmp/abs", "victim");
	opens_as("tmp/up", "victim");
	opens_as("tmp/chain", "tmp/mine");
	opens_as("tmp/chain/../abs/.", "victim");
	opens_as("tmp//mine/", "tmp/mine");

	/* Another user's link in the sticky directory: refused, named. */
	ln(abs_target, "tmp/evil", NOBODY);
	CHECK_EQ(open_err("tmp/evil", &why, &bad), -EPERM);
	CHECK(why && bad && !strcmp(bad, "evil"));
	why = bad = NULL;
	CHECK_EQ(open_err("tmp/mine/../evil/x", &why, &bad), -EPERM);
	/* ... also when our own link leads to it. */
	ln("evil", "tmp/via", 0);
	CHECK_EQ(open_err("tmp/via", NULL, NULL), -EPERM);

	/* nobody's link in nobody's own directory: refused, named. */
	ln(abs_target, "home/link", NOBODY);
	why = bad = NULL;
	CHECK_EQ(open_err("home/link", &why, &bad), -EPERM);
	CHECK(why && bad && !strcmp(bad, "link"));
	/* A link of root's in a directory only nobody writes: followed (only
	 * root can have made it) ... */
	ln(abs_target, "home/rootlink", 0);
	opens_as("home/rootlink", "victim");
	/* ... unless it has a second name: a hard link of a link of root's
	 * made elsewhere (fs.protected_hardlinks=0 lets nobody make one). */
	{
		char from[PATH_MAX], to[PATH_MAX];

		path_of(from, "home/rootlink");
		path_of(to, "home/hardlink");
		CHECK(!link(from, to));
		CHECK_EQ(open_err("home/hardlink", NULL, NULL), -EPERM);
		CHECK_EQ(open_err("home/rootlink", NULL, NULL), -EPERM);
		CHECK(!unlink(to));
		opens_as("home/rootlink", "victim");
	}
	/* Root's links with two names where only root writes: followed. */
	ln(abs_target, "rootln", 0);
	{
		char from[PATH_MAX], to[PATH_MAX];

		path_of(from, "rootln");
		path_of(to, "rootln2");
		CHECK(!link(from, to));
		opens_as("rootln2", "victim");
	}

	/* Loops and files. */
	ln("loop2", "tmp/loop1", 0);
	ln("loop1", "tmp/loop2", 0);
	CHECK_EQ(open_err("tmp/loop1", NULL, NULL), -ELOOP);
	path_of(p, "tmp/mine/file");
	CHECK(!close(open(p, O_WRONLY | O_CREAT | O_EXCL, 0600)));
	CHECK_EQ(open_err("tmp/mine/file/x", NULL, NULL), -ENOTDIR);
	CHECK_EQ(open_err("tmp/missing", NULL, NULL), -ENOENT);

	/* Relative to the working directory, and "/". */
	CHECK(!chdir(top));
	{
		int fd = prec_path__open_dir("tmp/rel", NULL, NULL);
		struct stat a, b;

		CHECK(fd >= 0);
		CHECK(!fstat(fd, &a) && !stat("tmp/mine", &b));
		CHECK(a.st_ino == b.st_ino);
		close(fd);
		fd = prec_path__open_dir("/", NULL, NULL);
		CHECK(fd >= 0 && !fstat(fd, &a) && !stat("/", &b) && a.st_ino == b.st_ino);
		close(fd);
	}
	CHECK(!chdir("/"));
	test_rmdir(t);
	free(t);
	printf("path: own links followed, another user's link in a shared directory refused\n");
	return 0;
}
