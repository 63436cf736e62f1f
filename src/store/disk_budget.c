// SPDX-License-Identifier: MIT
// The disk budget of --max-disk: the bytes a recording's CPU shards hold,
// counted per chunk, and the dropping of their oldest segments (the shard
// header moved past them, then their segment file unlinked, or for a shard
// written in one file their range punched out) when the total passes it.
//
// Why segment files: a hole punched in the file an O_DIRECT append goes to
// holds that append behind the file system's freeing of the extents, long
// enough to overflow a busy ring; so an O_DIRECT CPU shard is written in
// segment files, and a drop unlinks a file no one writes. The shard keeps
// one offset space, one writer, one io_uring and one staging mirror: a
// rotation only changes the descriptor the next write goes to. The trimmer
// thread opens the next file ahead, so the drainer never opens one, and
// closes the old file before the budget may drop it, so the unlink frees the
// blocks in the trimmer. A buffered shard stays one file with holes punched.
// The budget is one count shared by the CPU shards and the oldest data of
// any shard goes first, so an idle CPU keeps its little and a busy one gets
// the rest, which keeps the window where every CPU has data as long as it
// can be. Dropping is done by the trimmer from a little below the budget,
// and by the writer whose append finds what is on disk past it when the
// trimmer was late, under one lock taken once per segment and released for
// the syscalls. The count includes what waits in staging; the writer's
// test leaves it out, so that a stalled file system never stalls a
// drainer in a drop (the staging holds the stall instead).
#include "store/budget_member.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEGMENTS_PER_SHARD 8u
#define BLOCK 4096u
/* The trimmer thread looks at the count this often without a kick. */
#define TRIM_POLL_NS 100000000l
/* ... and this soon when nothing was whole on disk to drop. */
#define TRIM_STUCK_NS 2000000l

/* A run of consecutive chunks of one shard, [off, end). */
struct seg {
	uint64_t off, end;
	uint64_t next_time;   /* order key: the time of the chunk at end */
	uint32_t next_seq;    /* seq of the chunk at end */
	uint64_t min_first, max_last; /* of its chunks' record times */
	uint64_t chunks, records, payload, raw;
	uint32_t file, last;  /* segment files: the numbers of its first and last */
};

struct prec_budget_member {
	struct prec_disk_budget *b;
	int hdr_fd;
	int32_t cpu;
	struct prec_shard_header hdr; /* as on disk (little-endian) */
	_Atomic uint64_t durable;
	/* Segment files (hdr has PREC_SHARD_SEGMENTS): the directory and the
	 * shard's name, the next file opened ahead by the trimmer (next_fd,
	 * number next_n; -1 while there is none), the writer's file (file)
	 * and the offset its next rotation starts at (rot_off, 0: none) */
	int dirfd;
	char *name;
	_Atomic int next_fd;
	uint32_t next_n, file;
	uint64_t rot_off;
	bool want_file;       /* under b->lock: next_fd was taken */
	bool opening;         /* under b->lock: the trimmer opens next_n + 1 */
	bool no_files;        /* under b->lock: opening one failed */
	/* the writer's own: the segment chunks go into now, the end of its
	 * last chunk, and the bytes before it not yet durable (in staging, not
	 * on disk) */
	struct seg cur;
	bool cur_open, first_seen;
	uint64_t end, staged;
	/* under b->lock: closed segments, oldest first, in a growing ring */
	struct seg *segs;
	uint32_t cap, head, n;
	uint64_t punched;     /* holes end here (block 0, the header, stays) */
	struct seg dropped;   /* totals of the segments dropped */
	uint64_t first;       /* time of the first chunk kept, 0 before any */
	bool busy;            /* a segment of it is being dropped (lock released) */
};

