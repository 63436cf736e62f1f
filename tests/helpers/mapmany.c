// SPDX-License-Identifier: MIT
// Workload mapping one ELF file under many names: N hard links to SRC,
// made in DIR (a long path, on SRC's file system), each mapped as code,
// so the recording sees N MMAP2 records of N distinct paths, one file.
// SRC "-": DIR's files c000000... as they are (copies: N files to read).
// Usage: mapmany SRC DIR N
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 3 ? strtol(argv[3], NULL, 0) : -1;
	char name[32];
	int dfd;

	if (n < 0) {
		fprintf(stderr, "usage: mapmany SRC DIR N\n");
		return 2;
	}
	dfd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		perror(argv[2]);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		void *p;
		int fd;

		snprintf(name, sizeof(name), "c%06ld", i);
		if (strcmp(argv[1], "-") && linkat(AT_FDCWD, argv[1], dfd, name, 0) &&
		    unlinkat(dfd, name, 0) == 0 && linkat(AT_FDCWD, argv[1], dfd, name, 0)) {
			perror(name);
			return 1;
		}
		fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(name);
			return 1;
		}
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	printf("mapmany: %ld names mapped\n", n);
	return 0;
}
