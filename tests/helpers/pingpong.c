// SPDX-License-Identifier: MIT
// Workload with a known amount of scheduling: two processes bounce one byte
// over a pair of pipes N times, so each side blocks N times and
// sched:sched_switch fires at least 2N times. Usage: pingpong N
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int bounce(int in, int out, long n, int serve)
{
	char byte = 'x';

	for (long i = 0; i < n; i++) {
		if (!serve && write(out, &byte, 1) != 1)
			return 1;
		if (read(in, &byte, 1) != 1)
			return 1;
		if (serve && write(out, &byte, 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 10000;
	int ping[2], pong[2], status = 0;
	pid_t child;

	if (n < 0 || pipe(ping) || pipe(pong)) {
		fprintf(stderr, "usage: pingpong N\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(bounce(ping[0], pong[1], n, 1));
	if (bounce(pong[0], ping[1], n, 0))
		return 1;
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