struct prec_disk_budget {
	uint64_t limit, segment;
	uint64_t soft;           /* the trimmer thread drops from here on */
	pthread_t thread;
	bool thread_ok, stop;
	pthread_cond_t kick;
	_Atomic bool kicked;
	uint32_t busy_n;         /* members with a drop in flight */
	bool want_file;          /* a member wants its next segment file */
	_Atomic uint64_t used;   /* chunks appended and kept */
	_Atomic uint64_t staged; /* of used, not yet written (members' staged) */
	_Atomic uint64_t fixed;  /* side band and other files */
	_Atomic uint64_t latest; /* the latest chunk time appended */
	pthread_mutex_t lock;
	struct prec_budget_member **members;
	uint32_t nr, cap;
	bool failed;             /* a punch failed: the budget is not kept */
	struct prec_disk_budget_stats st; /* dropped totals, stuck */
};

static void *trimmer(void *arg);

int prec_disk_budget__new(struct prec_disk_budget **out, uint64_t limit, uint32_t nr_shards)
{
	struct prec_disk_budget *b;

	*out = NULL;
	if (!limit || !nr_shards)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->limit = limit;
	b->segment = limit / ((uint64_t)nr_shards * SEGMENTS_PER_SHARD);
	if (b->segment < PREC_DISK_SEGMENT_MIN)
		b->segment = PREC_DISK_SEGMENT_MIN;
	/* Room for the trimmer to be late in: four segments, an eighth of
	 * the limit at least, where that leaves most of it. */
	{
		uint64_t room = 4 * b->segment > limit / 8 ? 4 * b->segment : limit / 8;

		b->soft = limit > 2 * room ? limit - room : limit / 2;
	}
	pthread_mutex_init(&b->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&b->kick, &ca);
		pthread_condattr_destroy(&ca);
	}
	b->thread_ok = !pthread_create(&b->thread, NULL, trimmer, b);
	/* by name in top, perf and a kernel's lockup report */
	if (b->thread_ok)
		pthread_setname_np(b->thread, "prec-trim");
	*out = b;
	return 0;
}

void prec_disk_budget__stop(struct prec_disk_budget *b)
{
	if (!b->thread_ok)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = true;
	pthread_cond_signal(&b->kick);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	b->thread_ok = false;
}

void prec_disk_budget__delete(struct prec_disk_budget *b)
{
	if (!b)
		return;
	prec_disk_budget__stop(b);
	pthread_cond_destroy(&b->kick);
	pthread_mutex_destroy(&b->lock);
	free(b->members);
	free(b);
}

void prec_disk_budget__set_fixed(struct prec_disk_budget *b, uint64_t bytes)
{
	atomic_store_explicit(&b->fixed, bytes, memory_order_relaxed);
}

void prec_disk_budget__stats(struct prec_disk_budget *b, struct prec_disk_budget_stats *st)
{
	pthread_mutex_lock(&b->lock);
	*st = b->st;
	st->window = 0;
	for (uint32_t i = 0; i < b->nr; i++)
		if (b->members[i]->first > st->window)
			st->window = b->members[i]->first;
	pthread_mutex_unlock(&b->lock);
	st->latest = atomic_load_explicit(&b->latest, memory_order_relaxed);
	st->limit = b->limit;
	st->segment = b->segment;
	st->used = atomic_load_explicit(&b->used, memory_order_relaxed) +
		   atomic_load_explicit(&b->fixed, memory_order_relaxed);
	st->staged = atomic_load_explicit(&b->staged, memory_order_relaxed);
}

int prec_disk_budget__fifo(struct prec_disk_budget *b, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!b->thread_ok)
		return -ESRCH;
	return -pthread_setschedparam(b->thread, SCHED_FIFO, &sp);
}

/* Segment file n of m, new and empty, for the writer's O_DIRECT appends
 * (the writer's path falls back to buffered writes where those fail).
 * Returns the descriptor or -errno. */
