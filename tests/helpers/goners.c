// SPDX-License-Identifier: MIT
// Workload with threads that may leave before the work, and an exactly
// known count for those that stay (tests/e2e/record_target_vanish.sh).
// Usage: goners NTHREADS N GO: starts NTHREADS threads and prints
// "PID TID..." (the workers' ids) on one line; a worker that gets SIGUSR1
// (tgkill) leaves at once. Once GO (a fifo) is opened and closed by a
// writer, every worker still there and the main thread make N getppid()
// calls each (syscall 110 on x86_64, made directly), and the process exits.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_WORKERS 64

static long calls;
static pid_t tids[MAX_WORKERS];
static pthread_barrier_t started;

static void work(void)
{
	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid);
}

/* SIGUSR1: leave; SIGUSR2: the main thread's go. */
static void *worker(void *arg)
{
	sigset_t set;
	int sig = 0;

	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	while (sigwait(&set, &sig))
		;
	if (sig == SIGUSR2)
		work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_WORKERS];
	sigset_t set;
	long n;
	char c;
	int fd;

	if (argc != 4 || (n = strtol(argv[1], NULL, 10)) < 0 || n > MAX_WORKERS) {
		fprintf(stderr, "usage: goners NTHREADS(0-%d) N GO_FIFO\n", MAX_WORKERS);
		return 2;
	}
	calls = strtol(argv[2], NULL, 10);
	/* blocked in every thread: each worker takes its own with sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&started, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	pthread_barrier_wait(&started);
	printf("%d", (int)getpid());
	for (long i = 0; i < n; i++)
		printf(" %d", (int)tids[i]);
	printf("\n");
	fflush(stdout);
	fd = open(argv[3], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[3]);
		return 1;
	}
	for (;;) {
		ssize_t r = read(fd, &c, 1);

		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	close(fd);
	for (long i = 0; i < n; i++)
		syscall(SYS_tgkill, getpid(), tids[i], SIGUSR2); /* ESRCH: it left */
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	work();
	return 0;
}
