// SPDX-License-Identifier: MIT
// The drainer: one thread per CPU ring that sleeps in its shard writer's
// io_uring, frames [data_tail, data_head) (and the AUX area) as chunks, and
// gives the bytes back to the kernel only once they are safe.

#include "record/drainer.h"

#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/drain_walk.h"
#include "record/drainer_place.h"
#include "record/evlist.h"
#include "record/evlist_open.h"
#include "record/options.h"
#include "record/perfclock.h"
#include "record/ring.h"
#include "record/size_gate.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/latch.h"
#include "util/log.h"

#define DEFAULT_ROUND_NS 100000000ull

struct prec_drainer {
	struct prec_drainer_opts o;
	struct prec_drain_walk walk;
	struct prec_drainer_stats st;
	int efd;              /* written by stop() and every ask */
	int stop_req;         /* also set by stop(), read with atomics */
	struct prec_request enable_req; /* prec_drainer_pool__enable() asks */
	bool en_tracking;     /* what it asked: the tracking events alone */
	struct prec_request cut_req;    /* prec_drainer_pool__cut_move() asks */
	struct prec_drainer_cut *cut; /* the cut's, once asked */
	int capture_req;      /* atomic: set_capture() asks, the move ends it */
	int err;              /* first error; the thread stops on it (atomic:
			       * the session reads it while the thread runs) */
	int notify_fd;        /* eventfd the session polls: written once on
			       * the first error, -1 = none */
	uint64_t wm;          /* watermark of the last pass: holds for every
			       * record not yet in a chunk */
	uint64_t bytes_pub;   /* st.bytes after the last pass, for other
			       * threads (atomic: the status line reads it) */
	uint64_t records_pub, lost_pub; /* the same for the status line */
	bool started;
	bool disabled;        /* the thread disabled o.el's CPU's events */
	bool over_size;       /* it found --max-size reached */
	pthread_t thread;
	int start_err;        /* creating this thread failed: -errno */
	/* ask_done() asks to hear when the shard is flushed: the thread's
	 * exit from its request answers it */
	struct prec_request done_req;
};

/* Event-clock time for watermarks. clockid < 0 is the kernel's perf clock:
 * the counter through a control page's TSC conversion, or 0 (a watermark
 * that promises nothing) when the page offers none (perfclock.c). */
static uint64_t watermark_now(const struct prec_drainer *d)
{
	if (d->o.clockid < 0)
		return prec_perfclock__now(d->o.clock_page);
	return prec_now_ns((clockid_t)d->o.clockid);
}

/* Keep the first error, and tell the session at once (it would otherwise
 * notice only at stop): a full disk must stop the whole recording. */
