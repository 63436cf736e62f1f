// SPDX-License-Identifier: MIT
// The cost of one cross-CPU operation, as the recorders' starts and stops
// make them (tests/vm/xcpu.sh): from a thread on CPU 0, opening a
// cpu-clock event on each other CPU, enabling and disabling it with an
// ioctl (the kernel runs both on the event's CPU and waits), a pipe round
// trip to a thread on that CPU, and the same ioctls of CPU 0's own event.
// Prints one line of medians and maxima in microseconds. Usage: xcpu [ROUNDS]
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { OPEN, ENABLE, DISABLE, LOCAL_ENABLE, RTT, CREATE, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"open", "enable", "disable", "local_enable", "pipe_rtt", "thread_create_run",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_event(int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

struct echo {
	int in, out, cpu;
};

/* Answers every byte on in with one on out, from its CPU. */
static void *echo_thread(void *arg)
{
	struct echo *e = arg;
	char b;

	pin(e->cpu);
	while (read(e->in, &b, 1) == 1)
		if (write(e->out, &b, 1) != 1)
			break;
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	size_t cap = (size_t)(ncpu > 1 ? ncpu : 2) * (size_t)(rounds > 0 ? rounds : 1);
	uint64_t *v[NR_OPS];
	size_t n[NR_OPS] = { 0 };

	if (rounds <= 0 || ncpu <= 0 || pin(0)) {
		fprintf(stderr, "usage: xcpu [ROUNDS] (pinned on CPU 0)\n");
		return 2;
	}
	for (int o = 0; o < NR_OPS; o++)
		if (!(v[o] = calloc(cap, sizeof(uint64_t))))
			return 1;
	for (int r = 0; r < rounds; r++) {
		int lfd = open_event(0);
		uint64_t t;

		if (lfd >= 0) {
			t = now_ns();
			ioctl(lfd, PERF_EVENT_IOC_ENABLE, 0);
			v[LOCAL_ENABLE][n[LOCAL_ENABLE]++] = now_ns() - t;
			ioctl(lfd, PERF_EVENT_IOC_DISABLE, 0);
			close(lfd);
		}
		for (int c = 1; c < ncpu; c++) {
			int fd, p1[2], p2[2];
			struct echo e;
			pthread_t th;
			cpu_set_t set;
			pthread_attr_t attr;
			char b = 'x';

			t = now_ns();
			fd = open_event(c);
			if (fd < 0) {
				perror("perf_event_open");
				return 1;
			}
			v[OPEN][n[OPEN]++] = now_ns() - t;
			t = now_ns();
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			v[ENABLE][n[ENABLE]++] = now_ns() - t;
			t = now_ns();
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			v[DISABLE][n[DISABLE]++] = now_ns() - t;
			close(fd);
			/* A thread created on CPU c, run there, joined. */
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			pthread_attr_init(&attr);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
			t = now_ns();
			if (!pthread_create(&th, &attr, nothing, NULL)) {
				pthread_join(th, NULL);
				v[CREATE][n[CREATE]++] = now_ns() - t;
			}
			pthread_attr_destroy(&attr);
			/* A pipe round trip with a thread waiting on CPU c. */
			if (pipe(p1) || pipe(p2))
				return 1;
			e = (struct echo){ .in = p1[0], .out = p2[1], .cpu = c };
			if (pthread_create(&th, NULL, echo_thread, &e))
				return 1;
			/* The first trip wakes it where it starts; time the second. */
			for (int i = 0; i < 2; i++) {
				t = now_ns();
				if (write(p1[1], &b, 1) != 1 || read(p2[0], &b, 1) != 1)
					return 1;
			}
			v[RTT][n[RTT]++] = now_ns() - t;
			close(p1[1]);
			pthread_join(th, NULL);
			close(p1[0]);
			close(p2[0]);
			close(p2[1]);
		}
	}
	printf("xcpu ncpu=%d rounds=%d", ncpu, rounds);
	for (int o = 0; o < NR_OPS; o++) {
		uint64_t sum = 0;

		if (!n[o]) {
			printf(" %s=-", op_name[o]);
			continue;
		}
		qsort(v[o], n[o], sizeof(uint64_t), cmp);
		for (size_t i = 0; i < n[o]; i++)
			sum += v[o][i];
		printf(" %s_us=%.0f/%.0f/%.0f", op_name[o], (double)v[o][n[o] / 2] / 1e3,
		       (double)sum / (double)n[o] / 1e3, (double)v[o][n[o] - 1] / 1e3);
	}
	printf("  (median/mean/max)\n");
	for (int o = 0; o < NR_OPS; o++)
		free(v[o]);
	return 0;
}
