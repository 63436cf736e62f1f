// SPDX-License-Identifier: MIT
// Shard writer: the file and its header, the chunk queue and the ring a
// drainer writes through; appends go down one write path (buffered or
// O_DIRECT), tickets complete in order, a drainer waits in the same ring,
// and on a write error the file is cut back to its last whole chunk. With
// --max-disk and O_DIRECT, the shard goes on in segment files as the
// budget hands them over.
//
// One writing thread at a time (a drainer for its CPU shard; the main thread
// for flight and tail shards and the side band's synthesis, then the markers
// thread for the side band), so no lock, and its watermarks are one thread's
// promise.
#include "store/buffered_write.h"
#include "store/direct_write.h"
#include "store/budget_member.h"
#include "store/drain_wait.h"
#include "store/manifest.h"
#include "util/clock.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_QD 256u
#define MAX_QD 8192u
#define DEFAULT_BATCH (1024u * 1024u)
#define DEFAULT_STAGING (8u * 1024u * 1024u)

struct prec_shard_writer {
	int fd;
	int32_t cpu;
	bool copy;
	bool direct;      /* the path is direct_write.c's */
	bool truncated;   /* cut back after an error (once) */
	bool synced;      /* fsync succeeded with synced_n chunks appended */
	bool adopted;     /* the writing thread did the path's adopt() */
	uint64_t synced_n;
	struct prec_uring ring;
	struct prec_chunk_framer framer;
	struct prec_chunk_queue q;
	struct prec_write_path path;
	struct prec_drain_wait wait;
	uint64_t wait_ns_max; /* longest an append() waited for room, or for
			       * the budget's drops */
	size_t staging_grown; /* the most grow_room() took the staging to, 0 before */
	/* --max-disk: the budget's view of this shard, and a buffered
	 * descriptor of the file for its header rewrites and punches */
	struct prec_budget_member *bm;
	int hdr_fd;
	/* segment files: the files before the one written, oldest first,
	 * until their last writes are done, with the offsets they end at */
	int old_fd[PREC_ROTATE_MAX];
	uint64_t old_end[PREC_ROTATE_MAX];
	unsigned int nr_old;
};

static void reap(struct prec_shard_writer *w, bool wait)
{
	prec_uring__reap(&w->ring, wait);
}

static unsigned int inflight(const struct prec_shard_writer *w)
{
	return w->path.ops->inflight(w->path.io);
}

/* After an error: wait for writes in flight, then cut the file back to the
 * last whole chunk (once). */
static void settle(struct prec_shard_writer *w)
{
	if (!w->q.err || w->truncated)
		return;
	while (inflight(w))
		reap(w, true);
	w->truncated = true;
	/* Writes complete out of order: bytes past the last contiguous whole
	 * chunk may be a torn tail or an island; cut them so the file ends at
	 * a chunk boundary. */
	if (ftruncate(w->fd, (off_t)w->q.durable) < 0)
		pr_err("shard cpu%d: truncate to 0x%llx after error: %s",
		       (int)w->cpu, (unsigned long long)w->q.durable,
		       strerror(errno));
}

/* Resubmissions after a reap failed: the writes they carry are lost. */
static void ring_failed(void *ctx, int err)
{
	struct prec_chunk_queue *q = ctx;

	prec_chunk_queue__fail(q, err, q->durable);
}

static int write_shard_header(struct prec_shard_writer *w,
			      const struct prec_shard_writer_opts *o,
			      struct prec_shard_header *hp, uint32_t flags)
{
	struct prec_shard_header h;
	struct timespec ts;
	size_t done = 0;

