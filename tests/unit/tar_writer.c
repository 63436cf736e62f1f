// SPDX-License-Identifier: MIT
// prec_tar_writer: names that could leave the unpacking directory are
// refused (absolute, "..", empty components; a link target climbing above
// the top); headers carry a valid checksum; a name of 101..255 bytes is
// split into prefix and name, a longer one or a long link target goes in a
// pax header whose record length counts itself; the end is two zero
// blocks padded to a 10240-byte record. A source shorter than the size it
// was given is padded with zeros and said (1), the stream still good; a
// source with holes goes in GNU's pax sparse 1.0 form (its map, then only
// its data); an entry that would pass the writer's limit is refused with
// nothing written.
#include "read/tar_writer.h"
#include "../lib/test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t octal(const char *f, size_t w)
{
	char tmp[16] = { 0 };

	memcpy(tmp, f, w);
	return strtoull(tmp, NULL, 8);
}

/* The block at p is a header with a valid checksum. */
static void check_sum(const uint8_t *p)
{
	unsigned int sum = 0;

	for (int i = 0; i < 512; i++)
		sum += (i >= 148 && i < 156) ? ' ' : p[i];
	CHECK_EQ(octal((const char *)p + 148, 8), sum);
	CHECK(!memcmp(p + 257, "ustar", 6));
}

static size_t read_all(int fd, uint8_t **out)
{
	off_t len = lseek(fd, 0, SEEK_END);

	CHECK(len >= 0);
	*out = malloc((size_t)len + 1);
	CHECK(*out);
	CHECK_EQ(pread(fd, *out, (size_t)len, 0), len);
	return (size_t)len;
}

static void names(void)
{
	static const char *const bad[] = { "", "/abs", "a/../b", "..", ".", "a//b",
					   "a/", "./a", "a/.", "a/.." };
	static const char *const good[] = { "a", "a/b", ".build-id/ab/cdef", "[vdso]/x/vdso",
					    "a..b/c.d", "...", "tmp/x y/\n" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!prec_tar_writer__name_ok(bad[i]));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(prec_tar_writer__name_ok(good[i]));
}

static void changed_sparse_bound(void)
{
	static const char want_map[] = "2\n0\n4096\n1048576\n4096\n";
	struct prec_tar_writer *t;
	int fd = memfd_create("tar", 0), src = memfd_create("src", 0);
	uint8_t page[4096], *buf;
	size_t len, off;
	uint64_t before;

	CHECK(fd >= 0 && src >= 0);
	CHECK_EQ(prec_tar_writer__new(&t, fd), 0);
	/* A source of 6 bytes given as 10: padded, said, the stream good. */
	CHECK_EQ(pwrite(src, "abcdef", 6, 0), 6);
	CHECK_EQ(prec_tar_writer__add_file(t, "g", src, 10, 0644, 0), 1);
	CHECK_EQ(prec_tar_writer__bytes(t), 1024);
	/* Data, a 1 MiB - 4 KiB hole, data: the map and 8 KiB of data. */
	memset(page, 'a', sizeof(page));
	CHECK_EQ(pwrite(src, page, sizeof(page), 0), (ssize_t)sizeof(page));
	memset(page, 'b', sizeof(page));
	CHECK_EQ(pwrite(src, page, sizeof(page), 1 << 20), (ssize_t)sizeof(page));
	CHECK_EQ(prec_tar_writer__add_file(t, "s/elf", src, (1 << 20) + 4096, 0755, 0), 0);
	/* The limit: no room for 10 more bytes and the tail, nothing written. */
	before = prec_tar_writer__bytes(t);
	prec_tar_writer__set_limit(t, before + 1000);
	CHECK_EQ(prec_tar_writer__add_mem(t, "m", "0123456789", 10, 0644, 0), -EFBIG);
	CHECK_EQ(prec_tar_writer__add_file(t, "n", src, 6, 0644, 0), -EFBIG);
	CHECK_EQ(prec_tar_writer__bytes(t), before);
	len = read_all(fd, &buf);
	/* g: "abcdef" and four zeros */
	check_sum(buf);
	CHECK_EQ(octal((const char *)buf + 124, 12), 10);
	CHECK(!memcmp(buf + 512, "abcdef\0\0\0\0", 10));
	off = 1024;
	/* the pax records, then the sparse entry: map block, 'a's, 'b's */
	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], 'x');
	CHECK(strstr((char *)buf + off + 512, "GNU.sparse.major=1\n"));
	CHECK(strstr((char *)buf + off + 512, "GNU.sparse.minor=0\n"));
	CHECK(strstr((char *)buf + off + 512, "GNU.sparse.name=s/elf\n"));
	CHECK(strstr((char *)buf + off + 512, "GNU.sparse.realsize=1052672\n"));
	off += 1024;
	check_sum(buf + off);
	CHECK(!strcmp((char *)buf + off, "GNUSparseFile.0/elf"));
	CHECK_EQ(octal((const char *)buf + off + 124, 12), 512 + 8192);
	off += 512;
	CHECK(!memcmp(buf + off, want_map, sizeof(want_map) - 1));
	CHECK_EQ(buf[off + sizeof(want_map) - 1], 0);
	off += 512;
	CHECK(buf[off] == 'a' && buf[off + 4095] == 'a' && buf[off + 4096] == 'b' &&
	      buf[off + 8191] == 'b');
	CHECK_EQ(len, off + 8192);
	free(buf);
	prec_tar_writer__delete(t);
	close(fd);
	close(src);
}

