// SPDX-License-Identifier: MIT
// /proc/PID/status fields, parsed in one place for the side band, the
// markers reader and the recorder's watched tasks.
#include "util/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tgid is on the fourth line, after Name (a comm of 16 bytes, escaped at
 * most fourfold), Umask and State: well inside this. */
#define STATUS_HEAD 512

static int32_t field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? (int32_t)strtol(p + strlen(key), NULL, 10) : 0;
}

int prec_proc__parse_status(const char *text, struct prec_proc_status *st)
{
	/* Name is the first line: every field we read follows a newline. */
	st->tgid = field(text, "\nTgid:");
	st->ppid = field(text, "\nPPid:");
	st->kthread = !strstr(text, "\nVmPeak:");
	return st->tgid > 0 ? 0 : -ESRCH;
}

pid_t prec_proc__tgid(pid_t tid)
{
	char path[64], text[STATUS_HEAD];
	struct prec_proc_status st;
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	do {
		n = read(fd, text + len, sizeof(text) - 1 - len);
		if (n > 0)
			len += (size_t)n;
	} while ((n > 0 || (n < 0 && errno == EINTR)) && len < sizeof(text) - 1);
	close(fd);
	text[len] = 0;
	return prec_proc__parse_status(text, &st) ? -ESRCH : st.tgid;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int prec_proc__pids(pid_t **out)
{
	DIR *d = opendir("/proc");
	size_t n = 0, cap = 0;
	pid_t *v = NULL, *t;
	struct dirent *de;

	*out = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 512;
			t = realloc(v, cap * sizeof(*v));
			if (!t) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
			v = t;
		}
		v[n++] = (pid_t)pid;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid);
	*out = v;
	return (int)n;
}
