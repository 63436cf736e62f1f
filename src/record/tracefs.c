// SPDX-License-Identifier: MIT
// tracefs: where it is mounted, tracepoint ids, and the format texts a
// perf.data tracing blob needs (event formats, header_page, header_event,
// printk_formats, saved_cmdlines), copied into the manifest.

#include "record/tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/file.h"
#include "util/log.h"

#define TRACEFS_MAIN "/sys/kernel/tracing"
#define TRACEFS_DEBUG "/sys/kernel/debug/tracing"
/* printk_formats is the largest text we copy (tens of KiB); anything past
 * this bound is not a tracefs file we understand. */
#define TRACEFS_MAX_TEXT (16u << 20)

static bool has_events(const char *root)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", root);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *prec_tracefs__root(void)
{
	if (has_events(TRACEFS_MAIN))
		return TRACEFS_MAIN;
	if (has_events(TRACEFS_DEBUG))
		return TRACEFS_DEBUG;
	/* Like perf, mount tracefs where the kernel provides the mount point
	 * when nobody has: harmless if it fails (not root, no tracefs). */
	if (mount("nodev", TRACEFS_MAIN, "tracefs", 0, NULL) == 0) {
		pr_debug("tracefs: mounted on " TRACEFS_MAIN);
		if (has_events(TRACEFS_MAIN))
			return TRACEFS_MAIN;
	}
	return NULL;
}

/* A tracefs path component must not walk out of events/. */
static bool bad_name(const char *s)
{
	return !s || !*s || strchr(s, '/') || strstr(s, "..") || !strcmp(s, ".");
}

/* Whole file into a malloc'd NUL-terminated buffer (*out, freed by the
 * caller on success). Returns length or -errno. */
static ssize_t read_text(const char *path, char **out)
{
	size_t cap = 0;
	ssize_t n;

	*out = NULL;
	n = prec_file__read_text(path, out, &cap, TRACEFS_MAX_TEXT);
	if (n < 0) {
		free(*out);
		*out = NULL;
	}
	return n;
}

int prec_tracefs__event_id(const char *system, const char *name, uint64_t *id)
{
	const char *root;
	char path[512], *text, *end;
	unsigned long long v;
	ssize_t n;

	if (bad_name(system) || bad_name(name))
		return -EINVAL;
	root = prec_tracefs__root();
	if (!root)
		return -ENODEV;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, system,
		     name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = read_text(path, &text);
	if (n < 0)
		return n == -ENOTDIR ? -ENOENT : (int)n;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n')) {
		free(text);
		return -EBADMSG;
	}
	free(text);
	*id = v;
	return 0;
}

static bool has_tracepoint(const struct prec_manifest *m, const char *system,
			   const char *name)
{
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		const struct prec_manifest_tracepoint *t = &m->tracepoints[i];

		if (t->system && t->name && !strcmp(t->system, system) &&
		    !strcmp(t->name, name))
			return true;
	}
	return false;
}

/* Copy root/rel into *field unless already set. A missing or unreadable
 * optional file is not an error: perf writes size 0 for it too. */
static int add_global(struct prec_manifest *m, char **field, const char *root,
		      const char *rel)
{
	char path[256], *text;
	ssize_t n;
	int err;

	if (*field)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	n = read_text(path, &text);
	if (n == -ENOMEM)
		return -ENOMEM;
	if (n < 0) {
		pr_debug("tracefs %s: read: %s", path, strerror((int)-n));
		return 0;
	}
	err = prec_manifest__set_str(m, field, text);
	free(text);
	return err;
}

