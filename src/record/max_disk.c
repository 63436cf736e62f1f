// SPDX-License-Identifier: MIT
// The disk flight recorder (--max-disk): the CPU shards' budget (the store's
// disk_budget.c drops their oldest segments), the side band's files counted
// in it, and the carry shard re-synthesized from /proc as older chunks go.
//
// The carry is taken again from /proc rather than rebuilt from the drained
// records: the recorder keeps no model of tasks and maps, and the tail
// synthesis already writes what perf needs. It names the tasks the recording
// targets (the command's descendants found through /proc's parents, as the
// tail's), and it and the start's side band have bounded shares of the
// budget, a process a sixteenth of each: what a workload maps cannot spend
// the window the budget promises (docs/security.md).
#include "record/max_disk.h"
#include "record/sideband.h"
#include "record/tail.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CARRY_TMP_NAME "carry.shard.tmp"
/* A synthesis reads all of /proc: at most this often, however fast
 * segments go, and at most four per window. */
#define CARRY_EVERY_MS 1000
#define CARRY_PER_WINDOW 4
/* How often the side band's files are looked at while nothing is dropped. */
#define TICK_MS 250
#define MAX_SYNTH 16
/* The carry's share of the budget: carry.shard (the syntheses kept and a
 * new one) at most an eighth, and carry.shard.tmp while it is written as
 * much again, counted before it is written. The start's side band has an
 * eighth too. */
#define CARRY_SHARE 8
#define SIDEBAND_SHARE 8
/* Room for a new synthesis: the last one and a quarter more, and this
 * for the tasks started since. */
#define CARRY_GROWTH (64u * 1024u)

/* One synthesis in the carry: its records stamped base + serial (all
 * before any window, in the order taken), its /proc read over by time at
 * (events' clock); bytes: its chunks in the file. */
struct synth {
	uint64_t serial, at, bytes;
};

struct prec_max_disk {
	struct prec_disk_budget *b;
	bool data_maps, namespaces; /* the carry's synthesis names them */
	pid_t *roots;          /* the tasks the recording targets; NULL: all */
	int nr_roots;
	bool descendants;
	uint64_t bound;        /* the carry's bytes at most (CARRY_SHARE) */
	uint64_t left_out;     /* records the bound left out, every carry */
	uint64_t carried_segments; /* dropped segments when the last carry began */
	uint64_t last_tick_ns, last_carry_ns; /* CLOCK_MONOTONIC */
	bool have_carry, failed;
	struct prec_shard_writer_stats carry_st; /* the carry on disk */
	struct synth syn[MAX_SYNTH]; /* in the carry on disk, oldest first */
	int nr_syn;
	uint64_t next_serial;
};

uint64_t prec_max_disk__minimum(int nr_cpus, size_t staging)
{
	return (uint64_t)nr_cpus * ((uint64_t)staging + 2 * PREC_DISK_SEGMENT_MIN);
}

int prec_max_disk__new(struct prec_max_disk **out, uint64_t limit, int nr_cpus,
		       bool data_maps, bool namespaces)
{
	struct prec_max_disk *md;
	int err;

	*out = NULL;
	if (nr_cpus <= 0)
		return -EINVAL;
	md = calloc(1, sizeof(*md));
	if (!md)
		return -ENOMEM;
	err = prec_disk_budget__new(&md->b, limit, (uint32_t)nr_cpus);
	if (err) {
		free(md);
		return err;
	}
	md->data_maps = data_maps;
	md->namespaces = namespaces;
	md->bound = limit / CARRY_SHARE;
	*out = md;
	return 0;
}

void prec_max_disk__start(struct prec_max_disk *md, struct prec_manifest *m)
{
	struct prec_disk_budget_stats st;

	prec_disk_budget__stats(md->b, &st);
	m->max_disk.limit = st.limit;
	m->max_disk.segment = st.segment;
}

int prec_max_disk__target(struct prec_max_disk *md, const pid_t *pids, int nr,
			  bool descendants)
{
	free(md->roots);
	md->roots = NULL;
	md->nr_roots = 0;
	md->descendants = descendants;
	if (!pids)
		return 0;
	md->roots = malloc(((size_t)nr + 1) * sizeof(*md->roots));
	if (!md->roots)
		return -ENOMEM;
	memcpy(md->roots, pids, (size_t)nr * sizeof(*md->roots));
	md->nr_roots = nr;
	return 0;
}

