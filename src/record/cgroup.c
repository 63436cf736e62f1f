// SPDX-License-Identifier: MIT
// Cgroups as perf record uses them: the mount (perf_event's v1 hierarchy,
// else cgroup2), -G's names opened beneath it by descriptor and handed to
// the events, and the CGROUP records of --all-cgroups' start.
#include "record/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "record/evlist.h"
#include "record/options.h"
#include "util/file.h"
#include "util/log.h"

#define MOUNTINFO_MAX (16u << 20)
/* statfs f_type of the cgroup file systems (linux/magic.h) */
#define CGROUP_MAGIC 0x27e0eb
#define CGROUP2_MAGIC 0x63677270

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

static bool has_option(const char *opts, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, want, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* One mountinfo line: its mount point when it is a cgroup hierarchy perf
 * would use; *v1 when it is perf_event's v1 one (which perf prefers). */
static char *cgroup_mount(char *line, bool *v1)
{
	char *f[10], *save = NULL, *dash;
	int n = 0;

	dash = strstr(line, " - ");
	if (!dash)
		return NULL;
	*dash = 0;
	for (char *t = strtok_r(line, " ", &save); t && n < 5; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n < 5)
		return NULL;
	save = NULL;
	f[5] = strtok_r(dash + 3, " ", &save);   /* fs type */
	f[6] = strtok_r(NULL, " ", &save);        /* source */
	f[7] = strtok_r(NULL, " ", &save);        /* super options */
	if (!f[5] || !f[7])
		return NULL;
	*v1 = !strcmp(f[5], "cgroup") && has_option(f[7], "perf_event");
	if (!*v1 && strcmp(f[5], "cgroup2"))
		return NULL;
	unescape(f[4]);
	return f[4];
}

/* The mount perf's -G and --all-cgroups use: the v1 hierarchy with the
 * perf_event controller if there is one, else the first cgroup2 mount. Its
 * path into path; returns an O_RDONLY|O_DIRECTORY fd or -errno (-ENOENT:
 * none). The mount table is the kernel's, not a user's. */
static int open_mount(char *path, size_t len)
{
	char *text = NULL, *save = NULL;
	size_t cap = 0;
	bool found = false;
	ssize_t n = prec_file__read_text("/proc/self/mountinfo", &text, &cap, MOUNTINFO_MAX);
	struct statfs sfs;
	int fd;

	if (n < 0) {
		free(text);
		return (int)n;
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		bool v1 = false;
		char *mnt = cgroup_mount(l, &v1);

		if (!mnt || (found && !v1) || strlen(mnt) >= len)
			continue;
		snprintf(path, len, "%s", mnt);
		found = true;
		if (v1)
			break;
	}
	free(text);
	if (!found)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* What the path leads to now is the mount the table named. */
	if (fstatfs(fd, &sfs) || (sfs.f_type != CGROUP_MAGIC && sfs.f_type != CGROUP2_MAGIC)) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

/* name below the mount, one component at a time from mnt's descriptor:
 * never through a symbolic link, never up. Returns an O_RDONLY directory
 * fd (what PERF_FLAG_PID_CGROUP takes; an O_PATH one it refuses) or
 * -errno; *why for a refused name. */
static int open_beneath(int mnt, const char *name, const char **why)
{
	struct stat top, st;
	int fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *p = name;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &top)) {
		int err = -errno;

		close(fd);
		return err;
	}
	while (*p) {
		size_t n = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		int next;

		if (!n) {
			p++;
			continue;
		}
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			*why = "'.' and '..' are not allowed in a cgroup name";
			close(fd);
			return -EINVAL;
		}
		if (n > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = 0;
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int err = errno == ELOOP ? -ENOTDIR : -errno;

			close(fd);
			return err;
		}
		close(fd);
		fd = next;
		p += n;
	}
	/* Still the cgroup file system, not something mounted on it. */
	if (fstat(fd, &st) || st.st_dev != top.st_dev) {
		close(fd);
		*why = "not on the cgroup file system";
		return -EXDEV;
	}
	return fd;
}

/* The index in the list of the index'th event of the -e arguments given
 * before the -G (after_specs of them), or -1. */
static int nth_event(const struct prec_evlist *el, int after_specs, int index)
{
	for (int i = 0; i < prec_evlist__nr_events(el); i++) {
		int spec = prec_evlist__event(el, i)->spec;

		if (spec < 0 || spec >= after_specs)
			continue;
		if (!index--)
			return i;
	}
	return -1;
}

static int cgroup_error(const struct prec_cgroup_spec *g, const char *mnt,
			const char *name, const char *why, int err)
{
	if (why)
		pr_err("option -G '%s': cgroup '%s': %s", g->names, name, why);
	else
		pr_err("option -G '%s': cgroup %s/%s: %s", g->names, mnt,
		       name + strspn(name, "/"), strerror(-err));
	return -EINVAL;
}

/* One item of a -G list for the index'th event. */
static int assign_one(struct prec_evlist *el, const struct prec_cgroup_spec *g,
		      int mnt, const char *mpath, const char *name, int index)
{
	int e = nth_event(el, g->after_specs, index);
	const char *why = NULL;
	int fd;

	if (e < 0) {
		pr_err("option -G '%s': cgroup '%s' has no event: each cgroup goes to an event given before it, in order (as perf)",
		       g->names, name);
		return -EINVAL;
	}
	fd = open_beneath(mnt, name, &why);
	if (fd < 0)
		return cgroup_error(g, mpath, name, why, fd);
	prec_evlist__set_cgroup(el, e, fd);
	return 0;
}