static int fail(struct prec_drainer *d, int err)
{
	uint64_t one = 1;
	int prev = 0;

	if (__atomic_compare_exchange_n(&d->err, &prev, err, false,
					__ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
	    d->notify_fd >= 0 && write(d->notify_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the session is awake anyway. */
	}
	return __atomic_load_n(&d->err, __ATOMIC_RELAXED);
}

/* --max-size reached: this CPU's events disabled, from this CPU as at
 * the stop; what its ring holds is drained as usual. */
static void over_size(struct prec_drainer *d)
{
	d->over_size = true;
	if (d->o.el && !d->disabled) {
		prec_evlist__disable_cpu(d->o.el, d->o.el_cpu);
		d->disabled = true;
	}
}

/* len more ring bytes appended, counted on the pool's gate (--max-size,
 * --switch-output=SIZE). The first time the total is at --max-size this
 * CPU's events are disabled, from this CPU as at the stop, and the session
 * is told: the ring is drained as usual but nothing more comes, so the
 * recording ends within about one ring per CPU of the limit however late
 * the main thread gets to the stop (the start's side band, a cut's /proc
 * read). The chunk that reaches the next cut's mark tells the session too.
 * Per chunk: one atomic add, no lock. */
static void count_size(struct prec_drainer *d, uint64_t len)
{
	unsigned hit;
	uint64_t one = 1;

	if (!d->o.size_gate)
		return;
	hit = prec_size_gate__add(d->o.size_gate, len);
	if (d->over_size)
		hit &= ~(unsigned)PREC_SIZE_GATE_STOP;
	if (!hit)
		return;
	if (hit & PREC_SIZE_GATE_STOP) {
		over_size(d);
		if (d->o.limit_reached)
			d->o.limit_reached(d->o.limit_ctx);
	}
	if (d->notify_fd >= 0 && write(d->notify_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the session is awake anyway. */
	}
}

int prec_drainer__new(struct prec_drainer **out,
		      const struct prec_drainer_opts *opts)
{
	const struct prec_ring *r = opts->ring;
	struct prec_drainer *d;
	int err;

	*out = NULL;
	if (!r || !opts->writer || !r->size || (r->size & (r->size - 1)))
		return -EINVAL;
	if (r->aux && (!r->aux_size || (r->aux_size & (r->aux_size - 1))))
		return -EINVAL;
	/* Flight-recorder rings are walked backwards on a trigger: not yet. */
	if (r->overwrite)
		return -EOPNOTSUPP;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->o = *opts;
	d->notify_fd = -1;
	if (!d->o.round_ns)
		d->o.round_ns = DEFAULT_ROUND_NS;
	d->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->efd < 0) {
		err = -errno;
		goto free_d;
	}
	err = prec_drain_walk__init(&d->walk, &d->o.layout, r->data, r->size);
	if (err)
		goto close_efd;
	d->walk.build_id = opts->build_id;
	*out = d;
	return 0;

close_efd:
	close(d->efd);
free_d:
	free(d);
	return err;
}

/* The ring bytes [pos, pos + len) as one or two iovecs. */
static int ring_spans(const uint8_t *base, uint64_t size, uint64_t pos,
		      uint64_t len, struct iovec iov[2])
{
	uint64_t off = pos & (size - 1);

	iov[0].iov_base = (void *)(base + off);
	if (off + len <= size) {
		iov[0].iov_len = len;
		return 1;
	}
	iov[0].iov_len = size - off;
	iov[1].iov_base = (void *)base;
	iov[1].iov_len = len - (size - off);
	return 2;
}

static void add_times(struct prec_drainer_stats *st,
		      const struct prec_drain_span *s)
{
	if (!s->last_time)
		return;
	if (!st->first_time || s->first_time < st->first_time)
		st->first_time = s->first_time;
	if (s->last_time > st->last_time)
		st->last_time = s->last_time;
}

/* Frame [tail, head) of the data area as DATA chunks cut at record
 * boundaries. Returns chunks appended or -errno; *ticket = the last one. */
static int drain_data(struct prec_drainer *d, uint64_t tail, uint64_t head,
		      uint64_t wm, int64_t *ticket)
{
	const struct prec_ring *r = d->o.ring;
	struct prec_drain_span s;
	int n = 0, err = 0;

	while (tail != head && !err) {
		struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA };
		struct iovec iov[2];
		int64_t t;

		err = prec_drain_walk__span(&d->walk, tail, head,
					    PREC_CHUNK_MAX_PAYLOAD, &s);
		if (s.end == tail)
			break;
		meta.records = s.records;
		meta.first_time = s.first_time;
		meta.last_time = s.last_time;
		/* Records in this pass's later chunks can be older than
		 * wm - slack (they waited in the ring): only the chunk that
		 * ends at head may carry the new watermark. */
		meta.watermark = s.end == head ? wm : d->wm;
		t = prec_shard_writer__append(d->o.writer, &meta, iov,
					      ring_spans(r->data, r->size, tail,
							 s.end - tail, iov));
		if (t < 0)
			return (int)t;
		*ticket = t;
		count_size(d, s.end - tail);
		d->st.records += s.records;
		d->st.bytes += s.end - tail;
		add_times(&d->st, &s);
		tail = s.end;
		n++;
	}
	if (err == -EBADMSG)
		pr_err("drainer cpu%d: ring corrupt at position %llu: record size %u\n",
		       d->o.cpu, (unsigned long long)d->walk.bad_pos,
		       d->walk.bad_size);
	return err ? err : n;
}

/* Frame [tail, head) of the AUX area as AUX chunks. Same returns. */
static int drain_aux(struct prec_drainer *d, uint64_t tail, uint64_t head,
		     uint64_t prev_wm, int64_t *ticket)
{
	const struct prec_ring *r = d->o.ring;
	int n = 0;

	while (tail != head) {
		struct prec_chunk_meta meta = { .type = PREC_CHUNK_AUX };
		uint64_t len = head - tail;
		struct iovec iov[2];
		int64_t t;

		if (len > PREC_CHUNK_MAX_PAYLOAD)
			len = PREC_CHUNK_MAX_PAYLOAD;
		/* The previous pass's: this pass's DATA chunks, written
		 * after, may hold records older than the new one promises. */
		meta.watermark = prev_wm;
		/* Place the bytes in time before every PERF_RECORD_AUX that
		 * names them: those were stamped after the previous pass read
		 * aux_head (less the in-kernel slack), so the merge puts the
		 * AUXTRACE ahead of them. 1 = before everything. */
		meta.first_time = meta.last_time =
			prev_wm > PREC_WATERMARK_SLACK_NS ? prev_wm - PREC_WATERMARK_SLACK_NS : 1;
		meta.aux_offset = tail;
		meta.flags = d->walk.aux_flags;
		t = prec_shard_writer__append(d->o.writer, &meta, iov,
					      ring_spans(r->aux, r->aux_size,
							 tail, len, iov));
		if (t < 0)
			return (int)t;
		*ticket = t;
		count_size(d, len);
		d->st.bytes += len;
		tail += len;
		n++;
	}
	if (n)
		d->walk.aux_flags = 0;
	return n;
}

static int corrupt(struct prec_drainer *d, const char *what, uint64_t tail,
		   uint64_t head)
{
	pr_err("drainer cpu%d: %s corrupt: head %llu tail %llu\n", d->o.cpu,
	       what, (unsigned long long)head, (unsigned long long)tail);
	return fail(d, -EBADMSG);
}

int prec_drainer__drain(struct prec_drainer *d)
{
	struct perf_event_mmap_page *pg = d->o.ring->page;
	uint64_t wm, prev_wm, head, tail, aux_head = 0, aux_tail = 0;
	int64_t ticket = 0;
	int n, na = 0, err;
	/* A read-only AUX area (-S, --aux-sample) is the kernel's to
	 * overwrite: snapshots copy it (aux_snapshot.c), never the drainer. */
	bool aux = d->o.ring->aux && !d->o.ring->aux_overwrite;

	if (__atomic_load_n(&d->err, __ATOMIC_RELAXED))
		return d->err;
	/* Taken before data_head: every record published later was stamped
	 * no earlier than wm - PREC_WATERMARK_SLACK_NS. */
	wm = watermark_now(d);
	prev_wm = d->wm;
	/* aux_head before data_head: the kernel writes the PERF_RECORD_AUX
	 * naming new AUX bytes before it publishes aux_head, so this pass's
	 * data holds it. */
	if (aux) {
		aux_head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
		aux_tail = __atomic_load_n(&pg->aux_tail, __ATOMIC_RELAXED);
		if (aux_head - aux_tail > d->o.ring->aux_size)
			return corrupt(d, "AUX area", aux_tail, aux_head);
	}
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
	if (head - tail > d->o.ring->size)
		return corrupt(d, "ring", tail, head);
	/* AUX chunks before DATA chunks: the merge releases a chunk's records
	 * by ring order once they trail the newest by 1 ms, so an AUX chunk
	 * behind the pass's DATA could follow the PERF_RECORD_AUX naming its
	 * bytes. Their flags come from a header scan ahead of the walk (every
	 * pass: a record may name bytes of an earlier pass). */
	if (aux)
		prec_drain_walk__aux_flags(&d->walk, tail, head);
	if (aux_head != aux_tail) {
		na = drain_aux(d, aux_tail, aux_head, prev_wm, &ticket);
		if (na < 0)
			return fail(d, na);
	}
	/* Read after data_head: a pass that finds no capture asked holds no
	 * record published after set_capture() asked (seq_cst, as the main
	 * thread's store: the /proc read that follows it must not pass it). */
	d->walk.cap = NULL;
	if (__atomic_load_n(&d->capture_req, __ATOMIC_SEQ_CST))
		d->walk.cap = &d->cut->capture;
	n = drain_data(d, tail, head, wm, &ticket);
	if (n < 0)
		return fail(d, n);
	d->wm = wm;
	if (!ticket)
		return 0;
	/* Zero-copy: the writes read the ring itself, so the kernel may
	 * reuse the bytes only once they are in the file. */
	if (!d->o.copy) {
		err = prec_shard_writer__wait(d->o.writer, ticket);
		if (err)
			return fail(d, err);
	}
	if (tail != head)
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	if (aux_tail != aux_head)
		__atomic_store_n(&pg->aux_tail, aux_head, __ATOMIC_RELEASE);
	d->st.chunks += (uint64_t)(n + na);
	__atomic_store_n(&d->bytes_pub, d->st.bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&d->records_pub, d->st.records, __ATOMIC_RELAXED);
	__atomic_store_n(&d->lost_pub, d->walk.lost, __ATOMIC_RELAXED);
	return n + na;
}

static int append_marker(struct prec_drainer *d)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_MARKER };
	int64_t t;

	/* The last pass found the ring empty: its watermark, taken before it
	 * read data_head, is the freshest one that is safe to promise. */
	meta.watermark = d->wm;
	t = prec_shard_writer__append(d->o.writer, &meta, NULL, 0);
	if (t < 0)
		return fail(d, (int)t);
	d->st.chunks++;
	return 0;
}