static int open_file(const struct prec_budget_member *m, uint32_t n)
{
	char name[PREC_SEGMENT_NAME_MAX];
	int fd, ret = prec_shard_segments__name(name, sizeof(name), m->name, n);

	if (ret)
		return ret;
	fd = openat(m->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
		    O_DIRECT, 0600);
	if (fd < 0 && errno == EINVAL)
		fd = openat(m->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

static void member_free(struct prec_budget_member *m)
{
	if (m->dirfd >= 0)
		close(m->dirfd);
	free(m->name);
	free(m->segs);
	free(m);
}

/* The segment file opened ahead and never written goes (empty). */
static void drop_unused(struct prec_budget_member *m)
{
	char name[PREC_SEGMENT_NAME_MAX];
	int fd = atomic_exchange_explicit(&m->next_fd, -1, memory_order_relaxed);

	if (fd < 0)
		return;
	close(fd);
	if (!prec_shard_segments__name(name, sizeof(name), m->name, m->next_n))
		unlinkat(m->dirfd, name, 0);
}

static void release(struct prec_budget_member *m)
{
	drop_unused(m);
	member_free(m);
}

/* Segment files: the directory and name kept, file 1 opened now (the
 * trimmer opens the later ones ahead of their turn). */
static int join_files(struct prec_budget_member *m, int dirfd, const char *name)
{
	int fd;

	m->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (m->dirfd < 0)
		return -errno;
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	fd = open_file(m, 1);
	if (fd < 0)
		return fd;
	m->next_n = 1;
	atomic_store_explicit(&m->next_fd, fd, memory_order_relaxed);
	return 0;
}

int prec_disk_budget__join(struct prec_disk_budget *b, struct prec_budget_member **out,
			   int hdr_fd, const struct prec_shard_header *hdr, int32_t cpu,
			   int dirfd, const char *name)
{
	struct prec_budget_member *m = calloc(1, sizeof(*m));
	int ret = 0;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	m->b = b;
	m->hdr_fd = hdr_fd;
	m->cpu = cpu;
	m->hdr = *hdr;
	m->punched = BLOCK;
	m->dirfd = -1;
	m->next_fd = -1;
	if (le32toh(hdr->flags) & PREC_SHARD_SEGMENTS) {
		ret = join_files(m, dirfd, name);
		if (ret) {
			member_free(m);
			return ret;
		}
	}
	pthread_mutex_lock(&b->lock);
	if (b->nr == b->cap) {
		uint32_t cap = b->cap ? 2 * b->cap : 16;
		void *p = realloc(b->members, cap * sizeof(*b->members));

		if (p) {
			b->members = p;
			b->cap = cap;
		}
	}
	if (b->nr < b->cap)
		b->members[b->nr++] = m;
	else
		ret = -ENOMEM;
	pthread_mutex_unlock(&b->lock);
	if (ret) {
		/* an error before any append: the opened file goes with it */
		release(m);
		return ret;
	}
	*out = m;
	return 0;
}

void prec_disk_budget__leave(struct prec_budget_member *m)
{
	struct prec_disk_budget *b;

	if (!m)
		return;
	b = m->b;
	pthread_mutex_lock(&b->lock);
	/* A drop in flight uses the file's descriptor: wait it out. */
	while (m->busy) {
		pthread_mutex_unlock(&b->lock);
		usleep(1000);
		pthread_mutex_lock(&b->lock);
	}
	for (uint32_t i = 0; i < b->nr; i++) {
		if (b->members[i] == m) {
			b->members[i] = b->members[--b->nr];
			break;
		}
	}
	pthread_mutex_unlock(&b->lock);
	atomic_fetch_sub_explicit(&b->staged, m->staged, memory_order_relaxed);
	release(m);
}

static void seg_merge(struct seg *into, const struct seg *g)
{
	into->chunks += g->chunks;
	into->records += g->records;
	into->payload += g->payload;
	into->raw += g->raw;
	if (g->min_first && (!into->min_first || g->min_first < into->min_first))
		into->min_first = g->min_first;
	if (g->max_last > into->max_last)
		into->max_last = g->max_last;
}

static void seg_add(struct seg *g, const struct prec_budget_chunk *c)
{
	const struct seg one = { .chunks = 1, .records = c->records, .payload = c->payload,
				 .raw = c->raw, .min_first = c->first_time,
				 .max_last = c->last_time };

	seg_merge(g, &one);
}

/* Under the lock. Returns false when there is no room (the segment then
 * grows on: coarser, never wrong). */
static bool push_seg(struct prec_budget_member *m, const struct seg *g)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? 2 * m->cap : 16;
		struct seg *p = malloc(cap * sizeof(*p));

		if (!p)
			return false;
		for (uint32_t i = 0; i < m->n; i++)
			p[i] = m->segs[(m->head + i) % m->cap];
		free(m->segs);
		m->segs = p;
		m->cap = cap;
		m->head = 0;
	}
	m->segs[(m->head + m->n) % m->cap] = *g;
	m->n++;
	return true;
}