	memset(&h, 0, sizeof(h));
	h.flags = htole32(flags);
	clock_gettime(CLOCK_REALTIME, &ts);
	h.magic = htole64(PREC_SHARD_MAGIC);
	h.version_major = htole16(PREC_FORMAT_MAJOR);
	h.version_minor = htole16(PREC_FORMAT_MINOR);
	h.header_size = htole32((uint32_t)sizeof(h));
	h.cpu = (int32_t)htole32((uint32_t)o->cpu);
	memcpy(h.session_id, o->session_id, sizeof(h.session_id));
	h.created_ns = htole64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	while (done < sizeof(h)) {
		ssize_t n = pwrite(w->fd, (char *)&h + done, sizeof(h) - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	*hp = h;
	return 0;
}

/* The write path: O_DIRECT where asked for and the file system takes it,
 * else buffered. */
static int open_path(struct prec_shard_writer *w, const struct prec_shard_writer_opts *o,
		     const struct prec_shard_header *hdr)
{
	struct prec_write_setup s = {
		.fd = w->fd,
		.cpu = w->cpu,
		.copy = w->copy,
		.batch_max = o->batch_bytes ? o->batch_bytes : DEFAULT_BATCH,
		.staging_bytes = o->staging_bytes ? o->staging_bytes : DEFAULT_STAGING,
		.staging_max = o->staging_max,
		.ring = &w->ring,
		.q = &w->q,
		.framer = &w->framer,
	};
	int ret;

	if (o->direct && w->copy) {
		ret = prec_direct_write__new(&w->path, &s, hdr, sizeof(*hdr));
		if (ret || w->path.ops) {
			w->direct = !ret;
			return ret;
		}
	}
	return prec_buffered_write__new(&w->path, &s);
}

static int join_budget(struct prec_shard_writer *w, struct prec_disk_budget *b,
		       int dirfd, const char *name, const struct prec_shard_header *hdr)
{
	w->hdr_fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (w->hdr_fd < 0)
		return -errno;
	return prec_disk_budget__join(b, &w->bm, w->hdr_fd, hdr, w->cpu, dirfd, name);
}

/* The files before the one written, each once every byte of it is:
 * closed here, before the budget hears the chunks in them are whole, so
 * that the budget's unlink frees their blocks then and there (the last
 * close of an unlinked file does), never in this thread. */
static void close_old(struct prec_shard_writer *w)
{
	if (!w->nr_old)
		return;
	/* the last writes may be done and not yet reaped (a peek at the
	 * ring, no syscall): the sooner a file closes, the sooner the budget
	 * may drop it */
	if (w->q.durable < w->old_end[0])
		reap(w, false);
	while (w->nr_old && w->q.durable >= w->old_end[0]) {
		close(w->old_fd[0]);
		w->nr_old--;
		memmove(w->old_fd, w->old_fd + 1, w->nr_old * sizeof(w->old_fd[0]));
		memmove(w->old_end, w->old_end + 1, w->nr_old * sizeof(w->old_end[0]));
	}
}

/* Segment files: the chunk about to be framed at q.pos may start the next
 * file, which the budget has open already; up to PREC_ROTATE_MAX files
 * may still be written behind it (staging holds more than a segment). */
static void rotate(struct prec_shard_writer *w)
{
	int fd;

	close_old(w);
	if (w->nr_old == PREC_ROTATE_MAX || w->q.err)
		return;
	fd = prec_disk_budget__rotate(w->bm, w->q.pos);
	if (fd < 0)
		return;
	w->old_fd[w->nr_old] = w->fd;
	w->old_end[w->nr_old++] = w->q.pos;
	w->fd = fd;
	w->path.ops->rotate(w->path.io, fd, w->q.pos);
}

/* The chunk just queued, to the budget. The drops it may make in this
 * thread hold the drainer as a wait for room does: counted as one, so
 * that a loss behind them is blamed on the disk. */
static void budget_note(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
			uint32_t stored, uint32_t raw)
{
	uint64_t held;
	struct prec_budget_chunk c = {
		.off = w->q.pos - PREC_CHUNK_HDR_SIZE - stored, .end = w->q.pos,
		.seq = (uint32_t)(w->q.append_n - 1),
		.records = meta->records, .payload = stored, .raw = raw,
		.first_time = meta->first_time, .last_time = meta->last_time,
		.time = meta->first_time ? meta->first_time : meta->watermark,
	};

	/* every file whose chunks are all written is closed now: what the
	 * budget may drop (up to durable) is in closed files */
	close_old(w);
	c.durable = w->q.durable;
	held = prec_disk_budget__append(w->bm, &c);
	if (held > w->wait_ns_max)
		w->wait_ns_max = held;
}

static void destroy(struct prec_shard_writer *w)
{
	prec_disk_budget__leave(w->bm);
	if (w->hdr_fd >= 0)
		close(w->hdr_fd);
	for (unsigned int i = 0; i < w->nr_old; i++)
		close(w->old_fd[i]);
	prec_uring__exit(&w->ring);
	if (w->fd >= 0)
		close(w->fd);
	if (w->path.ops)
		w->path.ops->delete(w->path.io);
	prec_chunk_queue__exit(&w->q);
	prec_chunk_framer__exit(&w->framer);
	free(w);
}

int prec_shard_writer__open(struct prec_shard_writer **out, int dirfd,
			    const char *name,
			    const struct prec_shard_writer_opts *opts)
{
	struct prec_shard_header hdr;
	struct prec_shard_writer *w;
	unsigned int qd;
	int ret;

	*out = NULL;
	if (!opts || !name || (opts->codec != PREC_CODEC_NONE && opts->codec != PREC_CODEC_LZ4))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = w->hdr_fd = -1;
	w->cpu = opts->cpu;
	w->copy = opts->copy || opts->codec == PREC_CODEC_LZ4;
	prec_chunk_framer__init(&w->framer, opts->codec, opts->lz4_level);
	qd = opts->queue_depth ? opts->queue_depth : DEFAULT_QD;
	if (qd > MAX_QD)
		qd = MAX_QD;
	ret = prec_chunk_queue__init(&w->q, qd, w->cpu, sizeof(hdr));
	if (ret)
		goto free_writer;
	ret = prec_uring__init(&w->ring, qd + 2 * PREC_DRAIN_WAIT_FDS + 4);
	if (ret < 0)
		goto free_writer;
	prec_uring__on_error(&w->ring, ring_failed, &w->q);
	prec_drain_wait__init(&w->wait, &w->ring);
	w->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		ret = -errno;
		goto free_writer;
	}
	/* segment files where the budget's drops would otherwise punch the
	 * file an O_DIRECT append waits on (docs/format.md, "Trimmed shards") */
	ret = write_shard_header(w, opts, &hdr,
				 opts->budget && opts->direct && w->copy ? PREC_SHARD_SEGMENTS : 0);
	if (!ret)
		ret = open_path(w, opts, &hdr);
	if (!ret && !w->direct && hdr.flags)
		ret = write_shard_header(w, opts, &hdr, 0);
	if (!ret && opts->budget)
		ret = join_budget(w, opts->budget, dirfd, name, &hdr);
	if (ret)
		goto unlink_file;
	*out = w;
	return 0;

unlink_file:
	unlinkat(dirfd, name, 0);
free_writer:
	destroy(w);
	return ret;
}

/* ------------------------------------------------------------------------ */

static bool room_for(const struct prec_shard_writer *w, size_t len)
{
	return !prec_chunk_queue__full(&w->q) && w->path.ops->fits(w->path.io, len);
}

/* where: "behind" (an append found no room) or "ahead of" (at a sleep) */
static void grown(struct prec_shard_writer *w, size_t bytes, const char *where)
{
	if (!bytes)
		return;
	prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging grown to %zu KiB %s a stalled write",
		 (int)w->cpu, bytes / 1024, where);
	if (bytes > w->staging_grown)
		w->staging_grown = bytes;
}

