// SPDX-License-Identifier: MIT
// Build-ids against readelf -n and perf buildid-list -k; non-ELF, note-less,
// md5-sized, corrupted, truncated and hand-built files; a seeded mutation
// loop over a real ELF; mapped files whose path was replaced (symlink,
// FIFO, device, another file, a leased file, a FUSE file that never
// answers): no build-id, and no wait.
#include "../lib/test.h"
#include "util/bytes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fuse.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buildid.h"
#include "util/buildid_workers.h"
#include "store/store.h"

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

/* The build-id parser on a file the test vouches for. */
static int read_path(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = prec_buildid__read_fd(fd, id);
	close(fd);
	return ret;
}

static void check_file(const char *path)
{
	char want[128], got[64];
	uint8_t id[20];
	int n;

	readelf_id(path, want, sizeof(want));
	CHECK(want[0]);
	n = read_path(path, id);
	CHECK(n >= 1 && n <= 20);
	hex(id, n, got);
	if (strcmp(got, want))
		fprintf(stderr, "%s: got %s want %s\n", path, got, want);
	CHECK(!strcmp(got, want));
}

/* A second real ELF file with a build-id: the libc this process maps. */
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
	/* A static build (make ARCH=arm64) maps no libc: its own file then,
	 * by its path (readelf's /proc/self/exe would be readelf). */
	if (!out[0]) {
		ssize_t n = readlink("/proc/self/exe", out, size - 1);

		CHECK(n > 0);
		out[n] = '\0';
	}
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
	CHECK_EQ(read_path(path, id), -ENOEXEC);
	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "", 0);
	CHECK_EQ(read_path(path, id), -ENOEXEC);
	CHECK_EQ(read_path(dir, id), -ENOEXEC);
	CHECK_EQ(read_path("/dev/null", id), -ENOEXEC);
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK_EQ(read_path(path, id), -ENOENT);
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
		 "cp sha1 nosect && { objcopy --remove-section .note.gnu.build-id none none 2>/dev/null; "
		 "true; } && echo ok", dir);
	if (strcmp(sh(cmd, out, sizeof(out)), "ok")) {
		fprintf(stderr, "no cc: skipping linked-file checks\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/sha1", dir);
	check_file(path);
	snprintf(path, sizeof(path), "%s/md5", dir);
	check_file(path);
	CHECK_EQ(read_path(path, id), 16);
	snprintf(path, sizeof(path), "%s/none", dir);
	CHECK_EQ(read_path(path, id), -ENODATA);
	/* 21 bytes: more than any perf build-id slot holds. */
	snprintf(path, sizeof(path), "%s/long", dir);
	CHECK_EQ(read_path(path, id), -EINVAL);
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
	n = read_path(dst, id);
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
		n = read_path(dst, id);
		CHECK((n >= 1 && n <= 20) || n == -ENODATA || n == -ENOEXEC ||
		      n == -EINVAL);
	}
	free(orig);
	free(buf);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void copy_file(const char *src, const char *dst)
{
	size_t len;
	uint8_t *buf = test_load(src, &len);

	write_file(dst, buf, len);
	free(buf);
}

/* What an MMAP2 record would say of path's file now. */
static struct prec_buildid_req req_of(const char *path)
{
	struct stat st;

	CHECK(stat(path, &st) == 0);
	return (struct prec_buildid_req){ .path = path, .maj = major(st.st_dev),
					  .min = minor(st.st_dev), .ino = st.st_ino };
}

/* read_mapped on r: the result, and it came at once. */
static int mapped_now(const struct prec_buildid_req *r, uint8_t id[20])
{
	uint64_t t = now_ms();
	int ret = prec_buildid__read_mapped(r, id);

	CHECK(now_ms() - t < 500);
	return ret;
}

/* The mapped file's path swapped for other things after the mapping: only
 * the mapped inode is ever read, and nothing else is even opened. */
