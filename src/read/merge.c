// SPDX-License-Identifier: MIT
// The merge iterator: one cursor per shard, a tournament (loser) tree on
// each cursor's next (time, shard index) gives the global order, or, with
// many shards, time slices staged and sorted in the cache (slice.c); time
// and CPU filters on samples, a corrupt shard's rest skipped, inversions
// counted.
//
// The tree gives equal times in shard order. From
// PREC_MERGE_SLICE_MIN_SHARDS (64) shards, without AUX data, the merge works
// in slices: the cut is the earliest record waiting plus delta; each cursor
// in index order gives every record up to the cut into slice.c's staging
// while the next cursor's bytes are prefetched; the entries are radix-sorted
// by (time, cursor) and handed out up to k_min, the smallest (time, cursor)
// left in any cursor. delta is halved or doubled toward SLICE_TARGET a
// slice. A full slice keeps the records past k_min for the next; if it can
// hand out none it drains them against the tree, DRAIN_RECORDS at a time.
// The output is the tree's order, ties included, except for a cursor whose
// records go back in time (a forced release, a broken watermark promise),
// placed by time within its slice. Memory is a budget: all windows share
// MERGE_BUDGET, each two to eight chunks' worth, touched only as far as
// used; from 16 shards the readers' buffers come from one block.c mapping in
// huge pages, the windows from one of 4 KiB pages (bench/merge.sh,
// bench/read_patterns.sh, bench/cache_knee).
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "read/block.h"
#include "read/cursor.h"
#include "read/internal.h"
#include "read/slice.h"
#include "util/bytes.h"
#include "util/log.h"

/* Memory for all the shards' reorder windows and read buffers together, so
 * a merge's footprint does not grow with the shard count: each shard's ring
 * gets its share, less its read buffers, within floors that keep a window
 * able to hold a whole chunk (fewer shards get bigger windows, which only
 * costs what they really hold: a ring touches only the pages it uses). */
#define MERGE_BUDGET (48u << 20)
#define WIN_MIN (2u * PREC_CHUNK_MAX_PAYLOAD)
#define WIN_MAX (2u * PREC_CHUNK_READ_MAX)
/* From this many shards on, a record has left the cache by the time it
 * comes to the front, and for a consumer that reads records whole the
 * cursors prefetch all of it. With fewer shards the record is still cached
 * and the prefetches only cost; a consumer that reads no record bytes (the
 * iterator alone) never asks for them. See bench/merge.sh. */
#define PF_RECORDS_MIN_SHARDS 64u
/* A slice's cut is the earliest record waiting plus delta, and delta
 * follows the bytes staged toward SLICE_TARGET: about a core's L2, where
 * the sort and the consumer find them, and big enough that a slice of 256
 * shards reads each in a burst of 4 KiB: each visit of a cursor starts
 * with misses on its state and its window, whatever it then takes, so the
 * fewer visits per byte the better, until the slice leaves the L2. See
 * bench/merge.sh. */
#define SLICE_TARGET (1024u << 10)
#define DELTA_START 100000ull /* ns; adapted after every slice */
#define DELTA_MAX (1ull << 40)
#define SLICE_MIN_BYTES (1u << 16) /* the biggest record fits an empty slice */
/* While one cursor's records are staged, the next cursor's are fetched:
 * half of what a slice takes from each of 256 shards. The CPU's fill
 * buffers, not the distance, bound what a prefetch gains, so a longer one
 * only moves the misses. See bench/merge.sh. */
#define SLICE_PREFETCH 2048u
/* A drain gives way to slices again after this many records, kept ones or
 * not: one full slice must not turn the rest of a merge into a tree merge
 * (a slice cut after an idle stretch can span minutes). Stopping a drain
 * anywhere keeps the order (see slice.c). */
#define DRAIN_RECORDS 4096u
#define READER_BUFS (2u * PREC_CHUNK_MAX_PAYLOAD)

