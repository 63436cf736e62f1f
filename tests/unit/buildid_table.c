// SPDX-License-Identifier: MIT
// The build-id table's bounds and hashing (store/manifest.c) and the
// drainers' queue of maps to read (record/buildid_queue.c): entries, path
// bytes and path length bounded with every drop counted, the count kept
// through encode/decode (the BUILDID_DROPS section, absent when 0), the
// de-duplication right after a decode, and the queue's wrap and refusals.
#include "record/buildid_queue.h"
#include "store/store.h"
#include "store/manifest_format.h"
#include "util/bytes.h"
#include "../lib/test.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_path(struct prec_manifest *m, const char *path, uint16_t mode, uint8_t idbyte)
{
	struct prec_manifest_buildid b = { .cpumode = mode, .size = 20, .pid = -1,
					   .path = (char *)path };

	memset(b.id, idbyte, sizeof(b.id));
	return prec_manifest__add_buildid(m, &b);
}

/* Entries: at most PREC_MANIFEST_BUILDIDS_MAX mapped files, then each is
 * counted; a repeat is neither added nor counted; the kernel's and the
 * vDSO's entries have room of their own. */
static void check_entries(void)
{
	struct prec_manifest *m = prec_manifest__new();
	uint32_t extra = 1000;
	char path[64];

	CHECK(m);
	for (uint32_t i = 0; i < PREC_MANIFEST_BUILDIDS_MAX + extra; i++) {
		snprintf(path, sizeof(path), "/lib/f%u.so", i);
		CHECK_EQ(add_path(m, path, PERF_RECORD_MISC_USER, 1), 0);
	}
	CHECK_EQ(m->nr_buildids, PREC_MANIFEST_BUILDIDS_MAX);
	CHECK_EQ(m->buildids_dropped, extra);
	/* a repeat of a kept pair changes nothing; one of a dropped pair
	 * is counted again (the table keeps nothing to know it by) */
	CHECK_EQ(add_path(m, "/lib/f0.so", PERF_RECORD_MISC_USER, 1), 0);
	CHECK_EQ(m->nr_buildids, PREC_MANIFEST_BUILDIDS_MAX);
	CHECK_EQ(m->buildids_dropped, extra);
	CHECK_EQ(add_path(m, "/lib/f70000.so", PERF_RECORD_MISC_USER, 1), 0);
	CHECK_EQ(m->buildids_dropped, extra + 1);
	CHECK_EQ(prec_manifest__has_buildid(m, "/lib/f0.so"), 1);
	CHECK_EQ(prec_manifest__has_buildid(m, "/lib/f70000.so"), 0);
	/* the same path with another id is another pair */
	CHECK_EQ(add_path(m, "/lib/f1.so", PERF_RECORD_MISC_USER, 2), 0);
	CHECK_EQ(m->buildids_dropped, extra + 2);
	CHECK_EQ(add_path(m, "[kernel.kallsyms]", PERF_RECORD_MISC_KERNEL, 3), 0);
	CHECK_EQ(add_path(m, "[vdso]", PERF_RECORD_MISC_USER, 4), 0);
	CHECK_EQ(m->nr_buildids, PREC_MANIFEST_BUILDIDS_MAX + 2);
	CHECK_EQ(prec_manifest__has_buildid(m, "[vdso]"), 1);
	prec_manifest__delete(m);
}

/* Path bytes: paths of 4000 bytes fill PREC_MANIFEST_BUILDID_BYTES_MAX
 * long before the entry bound; a path of PATH_MAX bytes never goes in. */
static void check_bytes(void)
{
	struct prec_manifest *m = prec_manifest__new();
	size_t len = 4000;
	char *path = malloc(PREC_MANIFEST_BUILDID_PATH_MAX + 1);
	uint32_t fit = (uint32_t)(PREC_MANIFEST_BUILDID_BYTES_MAX / (len + 1));

	CHECK(m && path);
	memset(path, 'p', PREC_MANIFEST_BUILDID_PATH_MAX);
	path[0] = '/';
	for (uint32_t i = 0; i < fit + 10; i++) {
		snprintf(path + len - 8, 9, "%08u", i);
		CHECK_EQ(add_path(m, path, PERF_RECORD_MISC_USER, 1), 0);
	}
	CHECK_EQ(m->nr_buildids, fit);
	CHECK_EQ(m->buildids_dropped, 10);
	prec_manifest__delete(m);

	m = prec_manifest__new();
	CHECK(m);
	memset(path + 1, 'p', PREC_MANIFEST_BUILDID_PATH_MAX - 1);
	path[PREC_MANIFEST_BUILDID_PATH_MAX - 1] = '\0';
	CHECK_EQ(add_path(m, path, PERF_RECORD_MISC_USER, 1), 0);
	path[PREC_MANIFEST_BUILDID_PATH_MAX - 1] = 'p';
	path[PREC_MANIFEST_BUILDID_PATH_MAX] = '\0';
	CHECK_EQ(add_path(m, path, PERF_RECORD_MISC_USER, 1), 0);
	CHECK_EQ(m->nr_buildids, 1);
	CHECK_EQ(m->buildids_dropped, 1);
	free(path);
	prec_manifest__delete(m);
}

