// SPDX-License-Identifier: MIT
// Build-ids: the NT_GNU_BUILD_ID note of a mapped ELF file (read only while
// its path still names the mapped inode, by pread into bounded buffers;
// buildid_workers.c reads many under a deadline), of the running kernel
// (/sys/kernel/notes) and of modules. Every input is untrusted.

#include "util/buildid.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/file.h"
#include "util/log.h"

#define NT_GNU_BUILD_ID 3
#define PT_NOTE_TYPE 4
#define SHT_NOTE_TYPE 7
#define BUILDID_MAX 20
/* One note block (a /sys notes file, a PT_NOTE segment, an SHT_NOTE
 * section) is read up to this many bytes: a build-id note sits in a block
 * of a few hundred bytes; a note reaching past the cap is not one. */
#define NOTES_MAX (64u * 1024u)
/* A program or section header table bigger than this is not read. */
#define HDRS_MAX (64u * 1024u)
/* Note blocks read per file: bounds the reads a hostile table can ask for. */
#define NOTE_BLOCKS_MAX 16

/* ---- note streams ---- */

struct order {
	bool msb;              /* ELFDATA2MSB */
};

static uint64_t get_n(struct order o, const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[o.msb ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

static uint32_t get32(struct order o, const uint8_t *p)
{
	return (uint32_t)get_n(o, p, 4);
}

static struct order native_order(void)
{
	const uint16_t one = 1;

	return (struct order){ .msb = *(const uint8_t *)&one == 0 };
}

/* One note's verdict: length, -ENOENT (not a GNU build-id) or -EINVAL. */
static int take_note(uint32_t type, const void *name, size_t namesz,
		     const void *desc, size_t descsz, uint8_t id[20])
{
	if (type != NT_GNU_BUILD_ID || namesz != 4 || memcmp(name, "GNU", 4))
		return -ENOENT;
	if (descsz < 1 || descsz > BUILDID_MAX)
		return -EINVAL;
	memcpy(id, desc, descsz);
	return (int)descsz;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Notes (u32 namesz, descsz, type; name and desc each padded to align, 4
 * or 8, from the block start) as PT_NOTE/SHT_NOTE blocks and the /sys
 * notes files hold them. The first GNU build-id's length, -EINVAL (one
 * longer than 20 bytes) or -ENODATA. A note reaching past len ends the
 * walk: len may be a cut of a longer block. */
static int scan_notes(const uint8_t *buf, size_t len, size_t align,
		      struct order o, uint8_t id[20])
{
	size_t off = 0;

	while (len - off >= 12) {
		size_t namesz = get32(o, buf + off), descsz = get32(o, buf + off + 4);
		uint32_t type = get32(o, buf + off + 8);
		size_t name = off + 12, desc, next;
		int ret;

		if (namesz > len - name)
			return -ENODATA;
		desc = align_up(name + namesz, align);
		if (desc > len || descsz > len - desc)
			return -ENODATA;
		ret = take_note(type, buf + name, namesz, buf + desc, descsz, id);
		if (ret != -ENOENT)
			return ret;
		next = align_up(desc + descsz, align);
		if (next > len)
			return -ENODATA;
		off = next;
	}
	return -ENODATA;
}

/* ---- ELF files, by pread ---- */

struct elf {
	int fd;
	struct order o;
	bool is64;
	uint64_t phoff, shoff;
	uint32_t phentsize, phnum, shentsize, shnum;
	int blocks;            /* note blocks read so far */
	uint8_t *tab;          /* HDRS_MAX bytes */
	uint8_t *notes;        /* NOTES_MAX bytes */
};

/* Up to len bytes at off; fewer only at end of file. Never through a
 * mapping (see prec_file__preadv_full()). */
static ssize_t pread_some(int fd, void *buf, size_t len, uint64_t off)
{
	struct iovec iov = { buf, len };

	return prec_file__preadv_full(fd, &iov, 1, off);
}

/* The ELF header's fields from its first n bytes (64 at most). */
static int parse_header(struct elf *e, const uint8_t *h, size_t n)
{
	if (n < 52 || memcmp(h, "\177ELF", 4) || (h[4] != 1 && h[4] != 2) ||
	    (h[5] != 1 && h[5] != 2))
		return -ENOEXEC;
	e->is64 = h[4] == 2;
	e->o.msb = h[5] == 2;
	if (e->is64) {
		if (n < 64)
			return -ENOEXEC;
		e->phoff = get_n(e->o, h + 32, 8);
		e->shoff = get_n(e->o, h + 40, 8);
		e->phentsize = (uint32_t)get_n(e->o, h + 54, 2);
		e->phnum = (uint32_t)get_n(e->o, h + 56, 2);
		e->shentsize = (uint32_t)get_n(e->o, h + 58, 2);
		e->shnum = (uint32_t)get_n(e->o, h + 60, 2);
	} else {
		e->phoff = get32(e->o, h + 28);
		e->shoff = get32(e->o, h + 32);
		e->phentsize = (uint32_t)get_n(e->o, h + 42, 2);
		e->phnum = (uint32_t)get_n(e->o, h + 44, 2);
		e->shentsize = (uint32_t)get_n(e->o, h + 46, 2);
		e->shnum = (uint32_t)get_n(e->o, h + 48, 2);
	}
	return 0;
}

static int elf_header(struct elf *e)
{
	uint8_t h[64];
	ssize_t n = pread_some(e->fd, h, sizeof(h), 0);

	if (n < 0)
		return (int)n;
	return parse_header(e, h, (size_t)n);
}

/* One table entry's note block: type, file offset, size, alignment. */
struct block {
	uint32_t type;
	uint64_t off, size, align;
};

static void get_block(const struct elf *e, const uint8_t *p, bool sect,
		      struct block *b)
{
	struct order o = e->o;

	if (sect && e->is64) {
		b->type = get32(o, p + 4);
		b->off = get_n(o, p + 24, 8);
		b->size = get_n(o, p + 32, 8);
		b->align = get_n(o, p + 48, 8);
	} else if (sect) {
		b->type = get32(o, p + 4);
		b->off = get32(o, p + 16);
		b->size = get32(o, p + 20);
		b->align = get32(o, p + 32);
	} else if (e->is64) {
		b->type = get32(o, p);
		b->off = get_n(o, p + 8, 8);
		b->size = get_n(o, p + 32, 8);
		b->align = get_n(o, p + 48, 8);
	} else {
		b->type = get32(o, p);
		b->off = get32(o, p + 4);
		b->size = get32(o, p + 16);
		b->align = get32(o, p + 28);
	}
}

static int scan_block(struct elf *e, const struct block *b, uint8_t id[20])
{
	size_t len = b->size < NOTES_MAX ? (size_t)b->size : NOTES_MAX;
	ssize_t n;

	if (++e->blocks > NOTE_BLOCKS_MAX)
		return -ENODATA;
	n = pread_some(e->fd, e->notes, len, b->off);
	if (n < 0)
		return (int)n;
	/* Past EOF (truncated, or lying headers): only what is there. */
	return scan_notes(e->notes, (size_t)n, b->align == 8 ? 8 : 4, e->o, id);
}

/* The notes of the program header table (sect false: PT_NOTE segments) or
 * of the section header table (SHT_NOTE sections). */
static int scan_table(struct elf *e, bool sect, uint8_t id[20])
{
	uint64_t off = sect ? e->shoff : e->phoff;
	uint32_t num = sect ? e->shnum : e->phnum;
	uint32_t ent = sect ? e->shentsize : e->phentsize;
	uint32_t need = sect ? (e->is64 ? 64 : 40) : (e->is64 ? 56 : 32);
	size_t len = (size_t)num * ent;
	ssize_t n;

	/* num 0 with a table: extended numbering, never a build-id's home. */
	if (!off || !num || ent < need || len > HDRS_MAX)
		return -ENODATA;
	n = pread_some(e->fd, e->tab, len, off);
	if (n < 0)
		return (int)n;
	for (size_t i = 0; i + ent <= (size_t)n; i += ent) {
		struct block b;
		int ret;

		get_block(e, e->tab + i, sect, &b);
		if (b.type != (sect ? SHT_NOTE_TYPE : PT_NOTE_TYPE) || b.size < 12)
			continue;
		ret = scan_block(e, &b, id);
		if (ret != -ENODATA)
			return ret;
	}
	return -ENODATA;
}

int prec_buildid__read_fd(int fd, uint8_t id[20])
{
	struct elf e = { .fd = fd };
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	ret = elf_header(&e);
	if (ret)
		return ret;
	e.tab = malloc(HDRS_MAX + NOTES_MAX);
	if (!e.tab)
		return -ENOMEM;
	e.notes = e.tab + HDRS_MAX;
	/* Segments first: their table sits next to the ELF header. Sections
	 * for what has no PT_NOTE (relocatable objects, modules). */
	ret = scan_table(&e, false, id);
	if (ret == -ENODATA)
		ret = scan_table(&e, true, id);
	free(e.tab);
	return ret;
}

/* ---- an ELF image in memory ---- */

/* The notes of one table of the image (as scan_table), every offset and
 * size checked against len. */
static int scan_image_table(const struct elf *e, const uint8_t *img, size_t len,
			    bool sect, uint8_t id[20])
{
	uint64_t off = sect ? e->shoff : e->phoff;
	uint32_t num = sect ? e->shnum : e->phnum;
	uint32_t ent = sect ? e->shentsize : e->phentsize;
	uint32_t need = sect ? (e->is64 ? 64 : 40) : (e->is64 ? 56 : 32);

	if (!off || !num || ent < need || off > len || (uint64_t)num * ent > len - off)
		return -ENODATA;
	for (uint32_t i = 0; i < num && i < NOTE_BLOCKS_MAX; i++) {
		struct block b;
		int ret;

		get_block(e, img + off + (size_t)i * ent, sect, &b);
		if (b.type != (sect ? SHT_NOTE_TYPE : PT_NOTE_TYPE) || b.size < 12 ||
		    b.off >= len)
			continue;
		ret = scan_notes(img + b.off, b.size < len - b.off ? (size_t)b.size : len - b.off,
				 b.align == 8 ? 8 : 4, e->o, id);
		if (ret != -ENODATA)
			return ret;
	}
	return -ENODATA;
}

int prec_buildid__read_image(const uint8_t *img, size_t len, uint8_t id[20])
{
	struct elf e = { .fd = -1 };
	int ret = parse_header(&e, img, len < 64 ? len : 64);

	if (ret)
		return ret;
	ret = scan_image_table(&e, img, len, false, id);
	if (ret == -ENODATA)
		ret = scan_image_table(&e, img, len, true, id);
	return ret;
}

/* ---- mapped files: the path must still name the mapped inode ---- */

static bool same_file(const struct stat *st, const struct prec_buildid_req *r)
{
	return S_ISREG(st->st_mode) && major(st->st_dev) == r->maj &&
	       minor(st->st_dev) == r->min && st->st_ino == r->ino;
}

/* An fd for reading path if it is r's file, else -ESTALE (another file,
 * a symlink, a FIFO, a device: whatever the path names now) or -errno.
 * The path is looked up with O_PATH, which opens nothing (no driver's
 * open, no FIFO, no tty), and only the checked inode is opened for
 * reading, through /proc/self/fd: a symlink anywhere in the path can
 * point it elsewhere, never at something else than r's file. */
static int open_checked(const char *path, const struct prec_buildid_req *r,
			int follow)
{
	struct stat st;
	int pfd, ret;

	pfd = open(path, O_PATH | (follow ? 0 : O_NOFOLLOW) | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (!same_file(&st, r)) {
		ret = -ESTALE;
		goto out_close;
	}
	ret = prec_file__reopen(pfd, &st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
out_close:
	close(pfd);
	return ret;
}

/* follow: path is a /proc magic link (map_files), which names the mapped
 * inode itself; it is checked as any other. */
static int read_checked(const char *path, const struct prec_buildid_req *r,
			int follow, uint8_t id[20])
{
	int fd = open_checked(path, r, follow), ret;

	if (fd < 0)
		return fd;
	ret = prec_buildid__read_fd(fd, id);
	close(fd);
	return ret;
}

int prec_buildid__read_mapped(const struct prec_buildid_req *r, uint8_t id[20])
{
	char alt[PATH_MAX + 32];
	int ret;

	if (!r->path || r->path[0] != '/')
		return -EINVAL;
	ret = read_checked(r->path, r, 0, id);
	/* Another mount namespace or chroot: the path means the file there. */
	if ((ret == -ENOENT || ret == -ESTALE) && r->pid > 0 &&
	    snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)r->pid,
		     r->path) < (int)sizeof(alt))
		ret = read_checked(alt, r, 0, id);
	/* Deleted or renamed since, still mapped (a build's temporary
	 * binary running): the mapping names the file. */
	if ((ret == -ENOENT || ret == -ESTALE) && r->pid > 0 && r->map_end) {
		int e;

		snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)r->pid, r->map_start, r->map_end);
		e = read_checked(alt, r, 1, id);
		/* The mapping gone too: the path's answer stands. */
		if (e != -ENOENT)
			ret = e;
	}
	return ret;
}

bool prec_buildid__unread(int ret)
{
	/* -ENOENT: deleted since ("... (deleted)", memfd), nothing to read
	 * and nothing misread; routine enough not to be reported. */
	return ret < 0 && ret != -ENODATA && ret != -ENOEXEC && ret != -EINVAL &&
	       ret != -ENOENT;
}

/* ---- kernel and modules ---- */

static int read_notes_file(const char *path, uint8_t id[20])
{
	size_t len = 0;
	uint8_t *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(NOTES_MAX);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	/* sysfs binary attributes may report any size: read until EOF. */
	while (len < NOTES_MAX) {
		ssize_t n = read(fd, buf + len, NOTES_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	ret = scan_notes(buf, len, 4, native_order(), id);
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

int prec_buildid__read_kernel(uint8_t id[20])
{
	return read_notes_file("/sys/kernel/notes", id);
}

int prec_buildid__read_module(const char *module, uint8_t id[20])
{
	char path[512];

	if (!module || !*module || strchr(module, '/') || strstr(module, ".."))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id",
		     module) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_notes_file(path, id);
}