/* ask_enable(): this CPU's events, from this CPU; none once --max-size
 * is reached (the tracking events' records alone can reach a small one
 * before the sampling events are enabled). */
static void enable_own(struct prec_drainer *d)
{
	if (prec_request__asked(&d->enable_req))
		prec_request__answer(&d->enable_req, d->over_size ? 0 :
				     prec_evlist__enable_cpu(d->o.el, d->o.el_cpu, d->en_tracking));
}

static bool cut_asked(struct prec_drainer *d)
{
	return prec_request__asked(&d->cut_req);
}

/* ask_cut(), and a pass since drained into the old shard: between
 * two passes, so the old shard ends and the new one starts at a chunk
 * boundary and no ring byte is read twice. */
static void cut_own(struct prec_drainer *d)
{
	struct prec_drainer_cut *c = d->cut;
	struct prec_shard_writer *old;
	int err;

	old = d->o.writer;
	d->o.writer = c->writer;
	c->writer = old;
	c->moved = true;
	c->bytes = d->st.bytes;
	c->lost = d->walk.lost;
	c->lost_samples = d->walk.lost_samples;
	prec_drain_walk__take_maps(&d->walk, &c->maps, &c->nr_maps);
	c->maps_dropped = d->walk.maps_dropped;
	d->walk.maps_dropped = 0;
	__atomic_store_n(&d->capture_req, 0, __ATOMIC_RELAXED);
	d->walk.cap = NULL;
	/* The new epoch's side band gets the captured records: their files
	 * are the new epoch's too (its build-ids). */
	err = prec_drain_walk__note_maps(&d->walk, c->capture.buf, c->capture.len);
	if (err)
		fail(d, err);
	prec_request__answer(&d->cut_req, 0);
}

