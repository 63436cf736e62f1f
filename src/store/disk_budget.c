// SPDX-License-Identifier: MIT
// The disk budget of --max-disk: the bytes a recording's CPU shards hold,
// counted per chunk, and the dropping of their oldest segments (punched out
// of the files, the shard header moved past them) when the total passes it.
#include "store/disk_budget.h"
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
};

struct prec_budget_member {
	struct prec_disk_budget *b;
	int hdr_fd;
	int32_t cpu;
	struct prec_shard_header hdr; /* as on disk (little-endian) */
	_Atomic uint64_t durable;
	/* the writer's own: the segment chunks go into now */
	struct seg cur;
	bool cur_open, first_seen;
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
	_Atomic uint64_t used;   /* chunks appended and kept */
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
}

int prec_disk_budget__fifo(struct prec_disk_budget *b, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (!b->thread_ok)
		return -ESRCH;
	return -pthread_setschedparam(b->thread, SCHED_FIFO, &sp);
}

int prec_disk_budget__join(struct prec_disk_budget *b, struct prec_budget_member **out,
			   int hdr_fd, const struct prec_shard_header *hdr, int32_t cpu)
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
	if (ret)
		free(m);
	else
		*out = m;
	return ret;
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
	free(m->segs);
	free(m);
}

static void seg_add(struct seg *g, const struct prec_budget_chunk *c)
{
	g->chunks++;
	g->records += c->records;
	g->payload += c->payload;
	g->raw += c->raw;
	if (c->first_time && (!g->min_first || c->first_time < g->min_first))
		g->min_first = c->first_time;
	if (c->last_time > g->max_last)
		g->max_last = c->last_time;
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

/* Drop m's oldest segment g (a copy): header, then punch, without the
 * lock (m is busy: no one else drops from it). Returns 0 or -errno. */
static int punch(struct prec_budget_member *m, const struct seg *g)
{
	uint64_t to = g->end & ~(uint64_t)(BLOCK - 1);
	int ret = move_header(m, g->end, g->next_seq);

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
		if (b->failed || used(b) <= b->soft || stuck) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += stuck ? TRIM_STUCK_NS : TRIM_POLL_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&b->kick, &b->lock, &ts);
		}
		atomic_store_explicit(&b->kicked, false, memory_order_relaxed);
		stuck = false;
		while (!b->stop && !b->failed && used(b) > b->soft) {
			if (drop_one(b) <= 0) {
				stuck = true;
				break;
			}
		}
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

void prec_disk_budget__append(struct prec_budget_member *m, const struct prec_budget_chunk *c)
{
	struct prec_disk_budget *b = m->b;

	atomic_store_explicit(&m->durable, c->durable, memory_order_release);
	if (m->cur_open && c->off - m->cur.off >= b->segment) {
		bool pushed;

		m->cur.end = c->off;
		m->cur.next_time = c->time;
		m->cur.next_seq = c->seq;
		pthread_mutex_lock(&b->lock);
		pushed = push_seg(m, &m->cur);
		pthread_mutex_unlock(&b->lock);
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
		m->cur_open = true;
	}
	seg_add(&m->cur, c);
	atomic_fetch_add_explicit(&b->used, c->end - c->off, memory_order_relaxed);
	if (used(b) > b->soft &&
	    !atomic_exchange_explicit(&b->kicked, true, memory_order_relaxed)) {
		pthread_mutex_lock(&b->lock);
		pthread_cond_signal(&b->kick);
		pthread_mutex_unlock(&b->lock);
	}
	if (used(b) > b->limit) {
		struct timespec t0, t1;
		uint64_t ns;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		trim(b, b->limit, true);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t1.tv_nsec -
		     (uint64_t)t0.tv_nsec;
		pthread_mutex_lock(&b->lock);
		b->st.backstops++;
		if (ns > b->st.backstop_ns_max)
			b->st.backstop_ns_max = ns;
		pthread_mutex_unlock(&b->lock);
	}
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
