// SPDX-License-Identifier: MIT
// Test helper for record -t: a process whose second thread (not the
// thread-group leader) spins for SPIN_MS and exits, while the leader sleeps
// on for LINGER_MS more. Prints the spinning thread's tid on stdout first.
// Usage: spinthread SPIN_MS LINGER_MS
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *spin(void *arg)
{
	uint64_t end = now_ms() + *(const uint64_t *)arg;
	volatile uint64_t n = 0;

	printf("%d\n", (int)gettid());
	fflush(stdout);
	while (now_ms() < end)
		for (int i = 0; i < 10000; i++)
			n++;
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t spin_ms, linger_ms;
	struct timespec ts;
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: spinthread SPIN_MS LINGER_MS\n");
		return 2;
	}
	spin_ms = strtoull(argv[1], NULL, 10);
	linger_ms = strtoull(argv[2], NULL, 10);
	if (pthread_create(&t, NULL, spin, &spin_ms))
		return 1;
	pthread_join(t, NULL);
	ts.tv_sec = (time_t)(linger_ms / 1000);
	ts.tv_nsec = (long)(linger_ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
	return 0;
}
