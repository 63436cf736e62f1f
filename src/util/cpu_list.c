// SPDX-License-Identifier: MIT
// CPU lists: ranges into a bitmap first, so a list is read in one pass
// whatever its order or overlaps ("0-65535" included), then the bitmap into
// a sorted array.
#include "util/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS (PREC_CPU_LIST_MAX / 64)

/* One "N" or "N-M" at *p into bits; *p moves past it. */
static int parse_range(const char **p, uint64_t *bits)
{
	char *end;
	long lo, hi;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	lo = hi = strtol(*p, &end, 10);
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		hi = strtol(end + 1, &end, 10);
	}
	if (lo > hi || hi >= PREC_CPU_LIST_MAX)
		return -EINVAL;
	for (long c = lo; c <= hi; c++)
		bits[c / 64] |= 1ull << (c % 64);
	*p = end;
	return 0;
}

static int to_array(const uint64_t *bits, int **cpus)
{
	int nr = 0, i = 0;

	for (int w = 0; w < WORDS; w++)
		nr += __builtin_popcountll(bits[w]);
	if (!nr)
		return -EINVAL;
	*cpus = malloc((size_t)nr * sizeof(**cpus));
	if (!*cpus)
		return -ENOMEM;
	for (int w = 0; w < WORDS; w++)
		for (uint64_t b = bits[w]; b; b &= b - 1)
			(*cpus)[i++] = w * 64 + __builtin_ctzll(b);
	return nr;
}

int prec_cpu_list__parse(const char *s, int **cpus)
{
	uint64_t *bits = calloc(WORDS, sizeof(*bits));
	const char *p = s;
	int ret = 0;

	*cpus = NULL;
	if (!bits)
		return -ENOMEM;
	while (*p && !ret) {
		ret = parse_range(&p, bits);
		if (ret)
			break;
		if (*p == ',' && p[1])
			p++;
		else if (*p == '\n' && !p[1])
			p++;
		else if (*p)
			ret = -EINVAL;
	}
	if (!ret)
		ret = to_array(bits, cpus);
	free(bits);
	return ret;
}

/* One "N" or "N-M" of perf's -C at *p into bits, a CPU twice refused;
 * *p moves past it and its comma. strtoul as perf reads each number:
 * blanks and a sign are taken after the '-', an empty end is 0. */
static int parse_perf_range(const char **p, uint64_t *bits)
{
	unsigned long lo, hi;
	char *end;

	lo = hi = strtoul(*p, &end, 0);
	if (*end == '-')
		hi = strtoul(end + 1, &end, 0);
	else if (*end && *end != ',')
		return -EINVAL;
	if ((*end && *end != ',') || lo > hi || hi >= PREC_CPU_LIST_MAX)
		return -EINVAL;
	for (unsigned long c = lo; c <= hi; c++) {
		if (bits[c / 64] & (1ull << (c % 64)))
			return -EINVAL;
		bits[c / 64] |= 1ull << (c % 64);
	}
	*p = *end ? end + 1 : end;
	return 0;
}

int prec_cpu_list__parse_perf(const char *s, int **cpus, const char **rest)
{
	uint64_t *bits = calloc(WORDS, sizeof(*bits));
	const char *p = s;
	int ret = 0;

	*cpus = NULL;
	*rest = NULL;
	if (!bits)
		return -ENOMEM;
	while (isdigit((unsigned char)*p) && !ret)
		ret = parse_perf_range(&p, bits);
	if (!ret)
		ret = to_array(bits, cpus);
	if (ret > 0 && *p)
		*rest = p;
	free(bits);
	return ret;
}

static int sysfs_list(const char *path, int **cpus)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	*cpus = NULL;
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return prec_cpu_list__parse(line, cpus);
}

int prec_cpu_list__online(int **cpus)
{
	return sysfs_list("/sys/devices/system/cpu/online", cpus);
}

int prec_cpu_list__possible(int **cpus)
{
	return sysfs_list("/sys/devices/system/cpu/possible", cpus);
}