/* The header that says the shard starts at off with seq; written before
 * the punch, so that a reader never starts in a hole. */
static int move_header(struct prec_budget_member *m, uint64_t off, uint32_t seq)
{
	struct prec_shard_header h = m->hdr;
	ssize_t n;

	h.flags = htole32(le32toh(h.flags) | PREC_SHARD_TRIMMED);
	h.first_chunk = htole64(off);
	h.first_seq = htole32(seq);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	do
		n = pwrite(m->hdr_fd, &h, sizeof(h), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(h))
		return n < 0 ? -errno : -EIO;
	m->hdr = h;
	return 0;
}

/* Segment files: g's files go, the first one (the shard's own file,
 * holding its header) cut back to the header. None is being written: g
 * is whole on disk, and the writer closed its files before it said so. */
static int unlink_files(struct prec_budget_member *m, const struct seg *g)
{
	char name[PREC_SEGMENT_NAME_MAX];
	int ret = 0;

	for (uint32_t f = g->file; !ret && f <= g->last; f++) {
		if (!f) {
			if (ftruncate(m->hdr_fd, (off_t)le32toh(m->hdr.header_size)) < 0)
				ret = -errno;
			continue;
		}
		ret = prec_shard_segments__name(name, sizeof(name), m->name, f);
		if (!ret && unlinkat(m->dirfd, name, 0) < 0 && errno != ENOENT)
			ret = -errno;
	}
	return ret;
}

/* Drop m's oldest segment g (a copy): header, then its files or its
 * range of the one file, without the lock (m is busy: no one else drops
 * from it). Returns 0 or -errno. */
static int punch(struct prec_budget_member *m, const struct seg *g)
{
	uint64_t to = g->end & ~(uint64_t)(BLOCK - 1);
	int ret = move_header(m, g->end, g->next_seq);

	if (m->name)
		return ret ? ret : unlink_files(m, g);
	if (!ret && to > m->punched) {
		if (fallocate(m->hdr_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)m->punched, (off_t)(to - m->punched)) < 0)
			ret = -errno;
		else
			m->punched = to;
	}
	return ret;
}

/* Under the lock: g, m's oldest segment, is gone from its file. */
static void dropped(struct prec_disk_budget *b, struct prec_budget_member *m, const struct seg *g)
{
	atomic_fetch_sub_explicit(&b->used, g->end - g->off, memory_order_relaxed);
	b->st.segments++;
	b->st.chunks += g->chunks;
	b->st.records += g->records;
	b->st.bytes += g->end - g->off;
	if (g->min_first && (!b->st.first_time || g->min_first < b->st.first_time))
		b->st.first_time = g->min_first;
	if (g->max_last > b->st.last_time)
		b->st.last_time = g->max_last;
	seg_merge(&m->dropped, g);
	m->first = g->next_time;
	m->head = (m->head + 1) % m->cap;
	m->n--;
}

/* The member whose oldest segment is whole in its file and ends at the
 * oldest time: dropping it moves the recording's common start (the latest
 * of the shards' first times) the least. */
static struct prec_budget_member *oldest(struct prec_disk_budget *b)
{
	struct prec_budget_member *best = NULL;
	uint64_t best_t = 0;

	for (uint32_t i = 0; i < b->nr; i++) {
		struct prec_budget_member *m = b->members[i];
		const struct seg *g;

		if (!m->n || m->busy)
			continue;
		g = &m->segs[m->head];
		if (g->end > atomic_load_explicit(&m->durable, memory_order_acquire))
			continue;
		if (!best || g->next_time < best_t) {
			best = m;
			best_t = g->next_time;
		}
	}
	return best;
}

static uint64_t used(struct prec_disk_budget *b)
{
	return atomic_load_explicit(&b->used, memory_order_relaxed) +
	       atomic_load_explicit(&b->fixed, memory_order_relaxed);
}

/* used less what waits in staging (another member's append may have
 * counted its staged bytes before its used ones) */
