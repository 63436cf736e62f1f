// SPDX-License-Identifier: MIT
// The cost of one cross-CPU operation, as the recorders' starts and stops
// make them (tests/vm/xcpu.sh): from a thread on CPU 0, opening a
// cpu-clock event on each other CPU, enabling and disabling it with an
// ioctl (the kernel runs both on the event's CPU and waits), a pipe round
// trip to a thread on that CPU, and the same ioctls of CPU 0's own event.
// Prints one line of medians and maxima in microseconds. Usage: xcpu [ROUNDS]
// With "xcpu sync DIR [ROUNDS]": a thread on each CPU writes 256 KiB
// (O_DIRECT) to a file of its own in DIR, then either each fsyncs its file
// at once (as the drainers do at the stop) or the caller makes one
// syncfs(); prints the ms from the writes' end to the last sync's.
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
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

struct syncer {
	int dirfd, cpu, fd, each;
	pthread_barrier_t *go;
	uint64_t done_ns;
};

/* Writes its file, waits for all, then fsyncs it (each) or not. */
static void *sync_thread(void *arg)
{
	struct syncer *y = arg;
	char name[32];
	void *buf;

	pin(y->cpu);
	snprintf(name, sizeof(name), "xcpu-%d", y->cpu);
	y->fd = openat(y->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
	if (y->fd < 0 || posix_memalign(&buf, 4096, 256 << 10))
		return NULL;
	memset(buf, 'x', 256 << 10);
	if (write(y->fd, buf, 256 << 10) != 256 << 10)
		perror("write");
	free(buf);
	pthread_barrier_wait(y->go);
	if (y->each && fsync(y->fd))
		perror("fsync");
	y->done_ns = now_ns();
	return NULL;
}

static int sync_main(const char *dir, int rounds, int ncpu)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct syncer *y = calloc((size_t)ncpu, sizeof(*y));
	pthread_t *t = calloc((size_t)ncpu, sizeof(*t));
	pthread_barrier_t go;

	if (dirfd < 0 || !y || !t)
		return 1;
	printf("xcpu sync ncpu=%d (ms from the writes' end to the last sync, %d files of 256 KiB):", ncpu, ncpu);
	for (int r = 0; r < 2 * rounds; r++) {
		int each = !(r & 1);
		uint64_t t0, end = 0;

		pthread_barrier_init(&go, NULL, (unsigned int)ncpu + 1);
		for (int c = 0; c < ncpu; c++) {
			y[c] = (struct syncer){ .dirfd = dirfd, .cpu = c, .fd = -1, .each = each, .go = &go };
			if (pthread_create(&t[c], NULL, sync_thread, &y[c]))
				return 1;
		}
		pthread_barrier_wait(&go);
		t0 = now_ns();
		for (int c = 0; c < ncpu; c++)
			pthread_join(t[c], NULL);
		if (!each && syncfs(dirfd))
			perror("syncfs");
		for (int c = 0; c < ncpu; c++) {
			if (y[c].done_ns > end)
				end = y[c].done_ns;
			close(y[c].fd);
		}
		if (!each)
			end = now_ns();
		printf(" %s=%.1f", each ? "fsync_each" : "syncfs", (double)(end - t0) / 1e6);
		pthread_barrier_destroy(&go);
	}
	printf("\n");
	free(y);
	free(t);
	close(dirfd);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	size_t cap = (size_t)(ncpu > 1 ? ncpu : 2) * (size_t)(rounds > 0 ? rounds : 1);
	uint64_t *v[NR_OPS];
	size_t n[NR_OPS] = { 0 };

	if (argc > 2 && !strcmp(argv[1], "sync"))
		return sync_main(argv[2], argc > 3 ? atoi(argv[3]) : 3, ncpu);
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