/* A cursor's next record in the tree: time, then cursor index (cursors are
 * in shard order, so equal times keep it), as one 96-bit key so that a
 * match is one comparison. An exhausted cursor is DONE. */
typedef unsigned __int128 lent;
#define DONE (((lent)UINT64_MAX << 32) | UINT32_MAX)

static lent key(uint64_t time, uint32_t idx)
{
	return (lent)time << 32 | idx;
}

static uint32_t key_idx(lent k)
{
	return (uint32_t)k;
}

struct prec_merge {
	struct prec_cursor **cur;
	uint32_t ncur;
	void *cur_mem; /* every cursor, side by side */
	/* by shard: its reader's two buffers, its cursor's window */
	struct prec_block bufs, wins;
	/* Loser tree over nleaf leaves, one per shard of the manifest (those
	 * that could not be opened are DONE), heap-shaped: node n's children
	 * are 2n and 2n + 1 and leaf i is node nleaf + i. Node i in [1, nleaf) holds
	 * the loser of the match played there, win the overall winner.
	 * Replacing the winner replays one leaf-to-root path: log2(n)
	 * comparisons, where a binary heap's sift needs two per level, each a
	 * hard-to-predict branch. No padding to a power of two: 257 shards
	 * (256 CPUs and the side band) play 8 matches for all but two leaves,
	 * not 9. */
	lent *tree;
	lent win;
	lent *keys; /* start()'s: 2 nleaf */
	/* lz4 payloads of every cursor are read here, one at a time */
	struct prec_shard_scratch scratch;
	uint32_t nleaf;
	bool started;
	bool pending; /* win's front was handed out, pop it first */
	struct prec_merge_opts opts;
	/* --time START or --cpu is on: each record is checked by keep() */
	bool filtering;
	/* by cursor: its CPU is one --cpu asks for (or there is no --cpu) */
	bool *cpu_kept;
	unsigned int errors;
	uint64_t inversions, last_time;
	int err;
	bool ended;   /* past --time END */
	/* Slices (NULL: the tree alone). Records up to k_min (the earliest
	 * cursor front when the slice was filled) may be handed out; past it,
	 * the slice is refilled. When a full slice leaves nothing to hand out,
	 * the records it kept are drained against the tree of the fronts. */
	struct prec_slice *sl;
	lent k_min;
	uint64_t delta;
	bool drain;
	uint32_t drain_left; /* records this drain may still hand out */
	uint64_t drains;
	int32_t *cpu_of;    /* by cursor: what a staged record is handed out with */
	uint32_t *shard_of;
	/* Live: by cursor, its key in the tree is its bound, not a record:
	 * the recorder has not written what comes next (prec_cursor__peek's 2) */
	bool *waiting;
};

/* Cursor idx has a new front (or is DONE): play its way up to the root.
 * Selects by masks, not branches (compilers turn ?: into jumps here): who
 * wins a match is a coin toss, and mispredictions would cost more than the
 * few extra instructions. */
static void replay(struct prec_merge *mg, uint32_t idx, lent cand)
{
	for (uint32_t n = (mg->nleaf + idx) / 2; n; n /= 2) {
		lent held = mg->tree[n];
		/* held < cand as the sign of held - cand: keys have 96 bits, so
		 * the difference of two never reaches bit 127 unless it wraps.
		 * All ones: held wins, cand stays here. */
		lent m = (lent)((__int128)(held - cand) >> 127);
		lent x = (held ^ cand) & m;

		mg->tree[n] = held ^ x;
		cand ^= x;
	}
	mg->win = cand;
}

/* Play every match once from the leaves; keys[] holds the nleaf leaves
 * and is reused for the winners of the internal nodes. */
static void build(struct prec_merge *mg, lent *keys)
{
	for (uint32_t n = mg->nleaf - 1; n; n--) {
		lent a = keys[2 * n], b = keys[2 * n + 1];

		mg->tree[n] = a < b ? b : a;
		keys[n] = a < b ? a : b;
	}
	mg->win = keys[1]; /* the only leaf when nleaf is 1 */
}

