// SPDX-License-Identifier: MIT
// PERF_RECORD_TIME_CONV end to end: a fake control page (cap_user_time_zero,
// cap_user_time_short) read as the recorder reads the first ring's, into a
// manifest, written and read back (also an old minor-0 manifest and a cut
// section), merged to file and pipe format, parsed back: one TIME_CONV,
// after the header records and before the first data record, with the
// page's words; perf script -D and perf report -D print it without a
// warning. A page without cap_user_time_zero gives no TIME_CONV at all.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/test.h"
#include "read/read.h"
#include "record/perfclock.h"
#include "store/store.h"
#include "store/manifest_format.h"
#include "util/bytes.h"

#define EVENT_ID 77
#define NSAMPLES 3

static char *tmp;
static int dirfd_tmp;
static const uint8_t sid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void fake_page(struct perf_event_mmap_page *pc, bool cap)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 2;
	pc->time_shift = 31;
	pc->time_mult = 1073741824u;
	pc->time_zero = 0xfffffffe12345678ull;
	pc->time_cycles = 0x123456789aull;
	pc->time_mask = 0xffffffffffull;
	pc->cap_user_time = 1;
	pc->cap_user_time_zero = cap;
	pc->cap_user_time_short = 1;
}

/* The side band's kernel MMAP (time 0): without one perf warns that the
 * kernel maps were restricted, which would hide a TIME_CONV complaint. */
static void kernel_mmap(struct prec_shard_writer *w)
{
	static const char name[24] = "[kernel.kallsyms]_text";
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA, .records = 1 };
	uint8_t rec[96] = { 0 };
	struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
				       sizeof(rec) };
	uint32_t pid = (uint32_t)-1;
	uint64_t addr = 0xffffffff81000000ull, len = 0x1000000;
	struct iovec iov = { rec, sizeof(rec) };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &pid, 4);
	memcpy(rec + 16, &addr, 8);
	memcpy(rec + 24, &len, 8);
	memcpy(rec + 40, name, sizeof(name)); /* then the 32-byte trailer, 0 */
	CHECK(prec_shard_writer__append(w, &meta, &iov, 1) >= 0);
}

static void write_shards(void)
{
	struct prec_shard_writer_opts wo = { .cpu = 0, .copy = true };
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA, .records = NSAMPLES,
					.first_time = 1000, .last_time = 1000 + NSAMPLES - 1,
					.watermark = 0 };
	uint64_t recs[NSAMPLES][6];
	struct prec_shard_writer *w;
	struct iovec iov = { recs, sizeof(recs) };

	for (int i = 0; i < NSAMPLES; i++) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					       sizeof(recs[i]) };

		memcpy(&recs[i][0], &h, sizeof(h));
		recs[i][1] = EVENT_ID;       /* IDENTIFIER */
		recs[i][2] = 0x400000 + (uint64_t)i; /* IP */
		recs[i][3] = 42ull << 32 | 42; /* pid, tid */
		recs[i][4] = 1000 + (uint64_t)i; /* TIME */
		recs[i][5] = 0;              /* cpu, res */
	}
	memcpy(wo.session_id, sid, 16);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd_tmp, "cpu000.shard", &wo), 0);
	CHECK(prec_shard_writer__append(w, &meta, &iov, 1) >= 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	wo.cpu = PREC_SIDEBAND_CPU;
	CHECK_EQ(prec_shard_writer__open(&w, dirfd_tmp, "sideband.shard", &wo), 0);
	kernel_mmap(w);
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

static void write_manifest(const struct perf_event_mmap_page *pc)
{
	struct prec_manifest *m = prec_manifest__new();
	struct prec_manifest_shard sh = { .name = "cpu000.shard", .cpu = 0 };
	struct prec_manifest_shard sb = { .name = "sideband.shard", .cpu = -1 };

	CHECK(m);
	m->state = PREC_STATE_COMPLETE;
	memcpy(m->session_id, sid, 16);
	m->clockid = -1; /* the perf clock, as an intel_pt recording */
	test_manifest_add_event(m, EVENT_ID);
	CHECK_EQ(prec_manifest__add_shard(m, &sh), 0);
	CHECK_EQ(prec_manifest__add_shard(m, &sb), 0);
	/* What session.c does with the first ring's page. */
	prec_perfclock__read(pc, &m->time_conv);
	CHECK_EQ(prec_manifest__write(m, dirfd_tmp), 0);
	prec_manifest__delete(m);
}

/* The words of a TIME_CONV record at p (56 bytes) are the fake page's. */
static void check_record(const uint8_t *p)
{
	CHECK_EQ(prec_ld64(p + 8), 31);
	CHECK_EQ(prec_ld64(p + 16), 1073741824u);
	CHECK_EQ(prec_ld64(p + 24), 0xfffffffe12345678ull);
	CHECK_EQ(prec_ld64(p + 32), 0x123456789aull);
	CHECK_EQ(prec_ld64(p + 40), 0xffffffffffull);
	CHECK_EQ(p[48], 1);
	CHECK_EQ(p[49], 1);
	for (int i = 50; i < 56; i++)
		CHECK_EQ(p[i], 0);
}

/* Walk records from pos: how many TIME_CONVs, and whether each came
 * before every kernel record (type < 64) and AUXTRACE_INFO. */
static int scan(const uint8_t *f, size_t pos, size_t end)
{
	bool data_seen = false;
	int n = 0;

	while (pos + 8 <= end) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, f + pos, 4);
		memcpy(&size, f + pos + 6, 2);
		CHECK(size >= 8 && pos + size <= end);
		if (type == 79) {
			CHECK_EQ(size, 56);
			CHECK(!data_seen);
			check_record(f + pos);
			n++;
		}
		if (type < 64 || type == 70)
			data_seen = true;
		pos += size;
	}
	return n;
}

