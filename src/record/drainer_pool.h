/* SPDX-License-Identifier: MIT */
/* The recording's drainers, one per CPU ring, as one object
 * (drainer_pool.c): started together, asked together (enable, cut, stop)
 * with one latch the main thread sleeps on, their first error on one
 * eventfd the main loop polls. Main thread, one request at a time. */
#ifndef PREC_RECORD_DRAINER_POOL_H
#define PREC_RECORD_DRAINER_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "record/drainer.h"

struct prec_drainer_pool;

/* Room for n drainers, none made yet. Returns 0 or -errno. */
int prec_drainer_pool__new(struct prec_drainer_pool **out, int n);
/* Make drainer i from o (not started). Returns 0 or -errno. */
int prec_drainer_pool__add(struct prec_drainer_pool *p, int i,
			   const struct prec_drainer_opts *o);
/* Start every drainer made: when every one is pinned, each started thread
 * starts two more (a fan-out: creating a thread on another CPU waits on
 * that CPU, and the waits overlap), the caller sleeping until all are;
 * else one after another. Returns 0 or the first -errno;
 * prec_drainer__start_error() of each then says which failed (the others
 * may be started: they are stopped and joined as usual). */
int prec_drainer_pool__start(struct prec_drainer_pool *p);
/* Before add(), for --max-size or --switch-output=SIZE: the drainers count
 * every chunk they append (size_gate.h); max: --max-size in ring bytes
 * (0: none); the one that reaches it disables its CPU's events, writes
 * notify_fd() and wakes the others, each of which disables its own
 * before its next pass. */
void prec_drainer_pool__count(struct prec_drainer_pool *p, uint64_t max);
/* Has a drainer reached the limit? *used: the bytes counted so far. Any
 * thread. */
bool prec_drainer_pool__limit_reached(const struct prec_drainer_pool *p, uint64_t *used);
/* The ring bytes counted so far (0 unless count() was called). */
uint64_t prec_drainer_pool__counted(const struct prec_drainer_pool *p);
/* The ring bytes drained into the epochs before the last cut_move()'s
 * (its old epoch's end, in counted bytes), 0 before a cut. */
uint64_t prec_drainer_pool__cut_bytes(const struct prec_drainer_pool *p);
/* The drainer whose chunk takes the count to at (0: none) writes
 * notify_fd(). Returns true when the count is there already. */
bool prec_drainer_pool__mark_cut(struct prec_drainer_pool *p, uint64_t at);
/* Has each started drainer with opts.el enable its CPU's events (tracking:
 * the tracking events alone), all at once; sleeps until every one has, or
 * has exited. Returns the first ioctl's -errno or 0; -ENOENT when a thread
 * had exited before it could (its CPU's events are then not enabled). */
int prec_drainer_pool__enable(struct prec_drainer_pool *p, bool tracking);
/* --switch-output's cut, its drainers' side, in three steps between
 * which the session reads /proc and writes the side band (session.c says
 * why in that order); the pool holds the cut's state, one entry per
 * drainer, from cut_begin() to cut_end():
 * - cut_begin: each started drainer copies the task records stamped at or
 *   after since (0: all) of every pass whose data_head it reads from now
 *   on into its capture, until its move, which cut_move() must ask. No
 *   record published after this returns escapes: the flag is read after
 *   data_head. Does not wait.
 * - cut_move: each started drainer drains once more into its old shard,
 *   from a data_head read after this call, then moves to writers[i], so
 *   that every chunk before is in the old shard and every one after in
 *   the new, the ring never paused; sleeps until all have. The capture
 *   stops at the move, and the MMAP2s captured count as maps of the new
 *   epoch too. h[i]: what drainer i handed over of the old epoch (its
 *   losses, maps and dropped pairs; not present when it had exited before
 *   it could move: it hands over at the stop). Returns 0, or -ENOENT when
 *   a thread had exited (writers[i] then stays the caller's).
 * - captures: each drainer's capture, for the new epoch's side band.
 * - cut_end: the handed-over maps and the captures freed (after the old
 *   epoch is closed: h points into them). */
void prec_drainer_pool__cut_begin(struct prec_drainer_pool *p,
				  struct prec_shard_writer *const *writers, uint64_t since);
int prec_drainer_pool__cut_move(struct prec_drainer_pool *p, struct prec_drainer_handover *h);
struct prec_capture *const *prec_drainer_pool__captures(const struct prec_drainer_pool *p);
void prec_drainer_pool__cut_end(struct prec_drainer_pool *p);
/* Stop every drainer and sleep until each started one has drained and
 * flushed its shard, its stats, maps and error final; their threads may
 * still be exiting: join() them later. Each one's handover in h[0..size)
 * (NULL: none). Returns the first drainer's error or 0. */
int prec_drainer_pool__stop(struct prec_drainer_pool *p, struct prec_drainer_handover *h);
/* Ask every drainer to stop (async-signal-safe) and wait for the threads'
 * exits. Returns the first drainer's error or 0. */
int prec_drainer_pool__join(struct prec_drainer_pool *p);
/* Readable (an eventfd) once a drainer hits its first error or reaches
 * the limit: the main loop polls it to stop the recording at once. */
int prec_drainer_pool__notify_fd(const struct prec_drainer_pool *p);
/* Drainer i, NULL when not made (or i out of range). */
struct prec_drainer *prec_drainer_pool__at(const struct prec_drainer_pool *p, int i);
int prec_drainer_pool__size(const struct prec_drainer_pool *p);
/* Bytes drained by all as of their last pass; any thread. */
uint64_t prec_drainer_pool__bytes(const struct prec_drainer_pool *p);
/* join(), then free every drainer; NULL is fine. */
void prec_drainer_pool__delete(struct prec_drainer_pool *p);

#endif