/* Ask d (its eventfd wakes it) with r, counted on l; false when it has
 * exited. */
static bool ask(struct prec_drainer *d, struct prec_request *r, struct prec_latch *l)
{
	uint64_t one = 1;

	if (!prec_request__ask(r, l))
		return false;
	if (write(d->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: a wake-up is pending already. */
	}
	return true;
}

void prec_drainer__set_capture(struct prec_drainer *d, struct prec_drainer_cut *cut)
{
	if (!d || !d->started)
		return;
	d->cut = cut;
	__atomic_store_n(&d->capture_req, 1, __ATOMIC_SEQ_CST);
}

void prec_drainer__ask_cut(struct prec_drainer *d, struct prec_drainer_cut *cut,
			   struct prec_latch *l)
{
	if (!d || !d->started) {
		prec_latch__skip(l);
		return;
	}
	/* set_capture() set it already: the thread may be reading it */
	if (d->cut != cut)
		d->cut = cut;
	ask(d, &d->cut_req, l);
}

void prec_drainer__free_maps(struct prec_seen_map *maps, uint32_t nr)
{
	prec_drain_walk__free_maps(maps, nr);
}

void prec_drainer__ask_enable(struct prec_drainer *d, bool tracking, struct prec_latch *l)
{
	if (!d || !d->started || !d->o.el) {
		prec_latch__skip(l);
		return;
	}
	d->en_tracking = tracking;
	/* Exited already: an error the session will report. */
	ask(d, &d->enable_req, l);
}

/* Sleep, drain, and keep the round's marker promise until stop(). */
static void drain_loop(struct prec_drainer *d)
{
	const uint64_t round = d->o.round_ns;
	uint64_t now = prec_now_ns(CLOCK_MONOTONIC), next = now + round;
	int fds[2], nfds = 0, rc;
	bool stopping, cutting;

	if (d->o.ring->fd >= 0)
		fds[nfds++] = d->o.ring->fd;
	fds[nfds++] = d->efd;
	do {
		rc = prec_shard_writer__sleep(d->o.writer, fds, nfds,
					      next > now ? next - now : 0);
		if (rc < 0 && rc != -EINTR && rc != -ETIME) {
			fail(d, rc);
			return;
		}
		d->st.wakeups++;
		/* The eventfd says: look at stop_req and en_state (both set
		 * before it is written). Emptied so that it wakes us again on
		 * the next write however the poll is triggered. */
		if (rc > 0 && (rc & (1 << (nfds - 1)))) {
			uint64_t v;

			if (read(d->efd, &v, sizeof(v)) < 0) {
				/* EAGAIN: already empty. */
			}
		}
		/* Woken by the drainer that reached --max-size (or its own
		 * ring's wake-up after it): disabled before this pass, and
		 * not enabled again by an enable asked meanwhile. */
		if (d->o.size_gate && !d->over_size && prec_size_gate__stopped(d->o.size_gate))
			over_size(d);
		enable_own(d);
		/* Asked before this pass's data_head: the records published
		 * before the ask go to the old shard (prec_session__cut). */
		cutting = cut_asked(d);
		/* This pass is the last. */
		stopping = __atomic_load_n(&d->stop_req, __ATOMIC_ACQUIRE);
		if (stopping) {
			d->st.stop_seen_ns = prec_now_ns(CLOCK_MONOTONIC);
			/* Disabled before the last pass, as the session
			 * would have before the stop. */
			if (d->o.el && !d->disabled) {
				prec_evlist__disable_cpu(d->o.el, d->o.el_cpu);
				d->disabled = true;
			}
		}
		rc = prec_drainer__drain(d);
		if (rc < 0)
			return;
		if (cutting)
			cut_own(d);
		now = prec_now_ns(CLOCK_MONOTONIC);
		if (stopping)
			d->st.drained_ns = now;
		if (rc > 0) {
			next = now + round;
		} else if (now >= next) {
			if (append_marker(d))
				return;
			next = now + round;
		}
	} while (!stopping);
}

static void *drain_thread(void *arg)
{
	struct prec_drainer *d = arg;
	int err;

	/* First: what the caller runs on the new thread (the pool's
	 * fan-out: the drainers below this one wait for it to start them). */
	if (d->o.started)
		d->o.started(d->o.started_ctx);
	prec_drainer_place__setup(d->o.cpu, d->o.rt_prio, d->o.affinity, d->o.pin_cpu,
				  d->o.writer);
	/* Where it stays: its staging pinned from here, near its CPU, each
	 * drainer its own at once. */
	prec_shard_writer__adopt(d->o.writer);
	drain_loop(d);
	prec_request__exit(&d->enable_req);
	err = prec_shard_writer__flush(d->o.writer);
	if (err)
		fail(d, err);
	/* After the flush: a cut waiting on this thread may close
	 * the writer it kept. */
	prec_request__exit(&d->cut_req);
	d->st.flushed_ns = prec_now_ns(CLOCK_MONOTONIC);
	/* With a notify fd the session reports the stop, once, with its
	 * context (time, bytes so far). */
	if (d->err && d->notify_fd < 0)
		pr_err("drainer cpu%d: stopped: %s\n", d->o.cpu,
		       strerror(-d->err));
	/* Done with everything the session reads: an ask_done() waiting
	 * goes on without waiting for this thread's exit (its io_uring
	 * workers' teardown). */
	prec_request__exit(&d->done_req);
	return NULL;
}

bool prec_drainer__pinned(const struct prec_drainer *d)
{
	return d->o.pin_cpu >= 0 && d->o.pin_cpu < CPU_SETSIZE;
}

/* d's thread, named; anywhere: the CPUs of a thread whose own the kernel
 * refuses (NULL: the creator's). */
int prec_drainer__spawn(struct prec_drainer *d, const cpu_set_t *anywhere)
{
	bool pin = prec_drainer__pinned(d);
	char name[16];
	cpu_set_t set;
	int err;

	if (pin)
		prec_drainer_place__cpus(d->o.affinity, d->o.pin_cpu, &set);
	/* -r: a drainer woken by a filling ring runs at once; under the fair
	 * scheduler it can wait milliseconds behind the task that fills the
	 * ring, or the io-wq workers its own writes keep busy. */
	err = prec_drainer_place__create(&d->thread, d->o.rt_prio, pin ? &set : anywhere,
			    drain_thread, d);
	/* A CPU set the kernel refuses (a CPU gone offline): where
	 * prec_drainer_place__setup() would have warned and run it anywhere. */
	if (err == -EINVAL && pin)
		err = prec_drainer_place__create(&d->thread, d->o.rt_prio, anywhere, drain_thread, d);
	d->start_err = err;
	if (err)
		return err;
	/* Named here, not by the thread itself: the side band, synthesized
	 * from /proc once the drainers exist, then has the name, and perf
	 * shows prec's own threads by name rather than as ":tid". */
	snprintf(name, sizeof(name), "prec-drain-%d", d->o.cpu);
	pthread_setname_np(d->thread, name);
	d->started = true;
	return 0;
}

int prec_drainer__start(struct prec_drainer *d)
{
	if (d->started)
		return -EBUSY;
	return prec_drainer__spawn(d, NULL);
}

int prec_drainer__start_error(const struct prec_drainer *d)
{
	return d->start_err;
}

void prec_drainer__wake(struct prec_drainer *d)
{
	uint64_t one = 1;
	int saved = errno;

	if (write(d->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is already non-zero, the wake is pending. */
	}
	errno = saved;
}

void prec_drainer__stop(struct prec_drainer *d)
{
	uint64_t one = 1;
	int saved = errno;

	__atomic_store_n(&d->stop_req, 1, __ATOMIC_RELEASE);
	if (write(d->efd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is already non-zero, the wake is pending. */
	}
	errno = saved;
}

void prec_drainer__ask_done(struct prec_drainer *d, struct prec_latch *l)
{
	/* Already done (it stopped on an error): no answer due. The latch's
	 * error says only that (-ENOENT): the drainers' own errors are the
	 * answer. */
	if (!d || !d->started)
		prec_latch__skip(l);
	else
		prec_request__ask(&d->done_req, l);
	if (d)
		prec_drainer__stop(d);
}

int prec_drainer__join(struct prec_drainer *d)
{
	if (d->started) {
		pthread_join(d->thread, NULL);
		d->started = false;
	}
	return d->err;
}

void prec_drainer__handover(const struct prec_drainer *d, struct prec_drainer_handover *h)
{
	*h = (struct prec_drainer_handover){ .present = true, .disabled = d->disabled,
		.maps = d->walk.maps, .nr_maps = (int)d->walk.nr_maps };
	prec_drainer__stats(d, &h->st);
}

void prec_drainer__set_notify(struct prec_drainer *d, int fd)
{
	d->notify_fd = fd;
}

uint64_t prec_drainer__bytes(const struct prec_drainer *d)
{
	return __atomic_load_n(&d->bytes_pub, __ATOMIC_RELAXED);
}

void prec_drainer__progress(const struct prec_drainer *d, uint64_t *records, uint64_t *lost)
{
	*records = __atomic_load_n(&d->records_pub, __ATOMIC_RELAXED);
	*lost = __atomic_load_n(&d->lost_pub, __ATOMIC_RELAXED);
}

int prec_drainer__error(const struct prec_drainer *d)
{
	return __atomic_load_n(&d->err, __ATOMIC_ACQUIRE);
}

void prec_drainer__stats(const struct prec_drainer *d,
			 struct prec_drainer_stats *st)
{
	*st = d->st;
	st->lost = d->walk.lost;
	st->lost_samples = d->walk.lost_samples;
	st->maps_dropped = d->walk.maps_dropped;
	st->unflagged = d->walk.unflagged;
}

struct prec_buildid_queue *prec_drainer__buildid_queue(struct prec_drainer *d)
{
	return &d->walk.queue;
}

const struct prec_seen_map *prec_drainer__maps(const struct prec_drainer *d,
					       int *nr)
{
	*nr = (int)d->walk.nr_maps;
	return d->walk.maps;
}

void prec_drainer__delete(struct prec_drainer *d)
{
	if (!d)
		return;
	if (d->started) {
		prec_drainer__stop(d);
		prec_drainer__join(d);
	}
	prec_drain_walk__exit(&d->walk);
	close(d->efd);
	free(d);
}
