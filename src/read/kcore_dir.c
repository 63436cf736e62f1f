// SPDX-License-Identifier: MIT
// The copy of a --kcore recording's kcore_dir into a merged perf.data's
// directory, where perf report/script look for it (perf.data/kcore_dir).
#include "read/kcore_dir.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/file.h"

#define CHUNK (1u << 20)

static const char *const names[] = { "kallsyms", "modules", "kcore" };

/* in's bytes at [off, end) to the same offsets of out: copy_file_range
 * where the file systems allow it, else pread and pwrite through *buf
 * (allocated on first use). Returns 0, 1 when in ends before end (*at:
 * where), or -errno. */
static int copy_range(int in, int out, uint64_t off, uint64_t end, char **buf,
		      uint64_t *at)
{
	bool plain = *buf != NULL;

	while (off < end) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		loff_t io = (loff_t)off, oo = (loff_t)off;
		ssize_t r = -1;

		if (!plain) {
			r = copy_file_range(in, &io, out, &oo, want, 0);
			if (r < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
				      errno == EOPNOTSUPP))
				plain = true;
		}
		if (plain) {
			struct iovec iov;

			if (!*buf && !(*buf = malloc(CHUNK)))
				return -ENOMEM;
			iov = (struct iovec){ *buf, want };
			r = prec_file__preadv_full(in, &iov, 1, off);
			if (r > 0 && prec_file__pwrite_all(out, *buf, (size_t)r, off))
				return -errno;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0) {
			*at = off;
			return 1;
		}
		off += (uint64_t)r;
	}
	return 0;
}

/* in copied to out, its holes left holes (SEEK_DATA / SEEK_HOLE): a file
 * of a recording someone else wrote may be a terabyte of holes on a few
 * blocks of disk, which a plain copy would write out whole. *n: the copy's
 * size, where in ended if it shrank meanwhile, else its size once copied. */
static int copy_fd(int in, int out, uint64_t *n)
{
	uint64_t size, off = 0, at = 0;
	char *buf = NULL;
	struct stat st;
	int err = 0;

	*n = 0;
	if (fstat(in, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	while (!err && off < size) {
		off_t data = lseek(in, (off_t)off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end */
		hole = data < 0 ? -1 : lseek(in, data, SEEK_HOLE);
		if (hole < 0) {
			err = -errno;
			break;
		}
		if ((uint64_t)hole > size)
			hole = (off_t)size;
		if (hole <= data)
			break; /* shrunk meanwhile: the fstat below says so */
		err = copy_range(in, out, (uint64_t)data, (uint64_t)hole, &buf, &at);
		off = (uint64_t)hole;
	}
	free(buf);
	if (err == 1) {
		*n = at;
		return 0;
	}
	if (!err && ftruncate(out, (off_t)size) < 0)
		err = -errno;
	if (!err && fstat(in, &st) < 0)
		err = -errno;
	*n = (uint64_t)st.st_size;
	return err;
}

/* want: the size name must have (UINT64_MAX: any), when opened and once
 * copied; else -EBADMSG with the size in *got. */
static int copy_one(int kfrom, int kto, const char *name, uint64_t want, uint64_t *got)
{
	const char *why = NULL;
	int in = prec_file__open_regular(kfrom, name, &why), out, err;
	struct stat st;
	uint64_t n = 0;

	if (in < 0)
		return in;
	if (fstat(in, &st) < 0) {
		err = -errno;
		close(in);
		return err;
	}
	if (want != UINT64_MAX && (uint64_t)st.st_size != want) {
		*got = (uint64_t)st.st_size;
		close(in);
		return -EBADMSG;
	}
	out = openat(kto, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	err = copy_fd(in, out, &n);
	if (close(out) && !err)
		err = -errno;
	close(in);
	/* it changed while copied */
	if (!err && want != UINT64_MAX && n != want) {
		*got = n;
		err = -EBADMSG;
	}
	return err;
}

int prec_kcore_dir__copy(int from, int to, uint64_t kcore_bytes, const char **what,
			 uint64_t *got)
{
	int kfrom, kto, err = 0;

	*what = NULL;
	kfrom = openat(from, PREC_KCORE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (kfrom < 0)
		return -errno;
	if (mkdirat(to, PREC_KCORE_DIR, 0700) ||
	    (kto = openat(to, PREC_KCORE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		err = -errno;
		close(kfrom);
		return err;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !err; i++) {
		*what = names[i];
		err = copy_one(kfrom, kto, names[i],
			       !strcmp(names[i], "kcore") ? kcore_bytes : UINT64_MAX, got);
	}
	close(kto);
	close(kfrom);
	return err;
}

int prec_kcore_dir__check(int from, uint64_t kcore_bytes, uint64_t *got)
{
	int kfrom = openat(from, PREC_KCORE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int err = 0;

	if (kfrom < 0)
		return -errno;
	if (fstatat(kfrom, "kcore", &st, AT_SYMLINK_NOFOLLOW) < 0)
		err = -errno;
	else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size != kcore_bytes) {
		*got = (uint64_t)st.st_size;
		err = -EBADMSG;
	}
	close(kfrom);
	return err;
}
