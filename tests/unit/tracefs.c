// SPDX-License-Identifier: MIT
// tracefs: root, tracepoint ids against the id files, name validation, and
// byte-exact format texts copied into the manifest once.
#include "../lib/test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/tracefs.h"
#include "store/store.h"

/* Whole file, read with stdio until EOF (tracefs stat sizes are 0). */
static char *slurp(const char *root, const char *rel)
{
	char path[512], *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
			CHECK(buf);
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void check_ids(const char *root)
{
	uint64_t id = 0;
	char *want = slurp(root, "events/raw_syscalls/sys_enter/id");

	CHECK(want);
	CHECK_EQ(prec_tracefs__event_id("raw_syscalls", "sys_enter", &id), 0);
	CHECK_EQ(id, strtoull(want, NULL, 10));
	free(want);
	want = slurp(root, "events/sched/sched_switch/id");
	CHECK(want);
	CHECK_EQ(prec_tracefs__event_id("sched", "sched_switch", &id), 0);
	CHECK_EQ(id, strtoull(want, NULL, 10));
	free(want);

	CHECK_EQ(prec_tracefs__event_id("raw_syscalls", "no_such_event", &id), -ENOENT);
	CHECK_EQ(prec_tracefs__event_id("no_such_system", "sys_enter", &id), -ENOENT);
	/* A system's own files are not tracepoints. */
	CHECK_EQ(prec_tracefs__event_id("raw_syscalls", "enable", &id), -ENOENT);

	CHECK_EQ(prec_tracefs__event_id("..", "raw_syscalls", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id("raw_syscalls/sys_enter", "x", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id("raw_syscalls", "../sched", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id("raw_syscalls", "", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id("", "sys_enter", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id(NULL, "sys_enter", &id), -EINVAL);
	CHECK_EQ(prec_tracefs__event_id(".", "sys_enter", &id), -EINVAL);
}

static void check_format(const struct prec_manifest *m, uint32_t i,
			 const char *root, const char *sys, const char *name,
			 uint64_t id)
{
	char rel[256], *want;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	want = slurp(root, rel);
	CHECK(want && strlen(want) > 100);
	CHECK(i < m->nr_tracepoints);
	CHECK(!strcmp(m->tracepoints[i].system, sys));
	CHECK(!strcmp(m->tracepoints[i].name, name));
	CHECK_EQ(m->tracepoints[i].id, id);
	CHECK(!strcmp(m->tracepoints[i].format, want));
	free(want);
}

static void check_formats(const char *root)
{
	struct prec_manifest *m = prec_manifest__new();
	uint64_t id1, id2;
	char *want;

	CHECK(m);
	CHECK_EQ(prec_tracefs__event_id("sched", "sched_switch", &id1), 0);
	CHECK_EQ(prec_tracefs__add_formats(m, "sched", "sched_switch", id1), 0);
	CHECK_EQ(m->nr_tracepoints, 1);
	check_format(m, 0, root, "sched", "sched_switch", id1);

	want = slurp(root, "events/header_page");
	CHECK(want && m->header_page && !strcmp(m->header_page, want));
	free(want);
	want = slurp(root, "events/header_event");
	CHECK(want && m->header_event && !strcmp(m->header_event, want));
	free(want);
	want = slurp(root, "printk_formats");
	CHECK(want && m->printk_formats && !strcmp(m->printk_formats, want));
	free(want);
	CHECK(m->saved_cmdlines != NULL); /* changes as tasks run: presence only */

	/* Once per tracepoint. */
	CHECK_EQ(prec_tracefs__add_formats(m, "sched", "sched_switch", id1), 0);
	CHECK_EQ(m->nr_tracepoints, 1);

	/* The ftrace system is stored like any other. */
	CHECK_EQ(prec_tracefs__event_id("ftrace", "function", &id2), 0);
	CHECK_EQ(prec_tracefs__add_formats(m, "ftrace", "function", id2), 0);
	CHECK_EQ(m->nr_tracepoints, 2);
	check_format(m, 1, root, "ftrace", "function", id2);

	CHECK_EQ(prec_tracefs__add_formats(m, "sched", "no_such_event", 1), -ENOENT);
	CHECK_EQ(prec_tracefs__add_formats(m, "../..", "x", 1), -EINVAL);
	CHECK_EQ(prec_tracefs__add_formats(m, "sched", "..", 1), -EINVAL);
	CHECK_EQ(m->nr_tracepoints, 2);
	prec_manifest__delete(m);
}

int main(void)
{
	const char *root = prec_tracefs__root();

	if (!root) {
		fprintf(stderr, "no tracefs: skip\n");
		return TEST_SKIP;
	}
	CHECK(!strcmp(root, "/sys/kernel/tracing") ||
	      !strcmp(root, "/sys/kernel/debug/tracing"));
	check_ids(root);
	check_formats(root);
	return 0;
}
