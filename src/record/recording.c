// SPDX-License-Identifier: MIT
// One recording: its directory (the output's, or an epoch's), its session
// id, the manifest filled at the start and completed at the close, a
// shard writer per CPU and the side band's, and manifest.reserve, the
// final manifest's room kept from the start. Its struct is this file's
// alone: the other files (the session, the flight shards, the controls,
// the status line) read it through accessors, and a cut replaces the
// session's recording with the next one whole.

#include "record/recording.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/bpf_synth.h"
#include "record/evlist.h"
#include "record/evlist_config.h"
#include "record/evlist_manifest.h"
#include "record/evlist_open.h"
#include "record/host.h"
#include "record/offcpu.h"
#include "record/options.h"
#include "record/perm.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

/* The final manifest's room, kept from the start (see reserve_size()). */
#define PREC_MANIFEST_RESERVE_NAME "manifest.reserve"
#define PREC_MANIFEST_RESERVE_EXTRA (256u * 1024u)

struct prec_recording {
	int dirfd;             /* its directory (owned) */
	char *dir;             /* its path, for messages (owned) */
	uint8_t session_id[16];
	struct prec_manifest *m;
	int nr_cpus;
	struct prec_shard_writer **writers; /* per CPU, then the side band */
	uint64_t reserve_bytes; /* manifest.reserve's size, 0 if none */
	bool bpf_late;          /* the close adds programs loaded meanwhile */
};

static int fill_manifest(struct prec_recording *r, const struct prec_record_opts *o,
			 struct prec_evlist *el, int argc, char **argv)
{
	struct prec_manifest *m = r->m;
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
	memcpy(m->session_id, r->session_id, sizeof(m->session_id));
	err = prec_host__fill(m);
	if (err)
		return err;
	m->clockid = o->clockid;
	if (o->clockid != PREC_CLOCK_PERF && !clock_getres((clockid_t)o->clockid, &res))
		m->clock_res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	/* One instant on both clocks, read back to back. */
	m->ref_wall_ns = prec_now_ns(CLOCK_REALTIME);
	m->ref_clock_ns = prec_evlist__now(el, o->clockid);
	m->sample_type = prec_evlist__sample_base(el);
	/* -z: the perf.data prec merge makes of it is zstd, as perf's */
	m->zstd_level = (uint32_t)prec_record_opts__zstd_level(o);
	err = prec_time_layout__init(&m->time_layout, m->sample_type);
	if (!err)
		err = prec_evlist__describe(el, m);
	/* after the events: the off-CPU section names them by index */
	if (!err)
		err = prec_offcpu__manifest(el, m);
	return err;
}

void prec_recording__writer_opts(const struct prec_recording *r,
				 const struct prec_record_opts *o,
				 struct prec_shard_writer_opts *wo)
{
	/* -z: every shard, the side band too, gets lz4 chunks; the writer
	 * compresses into its own staging, so it is copy mode. */
	*wo = (struct prec_shard_writer_opts){ .copy = o->copy || o->compress,
		.direct = o->direct_io,
		.codec = o->compress ? PREC_CODEC_LZ4 : PREC_CODEC_NONE,
		.lz4_level = o->compress_level > 12 ? 12 : o->compress_level, /* -o FILE: zstd to 22 */
		.staging_bytes = o->staging_bytes,
		.staging_max = o->staging_max };
	memcpy(wo->session_id, r->session_id, sizeof(wo->session_id));
}