int main(void)
{
	struct prec_tar_writer *t;
	int fd = memfd_create("tar", 0), src = memfd_create("src", 0);
	char long_name[301], split_name[151], long_target[200];
	uint8_t *buf;
	size_t len, off = 0;

	CHECK(fd >= 0 && src >= 0);
	names();
	CHECK_EQ(prec_tar_writer__new(&t, fd), 0);

	/* Links that would climb out, absolute ones, bad names: nothing written. */
	CHECK_EQ(prec_tar_writer__add_symlink(t, "l", "../x", 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__add_symlink(t, "a/l", "../../x", 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__add_symlink(t, "a/l", "/etc/shadow", 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__add_symlink(t, "a/l", "./x", 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__add_symlink(t, "../l", "x", 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__add_mem(t, "/abs", "x", 1, 0644, 0), -EINVAL);
	CHECK_EQ(prec_tar_writer__bytes(t), 0);

	/* 1: a short name. */
	CHECK_EQ(prec_tar_writer__add_mem(t, "a/b", "xyz", 3, 0644, 1000), 0);
	/* 2: a link one level up from a/: inside. */
	CHECK_EQ(prec_tar_writer__add_symlink(t, "a/l", "../x/y", 0), 0);
	/* 3: 150 bytes, split at a slash. */
	memset(split_name, 'p', 150);
	split_name[100] = '/';
	split_name[150] = '\0';
	CHECK_EQ(prec_tar_writer__add_mem(t, split_name, "", 0, 0644, 0), 0);
	/* 4: 300 bytes with no split that fits: pax. */
	memset(long_name, 'q', 300);
	long_name[200] = '/';
	long_name[300] = '\0';
	CHECK_EQ(prec_tar_writer__add_mem(t, long_name, "12345", 5, 0600, 0), 0);
	/* 5: a target over 100 bytes: pax linkpath. */
	memset(long_target, 'r', sizeof(long_target) - 1);
	memcpy(long_target, "../", 3);
	long_target[sizeof(long_target) - 1] = '\0';
	CHECK_EQ(prec_tar_writer__add_symlink(t, "d/l", long_target, 0), 0);
	/* 6: a file from an fd. */
	CHECK_EQ(pwrite(src, "hello", 5, 0), 5);
	CHECK_EQ(prec_tar_writer__add_file(t, "f", src, 5, 0755, 0), 0);
	CHECK_EQ(prec_tar_writer__finish(t), 0);
	len = read_all(fd, &buf);
	CHECK_EQ(len, prec_tar_writer__bytes(t));
	CHECK_EQ(len % 10240, 0);

	check_sum(buf + off);
	CHECK(!strcmp((char *)buf + off, "a/b"));
	CHECK_EQ(buf[off + 156], '0');
	CHECK_EQ(octal((char *)buf + off + 124, 12), 3);
	CHECK_EQ(octal((char *)buf + off + 136, 12), 1000);
	CHECK(!memcmp(buf + off + 512, "xyz\0", 4));
	off += 1024;

	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], '2');
	CHECK(!strcmp((char *)buf + off + 157, "../x/y"));
	off += 512;

	check_sum(buf + off);
	CHECK(!memcmp(buf + off + 345, split_name, 100) && buf[off + 445] == '\0');
	CHECK(!memcmp(buf + off, split_name + 101, 49) && buf[off + 49] == '\0');
	off += 512;

	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], 'x');
	{
		char want[400];
		uint64_t n = octal((char *)buf + off + 124, 12);

		snprintf(want, sizeof(want), "%d path=%s\n", 310, long_name);
		CHECK_EQ(n, strlen(want));
		CHECK_EQ(strlen(want), 310);
		CHECK(!memcmp(buf + off + 512, want, n));
		off += 512 + 512;
	}
	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], '0');
	CHECK(!memcmp(buf + off + 512, "12345", 5));
	off += 1024;

	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], 'x');
	CHECK(!memcmp(buf + off + 512, "213 linkpath=../rrr", 19));
	off += 1024;
	check_sum(buf + off);
	CHECK_EQ(buf[off + 156], '2');
	CHECK(!strcmp((char *)buf + off, "d/l"));
	off += 512;

	check_sum(buf + off);
	CHECK(!memcmp(buf + off + 512, "hello", 5));
	off += 1024;
	for (size_t i = off; i < len; i++)
		CHECK_EQ(buf[i], 0);
	CHECK(len - off >= 1024);
	free(buf);

	prec_tar_writer__delete(t);
	close(fd);
	close(src);
	changed_sparse_bound();
	printf("tar_writer: ok\n");
	return 0;
}
