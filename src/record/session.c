// SPDX-License-Identifier: MIT
// The recording session: the output directory (and -f's rename-aside), one
// shard writer per CPU plus the side band (and, for a flight recording, per
// CPU one for the snapshots and one for the tail synthesis), the manifest
// written at start (state recording) and at close (complete, with totals
// and build-ids), the drainers, and the summary line.

#include "record/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/buildid_collect.h"
#include "record/buildid_reader.h"
#include "util/buildid.h"
#include "record/capture.h"
#include "record/drainer.h"
#include "record/epochs.h"
#include "record/evlist.h"
#include "record/perm.h"
#include "record/host.h"
#include "record/max_disk.h"
#include "record/options.h"
#include "record/perfclock.h"
#include "record/ring.h"
#include "record/sideband.h"
#include "record/snapshot.h"
#include "record/tail.h"
#include "record/tracefs.h"
#include "record/vdso.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/dirtree.h"
#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

/* The final manifest's room, kept from the start (see reserve_size()). */
#define PREC_MANIFEST_RESERVE_NAME "manifest.reserve"
/* -f's random names for the old output tried before giving up */
#define ASIDE_TRIES 16
#define PREC_MANIFEST_RESERVE_EXTRA (256u * 1024u)

/* Now on the events' clock: the perf clock through the first ring's TSC
 * conversion, 0 when its page offers none. */
static uint64_t event_now(int clockid, const struct prec_evlist *el)
{
	if (clockid != PREC_CLOCK_PERF)
		return prec_now_ns(clockid);
	return el->rings && el->nr_cpus ? prec_perfclock__now(el->rings[0].page) : 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* 1 if the directory open at fd holds nothing, 0 if it holds something,
 * or -errno. fd stays open (and its offset at the start: it is only ever
 * used as a base for *at calls). */
static int dir_empty(int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), n = 0;
	struct dirent *e;
	DIR *d;

	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		n = -errno;
		close(dup_fd);
		return n;
	}
	/* The dup shares the offset an earlier look left at the end. */
	rewinddir(d);
	while (!n && (e = readdir(d)))
		n = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	rewinddir(d);
	closedir(d);
	return !n;
}

/* The refusal of an output some other user owns, with or without -f: in a
 * directory others may write to, whatever we do with it by name is theirs
 * to redirect (and its contents theirs to swap while we remove them). */
static int refuse_owner(const struct prec_session *s, uid_t uid)
{
	struct passwd pw, *p = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p))
		p = NULL;
	pr_err("%s: exists and belongs to another user, %s (uid %u); not replacing it",
	       s->dir, p ? p->pw_name : "unknown", (unsigned int)uid);
	return -EEXIST;
}

/* Keep dir (trailing slashes cut) in s->dir, its last component in
 * s->name, and open its parent: every later step (the checks, -f's
 * rename, mkdir, the clean-up) is relative to that descriptor, so a
 * swap of a directory above cannot move them elsewhere midway. The parent
 * itself is the user's choice and is followed like any path. */
static int open_parent(struct prec_session *s, const char *dir)
{
	size_t len = strlen(dir);
	const char *why = NULL, *bad = NULL;
	char *slash, *parent;
	int err = 0;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	s->dir = strndup(dir, len);
	if (!s->dir)
		return -ENOMEM;
	slash = strrchr(s->dir, '/');
	s->name = slash && slash[1] ? slash + 1 : s->dir;
	if (!slash)
		parent = strdup(".");
	else
		parent = strndup(s->dir, slash == s->dir ? 1 : (size_t)(slash - s->dir));
	if (!parent)
		return -ENOMEM;
	s->parentfd = prec_path__open_dir(parent, &why, &bad);
	if (s->parentfd < 0) {
		err = s->parentfd;
		if (err == -EPERM && bad)
			pr_err("%s: opening its parent directory %s: %s: %s, not followed",
			       s->dir, parent, bad, why);
		else
			pr_err("%s: opening its parent directory %s: %s", s->dir, parent,
			       strerror(-err));
	}
	free(parent);
	return err;
}

/* An existing directory of ours, *st, is used if it is empty: opened
 * without following a link and checked to be the one looked at, closed
 * to others (0700, so no one can plant files in it any more) and looked
 * at again. Returns 0 with s->dirfd set, -ENOTEMPTY, or -errno (one line
 * printed). */
static int use_empty(struct prec_session *s, const struct stat *st)
{
	struct stat now;
	int fd, err;

	fd = openat(s->parentfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_err("%s: open: %s", s->dir, strerror(-err));
		return err;
	}
	err = fstat(fd, &now) ? -errno : 0;
	if (!err && (!same_file(&now, st) || now.st_uid != geteuid())) {
		pr_err("%s: replaced while prec looked at it; not using it", s->dir);
		err = -EAGAIN;
	}
	if (!err)
		err = dir_empty(fd);
	if (err == 1)
		err = fchmod(fd, 0700) ? -errno : dir_empty(fd);
	if (err == 1) {
		s->dirfd = fd;
		return 0;
	}
	close(fd);
	if (err == 0)
		return -ENOTEMPTY;
	if (err != -EAGAIN)
		pr_err("%s: %s", s->dir, strerror(-err));
	return err;
}

