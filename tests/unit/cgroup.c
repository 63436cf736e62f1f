// SPDX-License-Identifier: MIT
// -G's cgroups given to the events as perf 6.1 gives them (one name per
// event in order, empty names, a lone first name for every event before
// it), the names refused ('..', '.', a file, none such, more names than
// events), and the side band's CGROUP records (root first, ids that are
// the directories' inodes, paths padded to 8): on the real cgroup2 mount,
// in a test cgroup made and removed here. Root only; skipped without
// cgroup2 or with a v1 perf_event hierarchy (which perf and prec would
// use instead).
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/cgroup.h"
#include "record/evlist.h"
#include "record/options.h"
#include "util/log.h"
#include "../lib/test.h"

static char mnt[4096], name[64], path[4200];

/* The cgroup2 mount point, or "" (also when perf_event has a v1 one). */
static void find_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];

	mnt[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char point[4096];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		if (!strncmp(dash, " - cgroup ", 10) && strstr(dash, "perf_event")) {
			mnt[0] = 0;
			break;
		}
		if (!strncmp(dash, " - cgroup2 ", 11) && !mnt[0] && !strchr(point, '\\'))
			snprintf(mnt, sizeof(mnt), "%s", point);
	}
	if (f)
		fclose(f);
}

static ino_t ino_of(const char *p)
{
	struct stat st;

	return stat(p, &st) ? 0 : st.st_ino;
}

static ino_t fd_ino(int fd)
{
	struct stat st;

	return fd < 0 || fstat(fd, &st) ? 0 : st.st_ino;
}

/* Parse argv, build the events as cmd_record does, assign the cgroups. */
static int assign(struct prec_record_opts *o, struct prec_evlist **elp, char **argv)
{
	struct prec_evlist *el;
	int argc = 0, err;

	while (argv[argc])
		argc++;
	prec_evlist__delete(*elp);
	CHECK_EQ(prec_evlist__new(elp), 0);
	el = *elp;
	prec_record_opts__exit(o);
	err = prec_record_opts__parse(o, argc, argv);
	if (err)
		return err;
	CHECK_EQ(prec_evlist__add_tracking(el), 0);
	for (int i = 0; i < o->nr_specs; i++) {
		int first = prec_evlist__nr_events(el);

		CHECK_EQ(prec_evlist__add(el, o->specs[i].text, NULL, NULL), 0);
		prec_evlist__mark_spec(el, first, i);
	}
	return prec_cgroup__assign(el, o);
}

#define ARGV(...) ((char *[]){ "record", "-a", __VA_ARGS__, NULL })

static void test_assign(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist *el = NULL;
	ino_t cg = ino_of(path), root = ino_of(mnt);
	char sub[80], file[96], dots[160], dot[80], pair[160], lead[80];

	CHECK(cg && root && cg != root);
	snprintf(lead, sizeof(lead), "/%s/", name);
	snprintf(sub, sizeof(sub), ",%s", name);
	snprintf(file, sizeof(file), "%s/cgroup.procs", name);
	snprintf(dots, sizeof(dots), "%s/../%s", name, name);
	snprintf(dot, sizeof(dot), "./%s", name);
	snprintf(pair, sizeof(pair), "%s,%s", name, name);

	/* One name after two events: both (perf: -e e1 -e e2 -G foo). */
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-e", "task-clock", "-G", name)), 0);
	CHECK_EQ(prec_evlist__nr_events(el), 3);
	CHECK(prec_evlist__event(el, 0)->tracking && prec_evlist__event(el, 0)->cgroup_fd < 0);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 1)->cgroup_fd), cg);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 2)->cgroup_fd), cg);
	CHECK(prec_evlist__event(el, 1)->cgroup_fd != prec_evlist__event(el, 2)->cgroup_fd);
	/* An empty first name: the first event everywhere; events from one
	 * -e list count one each. */
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock,task-clock", "-G", sub)), 0);
	CHECK(prec_evlist__event(el, 1)->cgroup_fd < 0);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 2)->cgroup_fd), cg);
	/* Events after the -G are in no cgroup. */
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", lead, "-e", "task-clock")), 0);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 1)->cgroup_fd), cg);
	CHECK(prec_evlist__event(el, 2)->cgroup_fd < 0);
	/* A second -G takes the next event; "/" is the root cgroup. */
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", name, "-e", "task-clock", "-G", "/")), 0);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 1)->cgroup_fd), cg);
	CHECK_EQ(fd_ino(prec_evlist__event(el, 2)->cgroup_fd), root);

	/* Refused: bad command lines (exit 2). */
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", pair)), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", "..")), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", dots)), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", dot)), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", file)), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-e", "cpu-clock", "-G", "prec-no-such-cgroup")), -EINVAL);
	CHECK_EQ(assign(&o, &el, ARGV("-G", name, "-e", "cpu-clock")), -EINVAL);
	CHECK_EQ(assign(&o, &el, ((char *[]){ "record", "-e", "cpu-clock", "-G", name, "true", NULL })),
		 -EINVAL);
	/* -C is per CPU too. */
	CHECK_EQ(assign(&o, &el, ((char *[]){ "record", "-C", "0", "-e", "cpu-clock", "-G", name, "true", NULL })),
		 0);
	prec_evlist__delete(el);
	prec_record_opts__exit(&o);
}

struct seen {
	int n, root_first, mine;
	uint64_t mine_id;
};

static int sink(void *ctx, uint32_t type, const void *body, size_t len)
{
	struct seen *s = ctx;
	const char *p = (const char *)body + 8;
	uint64_t id;

	CHECK_EQ(type, PERF_RECORD_CGROUP);
	CHECK(len >= 16 && len % 8 == 0);
	CHECK(memchr(p, 0, len - 8)); /* NUL-terminated within the padding */
	memcpy(&id, body, 8);
	if (!s->n)
		s->root_first = !strcmp(p, "/");
	if (p[0] == '/' && !strcmp(p + 1, name)) {
		s->mine++;
		s->mine_id = id;
	}
	s->n++;
	return 0;
}

static int fail_sink(void *ctx, uint32_t type, const void *body, size_t len)
{
	(void)ctx;
	(void)type;
	(void)body;
	(void)len;
	return -ENOSPC;
}

static void test_synthesize(void)
{
	struct seen s = { 0 };

	CHECK(prec_cgroup__synthesize(sink, &s) >= 2);
	CHECK(s.root_first);
	CHECK_EQ(s.mine, 1);
	CHECK_EQ(s.mine_id, ino_of(path));
	CHECK_EQ(prec_cgroup__synthesize(fail_sink, NULL), -ENOSPC);
}

/* A failed CHECK exits: the test cgroup goes with it. */
static void remove_cgroup(void)
{
	rmdir(path);
}

int main(void)
{
	/* The refusals' one-line errors are expected: shown only by -1. */
	prec_log_level = PREC_LOG_ERR - 1;
	if (geteuid()) {
		printf("skip: needs root\n");
		return TEST_SKIP;
	}
	find_mount();
	if (!mnt[0]) {
		printf("skip: no cgroup2 mount (or a v1 perf_event one)\n");
		return TEST_SKIP;
	}
	snprintf(name, sizeof(name), "prec-unit.%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", mnt, name);
	if (mkdir(path, 0755)) {
		printf("skip: mkdir %s: %s\n", path, strerror(errno));
		return TEST_SKIP;
	}
	atexit(remove_cgroup);
	test_assign();
	test_synthesize();
	return 0;
}
