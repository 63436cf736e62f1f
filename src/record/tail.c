// SPDX-License-Identifier: MIT
// Tail synthesis for the flight recorder: which tasks a snapshot names, at
// what time, and what it cost; the records themselves are sideband.c's.
#include "record/tail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/sideband.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/proc.h"

struct prec_tail {
	struct prec_sideband_again *sb;
	pid_t *roots;          /* NULL: every task */
	int nr_roots;
	bool descendants;
	bool threads;          /* roots are a thread map */
	bool data_maps, namespaces; /* for each epoch's (rebind()) */
	uint64_t last;         /* the previous tail's time */
	struct prec_tail_stats st;
};

int prec_tail__new(struct prec_tail **out, const struct prec_tail_opts *o)
{
	struct prec_tail *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->descendants = o->descendants;
	t->threads = o->threads && o->roots;
	t->data_maps = o->data_maps;
	t->namespaces = o->namespaces;
	if (o->roots) {
		t->roots = malloc(((size_t)o->nr_roots + 1) * sizeof(*t->roots));
		if (!t->roots) {
			free(t);
			return -ENOMEM;
		}
		memcpy(t->roots, o->roots, (size_t)o->nr_roots * sizeof(*t->roots));
		t->nr_roots = o->nr_roots;
	}
	err = prec_tail__rebind(t, o->writer, o->m);
	if (err) {
		prec_tail__delete(t);
		return err;
	}
	*out = t;
	return 0;
}

int prec_tail__rebind(struct prec_tail *t, struct prec_shard_writer *w,
		      struct prec_manifest *m)
{
	struct prec_sideband_again *sb;
	int err = prec_sideband_again__new(&sb, w, m, t->data_maps);

	if (err)
		return err;
	if (t->namespaces)
		prec_sideband_again__namespaces(sb);
	prec_sideband_again__delete(t->sb);
	t->sb = sb;
	t->last = 0; /* a new shard: its times start over */
	return 0;
}

/* ---- which processes ---- */

struct pp {
	pid_t pid, ppid;
	bool taken;
};

static int cmp_ppid(const void *a, const void *b)
{
	const struct pp *x = a, *y = b;

	if (x->ppid != y->ppid)
		return x->ppid < y->ppid ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The ppid field of /proc/PID/stat: "pid (comm) state ppid ...", where
 * comm may hold spaces and parentheses but ends at the last ')'. */
static int read_ppid(pid_t pid, pid_t *ppid)
{
	char path[40], buf[256], *p;
	ssize_t n;
	int fd, v;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &v) != 1)
		return -EBADMSG;
	*ppid = (pid_t)v;
	return 0;
}

/* Every process in /proc with its parent: *out sorted by ppid. */
static int scan_parents(struct pp **out)
{
	struct pp *v;
	pid_t *pids;
	int all = prec_proc__pids(&pids);
	size_t nr = 0;

	*out = NULL;
	if (all < 0)
		return all;
	v = malloc(((size_t)all + 1) * sizeof(*v));
	if (!v) {
		free(pids);
		return -ENOMEM;
	}
	for (int i = 0; i < all; i++) {
		pid_t ppid;

		if (!read_ppid(pids[i], &ppid)) /* else gone meanwhile */
			v[nr++] = (struct pp){ .pid = pids[i], .ppid = ppid };
	}
	free(pids);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_ppid);
	*out = v;
	return (int)nr;
}

/* Index of the first entry of v[0..nr) with ppid >= ppid. */
static size_t first_child(const struct pp *v, size_t nr, pid_t ppid)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].ppid < ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int prec_tail__select(const pid_t *roots, int nr, bool descendants, pid_t **out)
{
	struct pp *v = NULL;
	pid_t *list, *n;
	size_t len = (size_t)nr, cap = (size_t)nr + 16, u = 0;
	int nv = 0;

	*out = NULL;
	list = malloc(cap * sizeof(*list));
	if (!list)
		return -ENOMEM;
	memcpy(list, roots, (size_t)nr * sizeof(*list));
	if (descendants) {
		nv = scan_parents(&v);
		if (nv < 0) {
			free(list);
			return nv;
		}
	}
	/* Breadth first over the parent links; a child is taken once (a
	 * process has one parent), so only a root that descends from another
	 * root comes twice, which the sort below folds. */
	for (size_t i = 0; i < len && nv > 0; i++) {
		for (size_t j = first_child(v, (size_t)nv, list[i]);
		     j < (size_t)nv && v[j].ppid == list[i]; j++) {
			if (v[j].taken || v[j].pid == list[i])
				continue;
			v[j].taken = true;
			if (len == cap) {
				cap *= 2;
				n = realloc(list, cap * sizeof(*list));
				if (!n) {
					free(list);
					free(v);
					return -ENOMEM;
				}
				list = n;
			}
			list[len++] = v[j].pid;
		}
	}
	free(v);
	qsort(list, len, sizeof(*list), cmp_pid);
	for (size_t i = 0; i < len; i++)
		if (!u || list[i] != list[u - 1])
			list[u++] = list[i];
	*out = list;
	return (int)u;
}

/* ---- one tail ---- */

/* The tasks t names, at time: the records written or -errno. */
static int write_tasks(struct prec_tail *t, uint64_t time)
{
	pid_t *pids = NULL;
	int nr_pids = 0, n;

	if (t->roots && !t->threads) {
		nr_pids = prec_tail__select(t->roots, t->nr_roots, t->descendants, &pids);
		if (nr_pids < 0) {
			pr_err("%s: selecting the tasks: %s", PREC_TAIL_SHARD_NAME,
			       strerror(-nr_pids));
			return nr_pids;
		}
	}
	if (t->threads)
		n = prec_sideband_again__write_threads(t->sb, t->roots, t->nr_roots, time);
	else
		n = prec_sideband_again__write(t->sb, t->roots ? pids : NULL, nr_pids, time);
	free(pids);
	if (n < 0)
		pr_err("%s: synthesizing the tasks: %s", PREC_TAIL_SHARD_NAME, strerror(-n));
	return n;
}

int prec_tail__write(struct prec_tail *t, uint64_t oldest)
{
	uint64_t t0 = prec_now_ns(CLOCK_MONOTONIC), time, ns;
	int n;

	if (!oldest) {
		t->st.skipped++;
		return 0;
	}
	/* Before every record of the snapshot; never before the previous
	 * tail, whose chunk's watermark promised as much. Time 0 would be
	 * the start's synthesis (and the trailer's "no time"). */
	time = oldest > 1 ? oldest - 1 : 1;
	if (time < t->last) {
		time = t->last;
		t->st.clamped++;
	}
	n = write_tasks(t, time);
	/* The next tail starts here at the earliest. */
	t->last = time;
	if (n < 0)
		return n;
	ns = prec_now_ns(CLOCK_MONOTONIC) - t0;
	t->st.tails++;
	t->st.records += (uint64_t)n;
	t->st.ns_total += ns;
	if (ns > t->st.ns_max)
		t->st.ns_max = ns;
	pr_debug("tail %llu: %d records at %llu in %.3f ms",
		 (unsigned long long)t->st.tails, n, (unsigned long long)time,
		 (double)ns / 1e6);
	return n;
}

void prec_tail__stats(const struct prec_tail *t, struct prec_tail_stats *st)
{
	*st = t->st;
}

void prec_tail__delete(struct prec_tail *t)
{
	if (!t)
		return;
	prec_sideband_again__delete(t->sb);
	free(t->roots);
	free(t);
}