/* peek() with the corrupt-chunk policy applied: the cursor logged the
 * chunk (or the read error); the rest of its shard is skipped and the
 * merge goes on with the others (the caller's exit status tells whether
 * that was asked for). 1 ready, 0 done, -ENOMEM. */
static int ready(struct prec_merge *mg, struct prec_cursor *c)
{
	int r = prec_cursor__peek(c);

	if (r >= 0 || r == -ENOMEM)
		return r;
	mg->errors++;
	prec_cursor__salvage(c);
	return prec_cursor__peek(c);
}

/* Cursor i's key after ready() returned r (>= 0). A live cursor waiting
 * for the recorder stands in the tree at its bound: every record it will
 * give is at or after it, so whatever beats the bound may go out now, in
 * the order a merge after the end gives; when the bound wins, the merge
 * waits. */
static lent key_of(struct prec_merge *mg, uint32_t i, int r)
{
	if (mg->waiting)
		mg->waiting[i] = r == 2;
	if (r == 2)
		return key(prec_cursor__bound(mg->cur[i]), i);
	return r ? key(prec_cursor__time(mg->cur[i]), i) : DONE;
}

static int start(struct prec_merge *mg)
{
	/* leaves at [nleaf, 2 nleaf), winners of node n at n */
	lent *keys = mg->keys;

	mg->started = true;
	mg->pending = false;
	for (uint32_t i = 0; i < mg->nleaf; i++) {
		int r = i < mg->ncur ? ready(mg, mg->cur[i]) : 0;

		if (r < 0)
			return mg->err = r;
		keys[mg->nleaf + i] = i < mg->ncur ? key_of(mg, i, r) : DONE;
	}
	build(mg, keys);
	return 0;
}

/* Drop the record handed out last and put its cursor back in place. */
static int step_top(struct prec_merge *mg)
{
	uint32_t idx = key_idx(mg->win);
	struct prec_cursor *c = mg->cur[idx];
	int r;

	mg->pending = false;
	prec_cursor__pop(c);
	r = ready(mg, c);
	if (r < 0)
		return mg->err = r;
	replay(mg, idx, key_of(mg, idx, r));
	return 0;
}

/* Live: the winner is a cursor waiting for the recorder. Read its shard
 * again, and the next winner's, until a record wins, or a waiting cursor
 * found nothing new: -EAGAIN. 0 or -errno. */
static int poll_waiting(struct prec_merge *mg)
{
	while (key_idx(mg->win) != UINT32_MAX && mg->waiting[key_idx(mg->win)]) {
		uint32_t idx = key_idx(mg->win);
		lent was = mg->win;
		int r = ready(mg, mg->cur[idx]);

		if (r < 0)
			return mg->err = r;
		replay(mg, idx, key_of(mg, idx, r));
		if (r == 2 && mg->win == was)
			return -EAGAIN;
	}
	return 0;
}

/* --time and --cpu choose samples, as perf's do, and with them what
 * stands for samples (losses, AUX data); the side band stays whole, before
 * END, or the samples kept would lose their comms and maps. */
static bool keep(const struct prec_merge *mg, const struct prec_merge_rec *r, uint32_t idx)
{
	uint32_t type;

	if (!r->time)
		return true;
	if (r->time < mg->opts.window_start && r->cpu >= 0)
		return false;
	if ((!mg->opts.time_start || r->time >= mg->opts.time_start) &&
	    mg->cpu_kept[idx])
		return true;
	if (!r->rec)
		return false; /* AUX data */
	type = prec_ld32(r->rec); /* a record may sit unaligned */
	return type != PERF_RECORD_SAMPLE && type != PERF_RECORD_LOST &&
	       type != PERF_RECORD_LOST_SAMPLES && type != PERF_RECORD_AUX;
}

