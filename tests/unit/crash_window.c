// SPDX-License-Identifier: MIT
// prec_crash_window__check: a --max-disk recording's shard first_time
// against the shard's first timed chunk. Later than it is damage that
// would start the window past the shard's data (and every reader then
// refuses the manifest); earlier is what an honest manifest may say (its
// first_time is the minimum over the kept chunks, a later chunk may be
// older than the first by the watermark slack); a first_time on a shard
// with no timed record is damage, unless it ends short of the chunks its
// manifest counts (then the shard is); no window, nothing to check; a shard
// that cannot be read or is another recording's is left to the merge.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/crash_window.h"
#include "read/merge.h"
#include "store/store.h"

static uint64_t times0[100], times1[100];

static int check(int dfd, const struct prec_manifest *m, char *why)
{
	why[0] = '\0';
	return prec_crash_window__check(dfd, m, why, 256);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *dir = test_tmpdir("crash_window");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct prec_manifest *m = prec_manifest__new();
	struct prec_shard_writer_opts wo = { .cpu = 2, .copy = true };
	struct prec_manifest_shard ms = { .name = "cpu002.shard", .cpu = 2 };
	struct prec_shard_writer *w;
	char why[256];

	CHECK(dfd >= 0 && m);
	m->state = PREC_STATE_COMPLETE;
	m->max_disk.limit = 1 << 20;
	m->max_disk.segments = 3;
	test_manifest_add_event(m, 1000);
	for (int i = 0; i < 100; i++) {
		times0[i] = 1000 + (uint64_t)i;
		times1[i] = 1500 + (uint64_t)i;
	}
	test_write_times(dfd, m, 0, times0, 100);
	test_write_times(dfd, m, 1, times1, 100);
	/* cpu002: a MARKER alone, no timed record */
	CHECK_EQ(prec_shard_writer__open(&w, dfd, ms.name, &wo), 0);
	test_append_chunk(w, PREC_CHUNK_MARKER, NULL, 0, 0, 0, 2100, 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_manifest__add_shard(m, &ms), 0);
	m->shards[0].first_time = 1000;
	m->shards[0].last_time = 1099;
	m->shards[1].first_time = 1500;
	m->shards[1].last_time = 1599;

	/* as recorded */
	CHECK_EQ(prec_merge__window(m), 1500);
	CHECK_EQ(check(dfd, m, why), 0);
	/* earlier than the first chunk: within what a manifest may say */
	m->shards[1].first_time = 1490;
	CHECK_EQ(check(dfd, m, why), 0);
	/* later: the window would drop cpu001's first records */
	m->shards[1].first_time = 1501;
	CHECK_EQ(check(dfd, m, why), -EBADMSG);
	CHECK(!strcmp(why, "shard cpu001.shard: first_time 0.000001501 s is after its first "
		      "record (0.000001500 s): the --max-disk window would drop it"));
	/* the same, the shards another recording's: the merge says so */
	m->session_id[0] ^= 1;
	CHECK_EQ(check(dfd, m, why), 0);
	m->session_id[0] ^= 1;
	m->shards[1].first_time = 1500;
	/* a time for a shard that has none */
	m->shards[2].first_time = 1550;
	CHECK_EQ(check(dfd, m, why), -EBADMSG);
	CHECK(!strcmp(why, "shard cpu002.shard: first_time 0.000001550 s, but no record of it "
		      "has a time: the --max-disk window would drop the others' before it"));
	/* the same shard short of the chunks the manifest counts (cut, a
	 * segment file gone): its damage, named by the merge */
	m->shards[2].chunks = 5;
	CHECK_EQ(check(dfd, m, why), 0);
	m->shards[2].chunks = 1;
	CHECK_EQ(check(dfd, m, why), -EBADMSG);
	/* nothing dropped: no window, nothing checked */
	m->max_disk.segments = 0;
	CHECK_EQ(check(dfd, m, why), 0);
	m->max_disk.segments = 3;
	/* a shard that cannot be read: the merge says why, not this */
	CHECK_EQ(unlinkat(dfd, "cpu002.shard", 0), 0);
	CHECK_EQ(check(dfd, m, why), 0);
	printf("crash_window: a first_time after the shard's first record or on a shard with no timed record refused, an earlier one, no window or an unreadable shard not\n");
	prec_manifest__delete(m);
	close(dfd);
	test_rmdir(dir);
	free(dir);
	return 0;
}