int prec_tracefs__add_formats(struct prec_manifest *m, const char *system,
			      const char *name, uint64_t id)
{
	const char *root;
	char path[512], *text;
	ssize_t n;
	int err;

	if (bad_name(system) || bad_name(name))
		return -EINVAL;
	root = prec_tracefs__root();
	if (!root)
		return -ENODEV;
	if (!has_tracepoint(m, system, name)) {
		if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", root,
			     system, name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		n = read_text(path, &text);
		if (n < 0) {
			pr_err("tracefs %s:%s: read format: %s", system, name,
			       strerror((int)-n));
			return n == -ENOTDIR ? -ENOENT : (int)n;
		}
		err = prec_manifest__add_tracepoint(m, system, name, id, text);
		free(text);
		if (err)
			return err;
	}
	err = add_global(m, &m->header_page, root, "events/header_page");
	if (!err)
		err = add_global(m, &m->header_event, root, "events/header_event");
	if (!err)
		err = add_global(m, &m->printk_formats, root, "printk_formats");
	if (!err)
		err = add_global(m, &m->saved_cmdlines, root, "saved_cmdlines");
	return err;
}

struct tp_list {
	char **v;
	int n, cap;
};

static int list_add(struct tp_list *l, const char *sys, const char *name)
{
	char *s;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	/* name NULL: the system alone */
	if (name ? asprintf(&s, "%s:%s", sys, name) < 0 : !(s = strdup(sys)))
		return -ENOMEM;
	l->v[l->n++] = s;
	return 0;
}

/* The events of one system dir that match: its subdirectories (the files
 * "enable" and "filter" are not events). */
static int glob_system(struct tp_list *l, const char *root, const char *sys,
		       const char *name_pat)
{
	char path[512];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (e = readdir(d))) {
		struct stat st;
		char sub[1024];

		if (e->d_name[0] == '.' || fnmatch(name_pat, e->d_name, 0))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s/id", path, e->d_name) >= (int)sizeof(sub))
			continue;
		if (stat(sub, &st) == 0)
			err = list_add(l, sys, e->d_name);
	}
	closedir(d);
	return err;
}

/* perf's systems: every entry of events/ but its files */
static bool is_system(const char *name)
{
	return name[0] != '.' && strcmp(name, "enable") && strcmp(name, "header_event") &&
	       strcmp(name, "header_page");
}

/* The systems matching sys_pat: with name_pat, their events matching it
 * ("sys:name"), else the systems' names; into *out. In the directories'
 * own order, as perf lists the events a glob names (its evlist, and so
 * each event's index in the file). */
static int list_systems(const char *sys_pat, const char *name_pat, char ***out)
{
	const char *root = prec_tracefs__root();
	struct tp_list l = { 0 };
	char path[256];
	struct dirent *e;
	DIR *d;
	int err = 0;

	*out = NULL;
	if (!root)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events", root);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (e = readdir(d)))
		if (is_system(e->d_name) && !fnmatch(sys_pat, e->d_name, 0))
			err = name_pat ? glob_system(&l, root, e->d_name, name_pat) :
					 list_add(&l, e->d_name, NULL);
	closedir(d);
	if (err) {
		prec_tracefs__free_list(l.v, l.n);
		return err;
	}
	*out = l.v;
	return l.n;
}

int prec_tracefs__glob(const char *sys_pat, const char *name_pat, char ***out)
{
	return list_systems(sys_pat, name_pat, out);
}

int prec_tracefs__systems(const char *sys_pat, char ***out)
{
	return list_systems(sys_pat, NULL, out);
}

int prec_tracefs__name_of(uint64_t id, char **system, char **name)
{
	char **all;
	int n = prec_tracefs__glob("*", "*", &all), err = -ENOENT;

	*system = *name = NULL;
	for (int i = 0; i < n && err == -ENOENT; i++) {
		char *colon = strchr(all[i], ':');
		uint64_t v;

		*colon = 0;
		if (prec_tracefs__event_id(all[i], colon + 1, &v) || v != id)
			continue;
		*system = strdup(all[i]);
		*name = strdup(colon + 1);
		err = *system && *name ? 0 : -ENOMEM;
	}
	if (n > 0)
		prec_tracefs__free_list(all, n);
	if (err) {
		free(*system);
		free(*name);
		*system = *name = NULL;
	}
	return n < 0 ? n : err;
}

void prec_tracefs__free_list(char **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}
