// SPDX-License-Identifier: MIT
// A tar stream (POSIX.1-2001 ustar, with a pax 'x' header before an entry
// whose name or link target ustar cannot hold) written front to back to a
// file or a pipe: regular files copied through one buffer (a file with
// holes in GNU's pax sparse format 1.0: holes are never written out),
// symlinks, the whole kept under a bound.
#include "read/tar_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

#define BLOCK 512u
/* tar's default record: 20 blocks. Readers take any multiple of a block,
 * but GNU tar pads the end to a whole record and so do we. */
#define RECORD (20u * BLOCK)
#define COPY_BYTES (64u << 10)
/* An 11-digit octal size field: 8 GiB - 1. */
#define SIZE_MAX_USTAR 077777777777ull
#define PAX_NAME "PaxHeader"
/* A sparse entry's ustar name (GNU.sparse.name holds the real one): short
 * enough for any ustar reader, harmless where one without sparse support
 * unpacks it. */
#define SPARSE_NAME "GNUSparseFile.0/elf"
#define SPARSE_EXTENTS PREC_TAR_EXTENTS_MAX
/* Room kept for what follows an entry: a .build-id link (a pax header and
 * its records, a ustar header) and the end of the archive (two zero
 * blocks, padded to a record). */
#define TAIL_BYTES (8u * BLOCK + RECORD)

struct prec_tar_writer {
	int fd;
	uint64_t bytes;
	uint64_t limit;  /* bytes the stream may reach, UINT64_MAX: no bound */
	uint8_t *buf;  /* COPY_BYTES: file data, pax records */
};


struct ustar {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12];
	char chksum[8], typeflag, linkname[100], magic[6], version[2];
	char uname[32], gname[32], devmajor[8], devminor[8], prefix[155];
	char pad[12];
};
_Static_assert(sizeof(struct ustar) == BLOCK, "ustar header is one block");

int prec_tar_writer__new(struct prec_tar_writer **out, int fd)
{
	struct prec_tar_writer *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || !(t->buf = malloc(COPY_BYTES))) {
		free(t);
		return -ENOMEM;
	}
	t->fd = fd;
	t->limit = UINT64_MAX;
	*out = t;
	return 0;
}

void prec_tar_writer__delete(struct prec_tar_writer *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t);
}

uint64_t prec_tar_writer__bytes(const struct prec_tar_writer *t)
{
	return t->bytes;
}

void prec_tar_writer__set_limit(struct prec_tar_writer *t, uint64_t limit)
{
	t->limit = limit;
}

/* Whether an entry of data bytes (padded) after headers of up to
 * header_bytes still leaves the tail's room under the bound. */
static bool fits(const struct prec_tar_writer *t, uint64_t header_bytes, uint64_t data)
{
	uint64_t need = header_bytes + (data + BLOCK - 1) / BLOCK * BLOCK + TAIL_BYTES;

	return t->limit == UINT64_MAX || (t->bytes <= t->limit && need <= t->limit - t->bytes);
}

/* Whether the component c (len bytes, not NUL-ended) is what. */
static bool comp_is(const char *c, size_t len, const char *what)
{
	return len == strlen(what) && !memcmp(c, what, len);
}

bool prec_tar_writer__name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > PREC_TAR_NAME_MAX || name[0] == '/')
		return false;
	for (const char *c = name; ; ) {
		size_t n = strcspn(c, "/");

		if (!n || comp_is(c, n, ".") || comp_is(c, n, ".."))
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}

/* A link target read from the link's directory (depth: the components of
 * the link's own name less one) that stays inside the archive's top. */
static bool target_ok(const char *name, const char *target)
{
	long depth = 0;
	size_t len = strlen(target);

	if (!len || len > PREC_TAR_NAME_MAX || target[0] == '/')
		return false;
	for (const char *p = name; *p; p++)
		depth += *p == '/';
	for (const char *c = target; ; ) {
		size_t n = strcspn(c, "/");

		if (!n || comp_is(c, n, "."))
			return false;
		depth += comp_is(c, n, "..") ? -1 : 1;
		if (depth < 0)
			return false;
		if (!c[n])
			return true;
		c += n + 1;
	}
}