uint64_t prec_max_disk__sideband_bound(const struct prec_max_disk *md)
{
	return md->bound * CARRY_SHARE / SIDEBAND_SHARE;
}

struct prec_disk_budget *prec_max_disk__budget(struct prec_max_disk *md)
{
	return md->b;
}

void prec_max_disk__delete(struct prec_max_disk *md)
{
	if (!md)
		return;
	prec_disk_budget__delete(md->b);
	free(md->roots);
	free(md);
}

static uint64_t disk_bytes(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_blocks * 512;
}

/* What the budget counts beside the CPU shards: every other file prec
 * writes in the directory, as the disk holds them. */
static uint64_t fixed_bytes(int dirfd)
{
	static const char *const names[] = {
		PREC_SHARD_SIDEBAND_NAME, PREC_CARRY_SHARD_NAME, CARRY_TMP_NAME,
		PREC_MANIFEST_NAME, "manifest.reserve", PREC_VDSO_NAME,
	};
	uint64_t sum = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		sum += disk_bytes(dirfd, names[i]);
	return sum;
}

/* The syntheses a window from window on needs: every one taken in it,
 * and the last one before it (the tasks alive at its start that exited
 * before the next). Returns the first to keep. */
static int first_needed(const struct prec_max_disk *md, uint64_t window)
{
	int i = md->nr_syn;

	while (i > 0 && md->syn[i - 1].at >= window)
		i--;
	return i > 0 ? i - 1 : 0;
}

/* When a synthesis's /proc read ended, on the events' clock: the time
 * first_needed() compares with the window. Not the newest chunk's time,
 * which lags by as long as the drainers are behind (seconds when the disk
 * is): a synthesis so dated looks older than the tasks it missed, and the
 * one before it, which named them, would be dropped as not needed. Under
 * the perf clock, which user space cannot read, the newest chunk's. */
static uint64_t read_end(const struct prec_manifest *m, const struct prec_disk_budget_stats *bs)
{
	uint64_t now = m->clockid >= 0 ? prec_now_ns(m->clockid) : 0;

	return now > bs->latest ? now : bs->latest;
}

/* The kept syntheses' chunks, from the carry on disk into w. */
static int copy_kept(int dirfd, struct prec_shard_writer *w, uint64_t from_time)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int n, err = prec_shard_reader__open(&r, dirfd, PREC_CARRY_SHARD_NAME);

	if (err)
		return err;
	while ((n = prec_shard_reader__next(r, &c)) > 0) {
		struct prec_chunk_meta meta = {
			.type = c.hdr.type, .records = c.hdr.records,
			.first_time = c.hdr.first_time, .last_time = c.hdr.last_time,
			.watermark = c.hdr.watermark,
		};
		struct iovec v = { .iov_base = c.payload, .iov_len = c.len };
		int64_t t;

		if (c.hdr.first_time < from_time || c.hdr.type != PREC_CHUNK_DATA)
			continue;
		t = prec_shard_writer__append(w, &meta, &v, 1);
		/* copy mode: the payload is staged before append() returns */
		if (t < 0) {
			n = (int)t;
			break;
		}
	}
	prec_shard_reader__close(r);
	return n;
}

/* The bytes a new synthesis may want: the last one's and a quarter more,
 * and CARRY_GROWTH (before the first: the start's side band's, a
 * synthesis of the same tasks), at most the bound. */
static uint64_t next_synth(const struct prec_max_disk *md, int dirfd)
{
	uint64_t last = md->nr_syn ? md->syn[md->nr_syn - 1].bytes :
			disk_bytes(dirfd, PREC_SHARD_SIDEBAND_NAME);
	uint64_t want = last + last / 4 + CARRY_GROWTH;

	return want < md->bound ? want : md->bound;
}

/* The new synthesis, of the tasks the recording targets, into w: its
 * records at most bytes (less the chunks' headers). Returns the records
 * left out by the bound or -errno. */
static int64_t synthesize(struct prec_max_disk *md, struct prec_shard_writer *w,
			  struct prec_manifest *m, uint64_t bytes, uint64_t time)
{
	struct prec_sideband_again *t = NULL;
	pid_t *pids = NULL;
	int64_t left;
	int n = 0, err;