static uint64_t on_disk(struct prec_disk_budget *b)
{
	uint64_t u = used(b), st = atomic_load_explicit(&b->staged, memory_order_relaxed);

	return st < u ? u - st : 0;
}

/* Drop the oldest droppable segment, lock held (dropped while the
 * syscalls run). Returns 1 if one went, 0 if none could, -errno. */
static int drop_one(struct prec_disk_budget *b)
{
	struct prec_budget_member *m = oldest(b);
	struct seg g;
	int ret;

	if (!m)
		return 0;
	g = m->segs[m->head];
	m->busy = true;
	b->busy_n++;
	pthread_mutex_unlock(&b->lock);
	{
		struct timespec t0, t1;
		uint64_t ns;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = punch(m, &g);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
		     (uint64_t)t0.tv_nsec;
		pthread_mutex_lock(&b->lock);
		if (ns > b->st.punch_ns_max)
			b->st.punch_ns_max = ns;
		b->st.punch_ns += ns;
	}
	m->busy = false;
	b->busy_n--;
	/* its writer rotated meanwhile: open_ahead() passed it over */
	if (m->want_file)
		b->want_file = true;
	if (ret) {
		if (!b->failed)
			pr_err("--max-disk: shard cpu%d: dropping its oldest chunks: %s: the "
			       "recording goes on past the budget", (int)m->cpu, strerror(-ret));
		b->failed = true;
		return ret;
	}
	dropped(b, m, &g);
	return 1;
}

/* Drop until the count is at most to. A writer's append does so past the
 * limit (nothing else would in time); the trimmer thread from the soft
 * limit on, so that appends seldom have to. */
static void trim(struct prec_disk_budget *b, uint64_t to, bool writer)
{
	pthread_mutex_lock(&b->lock);
	while (!b->failed && used(b) > to) {
		int r = drop_one(b);

		if (r < 0)
			break;
		if (!r && b->busy_n) {
			/* the trimmer is dropping one: what it frees may do */
			pthread_mutex_unlock(&b->lock);
			usleep(100);
			pthread_mutex_lock(&b->lock);
			continue;
		}
		if (!r) {
			b->st.stuck += writer;
			break;
		}
	}
	pthread_mutex_unlock(&b->lock);
}

/* Under the lock: the next segment file of each member whose writer took
 * the one opened ahead (the lock dropped around each openat, the member
 * kept busy meanwhile). A member whose open fails goes on in the file it
 * writes, its segments spanning more files' worth. */
static void open_ahead(struct prec_disk_budget *b)
{
	for (;;) {
		struct prec_budget_member *m = NULL;
		uint32_t n;
		int fd;

		for (uint32_t i = 0; i < b->nr && !m; i++)
			if (b->members[i]->want_file && !b->members[i]->busy)
				m = b->members[i];
		if (!m)
			break;
		m->want_file = false;
		n = m->next_n + 1;
		m->busy = m->opening = true;
		b->busy_n++;
		pthread_mutex_unlock(&b->lock);
		fd = open_file(m, n);
		pthread_mutex_lock(&b->lock);
		m->busy = m->opening = false;
		b->busy_n--;
		if (fd < 0) {
			if (!m->no_files)
				pr_warn("--max-disk: shard cpu%d: segment file %u: %s: its "
					"segments go on in the file it writes", (int)m->cpu, n,
					strerror(-fd));
			m->no_files = true;
			continue;
		}
		m->next_n = n;
		atomic_store_explicit(&m->next_fd, fd, memory_order_release);
	}
	b->want_file = false;
}

