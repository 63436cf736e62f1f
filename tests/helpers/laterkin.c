// SPDX-License-Identifier: MIT
// Test helper for the tail's tasks (tests/e2e/record_tail_tasks.sh): a
// process with a second thread from its start, and, once it gets SIGUSR1,
// a third thread and a child (a fork, no exec), all of them asleep. Writes
// "PID TID" (the second thread's) into PIDFILE once that thread exists;
// exits END_MS after its start or at SIGTERM, its child killed and reaped
// first (none is left behind).
// Usage: laterkin PIDFILE END_MS
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t second_tid;

static void *sleeper(void *arg)
{
	if (arg)
		__atomic_store_n(&second_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	uint64_t end;
	pid_t child = 0;
	sigset_t set;
	pthread_t t;
	FILE *f;
	int sig;

	if (argc != 3) {
		fprintf(stderr, "usage: laterkin PIDFILE END_MS\n");
		return 2;
	}
	end = now_ms() + strtoull(argv[2], NULL, 10);
	/* blocked before the threads exist: only the main thread takes it */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, sleeper, &second_tid))
		return 1;
	while (!__atomic_load_n(&second_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d %d\n", (int)getpid(), (int)second_tid) < 0 || fclose(f))
		return 1;
	while (now_ms() < end) {
		struct timespec left = { 0, 0 };
		uint64_t ms = end - now_ms();

		left.tv_sec = (time_t)(ms / 1000);
		left.tv_nsec = (long)(ms % 1000) * 1000000;
		sig = sigtimedwait(&set, NULL, &left);
		if (sig == SIGTERM)
			break;
		if (sig == SIGUSR1 && !child) {
			if (pthread_create(&t, NULL, sleeper, NULL))
				return 1;
			child = fork();
			if (child < 0)
				return 1;
			if (!child)
				for (;;)
					pause();
		}
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 0;
}
