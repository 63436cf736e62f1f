// SPDX-License-Identifier: MIT
// The build-id reader of a recording (record/buildid_reader.c): files
// queued by a drainer are read in one batch, and every one of them has its
// id afterwards, also when the batch grows the reader's table (its first
// growth comes at the 128th file). The reader used to keep pointers into
// the table it had just moved: the ids of the batch's earlier files went
// into freed memory (found in prec record -a under a machine's other
// tests: glibc's "malloc(): invalid next size", SIGABRT), and the table
// kept them unread.
#include "../lib/test.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record/buildid_queue.h"
#include "record/buildid_reader.h"

#define NR_FILES 300

/* File k's id: 20 bytes no other file has. */
static void id_of(int k, uint8_t id[20])
{
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(k * 7 + i * 13 + 1);
	id[0] = (uint8_t)k;
	id[1] = (uint8_t)(k >> 8);
}

/* The smallest ELF the reader takes: a 64-bit little-endian header, one
 * PT_NOTE program header and a GNU build-id note holding id. */
static size_t tiny_elf(uint8_t *buf, const uint8_t id[20])
{
	size_t note = 64 + 56, len = note + 16 + 20;

	memset(buf, 0, len);
	memcpy(buf, "\177ELF", 4);
	buf[4] = 2;   /* ELFCLASS64 */
	buf[5] = 1;   /* little-endian */
	buf[6] = 1;   /* EV_CURRENT */
	buf[32] = 64; /* e_phoff */
	buf[54] = 56; /* e_phentsize */
	buf[56] = 1;  /* e_phnum */
	buf[64] = 4;  /* PT_NOTE, at e_phoff */
	buf[64 + 8] = (uint8_t)note;    /* p_offset */
	buf[64 + 32] = 16 + 20;         /* p_filesz */
	buf[64 + 48] = 4;               /* p_align */
	buf[note] = 4;                  /* namesz: "GNU" */
	buf[note + 4] = 20;             /* descsz */
	buf[note + 8] = 3;              /* NT_GNU_BUILD_ID */
	memcpy(buf + note + 12, "GNU", 4);
	memcpy(buf + note + 16, id, 20);
	return len;
}

struct file {
	char path[64];
	uint32_t maj, min;
	uint64_t ino;
};

static void make_files(const char *dir, struct file *f, int n)
{
	uint8_t buf[256], id[20];

	for (int k = 0; k < n; k++) {
		struct stat st;
		size_t len;
		int fd;

		snprintf(f[k].path, sizeof(f[k].path), "%s/lib%03d.so", dir, k);
		id_of(k, id);
		len = tiny_elf(buf, id);
		fd = open(f[k].path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		CHECK(fd >= 0);
		CHECK(write(fd, buf, len) == (ssize_t)len);
		CHECK(fstat(fd, &st) == 0);
		close(fd);
		f[k].maj = major(st.st_dev);
		f[k].min = minor(st.st_dev);
		f[k].ino = st.st_ino;
	}
}

static void push(struct prec_buildid_queue *q, const struct file *f)
{
	struct prec_buildid_note n = { .maj = f->maj, .min = f->min, .ino = f->ino,
				       .path_len = (uint16_t)strlen(f->path) };

	CHECK_EQ(prec_buildid_queue__push(q, &n, f->path), 0);
}

/* Whether file k has its own id in r; fails the test on a wrong one. */
static bool has_id(const struct prec_buildid_reader *r, const struct file *f, int k)
{
	uint8_t want[20], got[20];

	memset(got, 0, sizeof(got));
	id_of(k, want);
	if (prec_buildid_reader__find(r, f[k].maj, f[k].min, f[k].ino, got) != 20)
		return false;
	CHECK(!memcmp(got, want, sizeof(got)));
	return true;
}

/* After the read of a batch ending at file to - 1: true when every file
 * of f[0, to) has its id; false when the read ran out of its deadline (a
 * starved machine): the batch is read in order, so its last file has no
 * id then. Fails the test when the last has its id and another has none. */
static bool batch_read(const struct prec_buildid_reader *r, const struct file *f, int to)
{
	if (!has_id(r, f, to - 1))
		return false;
	for (int k = 0; k < to; k++) {
		if (!has_id(r, f, k)) {
			fprintf(stderr, "file %d of %d (%s): no id after the read, file %d has its own\n",
				k, to, f[k].path, to - 1);
			exit(1);
		}
	}
	return true;
}

static struct file files[NR_FILES];
static char dir[] = "/tmp/prec-unit-bidreader.XXXXXX";

static void remove_files(void)
{
	for (int k = 0; k < NR_FILES; k++)
		if (files[k].path[0])
			unlink(files[k].path);
	rmdir(dir);
}

/* One reader through both batches. Returns false when a read ran out of
 * its deadline (the reader is then off for good: the next attempt takes
 * a new one). */
static bool attempt(void)
{
	struct prec_buildid_queue q[2];
	struct prec_buildid_queue *qs[2] = { &q[0], &q[1] };
	struct prec_buildid_reader *r;
	bool ok;

	CHECK_EQ(prec_buildid_queue__init(&q[0], 64 * 1024), 0);
	CHECK_EQ(prec_buildid_queue__init(&q[1], 64 * 1024), 0);
	CHECK_EQ(prec_buildid_reader__new(&r), 0);
	/* 1. 200 files in one batch: the table grows at the 128th. */
	for (int k = 0; k < 200; k++)
		push(&q[0], &files[k]);
	prec_buildid_reader__read(r, qs, 1);
	ok = batch_read(r, files, 200);
	/* 2. Then 100 more from two queues, a file already read among
	 * them: the next growth (the 256th) inside this batch too. */
	if (ok) {
		for (int k = 200; k < NR_FILES; k++)
			push(&q[k & 1], &files[k]);
		push(&q[0], &files[3]);
		prec_buildid_reader__read(r, qs, 2);
		ok = batch_read(r, files, NR_FILES);
	}
	prec_buildid_reader__delete(r);
	prec_buildid_queue__exit(&q[0]);
	prec_buildid_queue__exit(&q[1]);
	return ok;
}

int main(void)
{
	int tries = 1;

	CHECK(mkdtemp(dir));
	atexit(remove_files);
	make_files(dir, files, NR_FILES);
	/* A read has 250 ms (the recorder's loop must not wait longer): a
	 * machine that starves this process may need a few tries. */
	while (!attempt()) {
		CHECK(tries++ < 100);
		usleep(20000);
	}
	printf("PASS: %d files read in batches that grow the table: each has its id (%d %s)\n",
	       NR_FILES, tries, tries == 1 ? "try" : "tries");
	return 0;
}
