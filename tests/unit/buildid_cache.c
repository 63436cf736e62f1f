// SPDX-License-Identifier: MIT
// prec_buildid_cache: perf's layout (NAME/ID/KIND and .build-id/XX/REST ->
// ../../NAME/ID) for a file, the vDSO and kallsyms; an entry there is kept;
// a copy's mode (0755/0644 only when others may read the file, never
// set-id); names that could leave the cache refused; a link planted where
// a directory goes not followed; the base from PERF_BUILDID_DIR, from
// buildid.dir of ~/.perfconfig, else made as $HOME/.debug.
#include "util/buildid_cache.h"
#include "util/plain_path.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[PATH_MAX / 2];
static const uint8_t id[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
				15, 16, 17, 18 };
#define HEX "abcd0102030405060708090a0b0c0d0e0f101112"

static void path_of(char *buf, const char *rel)
{
	CHECK(snprintf(buf, PATH_MAX, "%s/%s", top, rel) < PATH_MAX);
}

static struct prec_buildid_cache *open_at(const char *rel)
{
	struct prec_buildid_cache *c = NULL;
	char p[PATH_MAX];

	path_of(p, rel);
	setenv("PERF_BUILDID_DIR", p, 1);
	CHECK_EQ(prec_buildid_cache__open(&c), 0);
	return c;
}

static void check_link(const char *cache, const char *name)
{
	char p[PATH_MAX], want[PATH_MAX], got[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s/.build-id/ab/%s", top, cache, HEX + 2);
	n = readlink(p, got, sizeof(got) - 1);
	CHECK(n > 0);
	got[n] = '\0';
	snprintf(want, sizeof(want), "../../%s/%s", name + (name[0] == '/'), HEX);
	CHECK(!strcmp(got, want));
}

static mode_t mode_of(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(p, rel);
	CHECK(!lstat(p, &st));
	return st.st_mode;
}

/* A file of mode m: its copy's mode (the cache on another file system
 * is not needed: a set-id file is always copied). */
static mode_t copied_mode(mode_t m, const char *cache)
{
	struct prec_buildid_cache *c;
	char src[PATH_MAX], rel[PATH_MAX / 2];
	struct stat st;
	int fd;

	path_of(src, "src.bin");
	unlink(src);
	fd = open(src, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, "\177ELF0123456789", 14) == 14);
	CHECK(!fchmod(fd, m | S_ISUID));
	CHECK(!fstat(fd, &st));
	c = open_at(cache);
	CHECK_EQ(prec_buildid_cache__add(c, "/x/src.bin", "elf", id, 20, fd, &st, NULL, 0, NULL), 1);
	CHECK_EQ(prec_buildid_cache__linked(c), 0);
	CHECK_EQ(prec_buildid_cache__copied(c), 14);
	prec_buildid_cache__close(c);
	close(fd);
	snprintf(rel, sizeof(rel), "%s/x/src.bin/%s/elf", cache, HEX);
	return mode_of(rel) & 07777;
}

