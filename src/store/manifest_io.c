// SPDX-License-Identifier: MIT
// The manifest file: atomic replace (temp file, fsync, rename, fsync dir) and
// a bounded whole-file read.
#include "store/store.h"
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST_TMP_NAME "manifest.tmp"

/* fsync the directory so the rename itself survives a crash. */
static int sync_dir(int dirfd)
{
	int fd = dirfd, err = 0;

	if (dirfd == AT_FDCWD) {
		fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (fsync(fd) < 0)
		err = -errno;
	if (fd != dirfd)
		close(fd);
	return err;
}

int prec_manifest__write(const struct prec_manifest *m, int dirfd)
{
	void *buf;
	size_t len;
	int fd, err;

	err = prec_manifest__encode(m, &buf, &len);
	if (err)
		return err;
	/* Never a file every reader refuses: the old manifest stays. */
	if (len > PREC_MANIFEST_MAX_SIZE) {
		err = -EFBIG;
		goto free_buf;
	}
	/* Whatever sits at the temp name (a leftover, or a planted symlink)
	 * is removed, then the file is created new: never written through. */
	if (unlinkat(dirfd, MANIFEST_TMP_NAME, 0) < 0 && errno != ENOENT) {
		err = -errno;
		goto free_buf;
	}
	fd = openat(dirfd, MANIFEST_TMP_NAME,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto free_buf;
	}
	err = prec_file__write_all(fd, buf, len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err)
		goto unlink_tmp;
	if (renameat(dirfd, MANIFEST_TMP_NAME, dirfd, PREC_MANIFEST_NAME) < 0) {
		err = -errno;
		goto unlink_tmp;
	}
	free(buf);
	return sync_dir(dirfd);

unlink_tmp:
	unlinkat(dirfd, MANIFEST_TMP_NAME, 0);
free_buf:
	free(buf);
	return err;
}

static int read_all(int fd, uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EBADMSG; /* shrank under us: a truncated file */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_file(int fd, void **buf, size_t *len, const char **why)
{
	struct stat st;
	uint8_t *p;
	int err;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > PREC_MANIFEST_MAX_SIZE) {
		*why = "larger than 256 MiB: not a prec manifest";
		return -EFBIG;
	}
	*len = (size_t)st.st_size;
	p = malloc(*len ? *len : 1);
	if (!p)
		return -ENOMEM;
	err = read_all(fd, p, *len);
	if (err) {
		if (err == -EBADMSG)
			*why = "truncated";
		free(p);
		return err;
	}
	*buf = p;
	return 0;
}

/* A --switch-output recording's directory: epoch.NNNNNN directories, which
 * are the recordings, and no manifest of its own. */
static bool holds_epochs(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool found = false;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, "epoch.", 6) &&
			(e->d_type == DT_DIR || e->d_type == DT_UNKNOWN);
	closedir(d);
	return found;
}

int prec_manifest__read(struct prec_manifest **out, int dirfd,
			const char **why)
{
	const char *reason = NULL;
	void *buf = NULL;
	size_t len = 0;
	int fd, err;

	*out = NULL;
	/* Never a FIFO (an open that waits forever), a device or a symlink. */
	fd = prec_file__open_regular(dirfd, PREC_MANIFEST_NAME, &reason);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	err = read_file(fd, &buf, &len, &reason);
	close(fd);
	if (!err)
		err = prec_manifest__decode(out, buf, len, &reason);
	free(buf);
out:
	if (err == -ENOENT && holds_epochs(dirfd))
		reason = "no manifest: the directory of a --switch-output recording, whose epochs (epoch.NNNNNN in it) are each a recording";
	/* Errors that are an errno and carry no reason of ours get its text;
	 * strerrordesc_np() returns a static string, safe to hand out. */
	if (err && !reason)
		reason = strerrordesc_np(-err);
	if (why)
		*why = reason;
	return err;
}
