// SPDX-License-Identifier: MIT
// The segment files of a --max-disk shard: their names (the shard's name, a
// dot, the number, to the format's last) and the list of those a directory
// holds, for a reader that looks past numbers dropped.
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
	int w;

	/* 0 is the shard's own file, and what a counter past the last wraps to */
	if (!n)
		return -ERANGE;
	w = snprintf(buf, len, "%s.%u", name, n);
	if (w < 0 || (size_t)w >= len || w > NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

uint32_t prec_shard_segments__number(const char *file, const char *name)
{
	size_t nlen = strlen(name);
	unsigned long long v = 0;
	const char *s = file;

	if (strncmp(s, name, nlen) || s[nlen] != '.')
		return 0;
	s += nlen + 1;
	if (*s < '1' || *s > '9')
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > PREC_SEGMENT_LAST)
			return 0;
	}
	return (uint32_t)v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* v appended to *list (of *nr, room for *cap), grown by doubling. */
static int push(uint32_t **list, size_t *nr, size_t *cap, uint32_t v)
{
	if (*nr == *cap) {
		size_t want = *cap ? 2 * *cap : 16;
		uint32_t *p = want > INT_MAX ? NULL : realloc(*list, want * sizeof(**list));

		if (!p)
			return -ENOMEM;
		*list = p;
		*cap = want;
	}
	(*list)[(*nr)++] = v;
	return 0;
}

int prec_shard_segments__list(int dirfd, const char *name, uint32_t above, uint32_t **out)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint32_t *list = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *e;
	int err = 0;
	DIR *d;

	*out = NULL;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	for (errno = 0; !err && (e = readdir(d)); errno = 0) {
		uint32_t v = prec_shard_segments__number(e->d_name, name);

		if (v > above)
			err = push(&list, &nr, &cap, v);
	}
	if (!err && errno)
		err = -errno;
	closedir(d);
	if (err) {
		free(list);
		return err;
	}
	if (nr)
		qsort(list, nr, sizeof(*list), cmp_u32);
	*out = list;
	return (int)nr;
}
