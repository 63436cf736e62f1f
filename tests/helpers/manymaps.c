// SPDX-License-Identifier: MIT
// Attacker workload for tests/e2e/attack_carry_size.sh: a process whose
// /proc/PID/maps is as large as a user can make it cheaply, so that every
// synthesis of its maps (a --max-disk recording's carry) is megabytes: one
// page of a file of its own, under a path of about 4000 bytes (directories
// of 250-byte names), mapped as code N times (each mapping its own line in
// maps: the same file offset never merges with its neighbour).
// Usage: manymaps DIR N SECONDS
//   makes the path under DIR (which the caller may write), maps it, writes
//   DIR/ready, then sleeps SECONDS and exits.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH 15
#define NAME_LEN 250

static void die(const char *what)
{
	fprintf(stderr, "manymaps: %s: %s\n", what, strerror(errno));
	exit(2);
}

int main(int argc, char **argv)
{
	char name[NAME_LEN + 1], ready[4096];
	int dfd, fd;
	long n;

	if (argc != 4) {
		fprintf(stderr, "usage: manymaps DIR N SECONDS\n");
		return 2;
	}
	n = atol(argv[2]);
	memset(name, 'm', NAME_LEN);
	name[NAME_LEN] = '\0';
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die(argv[1]);
	for (int i = 0; i < DEPTH; i++) {
		int next;

		if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
			die("mkdirat");
		next = openat(dfd, name, O_RDONLY | O_DIRECTORY);
		if (next < 0)
			die("openat dir");
		close(dfd);
		dfd = next;
	}
	fd = openat(dfd, "lib.so", O_RDWR | O_CREAT | O_TRUNC, 0700);
	if (fd < 0)
		die("openat lib.so");
	if (ftruncate(fd, 4096) < 0)
		die("ftruncate");
	for (long i = 0; i < n; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			die("mmap");
	snprintf(ready, sizeof(ready), "%s/ready", argv[1]);
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(ready);
	close(fd);
	sleep((unsigned)atoi(argv[3]));
	return 0;
}