/* A shard writer per CPU and the side band's, and their manifest entries. */
static int open_writers(struct prec_recording *r, const struct prec_record_opts *o,
			const struct prec_evlist *el, struct prec_disk_budget *budget)
{
	struct prec_shard_writer_opts wo;
	struct prec_manifest_shard sh = { 0 };
	char name[32];
	int err;

	prec_recording__writer_opts(r, o, &wo);
	r->writers = calloc((size_t)r->nr_cpus + 1, sizeof(*r->writers));
	if (!r->writers)
		return -ENOMEM;
	for (int c = 0; c <= r->nr_cpus; c++) {
		bool sb = c == r->nr_cpus;

		wo.cpu = sb ? PREC_SIDEBAND_CPU : prec_evlist__cpus(el)[c];
		/* The side band is kept whole: the budget counts it (max_disk.c). */
		wo.budget = sb ? NULL : budget;
		if (sb)
			snprintf(name, sizeof(name), "%s", PREC_SHARD_SIDEBAND_NAME);
		else
			snprintf(name, sizeof(name), "cpu%03d.shard", prec_evlist__cpus(el)[c]);
		err = prec_shard_writer__open(&r->writers[c], r->dirfd, name, &wo);
		if (err) {
			pr_err("%s/%s: creating the shard: %s%s", r->dir, name, strerror(-err),
			       err == -ENOMEM && !prec_perm__ipc_lock() ?
			       " (its io_uring counts as locked memory beside the rings: raise 'ulimit -l', or a smaller -m)" : "");
			return err;
		}
		sh.name = name;
		sh.cpu = wo.cpu;
		err = prec_manifest__add_shard(r->m, &sh);
		if (err)
			return err;
	}
	pr_debug("shards: %s writes, %zu KiB staging each",
		 prec_shard_writer__direct(r->writers[0]) ? "O_DIRECT" :
		 wo.copy ? "page-cache" : "zero-copy page-cache", wo.staging_bytes / 1024);
	return 0;
}

int prec_recording__open(struct prec_recording **out, int dirfd, char *dir,
			 const struct prec_recording_opts *ro)
{
	struct prec_recording *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r) {
		if (dirfd >= 0)
			close(dirfd);
		free(dir);
		return -ENOMEM;
	}
	r->dirfd = dirfd;
	r->dir = dir;
	r->nr_cpus = prec_evlist__nr_cpus(ro->el);
	r->bpf_late = !ro->o->no_bpf_event;
	/* First: a reader following the recording (merge --follow) that finds
	 * no manifest yet waits while the lock is held, and one that finds
	 * the manifest unfinished and no lock held knows we are gone. Held
	 * until the descriptor is closed, after the final manifest. */
	err = prec_writer_lock__take(dirfd);
	if (err)
		pr_debug("%s: flock: %s (merge --follow cannot tell if we die)", dir,
			 strerror(-err));
	if (getrandom(r->session_id, sizeof(r->session_id), 0) != sizeof(r->session_id)) {
		err = -errno ? -errno : -EIO;
		goto delete;
	}
	r->m = prec_manifest__new();
	if (!r->m) {
		err = -ENOMEM;
		goto delete;
	}
	err = fill_manifest(r, ro->o, ro->el, ro->argc, ro->argv);
	if (err) {
		pr_err("%s/manifest: filling it: %s", r->dir, strerror(-err));
		goto delete;
	}
	err = open_writers(r, ro->o, ro->el, ro->budget);
	if (err)
		goto delete;
	*out = r;
	return 0;
delete:
	prec_recording__delete(r);
	return err;
}

int prec_recording__dirfd(const struct prec_recording *r)
{
	return r->dirfd;
}

const char *prec_recording__dir(const struct prec_recording *r)
{
	return r->dir;
}

struct prec_manifest *prec_recording__manifest(const struct prec_recording *r)
{
	return r->m;
}

struct prec_shard_writer *prec_recording__writer(const struct prec_recording *r, int i)
{
	return r->writers[i];
}

struct prec_shard_writer *const *prec_recording__writers(const struct prec_recording *r)
{
	return r->writers;
}

/* The manifest written as it is now. Returns 0 or -errno after one line. */
static int write_manifest(struct prec_recording *r)
{
	int err = prec_manifest__write(r->m, r->dirfd);

	if (err)
		pr_err("%s/manifest: writing it: %s", r->dir, strerror(-err));
	return err;
}

int prec_recording__start(struct prec_recording *r, uint64_t start_time)
{
	r->m->start_time = start_time;
	return write_manifest(r);
}

/* Room the final manifest may need: what it holds now (events, side-band
 * build-ids, BPF programs) twice over, plus room for ~2,000 build-ids of
 * programs started during the recording (and bpf_late's bytes of the BPF
 * programs loaded meanwhile). Its temp file and the start manifest
 * coexist for a moment, hence twice. */
