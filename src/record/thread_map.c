/* SPDX-License-Identifier: MIT */
/* The tasks -p, -t and -u name, in perf 6.1's order (thread_map.h). */
#include "record/thread_map.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int push(pid_t **v, int *n, int *cap, pid_t tid)
{
	if (*n == *cap) {
		int want = *cap ? *cap * 2 : 16;
		pid_t *m = realloc(*v, (size_t)want * sizeof(*m));

		if (!m)
			return -ENOMEM;
		*v = m;
		*cap = want;
	}
	(*v)[(*n)++] = tid;
	return 0;
}

/* id's /proc/ID/task in the order readdir gives it, as perf's scandir
 * without a sort; gone: nothing. */
static int push_process(pid_t **v, int *n, int *cap, pid_t id)
{
	char path[32];
	struct dirent *de;
	int err = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)id);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (!*end && tid > 0)
			err = push(v, n, cap, (pid_t)tid);
	}
	closedir(d);
	return err;
}

int prec_thread_map__new(const pid_t *ids, int nr, bool processes, pid_t **out)
{
	pid_t *v = NULL;
	int n = 0, cap = 0, err = 0;

	for (int i = 0; !err && i < nr; i++)
		err = processes ? push_process(&v, &n, &cap, ids[i]) :
				  push(&v, &n, &cap, ids[i]);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	return n;
}