/* A path that can grow makes room so, the queue's slots with it, rather
 * than have the drainer wait on a write that stalls. */
static bool grow_room(struct prec_shard_writer *w, size_t len)
{
	size_t bytes;
	bool room;

	if (!w->path.ops->grow || w->q.err)
		return false;
	if (prec_chunk_queue__full(&w->q) && prec_chunk_queue__grow(&w->q, MAX_QD) < 0)
		return false;
	if (w->path.ops->fits(w->path.io, len))
		return true;
	room = w->path.ops->grow(w->path.io, len, &bytes);
	grown(w, bytes, "behind");
	return room;
}

static int wait_room(struct prec_shard_writer *w, size_t len)
{
	while (!room_for(w, len)) {
		if (w->q.err)
			return w->q.err;
		w->path.ops->push(w->path.io, PREC_PUSH_ROOM);
		if (!inflight(w) && !w->q.err)
			return -EIO; /* cannot happen: nothing would free room */
		reap(w, true);
	}
	return w->q.err;
}

/* Block until a slot (and len staging bytes in copy mode) is free. How long
 * it took is kept: a drainer held here by the disk is how a ring overflows
 * behind a slow write, and the loss warning says so. */
static int make_room(struct prec_shard_writer *w, size_t len)
{
	uint64_t t0;
	int ret;

	if (room_for(w, len) || grow_room(w, len))
		return w->q.err;
	t0 = prec_now_ns(CLOCK_MONOTONIC);
	ret = wait_room(w, len);
	t0 = prec_now_ns(CLOCK_MONOTONIC) - t0;
	if (t0 > w->wait_ns_max)
		w->wait_ns_max = t0;
	return ret;
}