static int emit(struct prec_tar_writer *t, const void *p, size_t n)
{
	int err = prec_file__write_all(t->fd, p, n);

	if (!err)
		t->bytes += n;
	return err;
}

/* Zeros up to the next block boundary. */
static int pad(struct prec_tar_writer *t)
{
	static const uint8_t zero[BLOCK];
	size_t rest = (size_t)(t->bytes % BLOCK);

	return rest ? emit(t, zero, BLOCK - rest) : 0;
}

/* v in octal, zero-padded to w - 1 digits and a NUL; -EINVAL if it does
 * not fit. */
static int put_octal(char *f, size_t w, uint64_t v)
{
	char tmp[32];

	if (snprintf(tmp, sizeof(tmp), "%0*llo", (int)(w - 1), (unsigned long long)v) !=
	    (int)(w - 1))
		return -EINVAL;
	memcpy(f, tmp, w);
	return 0;
}

/* name into the header's name, or prefix '/' name when it splits at a
 * slash that way; false when it does not fit either way. */
static bool put_name(struct ustar *h, const char *name)
{
	size_t len = strlen(name);

	if (len <= sizeof(h->name)) {
		memcpy(h->name, name, len);
		return true;
	}
	for (size_t i = len - 1; i > 0; i--) {
		if (name[i] != '/')
			continue;
		if (len - i - 1 > sizeof(h->name))
			return false;
		if (i <= sizeof(h->prefix)) {
			memcpy(h->prefix, name, i);
			memcpy(h->name, name + i + 1, len - i - 1);
			return true;
		}
	}
	return false;
}

/* "LEN key=value\n", LEN counting the whole record, its own digits too. */
static size_t pax_record(char *dst, size_t room, const char *key, const char *value)
{
	size_t body = 1 + strlen(key) + 1 + strlen(value) + 1, len = body + 1;

	while ((size_t)snprintf(NULL, 0, "%zu", len) + body != len)
		len++;
	if (len >= room)
		return 0;
	snprintf(dst, room, "%zu %s=%s\n", len, key, value);
	return len;
}

static int write_header(struct prec_tar_writer *t, struct ustar *h)
{
	const uint8_t *b = (const uint8_t *)h;
	unsigned int sum = 0;

	memcpy(h->magic, "ustar", 6);
	memcpy(h->version, "00", 2);
	put_octal(h->uid, sizeof(h->uid), 0);
	put_octal(h->gid, sizeof(h->gid), 0);
	memset(h->chksum, ' ', sizeof(h->chksum));
	for (size_t i = 0; i < sizeof(*h); i++)
		sum += b[i];
	snprintf(h->chksum, sizeof(h->chksum), "%06o", sum);
	h->chksum[7] = ' ';
	return emit(t, h, sizeof(*h));
}

/* The header of one entry, after a pax header with its path and linkpath
 * when ustar cannot hold them, or with the extra records xrec[0, xlen)
 * (a sparse file's). */
static int header_x(struct prec_tar_writer *t, const char *name, char type,
		    uint64_t size, uint32_t mode, int64_t mtime, const char *link,
		    const char *xrec, size_t xlen)
{
	struct ustar h = { 0 };
	bool name_fits = put_name(&h, name);
	bool link_fits = !link || strlen(link) <= sizeof(h.linkname);
	uint64_t when = mtime > 0 ? (uint64_t)mtime : 0;
	int err;

	if (put_octal(h.size, sizeof(h.size), size) ||
	    put_octal(h.mode, sizeof(h.mode), mode & 07777) ||
	    put_octal(h.mtime, sizeof(h.mtime), when))
		return -EINVAL;
	if (!name_fits || !link_fits || xlen) {
		struct ustar x = { 0 };
		char *rec = (char *)t->buf;
		size_t len = 0, n;

		if (xlen >= COPY_BYTES)
			return -EINVAL;
		if (xlen)
			memcpy(rec, xrec, xlen);
		len = xlen;
		if (!name_fits) {
			n = pax_record(rec + len, COPY_BYTES - len, "path", name);
			if (!n)
				return -EINVAL;
			len += n;
			memcpy(h.name, name, sizeof(h.name));
		}
		if (!link_fits) {
			n = pax_record(rec + len, COPY_BYTES - len, "linkpath", link);
			if (!n)
				return -EINVAL;
			len += n;
		}
		memcpy(x.name, PAX_NAME, sizeof(PAX_NAME) - 1);
		put_octal(x.mode, sizeof(x.mode), 0644);
		put_octal(x.size, sizeof(x.size), len);
		put_octal(x.mtime, sizeof(x.mtime), when);
		x.typeflag = 'x';
		err = write_header(t, &x);
		if (!err)
			err = emit(t, rec, len);
		if (!err)
			err = pad(t);
		if (err)
			return err;
	}
	if (link)
		memcpy(h.linkname, link, link_fits ? strlen(link) : sizeof(h.linkname));
	h.typeflag = type;
	return write_header(t, &h);
}

