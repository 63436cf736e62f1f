// SPDX-License-Identifier: MIT
// prec_dirtree__remove: a nested tree goes whole; symlinks in it (to a
// directory, to a file) and as its top are unlinked, their targets kept;
// a top that is not the expected inode is left alone (-ESTALE); a tree
// deeper than the limit is not entered past it (-ELOOP).
#include "util/dirtree.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int dfd;

static void put(const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, "x", 1) == 1);
	close(fd);
}

static bool exists(const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static int remove_tree(const char *name)
{
	struct stat st;

	CHECK(!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW));
	return prec_dirtree__remove(dfd, name, st.st_dev, st.st_ino);
}

static void nested_with_links(void)
{
	CHECK(!mkdirat(dfd, "victim", 0700));
	put("victim/keep");
	CHECK(!mkdirat(dfd, "top", 0700));
	put("top/a");
	CHECK(!mkdirat(dfd, "top/b", 0700));
	CHECK(!mkdirat(dfd, "top/b/c", 0755));
	put("top/b/c/d");
	CHECK(!mkdirat(dfd, "top/empty", 0700));
	CHECK(!symlinkat("../../victim", dfd, "top/b/todir"));
	CHECK(!symlinkat("../victim/keep", dfd, "top/tofile"));
	CHECK(!mkfifoat(dfd, "top/fifo", 0600));
	CHECK_EQ(remove_tree("top"), 0);
	CHECK(!exists("top"));
	CHECK(exists("victim/keep"));
}

static void top_checked(void)
{
	struct stat st;

	CHECK(!mkdirat(dfd, "one", 0700));
	CHECK(!mkdirat(dfd, "two", 0700));
	put("two/f");
	CHECK(!fstatat(dfd, "one", &st, AT_SYMLINK_NOFOLLOW));
	/* "two" is not the directory the caller checked. */
	CHECK_EQ(prec_dirtree__remove(dfd, "two", st.st_dev, st.st_ino), -ESTALE);
	CHECK(exists("two/f"));
	CHECK_EQ(prec_dirtree__remove(dfd, "gone", st.st_dev, st.st_ino), -ENOENT);
	CHECK_EQ(remove_tree("one"), 0);
	CHECK_EQ(remove_tree("two"), 0);
	/* A symlink as the top: the link goes, its target stays. */
	CHECK(!symlinkat("victim", dfd, "ln"));
	CHECK_EQ(remove_tree("ln"), 0);
	CHECK(!exists("ln"));
	CHECK(exists("victim/keep"));
}

static void too_deep(void)
{
	char path[4096] = "deep";

	CHECK(!mkdirat(dfd, path, 0700));
	for (int i = 0; i <= PREC_DIRTREE_MAX_DEPTH; i++) {
		strcat(path, "/d");
		CHECK(!mkdirat(dfd, path, 0700));
	}
	strcat(path, "/f");
	put(path);
	put("deep/top_file");
	CHECK_EQ(remove_tree("deep"), -ELOOP);
	/* What is within the limit went, the rest stays. */
	CHECK(!exists("deep/top_file"));
	CHECK(exists(path));
}

int main(void)
{
	char *tmp = test_tmpdir("dirtree");

	dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0);
	nested_with_links();
	top_checked();
	too_deep();
	close(dfd);
	test_rmdir(tmp);
	free(tmp);
	return 0;
}