/* The tree's next record into *r (cursor *idx): 1, 0 at the end, -errno. */
static int tree_next(struct prec_merge *mg, struct prec_merge_rec *r, uint32_t *idx)
{
	int k;

	if (mg->pending && step_top(mg) < 0)
		return mg->err;
	if (mg->waiting && (k = poll_waiting(mg)) < 0)
		return k;
	if (key_idx(mg->win) == UINT32_MAX)
		return 0;
	mg->pending = true;
	*idx = key_idx(mg->win);
	prec_cursor__get(mg->cur[*idx], r);
	return 1;
}

static void from_slice(const struct prec_merge *mg, const struct prec_slice_ent *e,
		       struct prec_merge_rec *r)
{
	*r = (struct prec_merge_rec){ .rec = prec_slice__bytes(mg->sl, e), .rec_len = e->len,
				      .time = e->time, .cpu = mg->cpu_of[e->idx],
				      .shard = mg->shard_of[e->idx] };
}

/* What cursor i has left, as *front. */
static int front_of(struct prec_merge *mg, uint32_t i, lent *front)
{
	int k = ready(mg, mg->cur[i]);

	if (k < 0)
		return mg->err = k;
	*front = k ? key(prec_cursor__time(mg->cur[i]), i) : DONE;
	return 0;
}

/* Every record of cursor i up to cut into the slice while there is room;
 * *front gets the key of what the cursor has left, *hi the latest time
 * staged. 1: the slice is full. */
static int stage(struct prec_merge *mg, uint32_t i, uint64_t cut, lent *front, uint64_t *hi)
{
	struct prec_cursor *c = mg->cur[i];
	struct prec_merge_rec r;

	while (ready(mg, c) == 1 && prec_cursor__time(c) <= cut) {
		prec_cursor__get(c, &r);
		if (!r.rec)
			return mg->err = -EINVAL; /* AUX data: never merged in slices */
		if (!prec_slice__room(mg->sl, r.rec_len)) {
			*front = key(r.time, i);
			return 1;
		}
		prec_slice__add(mg->sl, r.time, (uint16_t)i, r.rec, (uint16_t)r.rec_len);
		*hi = r.time > *hi ? r.time : *hi;
		prec_cursor__pop(c);
	}
	return front_of(mg, i, front); /* an error is sticky: peek() gives it again */
}

/* The earliest time waiting, the first record the slice kept or a front,
 * into *lo: 1, or 0 when nothing waits anywhere (any time, UINT64_MAX
 * too, is a record's), or -errno. */
static int earliest(struct prec_merge *mg, uint64_t *lo)
{
	const struct prec_slice_ent *kept = prec_slice__front(mg->sl);
	int found = kept != NULL;

	*lo = kept ? kept->time : UINT64_MAX;
	for (uint32_t i = 0; i < mg->ncur; i++) {
		int k = ready(mg, mg->cur[i]);

		if (k < 0)
			return mg->err = k;
		if (k && prec_cursor__time(mg->cur[i]) <= *lo)
			*lo = prec_cursor__time(mg->cur[i]);
		found |= k;
	}
	return found;
}

/* The next cut: half of what a full slice managed to take (or of delta),
 * else toward SLICE_TARGET bytes a slice. */
static void adapt_delta(struct prec_merge *mg, bool full, uint64_t took)
{
	uint64_t d = mg->delta;

	if (full)
		d = (took && took < d ? took : d) / 2;
	else if (prec_slice__added(mg->sl) > 2 * SLICE_TARGET)
		d /= 2;
	else if (prec_slice__added(mg->sl) < SLICE_TARGET / 2 && d < DELTA_MAX)
		d *= 2;
	mg->delta = d ? d : 1;
}

/* Keep what was not handed out, take every cursor's records up to the cut,
 * sort. Returns 1, 0 when nothing is left anywhere, or -errno. */