static int header(struct prec_tar_writer *t, const char *name, char type,
		  uint64_t size, uint32_t mode, int64_t mtime, const char *link)
{
	return header_x(t, name, type, size, mode, mtime, link, NULL, 0);
}

/* len bytes read by rd from off, or zeros where it ended (the file
 * shrank: *short_ set). Returns 0 or -errno. */
static int copy(struct prec_tar_writer *t, prec_tar_read_fn rd, void *ctx, uint64_t off,
		uint64_t len, bool *short_)
{
	for (uint64_t end = off + len; off < end;) {
		size_t want = end - off < COPY_BYTES ? (size_t)(end - off) : COPY_BYTES;
		ssize_t n = *short_ ? 0 : rd(ctx, t->buf, want, off);
		int err;

		if (n < 0)
			return (int)n;
		if ((size_t)n > want)
			return -EIO;
		if (n == 0) {
			*short_ = true;
			memset(t->buf, 0, want);
			n = (ssize_t)want;
		}
		err = emit(t, t->buf, (size_t)n);
		if (err)
			return err;
		off += (uint64_t)n;
	}
	return 0;
}

/* src's data extents in [0, size) by SEEK_DATA / SEEK_HOLE, into x (up to
 * SPARSE_EXTENTS). Returns how many, 0 when src has no hole (or its file
 * system does not say, or it has more extents than that: written whole). */
