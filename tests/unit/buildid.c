// SPDX-License-Identifier: MIT
// Build-ids against readelf -n and perf buildid-list -k; non-ELF, note-less,
// md5-sized and corrupted files; a seeded mutation loop over a real ELF.
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/internal.h"

static char *sh(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return out;
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
	return out;
}

static void hex(const uint8_t *id, int n, char *out)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* readelf -n's "Build ID: <hex>" for path, or "" */
static void readelf_id(const char *path, char *out, size_t size)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1", path);
	sh(cmd, out, size);
}

static void check_file(const char *path)
{
	char want[128], got[64];
	uint8_t id[20];
	int n;

	readelf_id(path, want, sizeof(want));
	CHECK(want[0]);
	n = prec_buildid__read_elf(path, id);
	CHECK(n >= 1 && n <= 20);
	hex(id, n, got);
	if (strcmp(got, want))
		fprintf(stderr, "%s: got %s want %s\n", path, got, want);
	CHECK(!strcmp(got, want));
}

static void libc_path(char *out, size_t size)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");

	out[0] = '\0';
	CHECK(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, size, "%s", p);
			break;
		}
	}
	fclose(f);
	CHECK(out[0]);
}

static void check_kernel(void)
{
	char want[128], got[64];
	uint8_t id[20];
	int n = prec_buildid__read_kernel(id);

	CHECK(n >= 1 && n <= 20);
	hex(id, n, got);
	if (!sh("command -v perf", want, sizeof(want))[0]) {
		fprintf(stderr, "no perf: kernel id only checked for shape\n");
		return;
	}
	sh("perf buildid-list -k 2>/dev/null", want, sizeof(want));
	if (strcmp(got, want))
		fprintf(stderr, "kernel: got %s want %s\n", got, want);
	CHECK(!strcmp(got, want));
}

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	close(fd);
}

static void check_bad_inputs(const char *dir)
{
	char path[512];
	uint8_t id[20];

	snprintf(path, sizeof(path), "%s/text", dir);
	write_file(path, "#!/bin/sh\necho not an elf file at all\n", 39);
	CHECK_EQ(prec_buildid__read_elf(path, id), -ENOEXEC);
	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "", 0);
	CHECK_EQ(prec_buildid__read_elf(path, id), -ENOEXEC);
	CHECK_EQ(prec_buildid__read_elf(dir, id), -ENOEXEC);
	CHECK_EQ(prec_buildid__read_elf("/dev/null", id), -ENOEXEC);
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK_EQ(prec_buildid__read_elf(path, id), -ENOENT);
	CHECK_EQ(prec_buildid__read_module("no_such_module_xyz", id), -ENOENT);
	CHECK_EQ(prec_buildid__read_module("../kernel", id), -EINVAL);
	CHECK_EQ(prec_buildid__read_module("a/b", id), -EINVAL);
	CHECK_EQ(prec_buildid__read_module("", id), -EINVAL);
}

/* Link tiny programs with chosen --build-id styles; readelf is the oracle. */
static void check_linked(const char *dir)
{
	char cmd[1024], out[64], path[512];
	uint8_t id[20];

	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf 'int main(void){return 0;}\\n' > m.c && "
		 "cc -o sha1 -Wl,--build-id=sha1 m.c && cc -o md5 -Wl,--build-id=md5 m.c && "
		 "cc -o none -Wl,--build-id=none m.c && "
		 "cc -o long -Wl,--build-id=0x00112233445566778899aabbccddeeff0011223344 m.c && "
		 "cp sha1 nosect && objcopy --remove-section .note.gnu.build-id none none 2>/dev/null; "
		 "echo ok", dir);
	if (strcmp(sh(cmd, out, sizeof(out)), "ok")) {
		fprintf(stderr, "no cc: skipping linked-file checks\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/sha1", dir);
	check_file(path);
	snprintf(path, sizeof(path), "%s/md5", dir);
	check_file(path);
	CHECK_EQ(prec_buildid__read_elf(path, id), 16);
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK_EQ(prec_buildid__read_elf(path, id), -ENOENT);
	/* 21 bytes: more than any perf build-id slot holds. */
	snprintf(path, sizeof(path), "%s/long", dir);
	CHECK_EQ(prec_buildid__read_elf(path, id), -EINVAL);
}

/* Zero the section header fields so only PT_NOTE segments remain. */
static void check_segments_only(const char *dir)
{
	char src[512], dst[512], want[128], got[64];
	unsigned char *buf;
	uint8_t id[20];
	struct stat st;
	int fd, n;

	snprintf(src, sizeof(src), "/bin/true");
	snprintf(dst, sizeof(dst), "%s/noshdr", dir);
	fd = open(src, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size);
	CHECK(buf && read(fd, buf, (size_t)st.st_size) == st.st_size);
	close(fd);
	CHECK(buf[4] == 2); /* ELFCLASS64 */
	memset(buf + 0x28, 0, 8);   /* e_shoff */
	memset(buf + 0x3c, 0, 4);   /* e_shnum, e_shstrndx */
	write_file(dst, buf, (size_t)st.st_size);
	free(buf);
	readelf_id(src, want, sizeof(want));
	n = prec_buildid__read_elf(dst, id);
	CHECK(n == 20);
	hex(id, n, got);
	CHECK(!strcmp(got, want));
}

/* Random byte damage must give a verdict, never a crash or a bad length. */
static void check_mutations(const char *dir)
{
	uint64_t seed = test_seed(), st = seed;
	char dst[512];
	unsigned char *orig, *buf;
	struct stat sb;
	int fd;

	snprintf(dst, sizeof(dst), "%s/mut", dir);
	fd = open("/bin/true", O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &sb) == 0);
	orig = malloc((size_t)sb.st_size);
	buf = malloc((size_t)sb.st_size);
	CHECK(orig && buf && read(fd, orig, (size_t)sb.st_size) == sb.st_size);
	close(fd);
	for (int it = 0; it < 300; it++) {
		uint8_t id[20];
		int n, flips = 1 + (int)(test_rand(&st) % 16);
		size_t len = (size_t)sb.st_size;

		memcpy(buf, orig, len);
		for (int k = 0; k < flips; k++) {
			/* Mostly the headers and the notes near the start. */
			size_t off = test_rand(&st) % (k & 1 ? len : 1024);

			buf[off] = (uint8_t)test_rand(&st);
		}
		if (test_rand(&st) % 4 == 0)
			len = test_rand(&st) % len;
		write_file(dst, buf, len);
		n = prec_buildid__read_elf(dst, id);
		CHECK((n >= 1 && n <= 20) || n == -ENOENT || n == -ENOEXEC ||
		      n == -EINVAL);
	}
	free(orig);
	free(buf);
}

int main(void)
{
	char *dir = test_tmpdir("buildid");
	char libc[512];

	check_file("/bin/true");
	libc_path(libc, sizeof(libc));
	check_file(libc);
	check_kernel();
	check_bad_inputs(dir);
	check_linked(dir);
	check_segments_only(dir);
	check_mutations(dir);
	test_rmdir(dir);
	free(dir);
	return 0;
}