static void check_replaced(const char *dir)
{
	char lib[512], keep[512], lnk[512], sub[512], via[512], want[128], got[64];
	struct prec_buildid_req r, r2;
	uint8_t id[20];
	pid_t child;
	int st;

	snprintf(lib, sizeof(lib), "%s/lib.so", dir);
	snprintf(keep, sizeof(keep), "%s/lib.so.mapped", dir);
	copy_file("/bin/true", lib);
	r = req_of(lib);
	CHECK_EQ(mapped_now(&r, id), 20);
	readelf_id(lib, want, sizeof(want));
	hex(id, 20, got);
	CHECK(!strcmp(got, want));

	/* A symlink as the last component, even to the very file. */
	snprintf(lnk, sizeof(lnk), "%s/lnk", dir);
	CHECK(symlink(lib, lnk) == 0);
	r2 = r;
	r2.path = lnk;
	CHECK_EQ(mapped_now(&r2, id), -ESTALE);
	/* A symlink in the middle reaches the mapped inode or nothing. */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CHECK(symlink(".", sub) == 0);
	snprintf(via, sizeof(via), "%s/sub/lib.so", dir);
	r2.path = via;
	CHECK_EQ(mapped_now(&r2, id), 20);
	CHECK(!unlink(sub) && symlink("/bin", sub) == 0);
	snprintf(via, sizeof(via), "%s/sub/true", dir);
	CHECK_EQ(mapped_now(&r2, id), -ESTALE);

	/* The mapped file stays alive under another name, as a mapping
	 * keeps it; its path now names ... */
	CHECK(rename(lib, keep) == 0);
	CHECK_EQ(mapped_now(&r, id), -ENOENT);                /* nothing */
	CHECK(symlink("/dev/zero", lib) == 0);
	CHECK_EQ(mapped_now(&r, id), -ESTALE);                /* a device */
	CHECK(!unlink(lib) && symlink("/dev/ptmx", lib) == 0);
	CHECK_EQ(mapped_now(&r, id), -ESTALE);                /* a tty */
	CHECK(!unlink(lib) && symlink(keep, lib) == 0);
	CHECK_EQ(mapped_now(&r, id), -ESTALE);                /* a symlink to it */
	CHECK(!unlink(lib));
	copy_file("/bin/true", lib);
	CHECK_EQ(mapped_now(&r, id), -ESTALE);                /* another inode */
	CHECK(prec_buildid__unread(-ESTALE));
	CHECK(!prec_buildid__unread(-ENODATA));

	/* A FIFO, even given its own identity: not opened at all. A writer
	 * blocked in open() would be let through by any reader's open. */
	CHECK(!unlink(lib) && mkfifo(lib, 0600) == 0);
	CHECK_EQ(mapped_now(&r, id), -ESTALE);
	r2 = req_of(lib);
	child = fork();
	CHECK(child >= 0);
	if (!child) {
		open(lib, O_WRONLY);
		_exit(0);
	}
	usleep(100 * 1000);
	CHECK_EQ(mapped_now(&r2, id), -ESTALE);
	usleep(100 * 1000);
	CHECK_EQ(waitpid(child, &st, WNOHANG), 0);
	kill(child, SIGKILL);
	CHECK_EQ(waitpid(child, &st, 0), child);
	CHECK(unlink(lib) == 0 && unlink(lnk) == 0 && unlink(sub) == 0);
	CHECK(unlink(keep) == 0);
}

/* A file under another process's write lease: an open for reading would
 * wait lease-break-time (45 s by default) for the holder; this answers at
 * once, without an id. */