static int merge_count(bool pipe)
{
	char out[600];
	char *argv[] = { "merge", "-f", "-o", out, tmp, NULL };
	uint8_t *f;
	size_t len;
	int n;

	snprintf(out, sizeof(out), "%s.%s", tmp, pipe ? "pipe.data" : "perf.data");
	if (pipe) {
		/* A real pipe: "-o -" on a regular file would be file format. */
		int pfd[2], fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), st;
		char buf[4096];
		ssize_t got;
		pid_t pid;

		CHECK(fd >= 0 && !pipe2(pfd, 0));
		argv[3] = "-";
		fflush(stdout);
		pid = fork();
		CHECK(pid >= 0);
		if (!pid) {
			close(pfd[0]);
			dup2(pfd[1], 1);
			_exit(prec_cmd_merge(5, argv));
		}
		close(pfd[1]);
		while ((got = read(pfd[0], buf, sizeof(buf))) > 0)
			CHECK_EQ(write(fd, buf, (size_t)got), got);
		close(pfd[0]);
		close(fd);
		CHECK_EQ(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	} else {
		CHECK_EQ(prec_cmd_merge(5, argv), 0);
	}
	f = test_load(out, &len);
	if (pipe) {
		CHECK(len > 16 && !memcmp(f, "PERFILE2", 8));
		n = scan(f, 16, len);
	} else {
		CHECK(len > 104 && !memcmp(f, "PERFILE2", 8));
		n = scan(f, (size_t)prec_ld64(f + 40), (size_t)(prec_ld64(f + 40) + prec_ld64(f + 48)));
	}
	free(f);
	return n;
}

/* perf prints the record (perf_event__fprintf_time_conv) in -D mode; both
 * tools must say nothing else. Skipped without perf. */
static void perf_reads(const char *tool, bool pipe)
{
	static const char *const want[] = {
		"PERF_RECORD_TIME_CONV", "Time Shift      31",
		"Time Muliplier  1073741824", "Time Zero       18446744065425036920",
		"Time Cycles     78187493530", "Time Mask       0xffffffffff",
		"Cap Time Zero   1", "Cap Time Short  1",
	};
	char cmd[800], line[512];
	unsigned int seen = 0, bad = 0;
	FILE *p;

	if (system("perf --version >/dev/null 2>&1"))
		return;
	snprintf(cmd, sizeof(cmd), "perf %s -D -i %s.%s 2>&1", tool, tmp,
		 pipe ? "pipe.data" : "perf.data");
	p = popen(cmd, "r");
	CHECK(p);
	while (fgets(line, sizeof(line), p)) {
		for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (strstr(line, want[i]))
				seen |= 1u << i;
		if (!strncmp(line, "Warning", 7) || strstr(line, "rror"))
			bad++;
	}
	CHECK_EQ(pclose(p), 0);
	if (seen != (1u << (sizeof(want) / sizeof(want[0]))) - 1)
		fprintf(stderr, "perf %s -D: seen %#x\n", tool, seen);
	CHECK_EQ(seen, (1u << (sizeof(want) / sizeof(want[0]))) - 1);
	CHECK_EQ(bad, 0);
}

