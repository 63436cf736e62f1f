// SPDX-License-Identifier: MIT
// prec info's "lost" figures on a synthetic manifest: a ring overflow the
// recorder stored both as LOST records (lost) and as PERF_FORMAT_LOST
// (lost_samples) is one loss, shown once; the text table's column and total
// are the LOST records' sum, what perf counts and what --json calls "lost".
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/test.h"
#include "read/read.h"
#include "store/store.h"

/* cpu, lost, lost_samples: one overflow of 33 seen both ways; 81 drops
 * whose LOST record never made it into the shard; a clean side band. */
static const struct { int32_t cpu; uint64_t lost, lost_samples; } shards[] = {
	{ 0, 0, 81 }, { 1, 33, 33 }, { -1, 0, 0 },
};
#define NR_SHARDS (sizeof(shards) / sizeof(shards[0]))

static void write_manifest(const char *dir)
{
	struct prec_manifest *m = prec_manifest__new();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	CHECK(m && dfd >= 0);
	m->state = PREC_STATE_COMPLETE;
	test_manifest_add_event(m, 1000);
	for (size_t i = 0; i < NR_SHARDS; i++) {
		char name[32];
		struct prec_manifest_shard s = {
			.name = name, .cpu = shards[i].cpu, .chunks = 1,
			.records = 100, .bytes = 4000, .raw_bytes = 4000,
			.lost = shards[i].lost,
			.lost_samples = shards[i].lost_samples,
		};

		if (s.cpu < 0)
			snprintf(name, sizeof(name), "sideband.shard");
		else
			snprintf(name, sizeof(name), "cpu%03d.shard", s.cpu);
		CHECK_EQ(prec_manifest__add_shard(m, &s), 0);
	}
	CHECK_EQ(prec_manifest__write(m, dfd), 0);
	prec_manifest__delete(m);
	close(dfd);
}

/* prec info's stdout, in a malloc'd string. */
static char *run_info(const char *dir, const char *opt)
{
	char out[4096], *argv[4] = { "info", (char *)dir, (char *)opt, NULL };

	CHECK_EQ(test_run_captured(prec_cmd_info, opt ? 3 : 2, argv, false, out, sizeof(out)), 0);
	return strdup(out);
}

/* The "lost" column of the shards table's line for name ("total" has no
 * cpu column). */
static long long text_lost(const char *text, const char *name)
{
	char key[40];
	const char *p;
	long long lost = -1;

	snprintf(key, sizeof(key), "\n  %s ", name);
	p = strstr(text, key);
	CHECK(p);
	if (!strcmp(name, "total"))
		CHECK_EQ(sscanf(p, " %*s %*u %*u %*u %*u %*s %lld", &lost), 1);
	else
		CHECK_EQ(sscanf(p, " %*s %*d %*u %*u %*u %*u %*s %lld", &lost), 1);
	return lost;
}

/* The "lost" field of the JSON shard named name. */
static long long json_lost(const char *json, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\"name\": \"%s\"", name);
	p = strstr(json, key);
	CHECK(p);
	p = strstr(p, "\"lost\": ");
	CHECK(p);
	return strtoll(p + strlen("\"lost\": "), NULL, 10);
}

int main(void)
{
	char *dir = test_tmpdir("info_lost");
	char *text, *json;
	long long total = 0;

	write_manifest(dir);
	text = run_info(dir, NULL);
	json = run_info(dir, "--json");
	for (size_t i = 0; i < NR_SHARDS; i++) {
		char name[32];

		if (shards[i].cpu < 0)
			snprintf(name, sizeof(name), "sideband.shard");
		else
			snprintf(name, sizeof(name), "cpu%03d.shard", shards[i].cpu);
		CHECK_EQ(text_lost(text, name), (long long)shards[i].lost);
		CHECK_EQ(json_lost(json, name), (long long)shards[i].lost);
		total += (long long)shards[i].lost;
	}
	CHECK_EQ(text_lost(text, "total"), total);
	printf("info: lost column and total are the LOST records' (33), as --json's \"lost\"\n");
	free(text);
	free(json);
	test_rmdir(dir);
	free(dir);
	return 0;
}