static void check_leased(const char *dir)
{
	char path[512];
	int ready[2], st;
	struct prec_buildid_req r;
	uint8_t id[20];
	pid_t child;
	char c;

	snprintf(path, sizeof(path), "%s/leased", dir);
	copy_file("/bin/true", path);
	r = req_of(path);
	CHECK(pipe(ready) == 0);
	child = fork();
	CHECK(child >= 0);
	if (!child) {
		int fd = open(path, O_RDONLY);

		signal(SIGIO, SIG_IGN);
		c = fd >= 0 && fcntl(fd, F_SETLEASE, F_WRLCK) == 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(read(ready[0], &c, 1) == 1);
	if (c == 'y')
		CHECK_EQ(mapped_now(&r, id), -EWOULDBLOCK);
	else
		fprintf(stderr, "no write lease: lease check skipped\n");
	kill(child, SIGKILL);
	CHECK_EQ(waitpid(child, &st, 0), child);
	close(ready[0]);
	close(ready[1]);
	CHECK(prec_buildid__unread(-EWOULDBLOCK));
}

/* Little-endian or big-endian stores for the hand-built files. */
static void put_n(uint8_t *p, uint64_t v, int n, bool msb)
{
	for (int i = 0; i < n; i++)
		p[msb ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static size_t up(size_t v, size_t base, size_t align)
{
	return (v - base + align - 1) / align * align + base;
}

/* A minimal ELF: header, one PT_NOTE program header, then a note block
 * with an unrelated note and a GNU build-id of id_len bytes (0x11, 0x22,
 * ...), notes aligned to align. Returns the file length. */
static size_t build_elf(uint8_t *buf, bool is64, bool msb, int align, int id_len)
{
	size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, off = eh + ph, n = off;
	size_t a = (size_t)align;
	uint8_t *p;

	memset(buf, 0, 4096);
	memcpy(buf, "\177ELF", 4);
	buf[4] = is64 ? 2 : 1;
	buf[5] = msb ? 2 : 1;
	buf[6] = 1;
	if (is64) {
		put_n(buf + 32, eh, 8, msb);           /* e_phoff */
		put_n(buf + 54, ph, 2, msb);           /* e_phentsize */
		put_n(buf + 56, 1, 2, msb);            /* e_phnum */
	} else {
		put_n(buf + 28, eh, 4, msb);
		put_n(buf + 42, ph, 2, msb);
		put_n(buf + 44, 1, 2, msb);
	}
	/* An "ABC" note with a 5-byte desc, then GNU's. */
	put_n(buf + n, 4, 4, msb);
	put_n(buf + n + 4, 5, 4, msb);
	put_n(buf + n + 8, 1, 4, msb);
	memcpy(buf + n + 12, "ABC", 4);
	n = up(n + 16, off, a);
	memset(buf + n, 0xee, 5);
	n = up(n + 5, off, a);
	put_n(buf + n, 4, 4, msb);
	put_n(buf + n + 4, (uint64_t)id_len, 4, msb);
	put_n(buf + n + 8, 3, 4, msb);
	memcpy(buf + n + 12, "GNU", 4);
	n = up(n + 16, off, a);
	for (int i = 0; i < id_len; i++)
		buf[n + (size_t)i] = (uint8_t)(0x11 * (i + 1));
	n += (size_t)id_len;
	p = buf + eh;
	put_n(p, 4, 4, msb);                           /* PT_NOTE */
	if (is64) {
		put_n(p + 8, off, 8, msb);
		put_n(p + 32, n - off, 8, msb);
		put_n(p + 48, a, 8, msb);
	} else {
		put_n(p + 4, off, 4, msb);
		put_n(p + 16, n - off, 4, msb);
		put_n(p + 28, a, 4, msb);
	}
	return n;
}

/* Both classes, both byte orders, both note alignments; then hostile
 * headers: notes past EOF, a truncated file, huge declared sizes. */
static void check_handmade(const char *dir)
{
	static uint8_t buf[4096];
	struct prec_buildid_req r;
	char path[512];
	uint8_t id[20];
	size_t len;

	snprintf(path, sizeof(path), "%s/hand", dir);
	for (int v = 0; v < 8; v++) {
		bool is64 = v & 1, msb = v & 2;
		int align = v & 4 ? 8 : 4, n;

		len = build_elf(buf, is64, msb, align, 20);
		write_file(path, buf, len);
		memset(id, 0, sizeof(id));
		CHECK_EQ(read_path(path, id), 20);
		CHECK(id[0] == 0x11 && id[1] == 0x22 && id[19] == (uint8_t)(0x11 * 20));
		/* Cut anywhere before the id's end: no id, no crash. */
		for (size_t cut = 0; cut < len; cut += 7) {
			unlink(path); /* a truncating rewrite costs a flush */
			write_file(path, buf, cut);
			n = read_path(path, id);
			CHECK(n == -ENODATA || n == -ENOEXEC);
		}
	}
	/* The notes declared past EOF (a truncated file, as far as any
	 * reader can tell): pread comes back short, no mapping to fault. */
	len = build_elf(buf, true, false, 4, 20);
	put_n(buf + 64 + 8, 1ull << 40, 8, false);
	write_file(path, buf, len);
	CHECK_EQ(read_path(path, id), -ENODATA);
	/* A note block declared 2^62 bytes long: only the cap is read (and
	 * here holds the whole note). */
	len = build_elf(buf, true, false, 4, 20);
	put_n(buf + 64 + 32, 1ull << 62, 8, false);
	write_file(path, buf, len);
	CHECK_EQ(read_path(path, id), 20);
	/* A build-id note claiming a 4 GiB desc. */
	len = build_elf(buf, true, false, 4, 20);
	put_n(buf + len - 20 - 12, 0xfffffff0u, 4, false);
	write_file(path, buf, len);
	CHECK_EQ(read_path(path, id), -ENODATA);
	/* A program header table of 0xffff entries of 0xffff bytes. */
	len = build_elf(buf, true, false, 4, 20);
	put_n(buf + 54, 0xffff, 2, false);
	put_n(buf + 56, 0xffff, 2, false);
	write_file(path, buf, len);
	CHECK_EQ(read_path(path, id), -ENODATA);
	/* The same through read_mapped: the identity fits, the file lies. */
	r = req_of(path);
	CHECK_EQ(mapped_now(&r, id), -ENODATA);
}

/* /bin/true cut right after its program headers: the notes lie past EOF. */
static void check_truncated_real(const char *dir)
{
	char path[512];
	uint8_t *buf, id[20];
	size_t len, cut;

	buf = test_load("/bin/true", &len);
	CHECK(len > 64 && buf[4] == 2 && buf[5] == 1);
	cut = (size_t)prec_ld64(buf + 32) + (size_t)(buf[54] | buf[55] << 8) *
					     (size_t)(buf[56] | buf[57] << 8);
	CHECK(cut < len);
	snprintf(path, sizeof(path), "%s/cut", dir);
	write_file(path, buf, cut);
	CHECK_EQ(read_path(path, id), -ENODATA);
	free(buf);
}

/* Many requests, good and bad, answered together and at once. */
static void check_resolve(const char *dir)
{
	char good[512], fifo[512], zero[512], gone[512];
	struct prec_buildid_req r[4];
	uint64_t t;

	snprintf(good, sizeof(good), "%s/good", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(zero, sizeof(zero), "%s/zero", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	copy_file("/bin/true", good);
	copy_file("/bin/true", gone);
	r[0] = req_of(good);
	r[1] = req_of(gone);
	r[1].path = fifo;
	CHECK(mkfifo(fifo, 0600) == 0);
	r[2] = req_of(gone);
	r[2].path = zero;
	CHECK(symlink("/dev/zero", zero) == 0);
	r[3] = req_of(gone);
	CHECK(unlink(gone) == 0);
	t = now_ms();
	prec_buildid_workers__resolve(r, 4);
	CHECK(now_ms() - t < 1000);
	CHECK_EQ(r[0].ret, 20);
	CHECK_EQ(r[1].ret, -ESTALE);
	CHECK_EQ(r[2].ret, -ESTALE);
	CHECK_EQ(r[3].ret, -ENOENT);
	CHECK(!prec_buildid__unread(-ENOENT));
	CHECK(prec_buildid__unread(-ETIMEDOUT));
	prec_buildid_workers__resolve(NULL, 0);
}

/* A FUSE server that answers lookups and attributes of one regular file,
 * "f" (inode 2), and never answers its open: what a hostile or hung
 * FUSE/NFS server looks like to a reader. Runs in a child until killed. */
static void fuse_reply(int fd, uint64_t unique, int error, const void *arg,
		       size_t len)
{
	struct fuse_out_header oh = { .len = (uint32_t)(sizeof(oh) + len),
				      .error = error, .unique = unique };
	struct iovec iov[2] = { { &oh, sizeof(oh) }, { (void *)arg, len } };

	if (writev(fd, iov, len ? 2 : 1) < 0)
		_exit(1);
}

static void fuse_attr_of(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == 1 ? S_IFDIR | 0755 : S_IFREG | 0444;
	a->nlink = 1;
	a->size = node == 1 ? 0 : 4096;
	a->blksize = 4096;
}

/* open_delay_ms 0: an open is never answered; else answered (ENOSYS)
 * that long after it came. */
static void fuse_serve(int fd, int opened, int open_delay_ms)
{
	static uint8_t buf[1 << 17];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct fuse_in_header *ih = (void *)buf;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(*ih))
			_exit(0);
		if (ih->opcode == FUSE_INIT) {
			struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
				.minor = FUSE_KERNEL_MINOR_VERSION,
				.max_write = 4096, .time_gran = 1 };

			fuse_reply(fd, ih->unique, 0, &o, sizeof(o));
		} else if (ih->opcode == FUSE_LOOKUP && ih->nodeid == 1 &&
			   !strcmp((char *)(ih + 1), "f")) {
			struct fuse_entry_out o = { .nodeid = 2, .entry_valid = 60,
						    .attr_valid = 60 };

			fuse_attr_of(2, &o.attr);
			fuse_reply(fd, ih->unique, 0, &o, sizeof(o));
		} else if (ih->opcode == FUSE_GETATTR) {
			struct fuse_attr_out o = { .attr_valid = 60 };

			fuse_attr_of(ih->nodeid, &o.attr);
			fuse_reply(fd, ih->unique, 0, &o, sizeof(o));
		} else if (ih->opcode == FUSE_OPEN) {
			/* The test learns it came; never answered, or late. */
			if (write(opened, "o", 1) != 1)
				_exit(1);
			if (open_delay_ms) {
				usleep((useconds_t)open_delay_ms * 1000);
				fuse_reply(fd, ih->unique, -ENOSYS, NULL, 0);
			}
		} else if (ih->opcode == FUSE_LOOKUP) {
			fuse_reply(fd, ih->unique, -ENOENT, NULL, 0);
		} else if (ih->opcode != FUSE_INTERRUPT && ih->opcode != FUSE_FORGET &&
			   ih->opcode != FUSE_BATCH_FORGET) {
			fuse_reply(fd, ih->unique, -ENOSYS, NULL, 0);
		}
	}
}

/* The start of a /proc file into buf, NUL-terminated; its length, or -1. */
static ssize_t read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? n : -1;
}

/* A number after "\nKEY" in a /proc status file; -1 if none. */
static long status_field(const char *path, const char *key)
{
	char buf[4096];
	const char *t = read_proc(path, buf, sizeof(buf)) < 0 ? NULL : strstr(buf, key);

	return t ? atol(t + strlen(key)) : -1;
}

static int own_threads(void)
{
	return (int)status_field("/proc/self/status", "\nThreads:");
}

/* Our descendants named prec-bid (the spawner and its workers): how many
 * are in state st (0: any), and the most resident memory of one (KiB) in
 * *max_kib. */
static int bid_procs(char st, long *max_kib)
{
	enum { MAXP = 65536 };
	static int ppid_of[MAXP];
	static bool bid[MAXP];
	static char state[MAXP];
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	CHECK(d);
	memset(ppid_of, 0, sizeof(ppid_of));
	memset(bid, 0, sizeof(bid));
	while ((e = readdir(d))) {
		char path[64], buf[512], *rp;
		int pid = atoi(e->d_name);

		if (pid <= 0 || pid >= MAXP)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_proc(path, buf, sizeof(buf)) < 0)
			continue;
		rp = strrchr(buf, ')');
		if (!rp || sscanf(rp + 2, "%c %d", &state[pid], &ppid_of[pid]) != 2)
			continue;
		bid[pid] = strstr(buf, " (prec-bid) ") != NULL;
	}
	closedir(d);
	*max_kib = 0;
	for (int pid = 1; pid < MAXP; pid++) {
		int up = pid, hops = 0;
		char path[64];
		long kib;

		if (!bid[pid] || (st && state[pid] != st))
			continue;
		while (up > 1 && up < MAXP && up != getpid() && hops++ < 8)
			up = ppid_of[up];
		if (up != getpid())
			continue;
		n++;
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		kib = status_field(path, "\nVmRSS:");
		if (kib > *max_kib)
			*max_kib = kib;
	}
	return n;
}

