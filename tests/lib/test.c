// SPDX-License-Identifier: MIT
// Shared helpers for unit tests: seeds, PRNG, scratch directories.
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t test_seed(void)
{
	const char *env = getenv("TEST_SEED");
	uint64_t seed;

	if (env && *env) {
		seed = strtoull(env, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
	}
	if (!seed)
		seed = 1;
	printf("seed: %llu (set TEST_SEED to replay)\n", (unsigned long long)seed);
	fflush(stdout);
	return seed;
}

uint64_t test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

char *test_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&path, "%s/prec-%s-XXXXXX", base, tag) < 0)
		exit(1);
	if (!mkdtemp(path)) {
		perror("mkdtemp");
		exit(1);
	}
	return path;
}

void test_rmdir(const char *path)
{
	char *cmd;

	if (!path || strncmp(path, "/", 1) || strstr(path, "prec-") == NULL)
		return;
	if (asprintf(&cmd, "rm -rf '%s'", path) < 0)
		return;
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", path);
	free(cmd);
}