static int refill(struct prec_merge *mg)
{
	uint64_t lo, cut, hi = 0;
	bool full = false;
	lent kmin = DONE;
	int k = earliest(mg, &lo);

	if (k <= 0)
		return k;
	prec_slice__carry(mg->sl);
	cut = lo > UINT64_MAX - mg->delta ? UINT64_MAX : lo + mg->delta;
	for (uint32_t i = 0; i < mg->ncur; i++) {
		lent front = DONE;

		if (!full && i + 1 < mg->ncur)
			prec_cursor__prefetch(mg->cur[i + 1], SLICE_PREFETCH);
		/* once full, nothing more: the slice must hold whole cursors
		 * in index order, and then a part of one (see slice.c) */
		k = full ? front_of(mg, i, &front) : stage(mg, i, cut, &front, &hi);

		if (k < 0)
			return k;
		full |= k == 1;
		kmin = front < kmin ? front : kmin;
	}
	adapt_delta(mg, full, hi > lo ? hi - lo : 0);
	prec_slice__sort(mg->sl);
	mg->k_min = kmin;
	return 1;
}

/* After a full slice: the records it kept against the tree of the cursors'
 * fronts, one at a time. 2 once none is kept, or DRAIN_RECORDS are out
 * (back to slices). */
static int drain_next(struct prec_merge *mg, struct prec_merge_rec *r, uint32_t *idx)
{
	const struct prec_slice_ent *e;

	if (mg->pending && step_top(mg) < 0)
		return mg->err;
	e = prec_slice__front(mg->sl);
	if (!e || !mg->drain_left) {
		mg->drain = false;
		return 2;
	}
	mg->drain_left--;
	/* equal keys: the same cursor, which gave the kept record first */
	if (key(e->time, e->idx) <= mg->win) {
		prec_slice__pop(mg->sl);
		from_slice(mg, e, r);
		*idx = e->idx;
		return 1;
	}
	mg->pending = true;
	*idx = key_idx(mg->win);
	prec_cursor__get(mg->cur[*idx], r);
	return 1;
}

static bool releasable(const struct prec_merge *mg, const struct prec_slice_ent *e)
{
	return e && key(e->time, e->idx) <= mg->k_min;
}

static int slice_next(struct prec_merge *mg, struct prec_merge_rec *r, uint32_t *idx)
{
	for (;;) {
		const struct prec_slice_ent *e;
		int k;

		if (mg->drain) {
			k = drain_next(mg, r, idx);
			if (k != 2)
				return k;
		}
		e = prec_slice__front(mg->sl);
		if (releasable(mg, e)) {
			prec_slice__pop(mg->sl);
			from_slice(mg, e, r);
			*idx = e->idx;
			return 1;
		}
		k = refill(mg);
		if (k <= 0)
			return k;
		if (releasable(mg, prec_slice__front(mg->sl)))
			continue;
		if (start(mg) < 0)
			return mg->err;
		mg->drain = true;
		mg->drain_left = DRAIN_RECORDS;
		mg->drains++;
	}
}

/* The filters and the order check on the record chosen: 1 hand it out, 0
 * skip it, -1 the end (past --time END: the output is sorted, nothing
 * later can pass). */
static int pass(struct prec_merge *mg, const struct prec_merge_rec *r, uint32_t idx)
{
	uint64_t t = r->time;

	if (t && mg->opts.time_end && t > mg->opts.time_end)
		return -1;
	if (mg->filtering && !keep(mg, r, idx))
		return 0;
	if (t && t < mg->last_time)
		mg->inversions++;
	else if (t)
		mg->last_time = t;
	return 1;
}

int prec_merge__next(struct prec_merge *mg, struct prec_merge_rec *r)
{
	if (mg->err)
		return mg->err;
	if (mg->ended)
		return 0;
	if (!mg->sl && !mg->started && start(mg) < 0)
		return mg->err;
	for (;;) {
		uint32_t idx = 0;
		int k = mg->sl ? slice_next(mg, r, &idx) : tree_next(mg, r, &idx);

		if (k <= 0)
			return k;
		k = pass(mg, r, idx);
		if (k < 0) {
			mg->ended = true;
			return 0;
		}
		if (k)
			return 1;
	}
}

