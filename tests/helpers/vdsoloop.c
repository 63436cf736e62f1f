// SPDX-License-Identifier: MIT
// A workload that lives in the vDSO: clock_gettime in a loop for MS
// milliseconds (the vDSO answers it without a system call), for the vDSO
// build-id tests.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 500;
	struct timespec now, end;

	if (ms <= 0) {
		fprintf(stderr, "usage: vdsoloop MS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	return 0;
}
