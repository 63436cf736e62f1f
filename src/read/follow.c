// SPDX-License-Identifier: MIT
// prec merge --follow: waits while the shards prove nothing more can be
// handed out, watches the manifest for the final one and the recorder's
// lock for a recorder that died, and ends the merge's live mode.
//
// A cursor at the end of its shard's whole chunks (or before a chunk being
// written) does not end: it stands in the tree at its bound, the time every
// record it will still give is at or after. A record that beats every bound
// goes out, so the output is record for record the one a merge after the end
// gives; when a bound wins the merge says so (-EAGAIN), the writer sends two
// FINISHED_ROUNDs (perf delivers at one only what it had queued by the one
// before) and flushes, and the merge sleeps less than a round before the
// winner's shard is read again. The final manifest ends the live mode;
// without one and without the recorder's lock the recorder died, and the
// shards are read as a crash's, up to their torn ends. Always the pipe
// format, always the tree (no slices).
#include "read/follow.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Between two looks at the shards: below the shortest round a recorder
 * is likely to use (--round-ms 100 by default), so the output trails the
 * recording by about a round; each look costs a read per shard that holds
 * the merge back, a stat and a flock. */
#define FOLLOW_POLL_MS 50
/* A manifest that changed is decoded again no sooner than this after the
 * last decode, nor than FOLLOW_REREAD_COST times what that decode took:
 * a recorder replaces it once, at its end, but a recording's owner can
 * touch one of 256 MiB in a loop, and the merge must keep merging. */
#define FOLLOW_REREAD_MS 500
#define FOLLOW_REREAD_COST 10

struct prec_follow {
	const char *dir;
	int dirfd, outfd;
	struct stat seen;   /* the manifest last read */
	uint64_t next_read; /* CLOCK_MONOTONIC ns: no decode before */
	bool died;
};

/* Is the manifest now the final one? 1 yes, 0 not yet, -errno. A change
 * is looked at within the bounds above, or at once if now. */
static int finished(struct prec_follow *f, bool now)
{
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	uint64_t t0, t1;
	struct stat st;
	int err;

	if (fstatat(f->dirfd, PREC_MANIFEST_NAME, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	/* replaced by rename: another inode */
	if (st.st_ino == f->seen.st_ino && st.st_dev == f->seen.st_dev &&
	    st.st_mtim.tv_sec == f->seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == f->seen.st_mtim.tv_nsec)
		return 0;
	t0 = prec_now_ns(CLOCK_MONOTONIC);
	if (!now && t0 < f->next_read)
		return 0; /* seen stays: looked at again on a later wait */
	err = prec_manifest__read(&m, f->dirfd, &why);
	t1 = prec_now_ns(CLOCK_MONOTONIC);
	f->next_read = t1 + (t1 - t0 > FOLLOW_REREAD_MS * 1000000ull / FOLLOW_REREAD_COST ?
			     (t1 - t0) * FOLLOW_REREAD_COST : FOLLOW_REREAD_MS * 1000000ull);
	if (err < 0) {
		pr_err("merge --follow %s: cannot read manifest: %s", f->dir,
		       why ? why : strerror(-err));
		return err;
	}
	f->seen = st;
	err = m->state == PREC_STATE_COMPLETE;
	prec_manifest__delete(m);
	return err;
}

/* A flight recording: its tail shard (--overwrite), or a CPU's second
 * shard, the one its snapshots write (--overwrite, -S's AUX copies). */
static bool flight(const struct prec_manifest *m)
{
	static const char suffix[] = ".flight.shard";

	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const char *n = m->shards[i].name;
		size_t len = n ? strlen(n) : 0;

		if (m->shards[i].cpu < PREC_SIDEBAND_CPU)
			return true;
		if (len >= sizeof(suffix) - 1 && !strcmp(n + len - (sizeof(suffix) - 1), suffix))
			return true;
	}
	return false;
}

int prec_follow__check(const char *dir, int dirfd, struct prec_manifest **m,
		       bool *live)
{
	const char *why = NULL;
	int held;

	*live = false;
	if ((*m)->state == PREC_STATE_COMPLETE)
		return 0;
	held = prec_writer_lock__held(dirfd);
	if (!held) {
		/* it may have ended between the read and the look at the lock */
		struct prec_manifest *again = NULL;
		int err = prec_manifest__read(&again, dirfd, &why);

		if (err < 0) {
			pr_err("merge --follow %s: cannot read manifest: %s", dir,
			       why ? why : strerror(-err));
			return err;
		}
		prec_manifest__delete(*m);
		*m = again;
		if (again->state == PREC_STATE_COMPLETE)
			return 0;
		pr_err("merge --follow %s: the recording did not finish and no recorder is writing it (it died): merge it without --follow",
		       dir);
		return -ESRCH;
	}
	if (flight(*m)) {
		pr_err("merge --follow %s: a flight recording (--overwrite, -S) writes its snapshots only when taken: merge it once it ends",
		       dir);
		return -EOPNOTSUPP;
	}
	if (held < 0)
		pr_warn("merge --follow %s: cannot tell whether its recorder still runs (flock: %s): waiting for its final manifest",
			dir, strerror(-held));
	*live = true;
	return 0;
}

bool prec_follow__starting(int dirfd)
{
	if (prec_writer_lock__held(dirfd) != 1)
		return false;
	poll(NULL, 0, FOLLOW_POLL_MS);
	return true;
}

int prec_follow__new(struct prec_follow **out, const char *dir, int dirfd,
		     int outfd)
{
	struct prec_follow *f = calloc(1, sizeof(*f));

	*out = f;
	if (!f)
		return -ENOMEM;
	f->dir = dir;
	f->dirfd = dirfd;
	f->outfd = outfd;
	/* not the manifest's: the first wait reads it */
	f->seen.st_ino = 0;
	return 0;
}

int prec_follow__wait(struct prec_follow *f, struct prec_merge *mg)
{
	/* The sleep, and a reader that goes away: a pipe's write end reports
	 * POLLERR once no one reads it (events 0: nothing else wakes it). */
	struct pollfd p = { .fd = f->outfd, .events = 0 };
	int r = poll(&p, 1, FOLLOW_POLL_MS);

	if (r < 0 && errno != EINTR)
		return -errno;
	if (r > 0 && (p.revents & (POLLERR | POLLHUP)))
		return -EPIPE;
	r = finished(f, false);
	if (r < 0)
		return r;
	if (r)
		return prec_merge__end_live(mg, true);
	r = prec_writer_lock__held(f->dirfd);
	if (r != 0)
		return 0; /* running, or no way to tell: wait on */
	/* Gone: its final manifest may have come just before. */
	r = finished(f, true);
	if (r < 0)
		return r;
	if (r)
		return prec_merge__end_live(mg, true);
	pr_err("merge --follow %s: the recorder is gone and the recording did not finish (it died): merging what it wrote",
	       f->dir);
	f->died = true;
	return prec_merge__end_live(mg, false);
}

bool prec_follow__died(const struct prec_follow *f)
{
	return f && f->died;
}

void prec_follow__delete(struct prec_follow *f)
{
	free(f);
}
