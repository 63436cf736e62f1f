// SPDX-License-Identifier: MIT
// Workload with an exactly known event count: N getppid() system calls
// (syscall 110 on x86_64), made directly so libc caching cannot hide any.
// Usage: storm N [phases]: with phases > 1, writes "phase K" markers to
// trace_marker between equal slices of the calls (if it is writable).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void mark(int fd, int phase)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "phase %d", phase);

	if (fd >= 0 && write(fd, text, (size_t)n) < 0)
		perror("trace_marker");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 100000;
	int phases = argc > 2 ? atoi(argv[2]) : 1;
	int fd = -1;

	if (n < 0 || phases < 1) {
		fprintf(stderr, "usage: storm N [phases]\n");
		return 2;
	}
	if (phases > 1)
		fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	for (int p = 0; p < phases; p++) {
		long slice = n / phases + (p < n % phases);

		mark(fd, p);
		for (long i = 0; i < slice; i++)
			syscall(SYS_getppid);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