static void *trimmer(void *arg)
{
	struct prec_disk_budget *b = arg;

	bool stuck = false;

	pthread_mutex_lock(&b->lock);
	while (!b->stop) {
		struct timespec ts;

		/* The predicate under the lock the kick is sent under: no
		 * kick is lost between this look and the wait. Over the soft
		 * limit with nothing whole to drop: a short wait for writes. */
		if ((b->failed || used(b) <= b->soft || stuck) && !b->want_file) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += stuck ? TRIM_STUCK_NS : TRIM_POLL_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&b->kick, &b->lock, &ts);
		}
		atomic_store_explicit(&b->kicked, false, memory_order_relaxed);
		if (b->want_file)
			open_ahead(b);
		stuck = false;
		while (!b->stop && !b->failed && used(b) > b->soft) {
			/* a writer that rotated meanwhile needs its next file
			 * more than the next drop */
			if (b->want_file)
				open_ahead(b);
			if (drop_one(b) <= 0) {
				stuck = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* The trimmer is a whole segment late with the next file: the writer
 * opens it (a rare openat in the drainer, rather than a segment growing
 * past what the budget can drop in time). The lock keeps the trimmer off
 * this member's files meanwhile. Returns the descriptor or -1. */
static int open_late(struct prec_budget_member *m)
{
	struct prec_disk_budget *b = m->b;
	int fd = -1;

	pthread_mutex_lock(&b->lock);
	if (!m->opening && !m->no_files &&
	    atomic_load_explicit(&m->next_fd, memory_order_relaxed) < 0) {
		fd = open_file(m, m->next_n + 1);
		if (fd >= 0) {
			m->next_n++;
			m->want_file = false;
		}
	}
	pthread_mutex_unlock(&b->lock);
	/* or the trimmer's, published meanwhile */
	return fd >= 0 ? fd : atomic_exchange_explicit(&m->next_fd, -1, memory_order_acquire);
}

int prec_disk_budget__rotate(struct prec_budget_member *m, uint64_t pos)
{
	struct prec_disk_budget *b = m->b;
	int fd;

	if (!m->name || !m->cur_open || m->rot_off || pos - m->cur.off < b->segment)
		return -1;
	/* The trimmer publishes next_n before next_fd, and opens no other
	 * until asked below: next_n is the file taken. */
	fd = atomic_exchange_explicit(&m->next_fd, -1, memory_order_acquire);
	/* Not while a segment's worth waits in staging: the file system is
	 * stalled (frozen, say), and an openat would stall the drainer with
	 * it. The segment grows meanwhile; the trimmer opens the next file
	 * once the file system answers again. */
	if (fd < 0 && pos - m->cur.off >= 2 * b->segment &&
	    pos - atomic_load_explicit(&m->durable, memory_order_relaxed) < b->segment)
		fd = open_late(m);
	if (fd < 0)
		return -1;
	m->file = m->next_n;
	m->rot_off = pos;
	pthread_mutex_lock(&b->lock);
	m->want_file = !m->no_files;
	b->want_file = true;
	pthread_cond_signal(&b->kick);
	pthread_mutex_unlock(&b->lock);
	return fd;
}

/* The writer's thread: m durable up to durable, so what of its chunks
 * is in staging is the rest up to its last chunk's end. One add either
 * way: the unsigned difference wraps to the change. */
static void set_staged(struct prec_budget_member *m, uint64_t durable)
{
	uint64_t st = durable < m->end ? m->end - durable : 0;

	atomic_store_explicit(&m->durable, durable, memory_order_release);
	atomic_fetch_add_explicit(&m->b->staged, st - m->staged, memory_order_relaxed);
	m->staged = st;
}

/* The writer's thread, past the limit: drop the oldest in the writer
 * itself (the trimmer was late). Only what is on disk counts here: during
 * a stall the staged bytes pass the limit with nothing written, and a
 * drop then (a header pwrite, an unlink) would wait for the stalled file
 * system in the drainer while its ring overflows. The trimmer counts
 * them, and drops ahead of their writes. Returns how long the drops held
 * the writer, 0 when there were none. */
static uint64_t backstop(struct prec_disk_budget *b)
{
	struct timespec t0, t1;
	uint64_t ns;

	if (on_disk(b) <= b->limit)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	trim(b, b->limit + atomic_load_explicit(&b->staged, memory_order_relaxed), true);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
	     (uint64_t)t0.tv_nsec;
	pthread_mutex_lock(&b->lock);
	b->st.backstops++;
	if (ns > b->st.backstop_ns_max)
		b->st.backstop_ns_max = ns;
	pthread_mutex_unlock(&b->lock);
	return ns;
}

void prec_disk_budget__written(struct prec_budget_member *m, uint64_t durable)
{
	set_staged(m, durable);
	backstop(m->b);
}

/* Does the chunk c end m's current segment (at its start)? With segment
 * files, where the writer rotated to a new file; else past the size. */
static bool seg_ends(const struct prec_budget_member *m, const struct prec_budget_chunk *c)
{
	if (!m->cur_open)
		return false;
	if (m->name)
		return m->rot_off && c->off == m->rot_off;
	return c->off - m->cur.off >= m->b->segment;
}

uint64_t prec_disk_budget__append(struct prec_budget_member *m, const struct prec_budget_chunk *c)
{
	struct prec_disk_budget *b = m->b;

	if (seg_ends(m, c)) {
		bool pushed;

		m->cur.end = c->off;
		m->cur.next_time = c->time;
		m->cur.next_seq = c->seq;
		if (m->name)
			m->cur.last = m->file - 1;
		pthread_mutex_lock(&b->lock);
		pushed = push_seg(m, &m->cur);
		pthread_mutex_unlock(&b->lock);
		m->rot_off = 0;
		if (pushed)
			m->cur_open = false;
	}
	if (c->time > atomic_load_explicit(&b->latest, memory_order_relaxed))
		atomic_store_explicit(&b->latest, c->time, memory_order_relaxed);
	if (!m->first_seen && c->time) {
		m->first_seen = true;
		pthread_mutex_lock(&b->lock);
		if (!m->first)
			m->first = c->time;
		pthread_mutex_unlock(&b->lock);
	}
	if (!m->cur_open) {
		memset(&m->cur, 0, sizeof(m->cur));
		m->cur.off = c->off;
		m->cur.file = m->file;
		m->cur_open = true;
	}
	seg_add(&m->cur, c);
	m->end = c->end;
	atomic_fetch_add_explicit(&b->used, c->end - c->off, memory_order_relaxed);
	set_staged(m, c->durable);
	if (used(b) > b->soft &&
	    !atomic_exchange_explicit(&b->kicked, true, memory_order_relaxed)) {
		pthread_mutex_lock(&b->lock);
		pthread_cond_signal(&b->kick);
		pthread_mutex_unlock(&b->lock);
	}
	return backstop(b);
}

int prec_disk_budget__sync(struct prec_budget_member *m)
{
	struct prec_disk_budget *b = m->b;
	char name[PREC_SEGMENT_NAME_MAX];
	uint32_t lo, hi;
	int ret = 0;

	if (fsync(m->hdr_fd) < 0)
		return -errno;
	if (!m->name)
		return 0;
	pthread_mutex_lock(&b->lock);
	lo = m->n ? m->segs[m->head].file : m->cur_open ? m->cur.file : m->file;
	hi = m->file;
	pthread_mutex_unlock(&b->lock);
	for (uint32_t f = lo ? lo : 1; !ret && f < hi; f++) {
		int fd;

		ret = prec_shard_segments__name(name, sizeof(name), m->name, f);
		fd = ret ? -1 : openat(m->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			/* dropped meanwhile: nothing to keep */
			if (!ret && errno != ENOENT)
				ret = -errno;
			continue;
		}
		if (fsync(fd) < 0)
			ret = -errno;
		close(fd);
	}
	if (!ret && fsync(m->dirfd) < 0)
		ret = -errno;
	return ret;
}

void prec_disk_budget__kept(struct prec_budget_member *m, struct prec_shard_writer_stats *st)
{
	struct prec_disk_budget *b = m->b;
	struct seg kept = { 0 };

	pthread_mutex_lock(&b->lock);
	if (m->dropped.chunks) {
		st->chunks -= m->dropped.chunks;
		st->records -= m->dropped.records;
		st->payload_bytes -= m->dropped.payload;
		st->raw_bytes -= m->dropped.raw;
		for (uint32_t i = 0; i < m->n; i++)
			seg_merge(&kept, &m->segs[(m->head + i) % m->cap]);
		if (m->cur_open)
			seg_merge(&kept, &m->cur);
		st->first_time = kept.min_first;
		st->last_time = kept.max_last;
	}
	pthread_mutex_unlock(&b->lock);
}
