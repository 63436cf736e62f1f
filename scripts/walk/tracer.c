// SPDX-License-Identifier: MIT
// Function-entry tracer for scripts/walk/walk.sh: linked into a build made
// with -finstrument-functions, it appends each call and return of the
// process's main thread (enter: the function's address; return: the
// address with the top bit set) to the file $PREC_WALK_OUT, as 8-byte
// words. Not part of prec: a tool to count how often a code path goes
// back and forth between files.
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NI __attribute__((no_instrument_function))

static int out = -2;
static uint64_t buf[4096];
static unsigned int n;

NI static void flush(void)
{
	if (out >= 0 && n)
		(void)!write(out, buf, n * sizeof(buf[0]));
	n = 0;
}

NI static void put(uint64_t v)
{
	if (out == -2) {
		const char *path = getenv("PREC_WALK_OUT");

		out = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
		if (out >= 0)
			atexit(flush);
	}
	/* the main thread only: its tid is the pid */
	if (out < 0 || syscall(SYS_gettid) != getpid())
		return;
	buf[n++] = v;
	if (n == sizeof(buf) / sizeof(buf[0]))
		flush();
}

NI void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	put((uint64_t)(uintptr_t)fn);
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	put((uint64_t)(uintptr_t)fn | (1ull << 63));
}
