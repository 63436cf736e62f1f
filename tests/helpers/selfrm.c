// SPDX-License-Identifier: MIT
// Workload that deletes its own binary as soon as it runs, then lives on
// for a while: a temporary program whose path is gone before any reader
// of the recording could open it (only /proc/PID/map_files names it).
// Usage: selfrm SECONDS
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : -1;
	char self[PATH_MAX];
	struct timespec ts;
	ssize_t n;

	if (secs < 0) {
		fprintf(stderr, "usage: selfrm SECONDS\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	if (unlink(self)) {
		perror(self);
		return 1;
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	return 0;
}
