// SPDX-License-Identifier: MIT
// Whole-file reads of small text files into a reusable, growing buffer, full
// writes, and the checked open of a recording's files.
#include "util/file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

static int grow(char **buf, size_t *cap, size_t max)
{
	size_t n = *cap ? *cap * 2 : 4096;
	char *nb;

	if (*cap >= max)
		return -EFBIG;
	if (n > max)
		n = max;
	nb = realloc(*buf, n);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = n;
	return 0;
}

ssize_t prec_file__read_text(const char *path, char **buf, size_t *cap,
			     size_t max)
{
	return prec_file__read_text_until(path, buf, cap, max, 0, NULL);
}

ssize_t prec_file__read_text_until(const char *path, char **buf, size_t *cap,
				   size_t max, uint64_t deadline_ns, bool *cut)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (cut)
		*cut = false;
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len + 1 >= *cap && (err = grow(buf, cap, max)) < 0)
			break;
		n = read(fd, *buf + len, *cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
		if (deadline_ns && prec_now_ns(CLOCK_MONOTONIC) > deadline_ns) {
			*cut = true;
			while (len && (*buf)[len - 1] != '\n')
				len--;
			break;
		}
	}
	close(fd);
	if (err)
		return err;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

static int refuse(const struct stat *st, const char **why)
{
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISLNK(st->st_mode)) {
		*why = "is a symbolic link";
		return -ELOOP;
	}
	*why = "not a regular file";
	return -EINVAL;
}

int prec_file__open_regular(int dirfd, const char *name, const char **why)
{
	struct stat st;
	int fd, fl, err;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	err = refuse(&st, why);
	if (err)
		return err;
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ELOOP)
			*why = "is a symbolic link";
		return err;
	}
	if (fstat(fd, &st) < 0)
		err = -errno;
	else
		err = refuse(&st, why);
	/* Regular files ignore O_NONBLOCK; cleared all the same, so the fd
	 * behaves as a plain open()'s wherever it is handed. */
	fl = err ? 0 : fcntl(fd, F_GETFL);
	if (!err && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int prec_file__write_all(int fd, const void *p, size_t n)
{
	return prec_file__pwrite_all(fd, p, n, UINT64_MAX);
}

int prec_file__pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;

	while (n) {
		ssize_t r = off == UINT64_MAX ? write(fd, c, n) : pwrite(fd, c, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		c += r;
		n -= (size_t)r;
		if (off != UINT64_MAX)
			off += (uint64_t)r;
	}
	return 0;
}

int prec_file__read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return (int)n;
}

int prec_file__reopen(int pathfd, const struct stat *st, int flags)
{
	char proc[sizeof("/proc/self/fd/") + 12];
	struct stat now;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	fd = open(proc, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

bool prec_file__on_pseudo_fs(int fd)
{
	/* Not in every linux/magic.h. */
	static const unsigned long others[] = {
		0x62656570, /* configfs */
		0x65735543, /* fusectl */
		0x6c6f6f70, /* binderfs */
	};
	static const unsigned long pseudo[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC,
		SECURITYFS_MAGIC, SELINUX_MAGIC, SMACK_MAGIC, CGROUP_SUPER_MAGIC,
		CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC,
		DEVPTS_SUPER_MAGIC, BINFMTFS_MAGIC, NSFS_MAGIC, PIPEFS_MAGIC,
		SOCKFS_MAGIC, ANON_INODE_FS_MAGIC, USBDEVICE_SUPER_MAGIC,
		OPENPROM_SUPER_MAGIC, XENFS_SUPER_MAGIC, RDTGROUP_SUPER_MAGIC,
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if ((unsigned long)sf.f_type == pseudo[i])
			return true;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if ((unsigned long)sf.f_type == others[i])
			return true;
	return false;
}

int prec_file__random_name(char *x, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[32];

	while (n) {
		size_t k = n < sizeof(r) ? n : sizeof(r);

		if (getrandom(r, k, 0) != (ssize_t)k)
			return -EAGAIN;
		for (size_t j = 0; j < k; j++)
			*x++ = abc[r[j] % (sizeof(abc) - 1)];
		n -= k;
	}
	return 0;
}

ssize_t prec_file__preadv_full(int fd, const struct iovec *iov, int cnt, uint64_t off)
{
	struct iovec left[8];
	size_t total = 0, done = 0;
	int first = 0;

	if (cnt < 0 || cnt > 8)
		return -EINVAL;
	for (int i = 0; i < cnt; i++) {
		left[i] = iov[i];
		total += iov[i].iov_len;
	}
	if (off > (uint64_t)INT64_MAX - total)
		return 0;
	while (done < total) {
		ssize_t n;

		while (!left[first].iov_len)
			first++;
		n = preadv(fd, left + first, cnt - first, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
		/* past the buffers this read filled */
		for (size_t k = (size_t)n; k;) {
			size_t t = k < left[first].iov_len ? k : left[first].iov_len;

			left[first].iov_base = (char *)left[first].iov_base + t;
			left[first].iov_len -= t;
			k -= t;
			if (!left[first].iov_len && first + 1 < cnt)
				first++;
		}
	}
	return (ssize_t)done;
}