/* Nothing waiting on fd now. */
static bool quiet(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	return poll(&pf, 1, 0) == 0;
}

/* A process that asked for the hung file's build-id exits, and is reaped,
 * within 5 s of its resolve() while the server still hangs. */
static bool exits_while_hung(const char *file)
{
	pid_t p = fork(), got = 0;
	int st;

	if (p == 0) {
		struct prec_buildid_req r = req_of(file);

		prec_buildid_workers__resolve_within(&r, 1, 1500);
		_exit(r.ret == -ETIMEDOUT ? 0 : 1);
	}
	for (int i = 0; i < 100 && p > 0 && !got; i++) {
		usleep(50 * 1000);
		got = waitpid(p, &st, WNOHANG);
	}
	if (p > 0 && got != p) {
		fprintf(stderr, "a process whose build-id read hangs did not exit: pid %d\n", (int)p);
		kill(p, SIGKILL);
		return false;
	}
	return p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A FUSE mount at DIR/NAME whose file "f" answers its open after
 * open_delay_ms (0: never), served by a child (*server); *opened's read
 * end gets a byte per open that came. Returns false (a note printed)
 * where this machine has no FUSE. */
static bool fuse_mount(const char *dir, const char *name, int open_delay_ms, char *mnt,
		       size_t size, pid_t *server, int *opened)
{
	char opts[128];
	int fd, p[2];

	snprintf(mnt, size, "%s/%s", dir, name);
	CHECK(mkdir(mnt, 0700) == 0);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "no /dev/fuse: hung file system check skipped\n");
		rmdir(mnt);
		return false;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("prectest", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		fprintf(stderr, "mount fuse: %s: hung file system check skipped\n",
			strerror(errno));
		close(fd);
		rmdir(mnt);
		return false;
	}
	CHECK(pipe(p) == 0);
	*server = fork();
	CHECK(*server >= 0);
	if (!*server) {
		close(p[0]);
		fuse_serve(fd, p[1], open_delay_ms);
		_exit(0);
	}
	close(fd);
	close(p[1]);
	*opened = p[0];
	return true;
}

