// SPDX-License-Identifier: MIT
// prec archive on a hand-made recording: the vDSO image the recording
// keeps (DIR/vdso.so) goes in as perf's cache holds one, [vdso]/ID/vdso
// with its .build-id link; a [vdso] entry of another id, a kernel that is
// not the running one, a relative path and one with ".." are left out,
// one line each; an id that goes in under a later entry is not listed as
// left out under an earlier path; a vdso.so that is a symlink or a FIFO is
// left out too (and the FIFO's open does not wait for a writer). As root:
// a path through a link root made in a directory only root writes goes in
// (relative or absolute target), through the same link owned by another
// user it is left out, and a link loop ends. A recording with no event
// that counts kernel space carries no kallsyms and no line about it.
#include "read/read.h"
#include "util/buildid.h"
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX / 2], out[PATH_MAX];

static void add(struct prec_manifest *m, const char *path, const uint8_t *id, int size)
{
	struct prec_manifest_buildid b = { .cpumode = 1, .size = (uint8_t)size, .pid = -1,
					   .path = (char *)path };

	memcpy(b.id, id, (size_t)size);
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
}

/* Copy of this test's own ELF file at dir/vdso.so: an ELF with a build-id. */
static int copy_self(uint8_t id[20])
{
	char buf[65536], path[PATH_MAX];
	int in = open("/proc/self/exe", O_RDONLY), o, n, len;
	ssize_t r;

	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(in >= 0 && o >= 0);
	while ((r = read(in, buf, sizeof(buf))) > 0)
		CHECK_EQ(write(o, buf, (size_t)r), r);
	close(in);
	close(o);
	o = open(path, O_RDONLY);
	len = prec_buildid__read_fd(o, id);
	close(o);
	n = len;
	return n;
}

/* The tar's entries as "NAME" or "NAME -> TARGET" lines in list. */
static int list_tar(char *list, size_t room)
{
	int fd = open(out, O_RDONLY), n = 0;
	char h[512];
	size_t used = 0;

	CHECK(fd >= 0);
	list[0] = '\0';
	while (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && h[0]) {
		char size[13] = { 0 };
		uint64_t sz;

		memcpy(size, h + 124, 12);
		sz = strtoull(size, NULL, 8);
		used += (size_t)snprintf(list + used, room - used, "%.100s%s%.100s\n", h,
					 h[156] == '2' ? " -> " : "", h[156] == '2' ? h + 157 : "");
		CHECK(used < room);
		lseek(fd, (off_t)((sz + 511) / 512 * 512), SEEK_CUR);
		n++;
	}
	close(fd);
	return n;
}

static int run(void)
{
	char *argv[] = { "archive", "--all", dir, "-o", out, "-f", NULL };

	return prec_cmd_archive(6, argv);
}

/* A recording of its own (DIR/NAME) whose table holds path alone, with
 * id; archived. Returns the tar's entry count. */
static int one_entry(const char *top, const char *name, const char *path,
		     const uint8_t *id, int len)
{
	struct prec_manifest *m = prec_manifest__new();
	char list[4096];
	int fd;

	CHECK(m);
	snprintf(dir, sizeof(dir), "%s/%s", top, name);
	snprintf(out, sizeof(out), "%s/%s.tar", top, name);
	CHECK(!mkdir(dir, 0700));
	test_manifest_valid(m);
	add(m, path, id, len);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK_EQ(prec_manifest__write(m, fd), 0);
	close(fd);
	prec_manifest__delete(m);
	CHECK_EQ(run(), 0);
	return list_tar(list, sizeof(list));
}