static uint64_t reserve_size(const struct prec_manifest *m, bool bpf_late)
{
	void *buf;
	size_t len = 0;

	if (prec_manifest__encode(m, &buf, &len))
		len = 64 * 1024;
	else
		free(buf);
	return 2 * (uint64_t)len + PREC_MANIFEST_RESERVE_EXTRA + (bpf_late ? PREC_BPF_LATE_BYTES : 0);
}

/* The closing MARKER: its watermark above every time tells a reader
 * following the recording that the side band holds nothing more. */
static int close_sideband(struct prec_recording *r)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_MARKER,
					.watermark = PREC_WATERMARK_CLOSED };
	int64_t t = prec_shard_writer__append(r->writers[r->nr_cpus], &meta, NULL, 0);

	return t < 0 ? (int)t : 0;
}

/* Allocate manifest.reserve now, so a disk that fills up during the
 * recording still has room for the final manifest (the file is removed
 * just before that is written). */
static int reserve(struct prec_recording *r)
{
	uint64_t len = reserve_size(r->m, r->bpf_late);
	int fd, err;

	fd = openat(r->dirfd, PREC_MANIFEST_RESERVE_NAME,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto report;
	}
	/* posix_fallocate writes zeros where fallocate is unsupported. */
	err = -posix_fallocate(fd, 0, (off_t)len);
	close(fd);
	if (!err) {
		r->reserve_bytes = len;
		return 0;
	}
	unlinkat(r->dirfd, PREC_MANIFEST_RESERVE_NAME, 0);
report:
	pr_err("%s/%s: reserving %llu KiB for the final manifest: %s", r->dir,
	       PREC_MANIFEST_RESERVE_NAME, (unsigned long long)(len >> 10),
	       strerror(-err));
	return err;
}

int prec_recording__sideband_done(struct prec_recording *r, bool close)
{
	int err = close ? close_sideband(r) : 0;

	if (!err)
		err = prec_shard_writer__flush(r->writers[r->nr_cpus]);
	if (err) {
		pr_err("%s/%s: %s", r->dir, PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	return reserve(r);
}

int prec_recording__complete(struct prec_recording *r, uint64_t stop_time)
{
	r->m->stop_time = stop_time;
	r->m->state = PREC_STATE_COMPLETE;
	if (r->reserve_bytes &&
	    unlinkat(r->dirfd, PREC_MANIFEST_RESERVE_NAME, 0) && errno != ENOENT)
		pr_warn("%s/%s: removing it: %s", r->dir, PREC_MANIFEST_RESERVE_NAME,
			strerror(errno));
	r->reserve_bytes = 0;
	return write_manifest(r);
}

int prec_recording__flush_writers(struct prec_recording *r)
{
	int err = 0, e;

	for (int c = 0; r->writers && c <= r->nr_cpus; c++) {
		if (!r->writers[c])
			continue;
		e = prec_shard_writer__flush(r->writers[c]);
		err = err ? err : e;
	}
	return err;
}

int prec_recording__close_writers(struct prec_recording *r)
{
	int err = 0, e;

	for (int c = 0; r->writers && c <= r->nr_cpus; c++) {
		e = prec_shard_writer__close(r->writers[c]);
		r->writers[c] = NULL;
		err = err ? err : e;
	}
	return err;
}

void prec_recording__delete(struct prec_recording *r)
{
	if (!r)
		return;
	prec_recording__close_writers(r);
	free(r->writers);
	prec_manifest__delete(r->m);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->dir);
	free(r);
}

uint64_t prec_recording__disk_used(const struct prec_recording *r)
{
	uint64_t sum = 0;
	struct stat st;

	for (uint32_t i = 0; r && r->m && i < r->m->nr_shards; i++)
		if (!fstatat(r->dirfd, r->m->shards[i].name, &st, AT_SYMLINK_NOFOLLOW))
			sum += (uint64_t)st.st_blocks * 512u;
	return sum;
}