int64_t prec_shard_writer__append(struct prec_shard_writer *w,
				  const struct prec_chunk_meta *meta,
				  const struct iovec *span, int nspan)
{
	uint32_t raw, stored;
	int ret;

	if (w->q.err) {
		settle(w);
		return w->q.err;
	}
	if (!w->adopted)
		prec_shard_writer__adopt(w);
	ret = prec_chunk_framer__check(meta, span, nspan, &raw);
	if (ret)
		return ret;
	if (w->bm && w->direct)
		rotate(w);
	ret = make_room(w, w->copy ? prec_chunk_framer__cap(&w->framer, raw) : 0);
	if (!ret)
		ret = w->path.ops->append(w->path.io, meta, span, nspan, raw, &stored);
	if (ret) {
		settle(w);
		return ret;
	}
	prec_chunk_queue__push(&w->q, meta, stored, raw);
	w->path.ops->push(w->path.io, PREC_PUSH_APPENDED);
	if (w->bm)
		budget_note(w, meta, stored, raw);
	return (int64_t)w->q.append_n;
}

int64_t prec_shard_writer__done(struct prec_shard_writer *w)
{
	if (!w->q.err) {
		w->path.ops->push(w->path.io, PREC_PUSH_BATCH);
		reap(w, false);
	}
	settle(w);
	return (int64_t)(w->copy ? w->q.append_n : w->q.retire_n);
}

int prec_shard_writer__wait(struct prec_shard_writer *w, int64_t ticket)
{
	if (ticket <= 0 || (uint64_t)ticket > w->q.append_n)
		return -EINVAL;
	w->path.ops->push(w->path.io, PREC_PUSH_BATCH);
	while (prec_shard_writer__done(w) < ticket) {
		if (w->q.err)
			return w->q.err;
		reap(w, true);
	}
	return 0;
}

int prec_shard_writer__sleep(struct prec_shard_writer *w, const int *fds,
			     int nfds, uint64_t timeout_ns)
{
	int ret;

	if (nfds < 0 || nfds > PREC_DRAIN_WAIT_FDS || (nfds && !fds))
		return -EINVAL;
	if (w->q.err) {
		settle(w);
		return w->q.err;
	}
	w->path.ops->push(w->path.io, PREC_PUSH_IDLE);
	if (w->path.ops->grow_ahead)
		grown(w, w->path.ops->grow_ahead(w->path.io), "ahead of");
	ret = prec_drain_wait__arm(&w->wait, fds, nfds);
	if (ret)
		return ret;
	if (!prec_drain_wait__ready(&w->wait, nfds) && timeout_ns && !w->q.err) {
		ret = prec_drain_wait__block(&w->wait, nfds, timeout_ns, &w->q.err);
		if (ret)
			return ret;
		/* Direct: what came in while asleep may be old enough now. */
		if (w->direct)
			w->path.ops->push(w->path.io, PREC_PUSH_IDLE);
	}
	if (w->q.err) {
		settle(w);
		return w->q.err;
	}
	return (int)prec_drain_wait__take(&w->wait, nfds);
}