static void fuse_unmount(const char *mnt, pid_t server, int opened)
{
	int st;

	kill(server, SIGKILL);
	CHECK_EQ(waitpid(server, &st, 0), server);
	CHECK(umount2(mnt, MNT_DETACH) == 0);
	usleep(200 * 1000);
	close(opened);
	rmdir(mnt);
}

/* A FUSE file (DIR/NAME/f, its open answered after open_delay_ms, 0:
 * never) and two copies of true after it (DIR/NAME1, DIR/NAME2), as three
 * requests. */
struct fs_case {
	char mnt[512], file[600], good[2][600];
	struct prec_buildid_req r[3];
	int opened;
	pid_t server;
};

static bool fs_case_start(struct fs_case *fc, const char *dir, const char *name,
			  int open_delay_ms)
{
	if (!fuse_mount(dir, name, open_delay_ms, fc->mnt, sizeof(fc->mnt), &fc->server,
			&fc->opened))
		return false;
	snprintf(fc->file, sizeof(fc->file), "%s/f", fc->mnt);
	fc->r[0] = req_of(fc->file);
	for (int i = 0; i < 2; i++) {
		snprintf(fc->good[i], sizeof(fc->good[i]), "%s/%s%d", dir, name, i + 1);
		copy_file("/bin/true", fc->good[i]);
		fc->r[1 + i] = req_of(fc->good[i]);
	}
	return true;
}