	/* A full chunk's header is under 1/512 of its payload; the last,
	 * partial chunk's and the file's header fit in 256 bytes. */
	bytes = bytes > 256 ? bytes - bytes / 512 - 256 : 1;
	if (md->roots) {
		n = prec_tail__select(md->roots, md->nr_roots, md->descendants, &pids);
		if (n < 0)
			return n;
	}
	err = prec_sideband_again__new(&t, w, m, md->data_maps);
	if (!err) {
		prec_sideband_again__bound(t, bytes);
		if (md->namespaces)
			prec_sideband_again__namespaces(t);
		err = prec_sideband_again__write(t, pids, n, time);
	}
	left = err < 0 ? err : (int64_t)prec_sideband_again__left_out(t);
	prec_sideband_again__delete(t);
	free(pids);
	return left;
}

/* A carry into carry.shard.tmp, renamed over carry.shard once whole: a
 * reader sees the last whole carry or the one before, never half of one.
 * It holds the kept syntheses of the one before, then a new one, within
 * the bound: the oldest kept go first, until the new one has the room it
 * may want (next_synth()); the budget counts that room before the file
 * is written, and the new synthesis keeps within it. */
static int write_carry(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
		       uint64_t base)
{
	struct prec_shard_writer_opts wo = { .cpu = PREC_CARRY_CPU, .copy = true };
	struct prec_disk_budget_stats bs;
	struct prec_shard_writer_stats st0 = { 0 }, st = { 0 };
	struct prec_shard_writer *w = NULL;
	uint64_t want = next_synth(md, dirfd), kept = 0, room, avail, at = 0;
	int64_t left = 0;
	int err, e, keep;

	prec_disk_budget__stats(md->b, &bs);
	keep = first_needed(md, bs.window);
	if (md->nr_syn - keep >= MAX_SYNTH)
		keep = md->nr_syn - MAX_SYNTH + 1;
	for (int i = keep; i < md->nr_syn; i++)
		kept += md->syn[i].bytes;
	for (; keep < md->nr_syn && kept + want > md->bound; keep++)
		kept -= md->syn[keep].bytes;
	room = kept + want;
	/* The trimmer makes the room while /proc is read. */
	prec_disk_budget__set_fixed(md->b, fixed_bytes(dirfd) + room);
	memcpy(wo.session_id, m->session_id, sizeof(wo.session_id));
	unlinkat(dirfd, CARRY_TMP_NAME, 0);
	err = prec_shard_writer__open(&w, dirfd, CARRY_TMP_NAME, &wo);
	if (w)
		prec_shard_writer__stats(w, &st0); /* its header */
	if (!err && md->have_carry && keep < md->nr_syn)
		err = copy_kept(dirfd, w, base + md->syn[keep].serial);
	avail = room > st0.file_bytes + kept ? room - st0.file_bytes - kept : 0;
	if (!err) {
		left = synthesize(md, w, m, avail, base + md->next_serial);
		at = read_end(m, &bs);
		err = left < 0 ? (int)left : 0;
	}
	if (!err)
		err = prec_shard_writer__flush(w);
	if (w)
		prec_shard_writer__stats(w, &st);
	e = prec_shard_writer__close(w);
	err = err ? err : e;
	if (!err && renameat(dirfd, CARRY_TMP_NAME, dirfd, PREC_CARRY_SHARD_NAME) < 0)
		err = -errno;
	if (err)
		unlinkat(dirfd, CARRY_TMP_NAME, 0);
	prec_disk_budget__set_fixed(md->b, fixed_bytes(dirfd));
	if (err)
		return err;
	md->have_carry = true;
	md->carry_st = st;
	md->left_out += (uint64_t)left;
	memmove(md->syn, md->syn + keep, (size_t)(md->nr_syn - keep) * sizeof(md->syn[0]));
	md->nr_syn -= keep;
	pr_debug("--max-disk: carry: %d syntheses kept (window from %.6f s), the new one at %.6f s, %llu bytes of %llu",
		 md->nr_syn, (double)bs.window / 1e9, (double)at / 1e9,
		 (unsigned long long)(st.file_bytes - st0.file_bytes - kept),
		 (unsigned long long)room);
	md->syn[md->nr_syn++] = (struct synth){ .serial = md->next_serial++, .at = at,
						.bytes = st.file_bytes - st0.file_bytes - kept };
	return 0;
}

