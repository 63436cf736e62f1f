// SPDX-License-Identifier: MIT
// LD_PRELOAD race maker for a target task that ends between the recorder's
// scan of /proc and its perf_event_open (tests/e2e/record_target_vanish.sh;
// loaded into prec and into perf alike: both open through glibc's
// syscall()). VANISH_TIDS=TID[:SIG][@N][,...]: the N-th (1 by default)
// perf_event_open of each such task is preceded by its end, signal SIG to
// it (10, SIGUSR1, by default: tests/helpers/goners' workers leave on it;
// 9 ends a process) and a wait until its /proc entry is gone or a zombie.
// The open then goes to the kernel, which refuses it as it refuses any
// task gone meanwhile (ESRCH); so do the task's later ones. With N > 1
// the task had events opened already: on the first CPUs, where the
// first task's own open owns the CPU's ring.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);

static syscall_fn real;

/* The state letter of /proc/TID/stat, or 0 when the task is gone. */
static char task_state(long tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static long tgid_of(long tid)
{
	char path[64], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

/* The signal that ends tid now: when it is listed and this is the open
 * of it its entry names (then it is marked ended), else 0. */
static int due(long tid)
{
	static long seen[64], opens[64];
	static int nr_seen;
	const char *list = getenv("VANISH_TIDS");
	long nth = 0;
	char *end;
	int i, sig = 0;

	while (list && *list) {
		long v = strtol(list, &end, 10);
		int s = SIGUSR1;
		long at = 1;

		if (end == list)
			break;
		if (*end == ':')
			s = (int)strtol(end + 1, &end, 10);
		if (*end == '@')
			at = strtol(end + 1, &end, 10);
		while (*end && *end != ',')
			end++;
		if (v == tid) {
			sig = s;
			nth = at;
			break;
		}
		list = *end == ',' ? end + 1 : end;
	}
	if (!sig)
		return 0;
	for (i = 0; i < nr_seen && seen[i] != tid; i++)
		;
	if (i == nr_seen) {
		if (nr_seen == 64)
			return 0;
		seen[nr_seen++] = tid;
	}
	return ++opens[i] == nth ? sig : 0;
}

static void end_task(long tid, int sig)
{
	long tgid = tgid_of(tid);
	struct timespec ms = { 0, 1000000 };

	if (tgid <= 0)
		return;
	real(SYS_tgkill, tgid, tid, sig);
	for (int i = 0; i < 10000; i++) {
		char st = task_state(tid);

		if (!st || st == 'Z' || st == 'X')
			return;
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "vanish: task %ld did not end\n", tid);
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && a[1] > 0) {
		int sig = due(a[1]);

		if (sig)
			end_task(a[1], sig);
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