static void test_manifest_words(void)
{
	struct prec_manifest *m;
	const char *why;

	CHECK_EQ(prec_manifest__read(&m, dirfd_tmp, &why), 0);
	CHECK(m->time_conv.cap_user_time_zero && m->time_conv.cap_user_time_short);
	CHECK_EQ(m->time_conv.time_shift, 31);
	CHECK_EQ(m->time_conv.time_mult, 1073741824u);
	CHECK_EQ(m->time_conv.time_zero, 0xfffffffe12345678ull);
	CHECK_EQ(m->time_conv.time_cycles, 0x123456789aull);
	CHECK_EQ(m->time_conv.time_mask, 0xffffffffffull);
	prec_manifest__delete(m);
}

/* The section layout, its cut form, and an old manifest (minor 0, no
 * section) still read. */
static void test_manifest_bytes(void)
{
	struct prec_manifest *m = prec_manifest__new(), *back;
	uint8_t *buf, *p = NULL;
	size_t len, off;
	const char *why;

	CHECK(m);
	test_manifest_add_event(m, EVENT_ID);
	CHECK_EQ(prec_manifest__encode(m, (void **)&buf, &len), 0);
	CHECK_EQ(buf[10], PREC_MANI_MINOR);
	CHECK_EQ(prec_manifest__decode(&back, buf, len, &why), 0);
	CHECK(!back->time_conv.cap_user_time_zero);
	prec_manifest__delete(back);
	/* minor 0 (checksum redone): as written before TIME_CONV existed */
	buf[10] = 0;
	memset(buf + PREC_MANI_CRC_OFF, 0, 4);
	prec_st32(buf + PREC_MANI_CRC_OFF, prec_crc32c(0, buf, len));
	CHECK_EQ(prec_manifest__decode(&back, buf, len, &why), 0);
	prec_manifest__delete(back);
	free(buf);
	m->time_conv = (struct prec_time_conv){ .time_zero = 5, .time_cycles = 6,
		.time_mask = 7, .time_mult = 8, .time_shift = 9,
		.cap_user_time_zero = true };
	CHECK_EQ(prec_manifest__encode(m, (void **)&buf, &len), 0);
	/* the last section: tag 11, 32 bytes */
	off = len - 16 - PREC_MANI_TIME_CONV_SIZE;
	CHECK_EQ(prec_ld32(buf + off), PREC_MANI_SEC_TIME_CONV);
	CHECK_EQ(prec_ld64(buf + off + 8), PREC_MANI_TIME_CONV_SIZE);
	p = buf + off + 16;
	CHECK(prec_ld64(p) == 5 && prec_ld64(p + 8) == 6 && prec_ld64(p + 16) == 7);
	CHECK(prec_ld32(p + 24) == 8 && prec_ld16(p + 28) == 9 && p[30] == 1 && p[31] == 0);
	CHECK_EQ(prec_manifest__decode(&back, buf, len, &why), 0);
	CHECK(back->time_conv.cap_user_time_zero && !back->time_conv.cap_user_time_short);
	CHECK_EQ(back->time_conv.time_shift, 9);
	prec_manifest__delete(back);
	/* cut to 24 bytes (the file with it): corrupt, named */
	prec_st64(buf + off + 8, 24);
	len -= 8;
	prec_st64(buf + 16, len);
	prec_st32(buf + PREC_MANI_CRC_OFF, 0);
	prec_st32(buf + PREC_MANI_CRC_OFF, prec_crc32c(0, buf, len));
	CHECK_EQ(prec_manifest__decode(&back, buf, len, &why), -EBADMSG);
	CHECK(why && strstr(why, "time_conv"));
	free(buf);
	prec_manifest__delete(m);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	struct perf_event_mmap_page pc;

	tmp = test_tmpdir("timeconv");
	dirfd_tmp = open(tmp, O_DIRECTORY | O_RDONLY);
	CHECK(dirfd_tmp >= 0);
	test_manifest_bytes();
	write_shards();
	fake_page(&pc, true);
	write_manifest(&pc);
	test_manifest_words();
	CHECK_EQ(merge_count(false), 1);
	CHECK_EQ(merge_count(true), 1);
	perf_reads("script", false);
	perf_reads("report", false);
	perf_reads("script", true);
	perf_reads("report", true);
	/* A KVM guest's page: no conversion, no TIME_CONV (perf writes none). */
	fake_page(&pc, false);
	write_manifest(&pc);
	CHECK_EQ(merge_count(false), 0);
	CHECK_EQ(merge_count(true), 0);
	close(dirfd_tmp);
	for (int i = 0; i < 2; i++) {
		char path[600];

		snprintf(path, sizeof(path), "%s.%s", tmp, i ? "pipe.data" : "perf.data");
		unlink(path);
	}
	test_rmdir(tmp);
	return 0;
}