int prec_merge__end_live(struct prec_merge *mg, bool finished)
{
	if (!mg->waiting)
		return 0;
	if (mg->err)
		return mg->err;
	if (mg->pending && step_top(mg) < 0)
		return mg->err;
	for (uint32_t i = 0; i < mg->ncur; i++)
		prec_cursor__end_live(mg->cur[i], finished);
	free(mg->waiting);
	mg->waiting = NULL;
	/* Waiting cursors stand in the tree at their bounds: play every match
	 * again from the cursors' real fronts (peek() of a cursor whose front
	 * is ready gives it again). */
	return mg->started ? start(mg) : 0;
}

unsigned int prec_merge__errors(const struct prec_merge *mg)
{
	return mg->errors;
}

uint64_t prec_merge__drains(const struct prec_merge *mg)
{
	return mg->drains;
}

uint64_t prec_merge__inversions(const struct prec_merge *mg)
{
	return mg->inversions;
}

uint64_t prec_merge__forced(const struct prec_merge *mg)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < mg->ncur; i++)
		n += prec_cursor__forced(mg->cur[i]);
	return n;
}

static bool has_cpu(const struct prec_manifest *m, int32_t cpu)
{
	for (uint32_t i = 0; i < m->nr_shards; i++)
		if (m->shards[i].cpu == cpu)
			return true;
	return false;
}

/* "0-3,7" from the CPU shards of m, into buf (only for a message). */
static void shard_cpu_list(const struct prec_manifest *m, char *buf, size_t len)
{
	int32_t max = -1, lo = -1;
	size_t l = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < m->nr_shards; i++)
		if (m->shards[i].cpu > max)
			max = m->shards[i].cpu;
	for (int32_t c = 0; c <= max + 1 && l < len; c++) {
		bool here = c <= max && has_cpu(m, c);

		if (here && lo < 0)
			lo = c;
		if (here || lo < 0)
			continue;
		l += (size_t)snprintf(buf + l, len - l, lo == c - 1 ? "%s%d" : "%s%d-%d",
				      l ? "," : "", lo, c - 1);
		lo = -1;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

int prec_merge__check_cpus(const struct prec_manifest *m,
			   const struct prec_merge_opts *o, char *why, size_t len)
{
	int present = 0, missing = -1;
	char have[128];

	if (!o->cpu_allowed)
		return 0;
	for (int c = 0; c < o->nr_cpu_allowed; c++) {
		if (!o->cpu_allowed[c])
			continue;
		if (has_cpu(m, c))
			present++;
		else if (missing < 0)
			missing = c;
	}
	if (missing < 0)
		return 0;
	shard_cpu_list(m, have, sizeof(have));
	if (!present) {
		snprintf(why, len, "no CPU of the list is in the recording (its CPUs: %s)", have);
		return -ENOENT;
	}
	snprintf(why, len, "CPU %d is not in the recording (its CPUs: %s)", missing, have);
	return 1;
}

static bool cpu_wanted(const struct prec_merge_opts *o, int32_t cpu)
{
	if (cpu < 0 || !o->cpu_allowed)
		return true;
	return cpu < o->nr_cpu_allowed && o->cpu_allowed[cpu];
}

static int layout(const struct prec_manifest *m, struct prec_time_layout *tl)
{
	if (m->time_layout.sample_time_off) {
		*tl = m->time_layout;
		return 0;
	}
	if (prec_time_layout__init(tl, m->sample_type) < 0) {
		pr_err("manifest: no record time layout (sample_type 0x%llx lacks TIME or IDENTIFIER)",
		       (unsigned long long)m->sample_type);
		return -EINVAL;
	}
	return 0;
}

static uint32_t win_bytes(uint32_t nshards)
{
	uint64_t share = MERGE_BUDGET / (nshards ? nshards : 1);
	/* the reader's two raw buffers (the lz4 one is shared) */
	uint64_t bufs = 2u * PREC_CHUNK_MAX_PAYLOAD;
	uint64_t win = share > bufs ? share - bufs : 0;

	if (win < WIN_MIN)
		return WIN_MIN;
	return win > WIN_MAX ? WIN_MAX : (uint32_t)win;
}

/* Open cursor mg->ncur on shard i. A shard that cannot be read (corrupt
 * header, another recording's, missing) is skipped like a shard whose
 * first chunk is corrupt: the cursor said why, the merge goes on. */
static int open_shard(struct prec_merge *mg, int dirfd, const struct prec_manifest *m,
		      uint32_t i, struct prec_cursor_opts *co)
{
	const struct prec_manifest_shard *s = &m->shards[i];
	int r;

	co->cpu = s->cpu;
	co->shard = i;
	co->chunks = s->chunks;
	co->mem = (char *)mg->cur_mem + (size_t)mg->ncur * prec_cursor__size();
	co->bufs = prec_block__piece(&mg->bufs, i);
	co->win_mem = prec_block__piece(&mg->wins, i);
	r = prec_cursor__open(&mg->cur[mg->ncur], dirfd, s->name, co);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		mg->errors++;
		return 0;
	}
	mg->cpu_of[mg->ncur] = s->cpu;
	mg->shard_of[mg->ncur] = i;
	mg->cpu_kept[mg->ncur++] = cpu_wanted(&mg->opts, s->cpu);
	return 0;
}