/* A mapped file on a file system that never answers its open: resolve()
 * still returns, with -ETIMEDOUT for it and the ids of the files after it
 * (read by another worker), within the stall limit plus slack. */
static void check_hung_fs(const char *dir)
{
	struct fs_case fc;
	struct prec_buildid_req *r = fc.r;
	uint64_t t, took;
	char c;

	struct prec_buildid_req again;
	long kib;

	if (!fs_case_start(&fc, dir, "fuse", 0))
		return;
	t = now_ms();
	prec_buildid_workers__resolve(r, 3);
	took = now_ms() - t;
	fprintf(stderr, "resolve with a hung file: %llu ms\n", (unsigned long long)took);
	CHECK(read(fc.opened, &c, 1) == 1); /* the open did reach the server */
	CHECK_EQ(r[0].ret, -ETIMEDOUT);
	CHECK_EQ(r[1].ret, 20);
	CHECK_EQ(r[2].ret, 20);
	CHECK(took >= 900 && took < 4000);
	CHECK(prec_buildid__unread(r[0].ret));
	/* The stuck read is a child's, not a thread of ours: a process with
	 * a thread in that wait is never reaped (the recorder's exit hung
	 * until the server answered). */
	CHECK_EQ(own_threads(), 1);
	/* (a forked child starts a pool of its own: it reads the file again) */
	CHECK(exits_while_hung(fc.file));
	CHECK(read(fc.opened, &c, 1) == 1);
	/* While a worker is in it, its device's files get -ETIMEDOUT at
	 * once: no new worker, no open, no 1 s stall. */
	again = req_of(fc.file);
	t = now_ms();
	prec_buildid_workers__resolve(&again, 1);
	CHECK_EQ(again.ret, -ETIMEDOUT);
	CHECK(now_ms() - t < 500);
	CHECK(quiet(fc.opened));
	/* ours (exits_while_hung's went to init with its spawner) */
	CHECK_EQ(bid_procs('D', &kib), 1);
	/* The server goes: the stuck workers' opens fail, they die, and the
	 * spawner reaps them (within its REAP_MS): no zombie is left. */
	fuse_unmount(fc.mnt, fc.server, fc.opened);
	usleep(1500 * 1000);
	CHECK_EQ(bid_procs('Z', &kib), 0);
	CHECK_EQ(bid_procs('D', &kib), 0);
}

