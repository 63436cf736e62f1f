// SPDX-License-Identifier: MIT
// Fuzz target: the merge iterator (cursors, reorder windows, tree, skipping)
// over a recording directory in tmpfs whose manifest is built in code and
// whose shard files come from the input (fuzz_common.h: fz_write_shards).
// Byte 0 picks the merge options (time window, CPU filter, salvage off:
// the same merge since corruption always skips the rest of a shard; bit 2
// also merges in time slices of the least room);
// the rest describes the shards, whose chunks may be over 64 KiB (read in
// parts: fuzz_common.h, FZ_BIG). Every record handed out is whole and of a
// kind a kernel writes, however the chunk was read.
#include "fuzz_common.h"
#include "read/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint32_t sink;

/* Every record is whole and every byte readable. */
static void check_rec(const struct prec_merge_rec *r, const struct prec_manifest *m)
{
	const uint8_t *p = r->rec ? r->rec : r->aux;
	uint32_t len = r->rec ? r->rec_len : r->aux_len, sum = 0;
	uint16_t hsize;

	if (r->shard >= m->nr_shards || r->cpu != m->shards[r->shard].cpu)
		__builtin_trap();
	if (r->rec) {
		if (r->aux || len < 8)
			__builtin_trap();
		memcpy(&hsize, p + 6, sizeof(hsize));
		if (hsize != len)
			__builtin_trap();
		/* one perf can read, from a chunk read whole or in parts */
		if (prec_record__bad(&m->time_layout, p, len, &hsize))
			__builtin_trap();
	}
	for (uint32_t i = 0; i < len; i++)
		sum += p[i];
	sink += sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct prec_manifest *mani[FZ_MAX_SHARDS + 1];
	static struct fz_gen gen;
	static const bool cpus[2] = { true, false };
	struct prec_merge_opts o = { .salvage = true };
	struct prec_merge_rec r;
	struct prec_merge *mg;
	unsigned int n, opt;
	int ret, dirfd;

	fz_quiet();

	if (size < 2)
		return 0;
	dirfd = fz_dir_open();
	opt = data[0];
	if (opt & 1)
		o.time_start = 1000000000ull + (opt >> 2) * 10000000ull;
	if (opt & 2)
		o.time_end = 1050000000ull + (opt >> 4) * 20000000ull;
	if ((opt & 0xc0) == 0xc0) {
		o.cpu_allowed = cpus;
		o.nr_cpu_allowed = 2;
	}
	if ((opt & 0xc0) == 0x80)
		o.salvage = false;
	if (opt & 4) { /* time slices of the least room (they fill, keep, drain) */
		o.slices = 1;
		o.slice_bytes = 1;
	}
	gen.time_off = 32;
	gen.time_back = 24;
	n = fz_write_shards(dirfd, &gen, data + 1, size - 1);
	if (!mani[n])
		mani[n] = fz_manifest(n, 0);
	if (prec_merge__open(&mg, dirfd, mani[n], &o) < 0) {
		fz_dir_close(dirfd);
		return 0;
	}
	while ((ret = prec_merge__next(mg, &r)) == 1)
		check_rec(&r, mani[n]);
	if (ret < 0 && ret != -ENOMEM)
		__builtin_trap(); /* corruption or a read error never stops the merge */
	if (ret <= 0 && prec_merge__next(mg, &r) != ret)
		__builtin_trap(); /* the end and errors are sticky */
	sink += prec_merge__errors(mg) + (uint32_t)prec_merge__inversions(mg) +
		(uint32_t)prec_merge__forced(mg);
	prec_merge__close(mg);
	fz_dir_close(dirfd);
	return 0;
}