/* Links on the path: followed only when root's, in a root-only directory. */
static void links(const char *top, const char *self, const uint8_t *id, int len)
{
	char real[PATH_MAX / 2], ln[PATH_MAX / 2], path[PATH_MAX];

	if (geteuid() != 0) {
		printf("archive: links: skipped, not root\n");
		return;
	}
	snprintf(real, sizeof(real), "%s/real", top);
	CHECK(!mkdir(real, 0755));
	snprintf(path, sizeof(path), "%s/self", real);
	CHECK(!link(self, path));
	snprintf(ln, sizeof(ln), "%s/viaroot", top);
	CHECK(!symlink("real", ln));
	snprintf(path, sizeof(path), "%s/self", ln);
	CHECK_EQ(one_entry(top, "r1", path, id, len), 2);
	snprintf(ln, sizeof(ln), "%s/viaabs", top);
	CHECK(!symlink(real, ln));
	snprintf(path, sizeof(path), "%s/self", ln);
	CHECK_EQ(one_entry(top, "r2", path, id, len), 2);
	snprintf(ln, sizeof(ln), "%s/vianobody", top);
	CHECK(!symlink("real", ln));
	CHECK(!lchown(ln, 65534, 65534));
	snprintf(path, sizeof(path), "%s/self", ln);
	CHECK_EQ(one_entry(top, "r3", path, id, len), 0);
	snprintf(ln, sizeof(ln), "%s/loop", top);
	CHECK(!symlink("loop", ln));
	snprintf(path, sizeof(path), "%s/x", ln);
	CHECK_EQ(one_entry(top, "r4", path, id, len), 0);
}

