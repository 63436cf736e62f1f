// SPDX-License-Identifier: MIT
// The window and the carry of a --max-disk recording that died: its start
// manifest lists neither, its directory has both (the trimmed shard
// headers, their first kept chunks, carry.shard).
#include "read/crash_window.h"

#include <fcntl.h>
#include <sys/stat.h>

/* The first record time of shard name's first chunk that has one (0 if
 * none can be read); *trimmed set when its header says chunks went. */
static uint64_t first_kept(int dirfd, const char *name, bool *trimmed)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t t = 0;

	if (prec_shard_reader__open(&r, dirfd, name))
		return 0;
	if (prec_shard_reader__header(r)->flags & PREC_SHARD_TRIMMED)
		*trimmed = true;
	while (!t && prec_shard_reader__next(r, &c) > 0)
		t = c.hdr.first_time;
	prec_shard_reader__close(r);
	return t;
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
			s->first_time = first_kept(dirfd, s->name, &trimmed);
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