/* A worker started while this process holds a big allocation maps none of
 * it (the spawner, forked small, forks it); at most STUCK_MAX (8) workers
 * are ever left in hung reads, each hung file system's files answered at
 * once after. */
static void check_workers_small(const char *dir)
{
	enum { BIG = 256 << 20, MOUNTS = 9 };
	struct fs_case fc[MOUNTS];
	struct prec_buildid_req r;
	char good[512], name[16];
	unsigned char *big = malloc(BIG);
	long kib;
	int n = 0;

	CHECK(big);
	memset(big, 1, BIG);
	for (int i = 0; i < MOUNTS; i++) {
		snprintf(name, sizeof(name), "hung%d", i);
		if (!fs_case_start(&fc[i], dir, name, 0))
			break;
		n++;
		/* a 200 ms call: its worker dropped in the open, left */
		r = req_of(fc[i].file);
		prec_buildid_workers__resolve_within(&r, 1, 200);
		CHECK_EQ(r.ret, i < 8 ? -ETIMEDOUT : -EDEADLK);
	}
	if (!n) { /* no FUSE here (said): no worker to leave in a hung read */
		free(big);
		return;
	}
	if (n == MOUNTS) {
		CHECK_EQ(bid_procs('D', &kib), 8);
		/* a file elsewhere: no worker to be had either */
		snprintf(good, sizeof(good), "%s/hung0%s", dir, "1");
		r = req_of(good);
		CHECK_EQ(prec_buildid_workers__resolve(&r, 1), -EDEADLK);
		CHECK_EQ(r.ret, -EDEADLK);
	}
	for (int i = 0; i < n; i++)
		fuse_unmount(fc[i].mnt, fc[i].server, fc[i].opened);
	usleep(1500 * 1000);
	/* the stuck ones seen dead: workers again, from the spawner */
	snprintf(good, sizeof(good), "%s/hung01", dir);
	r = req_of(good);
	CHECK_EQ(prec_buildid_workers__resolve(&r, 1), 0);
	CHECK_EQ(r.ret, 20);
	CHECK(bid_procs(0, &kib) >= 2);
	fprintf(stderr, "largest prec-bid process beside %d MiB of ours: %ld KiB resident\n",
		BIG >> 20, kib);
	CHECK(kib < 64 * 1024);
	CHECK_EQ(bid_procs('Z', &kib), 0);
	free(big);
}