int prec_shard_writer__write_out(struct prec_shard_writer *w)
{
	if (!w->q.err) {
		w->path.ops->drain(w->path.io);
		while (inflight(w))
			reap(w, true);
	}
	settle(w);
	return w->q.err;
}

int prec_shard_writer__flush(struct prec_shard_writer *w)
{
	/* Nothing appended since the last fsync: the file is durable as it
	 * is (a drainer's flush at its stop, then close()'s). Only appends
	 * write to the file once it is open, and an error is never synced. */
	if (w->synced && w->synced_n == w->q.append_n && !w->q.err)
		return 0;
	w->path.ops->drain(w->path.io);
	while (inflight(w))
		reap(w, true);
	settle(w);
	if (w->q.err)
		return w->q.err;
	for (unsigned int i = 0; i < w->nr_old; i++) {
		if (fsync(w->old_fd[i]) < 0) {
			int err = -errno;

			prec_chunk_queue__fail(&w->q, err, w->q.durable);
			return err;
		}
	}
	close_old(w);
	if (fsync(w->fd) < 0) {
		int err = -errno;

		prec_chunk_queue__fail(&w->q, err, w->q.durable);
		return err;
	}
	if (w->bm) {
		int err;

		/* what staging held is on disk now: the budget's drops, if
		 * that passes it, before its header and directory are synced */
		prec_disk_budget__written(w->bm, w->q.durable);
		err = prec_disk_budget__sync(w->bm);

		if (err) {
			prec_chunk_queue__fail(&w->q, err, w->q.durable);
			return err;
		}
	}
	w->synced = true;
	w->synced_n = w->q.append_n;
	return 0;
}

bool prec_shard_writer__direct(const struct prec_shard_writer *w)
{
	int fl = w->direct ? fcntl(w->fd, F_GETFL) : -1;

	return fl >= 0 && (fl & O_DIRECT);
}

void prec_shard_writer__stats(const struct prec_shard_writer *w,
			      struct prec_shard_writer_stats *st)
{
	*st = w->q.st;
	st->wait_ns_max = w->wait_ns_max;
	st->staging_grown = w->staging_grown;
	if (w->bm)
		prec_disk_budget__kept(w->bm, st);
}

void prec_shard_writer__count(const struct prec_shard_writer *w, struct prec_manifest_shard *sh,
			      struct prec_shard_writer_stats *st)
{
	prec_shard_writer__stats(w, st);
	sh->chunks = st->chunks;
	sh->records = st->records;
	sh->bytes = st->payload_bytes;
	sh->raw_bytes = st->raw_bytes;
	sh->first_time = st->first_time;
	sh->last_time = st->last_time;
}

int prec_shard_writer__error(const struct prec_shard_writer *w)
{
	return w->q.err;
}

int prec_shard_writer__close(struct prec_shard_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->path.ops)
		ret = prec_shard_writer__flush(w);
	if (!ret)
		ret = w->q.err;
	destroy(w);
	return ret;
}

void prec_shard_writer__adopt(struct prec_shard_writer *w)
{
	if (w->adopted)
		return;
	w->adopted = true;
	if (w->path.ops->adopt)
		w->path.ops->adopt(w->path.io);
}

int prec_shard_writer__worker_cpus(struct prec_shard_writer *w,
				   const cpu_set_t *cpus)
{
	return prec_uring__worker_cpus(&w->ring, cpus);
}
