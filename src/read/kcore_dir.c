// SPDX-License-Identifier: MIT
// The copy of a --kcore recording's kcore_dir into a merged perf.data's
// directory, where perf report/script look for it (perf.data/kcore_dir).
#include "read/kcore_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

#define CHUNK (1u << 20)

static const char *const names[] = { "kallsyms", "modules", "kcore" };

/* copy_file_range where the file systems allow it, else read and write;
 * the bytes copied in *n. */
static int copy_fd(int in, int out, uint64_t *n)
{
	char *buf = NULL;
	ssize_t r;
	int err = 0;

	*n = 0;
	while ((r = copy_file_range(in, NULL, out, NULL, CHUNK, 0)) > 0)
		*n += (uint64_t)r;
	if (r == 0)
		return 0;
	if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
		return -errno;
	buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	while (!err && (r = read(in, buf, CHUNK)) != 0) {
		if (r < 0) {
			err = errno == EINTR ? 0 : -errno;
			continue;
		}
		err = prec_file__write_all(out, buf, (size_t)r);
		*n += (uint64_t)r;
	}
	free(buf);
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
