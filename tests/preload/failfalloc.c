// SPDX-License-Identifier: MIT
// LD_PRELOAD fault injection (tests/e2e/record_switch_reserve.sh): the
// FAILFALLOC_NTH-th posix_fallocate() of a file named manifest.reserve
// (1 = the first; counted over the process) fails with ENOSPC, as a disk
// that filled up would make it; every other call is glibc's.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*falloc_fn)(int, off_t, off_t);

/* Does fd name a file called manifest.reserve? */
static int is_reserve(int fd)
{
	char link[64], path[4096];
	ssize_t n;
	const char *base;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	base = strrchr(path, '/');
	return base && !strcmp(base + 1, "manifest.reserve");
}

int posix_fallocate(int fd, off_t offset, off_t len)
{
	static falloc_fn real;
	static int seen;
	const char *nth = getenv("FAILFALLOC_NTH");

	if (!real)
		real = (falloc_fn)dlsym(RTLD_NEXT, "posix_fallocate");
	if (nth && is_reserve(fd) && __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED) == atoi(nth))
		return ENOSPC;
	return real(fd, offset, len);
}