/* Per-shard memory in two blocks (block.h). The readers' buffers in huge
 * pages: a merge of n shards touches all of its n * 128 KiB, in 4 KiB pages
 * 32 faults and as many TLB entries per shard, where a fault is dear (a
 * guest) and the buffers are read in turn; under 16 shards (less than a
 * huge page) each reader has its own. The windows (entry array and ring,
 * each touched only in part) in 4 KiB pages, so RSS stays what is used:
 * one mapping where malloc made two per cursor. See bench/merge.sh.
 * Returns 0 or -ENOMEM. */
static int open_blocks(struct prec_merge *mg, uint32_t nshards, uint32_t ring_bytes)
{
	prec_block__init(&mg->bufs, nshards, READER_BUFS, true);
	prec_block__init(&mg->wins, nshards, prec_cursor__win_size(ring_bytes), false);
	return mg->wins.at || !nshards ? 0 : -ENOMEM;
}

/* Slices, or the tree alone (opts.slices): slices pay a copy of each
 * record, which with few shards costs more than the tree's misses (hence
 * PREC_MERGE_SLICE_MIN_SHARDS; see bench/merge.sh); AUX chunks are never
 * copied. */
static int open_slices(struct prec_merge *mg, const struct prec_manifest *m)
{
	uint32_t bytes = mg->opts.slice_bytes ? mg->opts.slice_bytes : PREC_MERGE_SLICE_BYTES;
	bool on = mg->opts.slices > 0 ||
		  (!mg->opts.slices && m->nr_shards >= PREC_MERGE_SLICE_MIN_SHARDS);

	if (!on || mg->opts.live || m->auxtrace_type || m->nr_shards > UINT16_MAX + 1u)
		return 0;
	mg->delta = DELTA_START;
	return prec_slice__new(&mg->sl, bytes > SLICE_MIN_BYTES ? bytes : SLICE_MIN_BYTES);
}

uint64_t prec_merge__window(const struct prec_manifest *m)
{
	uint64_t w = 0;

	if (!m->max_disk.segments)
		return 0;
	for (uint32_t i = 0; i < m->nr_shards; i++)
		if (m->shards[i].cpu >= 0 && m->shards[i].first_time > w)
			w = m->shards[i].first_time;
	return w;
}