/* As perf: a first -G of a single name, alone so far, covers every event
 * given before it. */
static int share_first(struct prec_evlist *el, const struct prec_cgroup_spec *g)
{
	int first = nth_event(el, g->after_specs, 0), e;
	int fd = first < 0 ? -1 : prec_evlist__event(el, first)->cgroup_fd;

	for (int i = 1; fd >= 0 && (e = nth_event(el, g->after_specs, i)) >= 0; i++) {
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (dup < 0)
			return -errno;
		prec_evlist__set_cgroup(el, e, dup);
	}
	return 0;
}

static int assign_list(struct prec_evlist *el, const struct prec_cgroup_spec *g,
		       int mnt, const char *mpath, int *taken)
{
	const char *p = g->names;

	for (;;) {
		size_t n = strcspn(p, ",");
		char name[PATH_MAX];
		int err;

		if (n >= sizeof(name)) {
			pr_err("option -G '%.64s...': cgroup name too long", g->names);
			return -EINVAL;
		}
		if (n) {
			memcpy(name, p, n);
			name[n] = 0;
			err = assign_one(el, g, mnt, mpath, name, *taken);
			if (err)
				return err;
		}
		/* perf counts the empty items too */
		(*taken)++;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int prec_cgroup__assign(struct prec_evlist *el, const struct prec_record_opts *o)
{
	char mpath[PATH_MAX];
	int mnt, taken = 0, err = 0;

	if (!o->nr_cgroups)
		return 0;
	mnt = open_mount(mpath, sizeof(mpath));
	if (mnt < 0) {
		pr_err("option -G '%s': no cgroup file system: %s", o->cgroups[0].names,
		       mnt == -ENOENT ? "neither cgroup2 nor a perf_event cgroup hierarchy is mounted" :
		       strerror(-mnt));
		return -EINVAL;
	}
	for (int i = 0; !err && i < o->nr_cgroups; i++) {
		err = assign_list(el, &o->cgroups[i], mnt, mpath, &taken);
		if (!err && taken == 1)
			err = share_first(el, &o->cgroups[i]);
	}
	close(mnt);
	return err;
}

/* ---- the CGROUP records of the start ---- */

struct walk {
	prec_rec_sink sink;
	void *ctx;
	dev_t dev;
	int records;
	char path[PATH_MAX];
	uint8_t body[8 + PATH_MAX + 8];
};

/* The id the kernel samples: the cgroup file system's file handle (as
 * perf reads it), else the inode number, which is the same on 64-bit. */
static uint64_t cgroup_id(int fd)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	struct stat st;
	int mount_id;

	h.fh.handle_bytes = sizeof(h.id);
	if (!name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) &&
	    h.fh.handle_bytes == sizeof(h.id))
		return h.id;
	return fstat(fd, &st) ? 0 : (uint64_t)st.st_ino;
}

static int emit(struct walk *w, int fd, size_t len)
{
	uint64_t id = cgroup_id(fd);
	size_t padded = (len + 1 + 7) & ~(size_t)7;
	int err;

	memcpy(w->body, &id, sizeof(id));
	memset(w->body + 8, 0, padded);
	memcpy(w->body + 8, w->path, len);
	err = w->sink(w->ctx, PERF_RECORD_CGROUP, w->body, 8 + padded);
	if (!err)
		w->records++;
	return err;
}

/* Emit fd's cgroup (w->path, len bytes), then its children's. Consumes fd. */
static int walk_dir(struct walk *w, int fd, size_t len, int depth)
{
	struct dirent *e;
	DIR *d;
	int err = emit(w, fd, len);

	if (err || depth >= PREC_CGROUP_MAX_DEPTH) {
		close(fd);
		return err;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!err && (e = readdir(d))) {
		size_t n = strlen(e->d_name), sep = len > 1;
		struct stat st;
		int child;

		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    len + sep + n >= sizeof(w->path))
			continue;
		child = openat(dirfd(d), e->d_name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0)
			continue; /* removed meanwhile, or not a directory */
		if (fstat(child, &st) || st.st_dev != w->dev) {
			close(child);
			continue;
		}
		if (sep)
			w->path[len] = '/';
		memcpy(w->path + len + sep, e->d_name, n + 1);
		err = walk_dir(w, child, len + sep + n, depth + 1);
		w->path[len] = 0;
	}
	closedir(d);
	return err;
}

int prec_cgroup__synthesize(prec_rec_sink sink, void *ctx)
{
	struct walk *w = calloc(1, sizeof(*w));
	struct stat st;
	int mnt, err;

	if (!w)
		return -ENOMEM;
	mnt = open_mount(w->path, sizeof(w->path));
	if (mnt < 0 || fstat(mnt, &st)) {
		pr_warn("--all-cgroups: no cgroup file system (%s): the cgroups existing at the start are not named",
			mnt == -ENOENT ? "neither cgroup2 nor a perf_event cgroup hierarchy is mounted" :
			strerror(mnt < 0 ? -mnt : errno));
		if (mnt >= 0)
			close(mnt);
		free(w);
		return 0;
	}
	w->sink = sink;
	w->ctx = ctx;
	w->dev = st.st_dev;
	strcpy(w->path, "/");
	err = walk_dir(w, mnt, 1, 0);
	err = err ? err : w->records;
	free(w);
	return err;
}