/* A file slow, not hung (its open answered after 1.5 s): the files after
 * it go to another worker at the 1 s stall, the slow one's answer still
 * counts, and the next call's files are answered as theirs (the slow
 * worker, which still held the files given back, takes none of them). */
static void check_slow_fs(const char *dir)
{
	struct fs_case fc;
	struct prec_buildid_req *r = fc.r, again[2];

	if (!fs_case_start(&fc, dir, "slow", 1500))
		return;
	prec_buildid_workers__resolve(r, 3);
	CHECK_EQ(r[0].ret, -ENOSYS);
	CHECK_EQ(r[1].ret, 20);
	CHECK_EQ(r[2].ret, 20);
	usleep(300 * 1000); /* any worker left has read what it held */
	again[0] = req_of(fc.good[1]);
	again[1] = req_of(fc.good[0]);
	prec_buildid_workers__resolve(again, 2);
	CHECK_EQ(again[0].ret, 20);
	CHECK_EQ(again[1].ret, 20);
	fuse_unmount(fc.mnt, fc.server, fc.opened);
}

/* The manifest keeps the count of files that got no id. */
static void check_manifest_count(void)
{
	struct prec_manifest *m = prec_manifest__new(), *back = NULL;
	struct prec_manifest_buildid b = { .size = 1, .pid = -1, .path = "/x" };
	size_t len;
	void *buf;

	CHECK(m);
	test_manifest_add_event(m, 1);
	CHECK(prec_manifest__add_buildid(m, &b) == 0);
	m->buildids_unread = 7;
	CHECK(prec_manifest__encode(m, &buf, &len) == 0);
	CHECK(prec_manifest__decode(&back, buf, len, NULL) == 0);
	CHECK_EQ(back->buildids_unread, 7);
	CHECK_EQ(back->nr_buildids, 1);
	prec_manifest__delete(back);
	prec_manifest__delete(m);
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
	check_replaced(dir);
	check_leased(dir);
	check_handmade(dir);
	check_truncated_real(dir);
	check_resolve(dir);
	check_hung_fs(dir);
	check_slow_fs(dir);
	check_workers_small(dir);
	check_manifest_count();
	test_rmdir(dir);
	free(dir);
	return 0;
}