static int rename_noreplace(int dfd, const char *from, const char *to)
{
	struct stat st;

	if (!renameat2(dfd, from, dfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* A file system without RENAME_NOREPLACE: look first. */
	if (!fstatat(dfd, to, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return renameat(dfd, from, dfd, to) ? -errno : 0;
}

/* --force: the old output, *st, is kept under another name until the new
 * manifest is on disk, and put back if the new one cannot be made. The
 * aside name, DIR.old.XXXXXXXX, is random: one another user could guess
 * (DIR.old.PID) they could make first, and -f would fail. It is never
 * reused from someone else (RENAME_NOREPLACE), and only *st is ever
 * removed under it (old_dev, old_ino). */
static int move_aside(struct prec_session *s, const struct stat *st)
{
	int err = -EEXIST;

	if (asprintf(&s->old_dir, "%s.old.XXXXXXXX", s->dir) < 0) {
		s->old_dir = NULL;
		return -ENOMEM;
	}
	/* old_dir is dir plus a suffix: its last component starts where
	 * dir's does. */
	s->old_name = s->old_dir + (s->name - s->dir);
	for (int i = 0; i < ASIDE_TRIES && err == -EEXIST; i++) {
		err = prec_file__random_name(s->old_dir + strlen(s->old_dir) - 8, 8);
		if (!err)
			err = rename_noreplace(s->parentfd, s->name, s->old_name);
	}
	if (err) {
		pr_err("%s: moving it aside to %s: %s", s->dir, s->old_dir, strerror(-err));
		free(s->old_dir);
		s->old_dir = NULL;
		s->old_name = NULL;
		return err;
	}
	s->old_dev = st->st_dev;
	s->old_ino = st->st_ino;
	return 0;
}

/* Put -f's old output back under its name. A symlink found there instead
 * (a user who may write to the parent swapped our new directory away) is
 * unlinked, never followed; anything else stays, and so does the old
 * output under its aside name (one warning). */
static void restore_old(struct prec_session *s)
{
	struct stat st;
	int err;

	if (!s->old_dir)
		return;
	if (!fstatat(s->parentfd, s->name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		unlinkat(s->parentfd, s->name, 0);
	err = rename_noreplace(s->parentfd, s->old_name, s->name);
	if (err) {
		pr_warn("%s: restoring it from %s: %s", s->dir, s->old_dir, strerror(-err));
		return;
	}
	free(s->old_dir);
	s->old_dir = NULL;
	s->old_name = NULL;
}

static int make_dir(struct prec_session *s)
{
	struct stat st;
	int err;

	if (mkdirat(s->parentfd, s->name, 0700)) {
		err = -errno;
		pr_err("%s: mkdir: %s", s->dir, strerror(-err));
		return err;
	}
	/* NOFOLLOW: a symlink swapped in since mkdir is refused (ELOOP). */
	s->dirfd = openat(s->parentfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dirfd < 0) {
		err = -errno;
		pr_err("%s: open: %s", s->dir, strerror(-err));
		return err;
	}
	/* Someone else's directory swapped in between mkdir and open. */
	err = fstat(s->dirfd, &st) ? -errno : 0;
	if (!err && st.st_uid != geteuid())
		err = refuse_owner(s, st.st_uid);
	/* 0700 whatever the umask. */
	if (!err && fchmod(s->dirfd, 0700))
		err = -errno;
	if (err) {
		if (err != -EEXIST)
			pr_err("%s: %s", s->dir, strerror(-err));
		close(s->dirfd);
		s->dirfd = -1;
	}
	return err;
}

int prec_session__create_dir(struct prec_session *s, const char *dir,
			     bool force)
{
	struct stat st;
	int err;

	memset(s, 0, sizeof(*s));
	s->dirfd = s->parentfd = s->topfd = -1;
	err = open_parent(s, dir);
	if (err)
		return err;
	if (fstatat(s->parentfd, s->name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = -errno;
		if (err == -ENOENT)
			return make_dir(s);
		pr_err("%s: %s", s->dir, strerror(-err));
		return err;
	}
	if (st.st_uid != geteuid())
		return refuse_owner(s, st.st_uid);
	err = S_ISDIR(st.st_mode) ? use_empty(s, &st) : -ENOTEMPTY;
	if (err != -ENOTEMPTY)
		return err;
	if (!force) {
		pr_err("%s: exists (use -f to replace it)", s->dir);
		return -EEXIST;
	}
	err = move_aside(s, &st);
	if (!err)
		err = make_dir(s);
	if (err)
		restore_old(s);
	return err;
}

static int add_events(struct prec_manifest *m, struct prec_evlist *el)
{
	for (int e = 0; e < el->nr; e++) {
		struct prec_evsel *ev = &el->evsel[e];
		uint8_t attr[128] = { 0 };
		int idx, err = 0;

		memcpy(attr, &ev->attr, sizeof(attr));
		idx = prec_manifest__add_event(m, attr, ev->name);
		if (idx < 0)
			return idx;
		ev->midx = idx;
		/* the leader comes first in the list: its index is known */
		if (ev->leader >= 0)
			m->events[idx].leader1 = (uint32_t)el->evsel[ev->leader].midx + 1;
		for (int c = 0; c < el->nr_cpus && !err; c++)
			for (int t = 0; t < el->nr_tasks && !err; t++) {
				size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
					   (size_t)el->nr_tasks + (size_t)t;

				err = prec_manifest__add_event_id(m, (uint32_t)idx,
					el->ids[i], el->cpus[c], el->tasks[t]);
			}
		if (err)
			return err;
		if (ev->tp_system) {
			err = prec_tracefs__add_formats(m, ev->tp_system, ev->tp_name,
							ev->attr.config);
			if (err) {
				pr_err("event '%s': reading its format from tracefs: %s",
				       ev->name, strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

static int fill_manifest(struct prec_session *s, const struct prec_record_opts *o,
			 struct prec_evlist *el, int argc, char **argv)
{
	struct prec_manifest *m = s->m;
	struct timespec res;
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	int err;

	if (!args)
		return -ENOMEM;
	args[0] = "prec";
	memcpy(args + 1, argv, (size_t)argc * sizeof(*argv));
	err = prec_manifest__set_argv(m, argc + 1, args);
	free(args);
	if (err)
		return err;
	m->state = PREC_STATE_RECORDING;
	memcpy(m->session_id, s->session_id, sizeof(m->session_id));
	err = prec_host__fill(m);
	if (err)
		return err;
	m->clockid = o->clockid;
	if (o->clockid != PREC_CLOCK_PERF && !clock_getres((clockid_t)o->clockid, &res))
		m->clock_res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	/* One instant on both clocks, read back to back. */
	m->ref_wall_ns = prec_now_ns(CLOCK_REALTIME);
	m->ref_clock_ns = event_now(o->clockid, el);
	m->sample_type = prec_evlist__sample_base(el);
	err = prec_time_layout__init(&m->time_layout, m->sample_type);
	if (!err)
		err = add_events(m, el);
	/* perf's TIME_CONV: the first ring's words, kept only if they convert
	 * (a page without cap_user_time_zero leaves it unset). */
	if (el->rings && el->nr_cpus)
		prec_perfclock__read(el->rings[0].page, &m->time_conv);
	/* The rings are mapped by now: intel_pt's words need a control page. */
	if (!err)
		err = prec_evlist__aux_info(el, m);
	return err;
}

/* Copy mode's staging: twice the ring, so a drainer can take a full ring
 * while the previous one is still being written; four times with O_DIRECT,
 * whose writes wait for a batch (and one in flight may take half); 1..8 MiB
 * per CPU. */
static size_t staging_for(const struct prec_record_opts *o)
{
	size_t want = o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) * (o->direct_io ? 4 : 2);

	if (want < 1024 * 1024)
		return 1024 * 1024;
	return want > 8 * 1024 * 1024 ? 8 * 1024 * 1024 : want;
}

/* How far each O_DIRECT staging may grow behind writes that stall:
 * --max-staging, else 256 MiB, all CPUs' together at most a 16th of the
 * memory, and under --max-disk a quarter of a CPU's share of the budget:
 * held data the budget counts as written. Never below the staging. */
static size_t staging_max_for(const struct prec_record_opts *o, int nr_cpus)
{
	uint64_t max = 256ull << 20, mem = (uint64_t)sysconf(_SC_PHYS_PAGES) *
					   (uint64_t)sysconf(_SC_PAGESIZE);

	if (o->max_staging_set) {
		max = o->max_staging;
	} else if (nr_cpus > 0) {
		if (mem / 16 / (uint64_t)nr_cpus < max)
			max = mem / 16 / (uint64_t)nr_cpus;
		if (o->max_disk && o->max_disk / 4 / (uint64_t)nr_cpus < max)
			max = o->max_disk / 4 / (uint64_t)nr_cpus;
	}
	if (max < staging_for(o))
		return 0;
	return max > SIZE_MAX ? SIZE_MAX : (size_t)max;
}

size_t prec_session__staging(const struct prec_record_opts *o)
{
	return staging_for(o);
}

static void writer_opts(const struct prec_session *s, const struct prec_record_opts *o,
			int nr_cpus, struct prec_shard_writer_opts *wo)
{
	/* -z: every shard, the side band too, gets lz4 chunks; the writer
	 * compresses into its own staging, so it is copy mode. */
	*wo = (struct prec_shard_writer_opts){ .copy = o->copy || o->compress,
		.direct = o->direct_io,
		.codec = o->compress ? PREC_CODEC_LZ4 : PREC_CODEC_NONE,
		.lz4_level = o->compress_level > 12 ? 12 : o->compress_level, /* -o FILE: zstd to 22 */
		.staging_bytes = staging_for(o),
		.staging_max = staging_max_for(o, nr_cpus) };
	memcpy(wo->session_id, s->session_id, sizeof(wo->session_id));
}

/* The writers of the recording (with --switch-output, of an epoch: the
 * drainers' arrays are made once) and their manifest entries. */
static int open_writers(struct prec_session *s, const struct prec_record_opts *o,
			struct prec_evlist *el)
{
	struct prec_shard_writer_opts wo;
	struct prec_manifest_shard sh = { 0 };
	char name[32];
	int err;

	writer_opts(s, o, el->nr_cpus, &wo);
	if (o->max_disk) {
		err = prec_max_disk__new(&s->max_disk, o->max_disk, el->nr_cpus,
					 o->callgraph == PREC_CG_DWARF || o->data);
		if (err)
			return err;
	}

	s->nr_cpus = el->nr_cpus;
	s->cpus = el->cpus;
	s->writers = calloc((size_t)el->nr_cpus + 1, sizeof(*s->writers));
	if (!s->pool) {
		err = prec_drainer_pool__new(&s->pool, el->nr_cpus);
		if (err)
			return err;
	}
	if (!s->writer_wait)
		s->writer_wait = calloc((size_t)el->nr_cpus, sizeof(*s->writer_wait));
	if (!s->writers || !s->writer_wait)
		return -ENOMEM;
	for (int c = 0; c <= el->nr_cpus; c++) {
		bool sb = c == el->nr_cpus;

		wo.cpu = sb ? PREC_SIDEBAND_CPU : el->cpus[c];
		/* The side band is kept whole: the budget counts it (max_disk.c). */
		wo.budget = s->max_disk && !sb ? prec_max_disk__budget(s->max_disk) : NULL;
		if (sb)
			snprintf(name, sizeof(name), "%s", PREC_SHARD_SIDEBAND_NAME);
		else
			snprintf(name, sizeof(name), "cpu%03d.shard", el->cpus[c]);
		err = prec_shard_writer__open(&s->writers[c], s->dirfd, name, &wo);
		if (err) {
			pr_err("%s/%s: creating the shard: %s%s", s->dir, name, strerror(-err),
			       err == -ENOMEM && !prec_perm__ipc_lock() ?
			       " (its io_uring counts as locked memory beside the rings: raise 'ulimit -l', or a smaller -m)" : "");
			return err;
		}
		sh.name = name;
		sh.cpu = wo.cpu;
		err = prec_manifest__add_shard(s->m, &sh);
		if (err)
			return err;
	}
	s->direct_io = prec_shard_writer__direct(s->writers[0]);
	pr_debug("shards: %s writes, %zu KiB staging each",
		 s->direct_io ? "O_DIRECT" :
		 wo.copy ? "page-cache" : "zero-copy page-cache", wo.staging_bytes / 1024);
	return 0;
}

/* A shard's writer totals into its manifest entry and the session's
 * records and bytes; ws is filled for the caller's own figures. */
static void count_writer(struct prec_session *s, struct prec_manifest_shard *sh,
			 struct prec_shard_writer *w, struct prec_shard_writer_stats *ws)
{
	prec_shard_writer__stats(w, ws);
	sh->chunks = ws->chunks;
	sh->records = ws->records;
	sh->bytes = ws->payload_bytes;
	sh->raw_bytes = ws->raw_bytes;
	sh->first_time = ws->first_time;
	sh->last_time = ws->last_time;
	s->records += sh->records;
	s->bytes += ws->file_bytes;
}

/* A flight recording's snapshots write shards of their own, apart from
 * the drainers' (a shard has one writing thread), listed in the manifest
 * under the same CPU. */
static int open_flight_writers(struct prec_session *s, const struct prec_record_opts *o,
			       const struct prec_evlist *el)
{
	struct prec_shard_writer_opts wo;
	struct prec_manifest_shard sh = { 0 };
	char name[40];
	int err;

	if (!el->overwrite && !el->aux_snapshot) /* -S: its AUX copies */
		return 0;
	writer_opts(s, o, el->nr_cpus, &wo);
	s->flight_writers = calloc((size_t)el->nr_cpus, sizeof(*s->flight_writers));
	s->flight_shard = calloc((size_t)el->nr_cpus, sizeof(*s->flight_shard));
	if (!s->flight_writers || !s->flight_shard)
		return -ENOMEM;
	for (int c = 0; c < el->nr_cpus; c++) {
		wo.cpu = el->cpus[c];
		snprintf(name, sizeof(name), "cpu%03d.flight.shard", el->cpus[c]);
		err = prec_shard_writer__open(&s->flight_writers[c], s->dirfd, name, &wo);
		if (err) {
			pr_err("%s/%s: creating the shard: %s", s->dir, name, strerror(-err));
			return err;
		}
		sh.name = name;
		sh.cpu = wo.cpu;
		s->flight_shard[c] = s->m->nr_shards;
		err = prec_manifest__add_shard(s->m, &sh);
		if (err)
			return err;
	}
	return 0;
}

/* A flight recording (or --tail-synthesize): the tail synthesis's shard
 * (tail.c), listed in the start manifest like the others, written only by
 * snapshots (or the stop) on the main thread. */
static int open_tail(struct prec_session *s, const struct prec_record_opts *o)
{
	struct prec_shard_writer_opts wo;
	struct prec_manifest_shard sh = { .name = PREC_TAIL_SHARD_NAME,
					  .cpu = PREC_TAIL_CPU };
	int err;

	writer_opts(s, o, s->nr_cpus, &wo);
	wo.cpu = PREC_TAIL_CPU;
	err = prec_shard_writer__open(&s->tail_writer, s->dirfd, PREC_TAIL_SHARD_NAME, &wo);
	if (err) {
		pr_err("%s/%s: creating the shard: %s", s->dir, PREC_TAIL_SHARD_NAME,
		       strerror(-err));
		return err;
	}
	s->tail_shard = (int)s->m->nr_shards;
	return prec_manifest__add_shard(s->m, &sh);
}

/* Flush, count into the manifest and the session's totals, close. */
static int close_tail(struct prec_session *s)
{
	struct prec_manifest_shard *sh;
	struct prec_shard_writer_stats ws;
	int err, e;

	if (!s->tail_writer)
		return 0;
	err = prec_shard_writer__flush(s->tail_writer);
	sh = &s->m->shards[s->tail_shard];
	count_writer(s, sh, s->tail_writer, &ws);
	e = prec_shard_writer__close(s->tail_writer);
	s->tail_writer = NULL;
	return err ? err : e;
}

/* The next epoch's directory under the recording's, as s->dirfd and
 * s->dir. */
static int open_epoch_dir(struct prec_session *s)
{
	char name[32];
	int fd = prec_epochs__make(s->epochs, name, sizeof(name)), err;

	if (fd < 0) {
		pr_err("%s/%s: making the epoch: %s", s->top_dir, name, strerror(-fd));
		return fd;
	}
	s->dirfd = fd;
	if (asprintf(&s->dir, "%s/%s", s->top_dir, name) < 0) {
		s->dir = NULL;
		return -ENOMEM;
	}
	/* Held until the epoch's descriptor is closed, after its final
	 * manifest: merge --follow of an epoch waits for it as for any
	 * recording (the first epoch's is taken again by begin(): a no-op). */
	err = prec_writer_lock__take(fd);
	if (err)
		pr_debug("%s: flock: %s (merge --follow cannot tell if we die)", s->dir,
			 strerror(-err));
	return 0;
}

/* --switch-output: the directory made holds epochs; the first is opened
 * and the session writes into it as into any recording. */
static int begin_epochs(struct prec_session *s, const struct prec_record_opts *o,
			const struct prec_evlist *el, int argc, char **argv)
{
	int err = prec_epochs__new(&s->epochs, s->dirfd, o->switch_max_files);

	if (err)
		return err;
	s->epoch_base = calloc((size_t)el->nr_cpus, sizeof(*s->epoch_base));
	if (!s->epoch_base)
		return -ENOMEM;
	s->o = o;
	s->argc = argc;
	s->argv = argv;
	s->topfd = s->dirfd;
	s->top_dir = s->dir;
	s->dirfd = -1;
	s->dir = NULL;
	return open_epoch_dir(s);
}

int prec_session__begin(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, int argc, char **argv)
{
	int err;

	/* --switch-output: the directory holds epochs, the recordings, each
	 * locked as one (open_epoch_dir()); the directory itself is not. */
	if (o->switch_output) {
		err = begin_epochs(s, o, el, argc, argv);
		if (err)
			return err;
	}
	/* First: a reader following the recording (merge --follow) that finds
	 * no manifest yet waits while the lock is held, and one that finds
	 * the manifest unfinished and no lock held knows we are gone. */
	err = prec_writer_lock__take(s->dirfd);
	if (err)
		pr_debug("%s: flock: %s (merge --follow cannot tell if we die)", s->dir,
			 strerror(-err));
	if (getrandom(s->session_id, sizeof(s->session_id), 0) != sizeof(s->session_id))
		return -errno ? -errno : -EIO;
	s->m = prec_manifest__new();
	if (!s->m)
		return -ENOMEM;
	err = fill_manifest(s, o, el, argc, argv);
	if (err) {
		pr_err("%s/manifest: filling it: %s", s->dir, strerror(-err));
		return err;
	}
	err = open_writers(s, o, el);
	if (!err)
		err = open_flight_writers(s, o, el);
	if (!err && (el->overwrite || o->tail_synthesize))
		err = open_tail(s, o);
	if (err)
		return err;
	if (s->max_disk)
		prec_max_disk__start(s->max_disk, s->m);
	s->m->start_time = event_now(o->clockid, el);
	err = prec_manifest__write(s->m, s->dirfd);
	if (err) {
		pr_err("%s/manifest: writing it: %s", s->dir, strerror(-err));
		return err;
	}
	/* -f's old directory stays aside until the final manifest is on
	 * disk: a crash before then leaves the user both recordings. */
	return 0;
}

/* Room the final manifest may need: what it holds now (events, side-band
 * build-ids) twice over, plus room for ~2,000 build-ids of programs
 * started during the recording. Its temp file and the start manifest
 * coexist for a moment, hence twice. */
static uint64_t reserve_size(const struct prec_manifest *m)
{
	void *buf;
	size_t len = 0;

	if (prec_manifest__encode(m, &buf, &len))
		len = 64 * 1024;
	else
		free(buf);
	return 2 * (uint64_t)len + PREC_MANIFEST_RESERVE_EXTRA;
}

/* Allocate manifest.reserve now, so a disk that fills up during the
 * recording still has room for the final manifest (the file is removed
 * just before that is written). */
static int reserve_manifest_room(struct prec_session *s)
{
	uint64_t len = reserve_size(s->m);
	int fd, err;

	fd = openat(s->dirfd, PREC_MANIFEST_RESERVE_NAME,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto report;
	}
	/* posix_fallocate writes zeros where fallocate is unsupported. */
	err = -posix_fallocate(fd, 0, (off_t)len);
	close(fd);
	if (!err) {
		s->reserve_bytes = len;
		return 0;
	}
	unlinkat(s->dirfd, PREC_MANIFEST_RESERVE_NAME, 0);
report:
	pr_err("%s/%s: reserving %llu KiB for the final manifest: %s", s->dir,
	       PREC_MANIFEST_RESERVE_NAME, (unsigned long long)(len >> 10),
	       strerror(-err));
	return err;
}

static void release_reserve(struct prec_session *s)
{
	if (!s->reserve_bytes)
		return;
	if (unlinkat(s->dirfd, PREC_MANIFEST_RESERVE_NAME, 0) && errno != ENOENT)
		pr_warn("%s/%s: removing it: %s", s->dir, PREC_MANIFEST_RESERVE_NAME,
			strerror(errno));
	s->reserve_bytes = 0;
}

/* -r and --affinity as given, or their defaults resolved: SCHED_FIFO on
 * the ring's own CPU where the kernel allows it (bench/record_ring.sh
 * compares it with the fair scheduler), the fair scheduler on the other
 * CPUs where it does not. */
static void drain_sched(struct prec_session *s, const struct prec_record_opts *o)
{
	s->rt_prio = o->rt_prio;
	s->buildid_cache = !o->no_buildid_cache && !o->no_buildid;
	s->no_buildid = o->no_buildid;
	if (s->rt_prio < 0)
		s->rt_prio = prec_drainer__fifo_allowed(PREC_DRAIN_AUTO_PRIO) ?
			     PREC_DRAIN_AUTO_PRIO : 0;
	s->affinity = o->affinity;
	if (s->affinity == PREC_AFFINITY_AUTO)
		s->affinity = s->rt_prio ? PREC_AFFINITY_CPU : PREC_AFFINITY_OTHERS;
	pr_debug("drainers: -r %d (0: fair scheduler), --affinity %s", s->rt_prio,
		 prec_affinity__name(s->affinity));
}

/* One drainer thread per CPU's drained ring (the flight rings are read by
 * snapshots). */
static int start_drainers(struct prec_session *s, const struct prec_record_opts *o,
			  struct prec_evlist *el)
{
	bool drained = false;
	int err, first;

	drain_sched(s, o);
	/* Its drops keep the drainers from making them: as prompt as they. */
	if (s->max_disk && s->rt_prio)
		prec_disk_budget__fifo(prec_max_disk__budget(s->max_disk), s->rt_prio);
	/* Each drainer disables its CPU's events as it stops, but in a
	 * flight recording, whose last snapshot wants them all disabled
	 * first (the main thread does it then). */
	s->drainers_disable = !el->overwrite;
	for (int c = 0; c < s->nr_cpus; c++) {
		struct prec_drainer_opts d = {
			.cpu = el->cpus[c],
			.ring = &el->rings[c],
			.writer = s->writers[c],
			.layout = s->m->time_layout,
			.clockid = o->clockid,
			/* perf's choice for TIME_CONV: the first ring's page */
			.clock_page = el->rings[0].page,
			.round_ns = o->round_ms * 1000000ull,
			/* A compressing writer has copied (compressed) the
			 * bytes when append() returns: no wait for the file. */
			.copy = o->copy || o->compress,
			.build_id = o->buildid_mmap,
			.pin_cpu = s->affinity != PREC_AFFINITY_NONE ? el->cpus[c] : -1,
			.affinity = s->affinity,
			.rt_prio = s->rt_prio,
			/* A flight recording's snapshot at the stop wants
			 * every event disabled first: the session's. */
			.el = el->overwrite ? NULL : el,
			.el_cpu = c,
		};

		drained = true;
		err = prec_drainer_pool__add(s->pool, c, &d);
		if (err) {
			pr_err("drainer cpu%d: starting: %s\n", el->cpus[c], strerror(-err));
			return err;
		}
	}
	first = prec_drainer_pool__start(s->pool);
	for (int c = 0; first && c < s->nr_cpus; c++) {
		err = prec_drainer__start_error(prec_drainer_pool__at(s->pool, c));
		if (!err)
			continue;
		if (err == -EPERM && s->rt_prio && o->rt_prio > 0) {
			pr_err("option -r %d: SCHED_FIFO refused for the drainer threads: %s\n",
			       s->rt_prio, strerror(-err));
			return err;
		}
		/* The default's probe said yes, the drainer was refused all
		 * the same (a limit changed in between): name no option the
		 * user did not give. */
		if (err == -EPERM && s->rt_prio) {
			pr_err("drainer cpu%d: SCHED_FIFO %d (the default where allowed) refused: %s; -r 0 runs drainers without it\n",
			       el->cpus[c], s->rt_prio, strerror(-err));
			return err;
		}
		pr_err("drainer cpu%d: starting: %s\n", el->cpus[c], strerror(-err));
		return err;
	}
	if (first) {
		pr_err("drainers: starting: %s\n", strerror(-first));
		return first;
	}
	prec_drainer__warn_fifo(drained ? s->rt_prio : 0);
	return 0;
}

/* Every CPU's events (tracking: the tracking events alone): by the
 * drainers when they own their CPUs' events, else one after another. */
static int enable_events(struct prec_session *s, struct prec_evlist *el,
			 bool tracking)
{
	const char *what = tracking ? "tracking event" : "events";
	int err;

	if (!s->drainers_disable)
		return tracking ? prec_evlist__enable_tracking(el) : prec_evlist__enable(el);
	/* From each ring's CPU the ioctls are local: no waits on other CPUs
	 * one after another (many-cpus.md). */
	err = prec_drainer_pool__enable(s->pool, tracking);
	if (err == -ENOENT)
		pr_err("%s: a drainer stopped before it enabled its CPU's", what);
	else if (err)
		pr_err("%s: PERF_EVENT_IOC_ENABLE: %s", what, strerror(-err));
	return err;
}

int prec_session__enable(struct prec_session *s, struct prec_evlist *el)
{
	return enable_events(s, el, false);
}

/* -v: the start's laps inside start(), from record's start as the
 * caller's are. */
static void start_lap(const struct prec_session *s, const char *what)
{
	pr_debug("start: %s at +%.1f ms", what,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - s->t_begin_ns) / 1e6);
}

/* Without --markers nothing is added to the side band after its synthesis:
 * a MARKER with the highest watermark says so, so that a reader following
 * the recording (merge --follow) need not wait on it (docs/format.md). */
static int close_sideband(struct prec_shard_writer *w)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_MARKER,
					.watermark = PREC_WATERMARK_CLOSED };
	int64_t t = prec_shard_writer__append(w, &meta, NULL, 0);

	return t < 0 ? (int)t : 0;
}

/* The queue of each drainer, and their reader. */
static int open_buildid_reader(struct prec_session *s)
{
	s->bid_queues = calloc((size_t)s->nr_cpus, sizeof(*s->bid_queues));
	if (!s->bid_queues)
		return -ENOMEM;
	for (int c = 0; c < s->nr_cpus; c++)
		if (prec_drainer_pool__at(s->pool, c))
			s->bid_queues[c] = prec_drainer__buildid_queue(prec_drainer_pool__at(s->pool, c));
	return prec_buildid_reader__new(&s->bid_reader);
}

/* How often the files of new maps are read: within a round or two of
 * their MMAP2 being drained (a drainer's round is 100 ms by default). */
#define READ_BUILDIDS_MS 100

int prec_session__read_buildids(struct prec_session *s)
{
	if (!s->bid_reader)
		return -1;
	prec_buildid_reader__read(s->bid_reader, s->bid_queues, s->nr_cpus);
	return READ_BUILDIDS_MS;
}

int prec_session__start(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, const pid_t *pids, int nr_pids,
			bool track_first)
{
	struct prec_sideband_opts sbo = { .all_tasks = !pids, .pids = pids,
					  .nr_pids = nr_pids,
					  .data_maps = o->callgraph == PREC_CG_DWARF || o->data,
					  .bpf = !o->no_bpf_event,
					  .cgroups = o->all_cgroups,
					  /* track_first: tracking starts now, not at an exec */
					  .before_exec = pids && !track_first,
					  .user_only = prec_evlist__exclude_kernel(el),
					  .max_bytes = s->max_disk ?
						prec_max_disk__sideband_bound(s->max_disk) : 0,
					  /* --tail-synthesize: the tail names them */
					  .no_tasks = !o->synth_tasks || o->tail_synthesize,
					  .no_maps = !o->synth_maps,
					  .map_timeout_ms = o->proc_map_timeout_ms,
					  .map_timeout = true };
	int err;

	/* Drainers first (their events are still disabled): the side band,
	 * read from /proc, then names prec's own threads too. */
	err = start_drainers(s, o, el);
	if (!err)
		err = open_buildid_reader(s);
	start_lap(s, "drainers started");
	if (!err && track_first) {
		err = enable_events(s, el, true);
		start_lap(s, "tracking events enabled");
	}
	if (err)
		return err;
	s->sbo = sbo;
	s->sbo.before_exec = false; /* a later epoch's: the command runs */
	/* The carry names what the start does: the command, -p or -t and
	 * what they fork (the events inherit), every task only with -a/-C. */
	if (s->max_disk)
		err = prec_max_disk__target(s->max_disk, pids, nr_pids,
					    el->nr && el->evsel[0].attr.inherit);
	if (err)
		return err;
	err = prec_sideband__synthesize(s->writers[s->nr_cpus], s->m, &sbo);
	start_lap(s, "side band read");
	if (err >= 0 && !o->markers)
		err = close_sideband(s->writers[s->nr_cpus]);
	if (err < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", s->dir,
		       PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	/* Nothing more goes to the side band: get its fsync out of the way
	 * now rather than at stop. */
	err = prec_shard_writer__flush(s->writers[s->nr_cpus]);
	if (err) {
		pr_err("%s/%s: %s", s->dir, PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	start_lap(s, "side band fsynced");
	/* After the side band: its build-ids are in the manifest now. */
	return reserve_manifest_room(s);
}

/* ms from the stop to a drainer's CLOCK_MONOTONIC time t (0: never). */
static double since_stop_ms(const struct prec_session *s, uint64_t t)
{
	return t > s->t_stop_ns ? (double)(t - s->t_stop_ns) / 1e6 : 0.0;
}

/* --switch-output: CPU index c's losses since its epoch began, from the
 * drainer's totals (at a cut, those it had as it moved over) and the
 * events' PERF_FORMAT_LOST count read now. */
static void epoch_lost(struct prec_session *s, int c, const struct prec_drainer_stats *ds,
		       uint64_t evlost, struct prec_manifest_shard *sh)
{
	uint64_t *b = s->epoch_base[c];
	uint64_t lost = ds->lost, ls = ds->lost_samples;

	sh->lost = lost - b[0];
	sh->lost_samples = ls - b[1] + (evlost >= b[2] ? evlost - b[2] : 0);
	b[0] = lost;
	b[1] = ls;
	b[2] = evlost;
}

static void shard_totals(struct prec_session *s, struct prec_evlist *el, int c)
{
	struct prec_manifest_shard *sh = &s->m->shards[c];
	struct prec_shard_writer_stats ws;
	struct prec_drainer_stats ds;

	count_writer(s, sh, s->writers[c], &ws);
	if (c < s->nr_cpus)
		s->writer_wait[c] = (struct prec_writer_wait){ ws.wait_ns_max, ws.staging_grown };
	if (c < s->nr_cpus && prec_drainer_pool__at(s->pool, c)) {
		uint64_t evlost = prec_evlist__lost(el, c);

		/* At a cut the drainer runs on: what it handed over. */
		if (s->cuts)
			ds = (struct prec_drainer_stats){ .lost = s->cuts[c].lost,
				.lost_samples = s->cuts[c].lost_samples };
		else
			prec_drainer__stats(prec_drainer_pool__at(s->pool, c), &ds);
		sh->lost = ds.lost;
		sh->lost_samples = ds.lost_samples + evlost;
		if (s->epoch_base)
			epoch_lost(s, c, &ds, evlost, sh);
		pr_debug("drainer cpu%d: %llu wake-ups, %llu chunks, %llu records, %llu bytes; stop seen at +%.1f ms, drained +%.1f, fsynced +%.1f\n",
			 s->cpus[c], (unsigned long long)ds.wakeups,
			 (unsigned long long)ds.chunks,
			 (unsigned long long)ds.records,
			 (unsigned long long)ds.bytes,
			 since_stop_ms(s, ds.stop_seen_ns), since_stop_ms(s, ds.drained_ns),
			 since_stop_ms(s, ds.flushed_ns));
	}
	/* A ring overflow shows both as a LOST record and in the events'
	 * PERF_FORMAT_LOST count: the larger of the two, not the sum. */
	s->lost += prec_manifest_shard__lost(sh);
}

/* CPU index c's flight shard, flushed: the writer's totals and the LOST
 * records its snapshots wrote. */
static void flight_totals(struct prec_session *s, int c)
{
	struct prec_manifest_shard *sh = &s->m->shards[s->flight_shard[c]];
	struct prec_shard_writer_stats ws;

	count_writer(s, sh, s->flight_writers[c], &ws);
	/* Not PERF_FORMAT_LOST: it also counts the drops of a pause whose
	 * LOST record the ring overwrote before the next snapshot, i.e.
	 * records of a stretch the flight recorder keeps no more of than of
	 * any overwritten one. */
	if (s->snap)
		prec_snapshot__lost(s->snap, c, &sh->lost, &sh->lost_samples);
	s->lost += prec_manifest_shard__lost(sh);
}

/* Flush the flight shards (snapshots wait only until their chunks are
 * copied) and count them. Returns the first error. */
static int finish_flight(struct prec_session *s)
{
	int err = 0, e;

	for (int c = 0; s->flight_writers && c < s->nr_cpus; c++) {
		e = prec_shard_writer__flush(s->flight_writers[c]);
		err = err ? err : e;
		flight_totals(s, c);
	}
	return err;
}

static int close_flight(struct prec_session *s)
{
	int err = 0, e;

	for (int c = 0; s->flight_writers && c < s->nr_cpus; c++) {
		e = prec_shard_writer__close(s->flight_writers[c]);
		s->flight_writers[c] = NULL;
		err = err ? err : e;
	}
	return err;
}

/* The maps CPU index c's drainer saw in the epoch being closed: at a cut,
 * those it handed over as it moved on; NULL when it has no drainer. */
static const struct prec_seen_map *maps_of(void *ctx, int c, int *nr)
{
	const struct prec_session *s = ctx;

	*nr = 0;
	if (!prec_drainer_pool__at(s->pool, c))
		return NULL;
	if (!s->cuts)
		return prec_drainer__maps(prec_drainer_pool__at(s->pool, c), nr);
	*nr = (int)s->cuts[c].nr_maps;
	return s->cuts[c].maps;
}

static struct prec_seen_maps seen_maps(struct prec_session *s)
{
	return (struct prec_seen_maps){ .nr = s->nr_cpus, .of = maps_of, .ctx = s };
}

/* The maps' build-ids and the vDSO's into the manifest, and the pairs the
 * drainers' own tables had no room for counted with those the manifest
 * dropped. */
static void add_buildids(struct prec_session *s)
{
	struct prec_seen_maps seen = seen_maps(s);

	prec_buildid_collect__maps(s->m, &seen, s->bid_reader);
	prec_buildid_collect__vdso(s->m, &seen, s->dirfd, s->dir);
	/* At a cut, the dropped pairs of the epoch it ends (handed over
	 * with its maps). */
	for (int c = 0; s->pool && c < s->nr_cpus; c++) {
		struct prec_drainer_stats ds = { 0 };
		uint64_t n;

		if (s->cuts)
			ds.maps_dropped = s->cuts[c].maps_dropped;
		else if (prec_drainer_pool__at(s->pool, c))
			prec_drainer__stats(prec_drainer_pool__at(s->pool, c), &ds);
		if (ds.unflagged)
			pr_debug("cpu%d: %llu MMAP2 records with another session's build-id flag",
				 s->cpus[c], (unsigned long long)ds.unflagged);
		n = s->m->buildids_dropped + ds.maps_dropped;
		s->m->buildids_dropped = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
}

static int stop_drainers(struct prec_session *s)
{
	return s->pool ? prec_drainer_pool__join(s->pool) : 0;
}

static void lap(const struct prec_session *s, const char *what)
{
	if (!s->t_stop_ns)
		return; /* an epoch closed at a cut, not the stop */
	pr_debug("close: %s at +%.1f ms", what,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - s->t_stop_ns) / 1e6);
}

uint64_t prec_session__drained(const struct prec_session *s)
{
	return prec_drainer_pool__bytes(s->pool);
}

int prec_session__drain_failed(struct prec_session *s)
{
	uint64_t n;

	int efd = prec_drainer_pool__notify_fd(s->pool);

	if (efd < 0 || read(efd, &n, sizeof(n)) != sizeof(n))
		return 0;
	for (int c = 0; c < s->nr_cpus && !s->fail_err; c++) {
		int e = prec_drainer_pool__at(s->pool, c) ? prec_drainer__error(prec_drainer_pool__at(s->pool, c)) : 0;

		if (e) {
			s->fail_cpu = s->cpus[c];
			s->fail_err = e;
			s->fail_ns = prec_now_ns(CLOCK_MONOTONIC);
		}
	}
	return s->fail_err != 0;
}

static const char *stop_reason(int err)
{
	if (err == -ENOSPC)
		return "no space left on device";
	if (err == -EDQUOT)
		return "disk quota exceeded";
	return strerror(-err);
}

/* The one line saying why the recording stopped before it was asked to:
 * which shard, what, when (wall clock and time into the recording), how
 * much is safe on disk. */
static void report_stop(struct prec_session *s, int err)
{
	uint64_t mono = prec_now_ns(CLOCK_MONOTONIC), at = s->fail_ns, wall_ns;
	time_t wall;
	struct tm tm;
	char when[32] = "?";
	size_t n;
	char who[32] = "";

	for (int c = 0; c < s->nr_cpus && !s->fail_err; c++)
		if (prec_drainer_pool__at(s->pool, c) && prec_drainer__error(prec_drainer_pool__at(s->pool, c))) {
			s->fail_cpu = s->cpus[c];
			s->fail_err = prec_drainer__error(prec_drainer_pool__at(s->pool, c));
		}
	if (s->fail_err) {
		err = s->fail_err;
		snprintf(who, sizeof(who), "shard cpu%d: ", s->fail_cpu);
	}
	if (!at || at > mono)
		at = s->t_stop_ns ? s->t_stop_ns : mono;
	wall_ns = prec_now_ns(CLOCK_REALTIME) - (mono - at);
	wall = (time_t)(wall_ns / 1000000000ull);
	if (localtime_r(&wall, &tm)) {
		n = strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(when + n, sizeof(when) - n, ".%03u",
			 (unsigned int)(wall_ns / 1000000ull % 1000));
	}
	pr_err("%s%s: stopped at %s (%.3f s in), %.1f MB recorded (%s holds everything before it)",
	       who, stop_reason(err), when,
	       at > s->t_enable_ns ? (double)(at - s->t_enable_ns) / 1e9 : 0.0,
	       (double)s->bytes / 1e6, s->dir);
}

/* Why a tree was not removed whole. -ESTALE: its name holds something
 * else by now (left alone); -EAGAIN: another user renamed or swapped part
 * of it during the walk (what they swapped in was not followed). */
static const char *removal_error(int err)
{
	if (err == -ESTALE)
		return "replaced by someone else, left alone";
	return err == -EAGAIN ? "changed by someone else while being removed" : strerror(-err);
}

static void remove_old_dir(struct prec_session *s)
{
	int err;

	if (!s->old_dir)
		return;
	err = prec_dirtree__remove(s->parentfd, s->old_name, s->old_dev, s->old_ino);
	if (err)
		pr_warn("%s: removing the replaced recording: %s", s->old_dir,
			removal_error(err));
	free(s->old_dir);
	s->old_dir = NULL;
	s->old_name = NULL;
}

static int close_epoch(struct prec_session *s, struct prec_evlist *el, int err);

int prec_session__finish(struct prec_session *s, struct prec_evlist *el)
{
	/* Every shard flushed; the threads' exits are waited for after
	 * the manifest. */
	int err = s->pool ? prec_drainer_pool__stop(s->pool) : 0;

	/* A drainer that stopped early on an error left its CPU's events
	 * enabled: disabled here. */
	for (int c = 0; s->drainers_disable && c < s->nr_cpus; c++)
		if (!prec_drainer__disabled(prec_drainer_pool__at(s->pool, c)))
			prec_evlist__disable_cpu(el, c);
	lap(s, "drainers done (rings empty, shards fsynced)");
	err = close_epoch(s, el, err);
	stop_drainers(s);
	lap(s, "drainers joined");
	if (s->buildid_cache) {
		struct prec_seen_maps seen = seen_maps(s);

		prec_buildid_collect__fill_cache(s->m, &seen);
		lap(s, "build-id cache");
	}
	/* The summary's totals: every epoch's. */
	s->records += s->prior_records;
	s->bytes += s->prior_bytes;
	s->lost += s->prior_lost;
	return err;
}

/* Every writer of the epoch closed (the session's and the flight
 * recorder's). err: the first error so far, returned unless 0. */
static int close_writers(struct prec_session *s, int err)
{
	int e;

	for (int c = 0; s->writers && c <= s->nr_cpus; c++) {
		e = prec_shard_writer__close(s->writers[c]);
		s->writers[c] = NULL;
		if (e && !err)
			err = e;
	}
	e = close_flight(s);
	err = err ? err : e;
	lap(s, "writers closed");
	return err;
}

/* The recording (with --switch-output, the epoch) in s->dirfd closed: its
 * shards flushed and counted (the session's totals, its own), build-ids,
 * writers closed, the final manifest. err: the first error so far,
 * returned unless 0. */
static int close_epoch(struct prec_session *s, struct prec_evlist *el, int err)
{
	int e;

	/* A drainer flushes its shard as it stops (its flush here finds
	 * nothing to do); the side band and the flight recorder's shards are
	 * flushed here, so that the writers' totals count every chunk; at a
	 * cut, the drainers' too. Every shard is durable after this: closing
	 * the writers only frees them, and waits until after the manifest. */
	for (int c = 0; c <= s->nr_cpus; c++) {
		if (!s->writers[c])
			continue;
		e = prec_shard_writer__flush(s->writers[c]);
		err = err ? err : e;
	}
	/* Appends are over: no drop may change a shard after its totals. */
	if (s->max_disk)
		prec_disk_budget__stop(prec_max_disk__budget(s->max_disk));
	s->records = s->bytes = s->lost = 0;
	for (int c = 0; c <= s->nr_cpus; c++)
		if (s->writers[c])
			shard_totals(s, el, c);
	e = finish_flight(s);
	err = err ? err : e;
	e = close_tail(s);
	err = err ? err : e;
	add_buildids(s);
	if (s->no_buildid)
		prec_manifest__clear_buildids(s->m);
	lap(s, "totals and build-ids");
	/* --max-disk's finish wants the writers out of its budget. */
	if (s->max_disk)
		err = close_writers(s, err);
	if (err)
		report_stop(s, err);
	if (s->max_disk) {
		e = prec_max_disk__finish(s->max_disk, s->dirfd, s->m, s->m->start_time);
		err = err ? err : e;
	}
	s->m->stop_time = event_now(s->m->clockid, el);
	s->m->state = PREC_STATE_COMPLETE;
	release_reserve(s);
	e = prec_manifest__write(s->m, s->dirfd);
	if (e) {
		pr_err("%s/manifest: writing it: %s", s->dir, strerror(-e));
		err = err ? err : e;
	} else {
		remove_old_dir(s);
	}
	s->manifest_ns = prec_now_ns(CLOCK_MONOTONIC) - s->t_stop_ns;
	lap(s, "manifest written");
	/* Flushed above: an error here is one the manifest already counts
	 * out (the writer's first error stays its error). */
	return close_writers(s, err);
}

/* ---- --switch-output: the cut from one epoch to the next ---- */

/* An epoch's own part of the session, kept aside while another is
 * current. */
struct epoch_state {
	int dirfd;
	char *dir;
	uint8_t session_id[16];
	struct prec_manifest *m;
	struct prec_shard_writer **writers;
	uint64_t reserve_bytes;
};

static void swap_epoch(struct prec_session *s, struct epoch_state *e)
{
	struct epoch_state t = { .dirfd = s->dirfd, .dir = s->dir, .m = s->m,
				 .writers = s->writers, .reserve_bytes = s->reserve_bytes };

	memcpy(t.session_id, s->session_id, sizeof(t.session_id));
	s->dirfd = e->dirfd;
	s->dir = e->dir;
	memcpy(s->session_id, e->session_id, sizeof(s->session_id));
	s->m = e->m;
	s->writers = e->writers;
	s->reserve_bytes = e->reserve_bytes;
	*e = t;
}

/* The next epoch made current in s: its directory, manifest (a session id
 * of its own: it is a recording of its own), writers, start manifest. */
static int open_epoch(struct prec_session *s, struct prec_evlist *el)
{
	int err = open_epoch_dir(s);

	if (err)
		return err;
	if (getrandom(s->session_id, sizeof(s->session_id), 0) != sizeof(s->session_id))
		return -EIO;
	s->m = prec_manifest__new();
	if (!s->m)
		return -ENOMEM;
	err = fill_manifest(s, s->o, el, s->argc, s->argv);
	if (err) {
		pr_err("%s/manifest: filling it: %s", s->dir, strerror(-err));
		return err;
	}
	err = open_writers(s, s->o, el);
	if (err)
		return err;
	s->m->start_time = event_now(s->o->clockid, el);
	err = prec_manifest__write(s->m, s->dirfd);
	if (err)
		pr_err("%s/manifest: writing it: %s", s->dir, strerror(-err));
	return err;
}

/* An epoch that could not start, current in s: closed and removed. */
static void drop_epoch(struct prec_session *s)
{
	for (int c = 0; s->writers && c <= s->nr_cpus; c++)
		prec_shard_writer__close(s->writers[c]);
	free(s->writers);
	s->writers = NULL;
	prec_manifest__delete(s->m);
	s->m = NULL;
	free(s->dir);
	s->dir = NULL;
	if (s->dirfd < 0)
		return; /* not made: prec_epochs__make() left nothing */
	close(s->dirfd);
	s->dirfd = -1;
	prec_epochs__drop_newest(s->epochs);
}

/* The tasks and maps alive now into the new epoch's side band; the
 * command's (or -p's) children forked since the start too, as the events
 * follow them. Returns records written or -errno. */
static int epoch_tasks(struct prec_session *s, const struct prec_evlist *el)
{
	struct prec_sideband_opts sbo = s->sbo;
	pid_t *pids = NULL;
	int err = 0;

	if (sbo.pids && el->nr && el->evsel[0].attr.inherit) {
		err = prec_tail__select(sbo.pids, sbo.nr_pids, true, &pids);
		sbo.pids = pids;
		sbo.nr_pids = err;
	}
	if (err >= 0)
		err = prec_sideband__synthesize(s->writers[s->nr_cpus], s->m, &sbo);
	free(pids);
	return err;
}

/* The new epoch's side band after the /proc read (epoch_tasks()): the task
 * records the drainers drained into the old epoch from that read on, in
 * time order after the synthesized ones (time 0), and the marker that
 * closes it. Returns 0 or -errno (said). */
static int epoch_sideband(struct prec_session *s, struct prec_drainer_cut *cut)
{
	struct prec_shard_writer *w = s->writers[s->nr_cpus];
	struct prec_capture **caps = calloc((size_t)s->nr_cpus, sizeof(*caps));
	uint64_t dropped = 0;
	int err = caps ? 0 : -ENOMEM;

	for (int c = 0; caps && c < s->nr_cpus; c++) {
		caps[c] = &cut[c].capture;
		dropped += caps[c]->dropped;
	}
	if (!err)
		err = prec_capture__write(caps, s->nr_cpus, &s->m->time_layout, w);
	free(caps);
	if (err >= 0)
		pr_debug("%s/%s: %d task records of the cut replayed", s->dir,
			 PREC_SHARD_SIDEBAND_NAME, err);
	if (dropped)
		pr_warn("%s/%s: %llu task records of the cut did not fit its capture (%u KiB per CPU): the tasks they name may show as :PID in this epoch",
			s->dir, PREC_SHARD_SIDEBAND_NAME, (unsigned long long)dropped,
			PREC_CAPTURE_BYTES / 1024);
	if (err >= 0)
		err = close_sideband(w);
	if (err >= 0)
		err = prec_shard_writer__flush(w);
	if (err < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", s->dir,
		       PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	return reserve_manifest_room(s);
}

/* Why every sample of the new epoch has its task named there: each
 * drainer drains once more into the old epoch from a data_head read after
 * the /proc read, so a sample in the new epoch was published after that
 * read, by a task alive at its end. Such a task was either read, as it
 * was then, or made later; and what changed it after the capture began
 * (FORK, exec's COMM, MMAP2) is in the new epoch's rings or, drained into
 * the old one before its CPU's move, captured and replayed in the side
 * band at its time. Records stamped before the capture began are not:
 * /proc had their effect, and a stale FORK replayed after the read would
 * make perf forget what the read said. */
int prec_session__cut(struct prec_session *s, struct prec_evlist *el)
{
	struct epoch_state old = { .dirfd = -1 };
	struct prec_drainer_cut *cut = calloc((size_t)s->nr_cpus, sizeof(*cut));
	uint64_t since;
	int err, e;

	if (!cut)
		return -ENOMEM;
	swap_epoch(s, &old);
	err = open_epoch(s, el);
	if (err) {
		drop_epoch(s);
		swap_epoch(s, &old);
		free(cut);
		return err;
	}
	/* 0 under a perf clock it cannot read: every task record is taken */
	since = event_now(s->o->clockid, el);
	for (int c = 0; c < s->nr_cpus; c++) {
		cut[c].writer = s->writers[c];
		/* a drainer that has exited moves nothing: no loss twice */
		cut[c].lost = s->epoch_base[c][0];
		cut[c].lost_samples = s->epoch_base[c][1];
		/* no room: every record dropped, and said */
		prec_capture__init(&cut[c].capture, PREC_CAPTURE_BYTES, since);
	}
	prec_drainer_pool__capture(s->pool, cut);
	e = epoch_tasks(s, el);
	err = prec_drainer_pool__cut(s->pool, cut);
	if (err)
		pr_err("%s: a drainer stopped before it moved to this epoch", s->dir);
	if (e < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", s->dir,
		       PREC_SHARD_SIDEBAND_NAME, strerror(-e));
		err = err ? err : e;
	}
	e = epoch_sideband(s, cut);
	err = err ? err : e;
	/* The old epoch, whose writers are all this thread's now. */
	swap_epoch(s, &old);
	s->cuts = cut;
	e = close_epoch(s, el, 0);
	s->cuts = NULL;
	err = err ? err : e;
	s->prior_records += s->records;
	s->prior_bytes += s->bytes;
	s->prior_lost += s->lost;
	swap_epoch(s, &old);
	free(old.writers);
	prec_manifest__delete(old.m);
	close(old.dirfd);
	free(old.dir);
	for (int c = 0; c < s->nr_cpus; c++) {
		prec_drainer__free_maps(cut[c].maps, cut[c].nr_maps);
		prec_capture__exit(&cut[c].capture);
	}
	free(cut);
	prec_epochs__prune(s->epochs, s->top_dir);
	return err;
}

void prec_session__discard(struct prec_session *s)
{
	stop_drainers(s);
	for (int c = 0; s->writers && c <= s->nr_cpus; c++) {
		prec_shard_writer__close(s->writers[c]);
		s->writers[c] = NULL;
	}
	close_flight(s);
	prec_shard_writer__close(s->tail_writer);
	s->tail_writer = NULL;
	/* --switch-output: the whole directory goes, its epoch with it. */
	if (s->topfd >= 0) {
		if (s->dirfd >= 0)
			close(s->dirfd);
		s->dirfd = s->topfd;
		s->topfd = -1;
		free(s->dir);
		s->dir = s->top_dir;
		s->top_dir = NULL;
	}
	if (s->dirfd >= 0) {
		struct stat st;
		int err = fstat(s->dirfd, &st) ? -errno : 0;

		close(s->dirfd);
		s->dirfd = -1;
		if (!err)
			err = prec_dirtree__remove(s->parentfd, s->name, st.st_dev, st.st_ino);
		if (err)
			pr_warn("%s: removing the unfinished recording: %s", s->dir,
				removal_error(err));
	}
	restore_old(s);
}

void prec_session__exit(struct prec_session *s)
{
	if (!s)
		return;
	prec_drainer_pool__delete(s->pool); /* joined first */
	for (int c = 0; s->writers && c <= s->nr_cpus; c++)
		prec_shard_writer__close(s->writers[c]);
	close_flight(s);
	free(s->flight_writers);
	free(s->flight_shard);
	prec_shard_writer__close(s->tail_writer);
	prec_max_disk__delete(s->max_disk); /* after its shards' writers */
	free(s->bid_queues);
	prec_buildid_reader__delete(s->bid_reader);
	free(s->writer_wait);
	free(s->writers);
	prec_manifest__delete(s->m);
	if (s->dirfd >= 0)
		close(s->dirfd);
	if (s->parentfd >= 0)
		close(s->parentfd);
	if (s->topfd >= 0)
		close(s->topfd);
	prec_epochs__delete(s->epochs);
	free(s->epoch_base);
	free(s->top_dir);
	free(s->dir);
	free(s->old_dir);
	memset(s, 0, sizeof(*s));
	s->dirfd = s->parentfd = s->topfd = -1;
}