void prec_merge__say_window(uint64_t window_start)
{
	if (window_start)
		pr_info("--max-disk window: from %llu.%09llu s",
			(unsigned long long)(window_start / 1000000000ull),
			(unsigned long long)(window_start % 1000000000ull));
}

void prec_merge__say_state(const char *dir, const struct prec_manifest *m)
{
	if (m->state != PREC_STATE_RECORDING && m->state != PREC_STATE_COMPLETE)
		pr_warn("%s/%s: unknown state %u: read as a recording that did not finish",
			dir, PREC_MANIFEST_NAME, m->state);
}

int prec_merge__open(struct prec_merge **out, int dirfd,
		     const struct prec_manifest *m,
		     const struct prec_merge_opts *opts)
{
	struct prec_cursor_opts co = { .session_id = m->session_id,
				       .finished = m->state == PREC_STATE_COMPLETE,
				       .trailer = prec_record__trailer_size(m->sample_type),
				       .aux_ok = m->auxtrace_type != 0 };
	struct prec_time_layout tl;
	struct prec_merge *mg;
	int r;

	*out = NULL;
	r = layout(m, &tl);
	if (r < 0)
		return r;
	mg = calloc(1, sizeof(*mg));
	if (!mg)
		return -ENOMEM;
	if (opts)
		mg->opts = *opts;
	mg->filtering = mg->opts.time_start || mg->opts.cpu_allowed || mg->opts.window_start;
	mg->nleaf = m->nr_shards ? m->nr_shards : 1;
	mg->cur = calloc(mg->nleaf, sizeof(*mg->cur));
	mg->cpu_kept = calloc(mg->nleaf, sizeof(*mg->cpu_kept));
	mg->tree = calloc(mg->nleaf, sizeof(*mg->tree));
	mg->keys = calloc(2 * (size_t)mg->nleaf, sizeof(*mg->keys));
	mg->cpu_of = calloc(mg->nleaf, sizeof(*mg->cpu_of));
	mg->shard_of = calloc(mg->nleaf, sizeof(*mg->shard_of));
	mg->cur_mem = aligned_alloc(64, mg->nleaf * prec_cursor__size());
	if (mg->opts.live)
		mg->waiting = calloc(mg->nleaf, sizeof(*mg->waiting));
	if ((mg->opts.live && !mg->waiting) || !mg->cur || !mg->cpu_kept || !mg->tree || !mg->keys || !mg->cpu_of ||
	    !mg->shard_of || !mg->cur_mem || open_slices(mg, m) < 0) {
		r = -ENOMEM;
		goto out_close;
	}
	/* Every shard is read, --cpu or not: the others' side band is needed. */
	co.tl = &tl;
	co.win_bytes = win_bytes(m->nr_shards);
	r = open_blocks(mg, m->nr_shards, co.win_bytes);
	if (r < 0)
		goto out_close;
	co.scratch = &mg->scratch;
	co.live = mg->opts.live;
	co.prefetch_records = !mg->sl && mg->opts.reads_records &&
			      m->nr_shards >= PF_RECORDS_MIN_SHARDS;
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		r = open_shard(mg, dirfd, m, i, &co);
		if (r < 0)
			goto out_close;
	}
	*out = mg;
	return 0;
out_close:
	prec_merge__close(mg);
	return r;
}

void prec_merge__close(struct prec_merge *mg)
{
	if (!mg)
		return;
	for (uint32_t i = 0; i < mg->ncur; i++)
		prec_cursor__close(mg->cur[i]);
	free(mg->cur);
	free(mg->cpu_kept);
	free(mg->cur_mem);
	free(mg->tree);
	free(mg->keys);
	free(mg->cpu_of);
	free(mg->shard_of);
	free(mg->waiting);
	prec_slice__delete(mg->sl);
	prec_shard_scratch__release(&mg->scratch);
	prec_block__exit(&mg->bufs);
	prec_block__exit(&mg->wins);
	free(mg);
}
