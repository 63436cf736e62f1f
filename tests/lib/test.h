/* SPDX-License-Identifier: MIT */
/* Unit-test helpers: asserts that print file:line and the condition, and a
 * seeded PRNG whose seed is printed and settable with TEST_SEED. */
#ifndef PREC_TEST_H
#define PREC_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_SKIP 77

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
			exit(1);                                                 \
		}                                                                \
	} while (0)

/* 1 when x has an unsigned integer type (x is not evaluated). */
#define TEST_IS_UNSIGNED(x)                                                      \
	_Generic((x), bool: 1, unsigned char: 1, unsigned short: 1,              \
		 unsigned int: 1, unsigned long: 1, unsigned long long: 1,        \
		 default: 0)

/* One CHECK_EQ operand, as its own type reads: a u64 above INT64_MAX is
 * printed unsigned, a negative int signed. */
static inline void test_print_int(long long v, int is_unsigned)
{
	if (is_unsigned)
		fprintf(stderr, "%llu", (unsigned long long)v);
	else
		fprintf(stderr, "%lld", v);
}

/* a == b compared as 64-bit integers (each operand evaluated once); a
 * failure prints file:line, both expressions and both values. */
#define CHECK_EQ(a, b)                                                           \
	do {                                                                     \
		long long a_ = (long long)(a), b_ = (long long)(b);              \
		if (a_ != b_) {                                                  \
			fprintf(stderr, "%s:%d: check failed: %s == %s (",       \
				__FILE__, __LINE__, #a, #b);                     \
			test_print_int(a_, TEST_IS_UNSIGNED(a));                 \
			fputs(" != ", stderr);                                   \
			test_print_int(b_, TEST_IS_UNSIGNED(b));                 \
			fputs(")\n", stderr);                                   \
			exit(1);                                                 \
		}                                                                \
	} while (0)

/* True when the system call nr does not exist here (ENOSYS): an emulator
 * such as qemu-user (make ARCH=arm64 unit-run) has no io_uring_setup or
 * perf_event_open. Asked with null arguments, which a kernel that has the
 * call refuses with another errno. */
bool test_syscall_missing(long nr);
/* Exit TEST_SKIP, saying why, when test_syscall_missing(nr): for a test
 * that needs the call throughout. */
void test_need_syscall(long nr, const char *name);

/* Seed from TEST_SEED or the clock; printed so a failure can be replayed. */
uint64_t test_seed(void);
/* xorshift64*; state must be non-zero. */
uint64_t test_rand(uint64_t *state);
/* A fresh temporary directory under $TMPDIR (or /tmp), removed by test_rmdir. */
char *test_tmpdir(const char *tag);
void test_rmdir(const char *path);
/* A whole file in a malloc'd buffer with a NUL after its *len bytes;
 * any failure fails the test. */
uint8_t *test_load(const char *path, size_t *len);
/* dir/file holds text and a newline (a fake sysfs attribute); any failure
 * fails the test. */
void test_put(const char *dir, const char *file, const char *text);
/* The file offset of feature section feat (perf's HEADER_* bit) of the
 * file-mode perf.data f[0, len), with at least 8 bytes there; a missing
 * bit or a table past the end fails the test. */
uint64_t test_perfdata_feature(const uint8_t *f, size_t len, int feat);

/* Run a prec command (prec_cmd_info and the like) in this process with
 * stdout, and stderr too when both is set, going to out[] (NUL-terminated,
 * cut at len - 1); returns its exit status. */
int test_run_captured(int (*cmd)(int, char **), int argc, char **argv, bool both,
		      char *out, size_t len);

struct prec_manifest;
/* The session's sample_type, its time layout and one cpu-clock event with
 * the one id given: what a hand-built manifest needs to decode. */
void test_manifest_add_event(struct prec_manifest *m, uint64_t id);
/* Random manifests (tests/lib/manifest_gen.c), from their own generator:
 * seed it first (with test_seed()'s value, so a failure replays). */
void test_manifest_seed(uint64_t seed);
/* Hundreds of shards, events, ids and build-ids, long strings. */
struct prec_manifest *test_manifest_big(void);
/* A few of each, short strings. */
struct prec_manifest *test_manifest_small(void);
/* The smallest contents decode() accepts: a sample_type with its time
 * layout, one event with one id. */
void test_manifest_valid(struct prec_manifest *m);
/* Every field of a and b equal (strings, arrays, totals). */
void test_manifest_check_eq(const struct prec_manifest *a, const struct prec_manifest *b);

#endif