static size_t find_tag(const uint8_t *p, size_t len, uint32_t tag)
{
	for (size_t off = PREC_MANI_HDR_SIZE; off + PREC_MANI_SEC_HDR_SIZE <= len;
	     off += PREC_MANI_SEC_HDR_SIZE + align8(prec_ld64(p + off + 8)))
		if (prec_ld32(p + off) == tag)
			return off;
	return 0;
}

/* The count round-trips; without drops the section is not written (older
 * readers' bytes), and its absence reads as 0. A decoded table de-duplicates
 * and keeps its bounds as the recorder's does. */
static void check_codec(void)
{
	struct prec_manifest *m = prec_manifest__new(), *back = NULL;
	void *buf;
	size_t len;

	CHECK(m);
	test_manifest_add_event(m, 1);
	CHECK_EQ(add_path(m, "/bin/a", PERF_RECORD_MISC_USER, 1), 0);
	CHECK(prec_manifest__encode(m, &buf, &len) == 0);
	CHECK_EQ(find_tag(buf, len, PREC_MANI_SEC_BUILDID_DROPS), 0);
	CHECK(prec_manifest__decode(&back, buf, len, NULL) == 0);
	CHECK_EQ(back->buildids_dropped, 0);
	/* the index is built for the decoded table */
	CHECK_EQ(add_path(back, "/bin/a", PERF_RECORD_MISC_USER, 1), 0);
	CHECK_EQ(back->nr_buildids, 1);
	CHECK_EQ(add_path(back, "/bin/b", PERF_RECORD_MISC_USER, 1), 0);
	CHECK_EQ(back->nr_buildids, 2);
	prec_manifest__delete(back);
	free(buf);

	m->buildids_dropped = 12345;
	CHECK(prec_manifest__encode(m, &buf, &len) == 0);
	CHECK(find_tag(buf, len, PREC_MANI_SEC_BUILDID_DROPS) != 0);
	CHECK(prec_manifest__decode(&back, buf, len, NULL) == 0);
	CHECK_EQ(back->buildids_dropped, 12345);
	prec_manifest__delete(back);
	free(buf);
	prec_manifest__delete(m);
}

/* The queue: notes and paths come out as they went in, across the wrap;
 * a consumer that far behind costs the note (counted), never a block. */
static void check_queue(void)
{
	struct prec_buildid_queue q;
	struct prec_buildid_note n, out;
	char path[PREC_BUILDID_QUEUE_PATH], got[PREC_BUILDID_QUEUE_PATH];
	uint32_t pushed = 0, popped = 0;

	CHECK_EQ(prec_buildid_queue__init(&q, 1000), -EINVAL);
	CHECK_EQ(prec_buildid_queue__init(&q, 8192), 0);
	CHECK_EQ(prec_buildid_queue__pop(&q, &out, got), 0);
	for (uint32_t i = 0; i < 5000; i++) {
		int len = snprintf(path, sizeof(path), "/usr/lib/lib%u.so.%u", i, i * 7);

		n = (struct prec_buildid_note){ .maj = i, .min = i + 1, .ino = i * 3ull,
			.start = i * 4096ull, .end = i * 4096ull + 8192, .pid = (int32_t)i,
			.cpumode = PERF_RECORD_MISC_USER, .path_len = (uint16_t)len };
		CHECK_EQ(prec_buildid_queue__push(&q, &n, path), 0);
		pushed++;
		/* the consumer lags by two notes */
		if (i < 2)
			continue;
		CHECK_EQ(prec_buildid_queue__pop(&q, &out, got), 1);
		snprintf(path, sizeof(path), "/usr/lib/lib%u.so.%u", popped, popped * 7);
		CHECK(!strcmp(got, path));
		CHECK_EQ(out.ino, popped * 3ull);
		CHECK_EQ(out.pid, (int32_t)popped);
		CHECK_EQ(out.end, popped * 4096ull + 8192);
		popped++;
	}
	while (prec_buildid_queue__pop(&q, &out, got) == 1)
		popped++;
	CHECK_EQ(popped, pushed);
	CHECK(q.head > 4 * q.size); /* it wrapped */
	/* full: refused and counted (4 notes of 40 + 2000 bytes fill 8 KiB) */
	memset(path, 'x', sizeof(path));
	n.path_len = 2000;
	for (int i = 0; i < 4; i++)
		CHECK_EQ(prec_buildid_queue__push(&q, &n, path), 0);
	CHECK_EQ(prec_buildid_queue__push(&q, &n, path), -ENOSPC);
	CHECK_EQ(q.full, 1);
	/* a path too long for a note */
	n.path_len = PREC_BUILDID_QUEUE_PATH;
	CHECK_EQ(prec_buildid_queue__push(&q, &n, path), -ENOSPC);
	CHECK_EQ(q.full, 2);
	prec_buildid_queue__exit(&q);
}

int main(void)
{
	check_entries();
	check_bytes();
	check_codec();
	check_queue();
	return 0;
}
