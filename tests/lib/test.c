// SPDX-License-Identifier: MIT
// Shared helpers for unit tests: seeds, PRNG, scratch directories.
#include "test.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

uint8_t *test_load(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	buf = malloc((size_t)st.st_size + 1);
	CHECK(buf);
	CHECK_EQ(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = 0;
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}


int test_run_captured(int (*cmd)(int, char **), int argc, char **argv, bool both,
		      char *out, size_t len)
{
	int saved[2] = { dup(1), both ? dup(2) : -1 }, rc;
	FILE *f = tmpfile();
	size_t n;

	CHECK(f && saved[0] >= 0 && (!both || saved[1] >= 0));
	fflush(stdout);
	fflush(stderr);
	CHECK(dup2(fileno(f), 1) == 1 && (!both || dup2(fileno(f), 2) == 2));
	rc = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	CHECK(dup2(saved[0], 1) == 1 && (!both || dup2(saved[1], 2) == 2));
	close(saved[0]);
	if (both)
		close(saved[1]);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	return rc;
}

bool test_syscall_missing(long nr)
{
	return syscall(nr, 0, 0, 0, 0, 0) < 0 && errno == ENOSYS;
}

void test_need_syscall(long nr, const char *name)
{
	if (!test_syscall_missing(nr))
		return;
	printf("%s: %s (an emulator?): skipping\n", name, strerror(ENOSYS));
	exit(TEST_SKIP);
}

void test_put(const char *dir, const char *file, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	CHECK(f);
	fprintf(f, "%s\n", text);
	CHECK_EQ(fclose(f), 0);
}

uint64_t test_perfdata_feature(const uint8_t *f, size_t len, int feat)
{
	uint64_t table, sec;
	int idx = 0;

	CHECK(len >= 104);
	/* the table follows the data section: one {offset, size} per bit set
	 * in the header's bitmap (at 72), in bit order */
	memcpy(&table, f + 40, 8);
	memcpy(&sec, f + 48, 8);
	table += sec;
	CHECK(f[72 + feat / 8] & (1u << (feat % 8)));
	for (int b = 0; b < feat; b++)
		idx += !!(f[72 + b / 8] & (1u << (b % 8)));
	CHECK(table + 16 * (uint64_t)(idx + 1) <= len);
	memcpy(&sec, f + table + 16 * (uint64_t)idx, 8);
	CHECK(sec + 8 <= len);
	return sec;
}
