// SPDX-License-Identifier: MIT
// The window and the carry of a --max-disk recording that died: its start
// manifest lists neither, its directory has both (the trimmed shard
// headers, their first kept chunks, carry.shard).
#include "read/crash_window.h"
#include "read/merge.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define NS(t) (unsigned long long)((t) / 1000000000ull), (unsigned long long)((t) % 1000000000ull)

/* The first record time of shard s's first chunk that has one, in *t
 * (0: no chunk has one); *trimmed set when its header says chunks went.
 * m (or NULL): the shard must be m's, for s's CPU, as its header says.
 * Returns how many chunks were read to there (all of them when none has
 * a time), or -errno when the shard cannot be read to there. */
static int64_t first_kept(int dirfd, const struct prec_manifest_shard *s,
			  const struct prec_manifest *m, uint64_t *t, bool *trimmed)
{
	const struct prec_shard_header *h;
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int64_t chunks = 0;
	int n;

	*t = 0;
	n = prec_shard_reader__open(&r, dirfd, s->name);
	if (n < 0)
		return n;
	h = prec_shard_reader__header(r);
	if (m && (h->cpu != s->cpu || memcmp(h->session_id, m->session_id, sizeof(h->session_id)))) {
		prec_shard_reader__close(r);
		return -EBADMSG; /* another's: the merge says so */
	}
	if (h->flags & PREC_SHARD_TRIMMED)
		*trimmed = true;
	while (!*t && (n = prec_shard_reader__next(r, &c)) > 0) {
		*t = c.hdr.first_time;
		chunks++;
	}
	prec_shard_reader__close(r);
	return n < 0 ? n : chunks;
}

int prec_crash_window__fill(int dirfd, struct prec_manifest *m)
{
	struct prec_manifest_shard carry = { .name = (char *)PREC_CARRY_SHARD_NAME,
					     .cpu = PREC_CARRY_CPU };
	bool trimmed = false, have_carry = false;
	struct stat st;

	/* an unknown state too: the worst case, a recorder that died */
	if (m->state == PREC_STATE_COMPLETE || !m->max_disk.limit)
		return 0;
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct prec_manifest_shard *s = &m->shards[i];

		if (s->cpu == PREC_CARRY_CPU)
			have_carry = true;
		else if (s->cpu >= 0 && !s->first_time)
			first_kept(dirfd, s, NULL, &s->first_time, &trimmed);
	}
	/* how many went died with the recorder: one at least */
	if (trimmed && !m->max_disk.segments)
		m->max_disk.segments = 1;
	/* the carry is renamed into place whole, and read as any shard */
	if (have_carry || fstatat(dirfd, PREC_CARRY_SHARD_NAME, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode))
		return 0;
	return prec_manifest__add_shard(m, &carry);
}

int prec_crash_window__check(int dirfd, const struct prec_manifest *m, char *why,
			     size_t len)
{
	bool trimmed = false;

	if (!prec_merge__window(m))
		return 0;
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];
		int64_t chunks;
		uint64_t t;

		if (s->cpu < 0 || !s->first_time)
			continue;
		chunks = first_kept(dirfd, s, m, &t, &trimmed);
		if (chunks < 0 || (t && t >= s->first_time))
			continue;
		/* ended short of its chunks (cut, a segment file gone): the
		 * shard's damage, which the merge names, not the manifest's */
		if (!t && (uint64_t)chunks < s->chunks)
			continue;
		if (t)
			snprintf(why, len, "shard %s: first_time %llu.%09llu s is after its first "
				 "record (%llu.%09llu s): the --max-disk window would drop it",
				 s->name, NS(s->first_time), NS(t));
		else
			snprintf(why, len, "shard %s: first_time %llu.%09llu s, but no record of "
				 "it has a time: the --max-disk window would drop the others' before it",
				 s->name, NS(s->first_time));
		return -EBADMSG;
	}
	return 0;
}

int prec_crash_window__take(int dirfd, struct prec_manifest *m, const char *cmd,
			    const char *dir)
{
	char why[256];
	int r = prec_crash_window__fill(dirfd, m);

	if (r < 0) {
		pr_err("%s %s: %s", cmd, dir, strerror(-r));
		return r;
	}
	r = prec_crash_window__check(dirfd, m, why, sizeof(why));
	if (r < 0)
		pr_err("%s %s: %s: %s", cmd, dir, PREC_MANIFEST_NAME, why);
	return r;
}