/* Archive DIR (as set) with stderr in text; returns the tar's entry count. */
static int run_quiet(const char *top, char *text, size_t room)
{
	char errs[PATH_MAX], list[4096];
	int saved = dup(2), efd;
	ssize_t n;

	snprintf(errs, sizeof(errs), "%s/err.q", top);
	efd = open(errs, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(saved >= 0 && efd >= 0);
	CHECK(dup2(efd, 2) == 2);
	CHECK_EQ(run(), 0);
	CHECK(dup2(saved, 2) == 2);
	n = pread(efd, text, room - 1, 0);
	CHECK(n >= 0);
	text[n] = '\0';
	close(efd);
	close(saved);
	return list_tar(list, sizeof(list));
}

/* A recording whose events all exclude the kernel (a user's at
 * perf_event_paranoid 2, --all-user; the tracking dummy does not count)
 * has no kernel address to resolve: [kernel.kallsyms] is neither archived
 * nor listed as left out. With a sampling event that counts the kernel,
 * it is one or the other. */
static void user_only(const char *top)
{
	uint8_t kid[20], dattr[128];
	struct perf_event_attr a;
	char text[4096];
	int klen = prec_buildid__read_kernel(kid), fd;

	if (klen <= 0) {
		memset(kid, 0x22, sizeof(kid));
		klen = 20;
	}
	for (int exclude = 1; exclude >= 0; exclude--) {
		struct prec_manifest *m = prec_manifest__new();

		CHECK(m);
		snprintf(dir, sizeof(dir), "%s/user%d", top, exclude);
		snprintf(out, sizeof(out), "%s/user%d.tar", top, exclude);
		CHECK(!mkdir(dir, 0700));
		test_manifest_valid(m);
		/* The tracking dummy: the valid event's sample type, counting
		 * the kernel as prec's does as root. */
		memset(&a, 0, sizeof(a));
		memcpy(&a, m->events[0].attr, sizeof(a) < 128 ? sizeof(a) : 128);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		memcpy(dattr, &a, sizeof(a) < 128 ? sizeof(a) : 128);
		memcpy(&a, m->events[0].attr, sizeof(a) < 128 ? sizeof(a) : 128);
		a.exclude_kernel = (unsigned)exclude;
		a.exclude_hv = (unsigned)exclude;
		memcpy(m->events[0].attr, &a, sizeof(a) < 128 ? sizeof(a) : 128);
		CHECK_EQ(prec_manifest__add_event(m, dattr, "dummy"), 1);
		CHECK_EQ(prec_manifest__add_event_id(m, 1, 2, 0, -1), 0);
		add(m, "[kernel.kallsyms]", kid, klen);
		fd = open(dir, O_RDONLY | O_DIRECTORY);
		CHECK(fd >= 0);
		CHECK_EQ(prec_manifest__write(m, fd), 0);
		close(fd);
		prec_manifest__delete(m);
		if (exclude) {
			CHECK_EQ(run_quiet(top, text, sizeof(text)), 0);
			CHECK(!strstr(text, "kallsyms"));
		} else {
			int n = run_quiet(top, text, sizeof(text));

			CHECK(n == 2 || strstr(text, "left out [kernel.kallsyms]"));
		}
	}
}

int main(void)
{
	struct prec_manifest *m = prec_manifest__new();
	uint8_t id[20], other[20], kernel[20];
	char hex[41], want[256], list[4096], vdso[PATH_MAX];
	char *tmp = test_tmpdir("archive");
	int len, fd;

	CHECK(m && tmp);
	snprintf(dir, sizeof(dir), "%s/rec", tmp);
	snprintf(out, sizeof(out), "%s/rec.tar", tmp);
	snprintf(vdso, sizeof(vdso), "%s/vdso.so", dir);
	CHECK(!mkdir(dir, 0755));
	len = copy_self(id);
	if (len <= 0) {
		printf("archive: skip: this test's binary has no build-id note\n");
		return TEST_SKIP;
	}
	test_manifest_valid(m);
	memcpy(other, id, sizeof(other));
	other[0] ^= 0xff;
	memset(kernel, 0x11, sizeof(kernel));
	add(m, "/nonexistent/prec-archive-test", id, len);
	add(m, "[vdso]", other, len);
	add(m, "[vdso]", id, len);
	add(m, "[kernel.kallsyms]", kernel, 20);
	add(m, "relative/vdso.so", other, len);
	add(m, "/tmp/../etc/passwd", kernel, 19);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0);
	CHECK_EQ(prec_manifest__write(m, fd), 0);
	close(fd);

	{
		char errs[PATH_MAX], text[8192] = { 0 };
		int saved = dup(2), efd;

		snprintf(errs, sizeof(errs), "%s/err", tmp);
		efd = open(errs, O_RDWR | O_CREAT | O_TRUNC, 0600);
		CHECK(saved >= 0 && efd >= 0);
		CHECK(dup2(efd, 2) == 2);
		CHECK_EQ(run(), 0);
		CHECK(dup2(saved, 2) == 2);
		CHECK(pread(efd, text, sizeof(text) - 1, 0) > 0);
		fputs(text, stderr);
		CHECK(!strstr(text, "/nonexistent"));
		CHECK(strstr(text, "left out [kernel.kallsyms] (1111"));
		CHECK(strstr(text, "left out relative/vdso.so"));
		CHECK(strstr(text, "left out /tmp/../etc/passwd"));
		CHECK(strstr(text, "left out [vdso] ("));
		CHECK(strstr(text, ", 4 left out"));
		close(efd);
		close(saved);
	}
	for (int i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(want, sizeof(want), "[vdso]/%s/vdso\n.build-id/%.2s/%s -> ../../[vdso]/%s\n",
		 hex, hex, hex + 2, hex);
	CHECK_EQ(list_tar(list, sizeof(list)), 2);
	if (strcmp(list, want)) {
		fprintf(stderr, "tar holds:\n%swant:\n%s", list, want);
		return 1;
	}

	/* vdso.so as a symlink to the same bytes, then as a FIFO: left out. */
	snprintf(want, sizeof(want), "%s/self", tmp);
	CHECK(!rename(vdso, want));
	CHECK(!symlink(want, vdso));
	CHECK_EQ(run(), 0);
	CHECK_EQ(list_tar(list, sizeof(list)), 0);
	CHECK(!unlink(vdso));
	CHECK(!mkfifo(vdso, 0600));
	alarm(10);
	CHECK_EQ(run(), 0);
	alarm(0);
	CHECK_EQ(list_tar(list, sizeof(list)), 0);

	links(tmp, want, id, len);
	user_only(tmp);
	prec_manifest__delete(m);
	test_rmdir(tmp);
	free(tmp);
	printf("archive: ok\n");
	return 0;
}
