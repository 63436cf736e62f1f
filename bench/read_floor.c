// SPDX-License-Identifier: MIT
// Benchmark: the reading a merge of a directory cannot avoid, without the
// ordering. Every shard is read through the same shard reader the merge
// uses (two buffers in turn, lent from one block of huge pages from 16
// shards on, as the merge does; checksum and record checks), and the shards'
// records are taken in turn, one record of each shard per round, touching
// each record's size and time, as a merge of shards with equal rates (the
// synthetic sets of bench/merge.sh) visits them. What the merge costs above
// this floor is its ordering work; the floor itself is the memory system
// facing n interleaved streams. Prints the same fields as merge_iter.
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "read/block.h"
#include "store/store.h"

struct stream {
	struct prec_shard_reader *rd;
	const uint8_t *p;
	uint32_t pos, len;
	bool done;
};

/* The next DATA chunk of s into s->p; false at the end (or on an error,
 * reported: the floor of a damaged set means nothing). */
static bool refill(struct stream *s, const char *name, int *rc)
{
	struct prec_chunk ch;
	int r;

	while ((r = prec_shard_reader__next(s->rd, &ch)) > 0) {
		if (ch.hdr.type != PREC_CHUNK_DATA || ch.more || !ch.len)
			continue;
		s->p = ch.payload;
		s->pos = 0;
		s->len = ch.len;
		return true;
	}
	if (r < 0) {
		fprintf(stderr, "read_floor: %s: %s at offset 0x%llx\n", name,
			prec_shard_reader__why(s->rd),
			(unsigned long long)prec_shard_reader__offset(s->rd));
		*rc = 1;
	}
	s->done = true;
	return false;
}

static int open_streams(struct stream *st, int dirfd, const struct prec_manifest *m,
			const struct prec_block *bufs)
{
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct prec_shard_reader_opts ro = {
			.two_buffers = true,
			.lent_buffers = prec_block__piece(bufs, i),
			.lent_cap = PREC_CHUNK_MAX_PAYLOAD,
		};
		const char *why = NULL;

		if (prec_shard_reader__open_why(&st[i].rd, dirfd, m->shards[i].name, &ro, &why) < 0) {
			fprintf(stderr, "read_floor: %s: %s\n", m->shards[i].name, why);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct prec_manifest *m = NULL;
	struct prec_block bufs;
	uint64_t n = 0, bytes = 0, sum = 0;
	struct stream *st;
	uint32_t live;
	double t0, dt;
	int dirfd, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: read_floor DIR\n");
		return 2;
	}
	dirfd = bench_open_recording("read_floor", argv[1], &m);
	st = calloc(m->nr_shards, sizeof(*st));
	t0 = bench_now();
	prec_block__init(&bufs, m->nr_shards, 2 * PREC_CHUNK_MAX_PAYLOAD, true);
	if (!st || open_streams(st, dirfd, m, &bufs) < 0)
		return 1;
	do {
		live = 0;
		for (uint32_t i = 0; i < m->nr_shards; i++) {
			struct stream *s = &st[i];
			uint16_t size;

			if (s->done || (s->pos >= s->len && !refill(s, m->shards[i].name, &rc)))
				continue;
			live++;
			memcpy(&size, s->p + s->pos + 6, sizeof(size));
			size = le16toh(size);
			sum += prec_time_layout__time(&m->time_layout, s->p + s->pos, size);
			s->pos += size;
			bytes += size;
			n++;
		}
	} while (live);
	dt = bench_now() - t0;
	printf("shards %u records %llu bytes %llu seconds %.3f MB/s %.0f Mrec/s %.2f (%llx)\n",
	       m->nr_shards, (unsigned long long)n, (unsigned long long)bytes, dt,
	       (double)bytes / dt / 1e6, (double)n / dt / 1e6, (unsigned long long)(sum & 0xf));
	for (uint32_t i = 0; i < m->nr_shards; i++)
		prec_shard_reader__close(st[i].rd);
	prec_block__exit(&bufs);
	free(st);
	prec_manifest__delete(m);
	close(dirfd);
	return rc;
}
