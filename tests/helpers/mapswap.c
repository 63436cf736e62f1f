// SPDX-License-Identifier: MIT
// Attacker workload for tests/e2e/attack_buildid.sh: maps a file of its own
// as code with its pages out of the page cache (so the kernel's MMAP2 has
// no build-id and the recorder reads the file at the end), then makes the
// path name something else, and exits.
// Usage: mapswap DIR SRC MODE [TARGET]
//   DIR/lib.so is a copy of the ELF file SRC; MODE says what its path
//   names once mapped:
//   zero    a symlink to /dev/zero
//   fifo    a FIFO; a watcher left behind writes "opened" to DIR/watch.log
//           if anyone opens it
//   link    a symlink to TARGET (an ELF file of another build-id)
//   trunc   nothing changes: DIR/lib.so is instead a 240 MB sparse ELF of
//           60000 note sections, and the watcher truncates it to nothing
//           as soon as anyone opens it (a reader through a mapping faults)
// The watcher writes its pid to DIR/watch.pid and exits after 10 s.
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRUNC_SECTIONS 60000u

static void die(const char *what)
{
	fprintf(stderr, "mapswap: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void put_all(int fd, const void *buf, size_t len, off_t off)
{
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("pwrite");
}

static void copy_elf(const char *src, int out)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC);
	off_t off = 0;
	ssize_t n;

	if (in < 0)
		die(src);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		put_all(out, buf, (size_t)n, off);
		off += n;
	}
	if (n < 0)
		die("read");
	close(in);
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* An x86-64 ELF header, no program headers, TRUNC_SECTIONS SHT_NOTE
 * sections of one empty note each, every one in a page of its own past
 * the section header table: a reader walks 60000 pages. Sparse on disk. */
static void make_trunc_elf(int fd)
{
	uint64_t shoff = 4096, data = shoff + (uint64_t)TRUNC_SECTIONS * 64;
	static uint8_t sh[TRUNC_SECTIONS][64];
	uint8_t eh[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	uint8_t note[12] = { 0 };

	data = (data + 4095) & ~4095ull;
	put16(eh + 16, 3);                  /* ET_DYN */
	put16(eh + 18, 62);                 /* EM_X86_64 */
	put32(eh + 20, 1);
	put64(eh + 40, shoff);
	put16(eh + 52, 64);
	put16(eh + 58, 64);
	put16(eh + 60, TRUNC_SECTIONS);
	put_all(fd, eh, sizeof(eh), 0);
	for (uint32_t i = 1; i < TRUNC_SECTIONS; i++) {
		put32(sh[i] + 4, 7);        /* SHT_NOTE */
		put64(sh[i] + 24, data + (uint64_t)i * 4096);
		put64(sh[i] + 32, sizeof(note));
		put64(sh[i] + 48, 4);
	}
	put_all(fd, sh, sizeof(sh), (off_t)shoff);
	put_all(fd, note, sizeof(note), (off_t)(data + (uint64_t)TRUNC_SECTIONS * 4096));
}

/* Left behind when the workload exits: reports (or, for trunc, answers)
 * the first open of path, which only the recorder can be making. */
static void start_watcher(const char *dir, const char *path, bool trunc,
			  void *map, size_t len)
{
	char log[4096], pidf[4096];
	int ready[2];
	pid_t pid;
	char c;

	snprintf(log, sizeof(log), "%s/watch.log", dir);
	snprintf(pidf, sizeof(pidf), "%s/watch.pid", dir);
	if (pipe(ready))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid) {
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			die("watcher");
		close(ready[0]);
		return;
	}
	setsid();
	close(ready[0]);
	/* Not left in its maps: a system-wide recorder reading build-ids of
	 * the maps of every process would open the path too. */
	munmap(map, len);
	{
		char ev[4096] __attribute__((aligned(8)));
		int in = inotify_init1(IN_CLOEXEC), w;
		FILE *f;

		if (in < 0)
			_exit(1);
		w = inotify_add_watch(in, path, IN_OPEN | IN_DONT_FOLLOW);
		if (w < 0)
			_exit(1);
		f = fopen(pidf, "w");
		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
		alarm(10);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		close(ready[1]);
		for (bool open = false; !open;) {
			ssize_t n = read(in, ev, sizeof(ev));

			if (n <= 0)
				_exit(1);
			for (char *p = ev; p < ev + n;) {
				const struct inotify_event *e = (const void *)p;

				open |= (e->mask & IN_OPEN) != 0;
				if (e->mask & IN_IGNORED)
					_exit(0); /* removed: the test is over */
				p += sizeof(*e) + e->len;
			}
		}
		if (trunc) {
			/* Let the reader get into the file's pages first. */
			struct timespec ts = { 0, 5 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			if (truncate(path, 0))
				_exit(1);
		}
		f = fopen(log, "a");
		if (f) {
			fputs(trunc ? "truncated\n" : "opened\n", f);
			fclose(f);
		}
		_exit(0);
	}
}

int main(int argc, char **argv)
{
	char path[4096], tmp[4096];
	const char *dir, *src, *mode;
	unsigned char vec;
	struct stat st;
	void *map;
	int fd;

	if (argc < 4 || (!strcmp(argv[3], "link") && argc < 5)) {
		fprintf(stderr, "usage: mapswap DIR SRC zero|fifo|link|trunc [TARGET]\n");
		return 2;
	}
	/* Unbuffered: what it says must reach the test even if the exit is
	 * not clean (a sanitizer's leak check fails under strace). */
	setvbuf(stdout, NULL, _IONBF, 0);
	dir = argv[1];
	src = argv[2];
	mode = argv[3];
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	snprintf(tmp, sizeof(tmp), "%s/lib.so.new", dir);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0)
		die(path);
	if (!strcmp(mode, "trunc"))
		make_trunc_elf(fd);
	else
		copy_elf(src, fd);
	if (fsync(fd) || fstat(fd, &st))
		die("fsync");
	/* Out of the page cache: the kernel reads no build-id at mmap time
	 * (it does not fault pages in for it), the recorder must. Checked
	 * through a data mapping, which makes no MMAP2 record. */
	for (int i = 0; i < 50; i++) {
		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			die("dropping the pages");
		map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			die("mmap");
		vec = 1;
		mincore(map, 1, &vec);
		munmap(map, 4096);
		if (!(vec & 1))
			break;
		usleep(20 * 1000);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (!mincore(map, 1, &vec))
		printf("mapswap: first page %s\n", vec & 1 ? "cached" : "not cached");
	close(fd);
	if (!strcmp(mode, "zero")) {
		if (symlink("/dev/zero", tmp) || rename(tmp, path))
			die("symlink /dev/zero");
	} else if (!strcmp(mode, "fifo")) {
		if (mkfifo(tmp, 0666) || rename(tmp, path))
			die("mkfifo");
		start_watcher(dir, path, false, map, (size_t)st.st_size);
	} else if (!strcmp(mode, "link")) {
		if (symlink(argv[4], tmp) || rename(tmp, path))
			die("symlink");
	} else if (!strcmp(mode, "trunc")) {
		start_watcher(dir, path, true, map, (size_t)st.st_size);
	} else {
		fprintf(stderr, "mapswap: unknown mode %s\n", mode);
		return 2;
	}
	printf("mapswap: %s mapped, path now %s\n", path, mode);
	return 0;
}
