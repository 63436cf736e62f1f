// SPDX-License-Identifier: MIT
// Fuzz target: the perf.data writer fed by the merge of fuzzed shards
// (fuzz_merge.c's setup), in pipe mode to /dev/null and file mode to a
// memfd alternately, plus raw calls with lying lengths. Byte 0: bit 0 pipe
// or file, bits 1-4 manifest extras (fz_manifest), bit 5 raw-call tail,
// bit 6 a fuzzed manifest for the writer, bit 7 zstd-compressed (-z).
#include <sys/mman.h>

#include "fuzz_common.h"
#include "read/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_HEADER_SIZE 104

static int out_fd(bool file)
{
	static int null_fd = -1, mem_fd = -1;

	if (null_fd < 0 && (null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		__builtin_trap();
	if (mem_fd < 0 && (mem_fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC)) < 0)
		__builtin_trap();
	if (!file)
		return null_fd;
	if (ftruncate(mem_fd, 0) < 0 || lseek(mem_fd, 0, SEEK_SET) != 0)
		__builtin_trap();
	return mem_fd;
}

/* File mode: the header the writer left must describe what is there. */
static void check_file(int fd)
{
	uint64_t h[FILE_HEADER_SIZE / 8];
	struct stat st;

	if (fstat(fd, &st) < 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		__builtin_trap();
	/* magic, size, attr_size, attrs_offset, attrs_size, data_offset, data_size */
	if (h[0] != 0x32454c4946524550ULL || h[1] != FILE_HEADER_SIZE ||
	    h[3] + h[4] > (uint64_t)st.st_size || h[5] + h[6] > (uint64_t)st.st_size)
		__builtin_trap();
}

/* Raw calls: each piece (u8 length, bytes) goes to write_record with its
 * own length, in a buffer of exactly that size so any over-read shows. */
static void raw_calls(struct prec_perfdata *pd, struct fz_in *in)
{
	while (in->n) {
		size_t want = (size_t)fz_uint(in, 1), got;
		const uint8_t *q = fz_bytes(in, want, &got);
		uint8_t *copy = malloc(got ? got : 1);

		if (!copy)
			__builtin_trap();
		memcpy(copy, q, got);
		prec_perfdata__write_record(pd, copy, (uint32_t)got);
		free(copy);
	}
}

/* Merge every record of the dir into pd. */
static void merge_into(struct prec_perfdata *pd, int dirfd,
		       const struct prec_manifest *m, uint64_t *first, uint64_t *last)
{
	struct prec_merge_opts o = { .salvage = true };
	struct prec_merge_rec r;
	struct prec_merge *mg;
	unsigned int n = 0;

	if (prec_merge__open(&mg, dirfd, m, &o) < 0)
		return;
	while (prec_merge__next(mg, &r) == 1) {
		if (r.rec) {
			prec_perfdata__saw_time(first, last, r.time);
			prec_perfdata__write_record(pd, r.rec, r.rec_len);
		} else {
			prec_perfdata__write_auxtrace(pd, r.aux, r.aux_len, r.aux_offset,
						      (uint32_t)r.cpu);
		}
		if (++n % 64 == 0)
			prec_perfdata__finish_round(pd);
	}
	prec_merge__close(mg);
}

/* With opt bit 6, the input after byte 0 starts with a u16 length and
 * that many manifest bytes (header made valid): if they decode, that
 * manifest describes the perf.data (attrs, features, tracing data) while
 * the merge still runs under the built one. Returns NULL otherwise. */
static struct prec_manifest *fuzzed_manifest(struct fz_in *in)
{
	struct prec_manifest *m = NULL;
	size_t want = (size_t)fz_uint(in, 2), got, len;
	const uint8_t *q = fz_bytes(in, want, &got);
	uint8_t *buf = fz_manifest_fixup(q, got, 0, &len);

	if (prec_manifest__decode(&m, buf, len, NULL) < 0)
		m = NULL;
	free(buf);
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_gen gen;
	struct prec_perfdata *pd;
	struct prec_manifest *m, *fm = NULL;
	struct fz_in in = { data + 1, size ? size - 1 : 0 };
	uint64_t first = 0, last = 0;
	unsigned int n, opt;
	bool file;
	int fd, dirfd, r;

	fz_quiet();
	if (size < 2)
		return 0;
	opt = data[0];
	file = !(opt & 1);
	if (opt & 0x40)
		fm = fuzzed_manifest(&in);
	gen.time_off = 32;
	gen.time_back = 24;
	dirfd = fz_dir_open();
	/* With bit 5 the last quarter of the input is raw calls. */
	n = fz_write_shards(dirfd, &gen, in.p, opt & 0x20 ? in.n - in.n / 4 : in.n);
	m = fz_manifest(n, (opt >> 1) & 15);
	fd = out_fd(file);
	r = prec_perfdata__open_zstd(&pd, fd, fm ? fm : m,
				     file ? PREC_PERFDATA_FILE : PREC_PERFDATA_PIPE,
				     opt & 0x80 ? 1 : 0);
	if (r < 0 && !fm)
		__builtin_trap(); /* a valid manifest always opens */
	if (r == 0) {
		merge_into(pd, dirfd, m, &first, &last);
		if (opt & 0x20) {
			struct fz_in tail = { in.p + (in.n - in.n / 4), in.n / 4 };

			raw_calls(pd, &tail);
		}
		r = prec_perfdata__close(pd, first, last);
		if (r < 0 && !fm)
			__builtin_trap();
		if (r == 0 && file)
			check_file(fd);
	}
	prec_manifest__delete(fm);
	prec_manifest__delete(m);
	fz_dir_close(dirfd);
	return 0;
}