static int carry(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
		 uint64_t base, uint64_t segments)
{
	uint64_t t0 = prec_now_ns(CLOCK_MONOTONIC);
	int err;

	md->carried_segments = segments;
	md->last_carry_ns = t0;
	err = write_carry(md, dirfd, m, base);
	if (err && !md->failed) {
		md->failed = true;
		pr_err("--max-disk: %s: writing the tasks and maps of the window: %s",
		       PREC_CARRY_SHARD_NAME, strerror(-err));
	}
	pr_debug("--max-disk: carry %llu in %.1f ms", (unsigned long long)md->next_serial,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return err;
}

int prec_max_disk__timeout_ms(const struct prec_max_disk *md)
{
	uint64_t now = prec_now_ns(CLOCK_MONOTONIC), due = md->last_tick_ns + TICK_MS * 1000000ull;

	return now >= due ? 0 : (int)((due - now + 999999) / 1000000);
}

int prec_max_disk__tick(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
			uint64_t base)
{
	struct prec_disk_budget_stats st;
	uint64_t now = prec_now_ns(CLOCK_MONOTONIC), every = CARRY_EVERY_MS * 1000000ull;

	if (now < md->last_tick_ns + TICK_MS * 1000000ull)
		return 0;
	md->last_tick_ns = now;
	prec_disk_budget__set_fixed(md->b, fixed_bytes(dirfd));
	prec_disk_budget__stats(md->b, &st);
	/* A long window needs no synthesis a second: a few per window. */
	if (st.latest > st.window && (st.latest - st.window) / CARRY_PER_WINDOW > every)
		every = (st.latest - st.window) / CARRY_PER_WINDOW;
	if (st.segments == md->carried_segments || md->failed ||
	    now < md->last_carry_ns + every)
		return 0;
	return carry(md, dirfd, m, base, st.segments);
}

int prec_max_disk__finish(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
			  uint64_t base)
{
	struct prec_manifest_shard sh = { .name = (char *)PREC_CARRY_SHARD_NAME,
					  .cpu = PREC_CARRY_CPU };
	struct prec_disk_budget_stats st;
	int err = 0, e;

	prec_disk_budget__stats(md->b, &st);
	if (st.segments != md->carried_segments && !md->failed)
		err = carry(md, dirfd, m, base, st.segments);
	m->max_disk = (struct prec_manifest_max_disk){
		.limit = st.limit, .segment = st.segment, .segments = st.segments,
		.chunks = st.chunks, .records = st.records, .bytes = st.bytes,
		.first_time = st.first_time, .last_time = st.last_time,
	};
	pr_debug("--max-disk: %llu segments dropped (%.1f ms, longest %.1f ms), %llu by appends past the budget (longest %.1f ms), %llu carries",
		 (unsigned long long)st.segments, (double)st.punch_ns / 1e6,
		 (double)st.punch_ns_max / 1e6, (unsigned long long)st.backstops,
		 (double)st.backstop_ns_max / 1e6, (unsigned long long)md->next_serial);
	if (md->left_out)
		pr_warn("--max-disk: the carry left out %llu records over its bound (%llu bytes, an eighth of the budget; a process a sixteenth of a synthesis's room): their tasks may show as :PID or without symbols before the window's own records name them",
			(unsigned long long)md->left_out, (unsigned long long)md->bound);
	if (st.stuck)
		pr_warn("--max-disk: %llu times over the budget with nothing to drop yet "
			"(the disk slower than the events, or a budget near its minimum)",
			(unsigned long long)st.stuck);
	if (!md->have_carry)
		return err;
	sh.chunks = md->carry_st.chunks;
	sh.records = md->carry_st.records;
	sh.bytes = md->carry_st.payload_bytes;
	sh.raw_bytes = md->carry_st.raw_bytes;
	sh.first_time = md->carry_st.first_time;
	sh.last_time = md->carry_st.last_time;
	e = prec_manifest__add_shard(m, &sh);
	return err ? err : e;
}