uint32_t prec_tar_writer__extents(int src, uint64_t size, struct prec_tar_extent *x)
{
	uint32_t n = 0;
	off_t data, hole;
	struct stat st;

	/* shorter than size already: the whole copy pads and says so */
	if (fstat(src, &st) < 0 || (uint64_t)st.st_size < size)
		return 0;
	for (off_t at = 0; (uint64_t)at < size; at = hole) {
		data = lseek(src, at, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break; /* a hole up to the end */
		hole = data < 0 ? -1 : lseek(src, data, SEEK_HOLE);
		if (hole < 0 || n == SPARSE_EXTENTS)
			return 0;
		if ((uint64_t)hole > size)
			hole = (off_t)size;
		if (hole <= data)
			break;
		x[n++] = (struct prec_tar_extent){ (uint64_t)data, (uint64_t)(hole - data) };
	}
	if (n == 1 && x[0].off == 0 && x[0].len == size)
		return 0;
	/* a map's last extent ends the file, if need be an empty one */
	if (!n || x[n - 1].off + x[n - 1].len < size)
		x[n++] = (struct prec_tar_extent){ size, 0 };
	return n;
}

/* A sparse entry: GNU 1.0's pax records and, in its data, the map (its
 * count then offset and length of each extent, in decimal lines, padded
 * to a block) before the extents' bytes. */
static int add_sparse(struct prec_tar_writer *t, const char *name, prec_tar_read_fn rd,
		      void *ctx, uint64_t size, uint32_t mode, int64_t mtime,
		      const struct prec_tar_extent *x, uint32_t n, bool *short_)
{
	size_t cap = 32 + (size_t)n * 42, len, xlen = 0, k;
	char *map = malloc(cap + BLOCK), xrec[PREC_TAR_NAME_MAX + 256], num[24];
	uint64_t data = 0;
	int err;

	if (!map)
		return -ENOMEM;
	len = (size_t)snprintf(map, cap, "%" PRIu32 "\n", n);
	for (uint32_t i = 0; i < n; i++) {
		len += (size_t)snprintf(map + len, cap - len, "%" PRIu64 "\n%" PRIu64 "\n",
					x[i].off, x[i].len);
		data += x[i].len;
	}
	memset(map + len, 0, BLOCK);
	len = (len + BLOCK - 1) / BLOCK * BLOCK;
	snprintf(num, sizeof(num), "%" PRIu64, size);
	k = pax_record(xrec, sizeof(xrec), "GNU.sparse.major", "1");
	xlen += k;
	k = k ? pax_record(xrec + xlen, sizeof(xrec) - xlen, "GNU.sparse.minor", "0") : 0;
	xlen += k;
	k = k ? pax_record(xrec + xlen, sizeof(xrec) - xlen, "GNU.sparse.name", name) : 0;
	xlen += k;
	k = k ? pax_record(xrec + xlen, sizeof(xrec) - xlen, "GNU.sparse.realsize", num) : 0;
	xlen += k;
	if (!k || len + data > SIZE_MAX_USTAR)
		err = -EINVAL;
	else if (!fits(t, 3 * BLOCK + xlen, len + data))
		err = -EFBIG;
	else
		err = header_x(t, SPARSE_NAME, '0', len + data, mode, mtime, NULL, xrec, xlen);
	if (!err)
		err = emit(t, map, len);
	for (uint32_t i = 0; i < n && !err; i++)
		err = copy(t, rd, ctx, x[i].off, x[i].len, short_);
	free(map);
	return err ? err : pad(t);
}
int prec_tar_writer__add_extents(struct prec_tar_writer *t, const char *name, uint64_t size,
				 const struct prec_tar_extent *x, uint32_t n,
				 prec_tar_read_fn rd, void *ctx, uint32_t mode, int64_t mtime)
{
	bool short_ = false;
	int err;

	if (!prec_tar_writer__name_ok(name) || size > SIZE_MAX_USTAR || n > SPARSE_EXTENTS + 1)
		return -EINVAL;
	if (n)
		err = add_sparse(t, name, rd, ctx, size, mode, mtime, x, n, &short_);
	else if (!fits(t, 3 * BLOCK + strlen(name) + 32, size))
		err = -EFBIG;
	else
		err = header(t, name, '0', size, mode, mtime, NULL);
	if (!err && !n)
		err = copy(t, rd, ctx, 0, size, &short_);
	if (!err && !n)
		err = pad(t);
	return err ? err : short_;
}

static ssize_t read_fd(void *ctx, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(*(int *)ctx, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int prec_tar_writer__add_file(struct prec_tar_writer *t, const char *name,
			      int src, uint64_t size, uint32_t mode, int64_t mtime)
{
	struct prec_tar_extent *x = malloc((SPARSE_EXTENTS + 1) * sizeof(*x));
	int err;

	if (!x)
		return -ENOMEM;
	err = prec_tar_writer__add_extents(t, name, size, x, prec_tar_writer__extents(src, size, x),
					   read_fd, &src, mode, mtime);
	free(x);
	return err;
}

int prec_tar_writer__add_mem(struct prec_tar_writer *t, const char *name,
			     const void *p, size_t len, uint32_t mode, int64_t mtime)
{
	int err;

	if (!prec_tar_writer__name_ok(name) || len > SIZE_MAX_USTAR)
		return -EINVAL;
	if (!fits(t, 3 * BLOCK + strlen(name) + 32, len))
		return -EFBIG;
	err = header(t, name, '0', len, mode, mtime, NULL);
	if (!err)
		err = emit(t, p, len);
	return err ? err : pad(t);
}

int prec_tar_writer__add_symlink(struct prec_tar_writer *t, const char *name,
				 const char *target, int64_t mtime)
{
	if (!prec_tar_writer__name_ok(name) || !target_ok(name, target))
		return -EINVAL;
	return header(t, name, '2', 0, 0777, mtime, target);
}

int prec_tar_writer__finish(struct prec_tar_writer *t)
{
	static const uint8_t zero[BLOCK];
	int err = emit(t, zero, BLOCK);

	if (!err)
		err = emit(t, zero, BLOCK);
	while (!err && t->bytes % RECORD)
		err = emit(t, zero, BLOCK);
	return err;
}
