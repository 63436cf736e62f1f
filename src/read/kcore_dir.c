// SPDX-License-Identifier: MIT
// The copy of a --kcore recording's kcore_dir into a merged perf.data's
// directory, where perf report/script look for it (perf.data/kcore_dir).
#include "read/kcore_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

#define CHUNK (1u << 20)

static const char *const names[] = { "kallsyms", "modules", "kcore" };

/* copy_file_range where the file systems allow it, else read and write. */
static int copy_fd(int in, int out)
{
	char *buf = NULL;
	ssize_t n;
	int err = 0;

	while ((n = copy_file_range(in, NULL, out, NULL, CHUNK, 0)) > 0)
		;
	if (n == 0)
		return 0;
	if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
		return -errno;
	buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	while (!err && (n = read(in, buf, CHUNK)) != 0) {
		if (n < 0)
			err = errno == EINTR ? 0 : -errno;
		else
			err = prec_file__write_all(out, buf, (size_t)n);
	}
	free(buf);
	return err;
}

static int copy_one(int kfrom, int kto, const char *name)
{
	const char *why = NULL;
	int in = prec_file__open_regular(kfrom, name, &why), out, err;

	if (in < 0)
		return in;
	out = openat(kto, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	err = copy_fd(in, out);
	if (close(out) && !err)
		err = -errno;
	close(in);
	return err;
}

int prec_kcore_dir__copy(int from, int to, const char **what)
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
		err = copy_one(kfrom, kto, names[i]);
	}
	close(kto);
	close(kfrom);
	return err;
}