int main(void)
{
	struct prec_buildid_cache *c;
	char p[PATH_MAX], rel[PATH_MAX / 2], buf[64];
	char *t = test_tmpdir("bidcache");
	struct stat st;
	int fd;

	CHECK(t);
	snprintf(top, sizeof(top), "%s", t);

	/* names */
	CHECK(prec_plain_path__ok("/usr/lib/libc.so.6"));
	CHECK(!prec_plain_path__ok("usr/lib"));
	CHECK(!prec_plain_path__ok("/usr/../etc/x"));
	CHECK(!prec_plain_path__ok("/usr//x"));
	CHECK(!prec_plain_path__ok("/usr/./x"));
	CHECK(!prec_plain_path__ok("/usr/x/"));
	CHECK(!prec_plain_path__ok("/"));

	/* the base made, a file linked (same file system), the vDSO from
	 * memory, an entry there kept */
	c = open_at("c1");
	path_of(p, "prog");
	fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0755);
	CHECK(fd >= 0 && write(fd, "\177ELFprogram", 11) == 11 && !fstat(fd, &st));
	CHECK_EQ(prec_buildid_cache__has(c, "/opt/a b/prog", "elf", id, 20), 0);
	CHECK_EQ(prec_buildid_cache__add(c, "/opt/a b/prog", "elf", id, 20, fd, &st, NULL, 0, NULL), 1);
	CHECK_EQ(prec_buildid_cache__linked(c), 1);
	CHECK_EQ(prec_buildid_cache__has(c, "/opt/a b/prog", "elf", id, 20), 1);
	CHECK_EQ(prec_buildid_cache__add(c, "/opt/a b/prog", "elf", id, 20, fd, &st, NULL, 0, NULL), 0);
	close(fd);
	snprintf(rel, sizeof(rel), "c1/opt/a b/prog/%s/elf", HEX);
	path_of(p, rel);
	CHECK(!stat(p, &st) && st.st_nlink == 2);
	check_link("c1", "/opt/a b/prog");
	/* the same id as the file's: its entry goes in, the link stays the
	 * file's (perf keeps the first too) */
	CHECK_EQ(prec_buildid_cache__add(c, "[vdso]", "vdso", id, 20, -1, NULL, "IMAGE", 5, NULL), 1);
	snprintf(rel, sizeof(rel), "c1/[vdso]/%s/vdso", HEX);
	path_of(p, rel);
	fd = open(p, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 5 && !memcmp(buf, "IMAGE", 5));
	close(fd);
	CHECK_EQ(mode_of(rel) & 07777, 0644);
	check_link("c1", "/opt/a b/prog");

	/* names that could leave the cache */
	CHECK_EQ(prec_buildid_cache__add(c, "/a/../b", "elf", id, 20, -1, NULL, "x", 1, NULL), -EINVAL);
	CHECK_EQ(prec_buildid_cache__add(c, "..", "vdso", id, 20, -1, NULL, "x", 1, NULL), -EINVAL);
	CHECK_EQ(prec_buildid_cache__add(c, "a/b", "elf", id, 20, -1, NULL, "x", 1, NULL), -EINVAL);
	CHECK_EQ(prec_buildid_cache__add(c, "[vdso]", "vdso", id, 21, -1, NULL, "x", 1, NULL), -EINVAL);

	/* a link where a directory goes: not followed, nothing written */
	path_of(p, "elsewhere");
	CHECK(!mkdir(p, 0755));
	path_of(p, "c1/evil");
	CHECK(!symlink("../elsewhere", p));
	CHECK_EQ(prec_buildid_cache__add(c, "/evil/prog", "elf", id, 20, -1, NULL, "x", 1, NULL), -EPERM);
	CHECK_EQ(prec_buildid_cache__has(c, "/evil/prog", "elf", id, 20), 0);
	path_of(p, "elsewhere");
	CHECK(!rmdir(p)); /* empty */
	prec_buildid_cache__close(c);

	/* a copy's mode: never set-id; others' bits only if they may read */
	CHECK_EQ(copied_mode(0755, "c2"), 0755);
	CHECK_EQ(copied_mode(0711, "c3"), 0700);
	CHECK_EQ(copied_mode(0640, "c4"), 0600);
	CHECK_EQ(copied_mode(0644, "c5"), 0644);

	/* the base: buildid.dir of ~/.perfconfig, else $HOME/.debug
	 * (tests/run.sh leaves the config files out: read here) */
	unsetenv("PERF_BUILDID_DIR");
	unsetenv("PERF_CONFIG");
	unsetenv("PERF_CONFIG_NOGLOBAL");
	path_of(p, "home");
	CHECK(!mkdir(p, 0700));
	setenv("HOME", p, 1);
	CHECK_EQ(prec_buildid_cache__open(&c), 0);
	prec_buildid_cache__close(c);
	path_of(p, "home/.debug");
	CHECK(!stat(p, &st) && S_ISDIR(st.st_mode));
	path_of(p, "home/.perfconfig");
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	dprintf(fd, "# perf\n[report]\n\tdir = /nowhere\n[BuildID]\n\tDir = \"%s/conf\"\n", top);
	close(fd);
	CHECK_EQ(prec_buildid_cache__open(&c), 0);
	CHECK_EQ(prec_buildid_cache__add(c, "[vdso]", "vdso", id, 20, -1, NULL, "I", 1, NULL), 1);
	prec_buildid_cache__close(c);
	snprintf(rel, sizeof(rel), "conf/[vdso]/%s/vdso", HEX);
	CHECK(S_ISREG(mode_of(rel)));
	check_link("conf", "[vdso]");
	test_rmdir(top);
	free(t);
	return 0;
}
