// SPDX-License-Identifier: MIT
// The segment files of a --max-disk shard: their names (the shard's name, a
// dot, the number) and the search of a directory for the oldest one left.
#include "store/shard_segments.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int prec_shard_segments__name(char *buf, size_t len, const char *name, uint32_t n)
{
	int w = snprintf(buf, len, "%s.%u", name, n);

	if (w < 0 || (size_t)w >= len || w > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* n if s is "name.n" with n a canonical decimal from 1 (no sign, no
 * leading zero: one name per number), else 0. */
static uint32_t number_of(const char *s, const char *name, size_t nlen)
{
	unsigned long long v = 0;

	if (strncmp(s, name, nlen) || s[nlen] != '.')
		return 0;
	s += nlen + 1;
	if (*s < '1' || *s > '9')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > UINT32_MAX)
			return 0;
	}
	return (uint32_t)v;
}

int prec_shard_segments__lowest(int dirfd, const char *name, uint32_t above, uint32_t *n)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t nlen = strlen(name);
	uint32_t best = 0;
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int err = -errno;

		close(fd);
		return err;
	}
	for (errno = 0; (e = readdir(d)); errno = 0) {
		uint32_t v = number_of(e->d_name, name, nlen);

		if (v > above && (!best || v < best))
			best = v;
	}
	if (errno) {
		int err = -errno;

		closedir(d);
		return err;
	}
	closedir(d);
	*n = best;
	return best ? 1 : 0;
}
