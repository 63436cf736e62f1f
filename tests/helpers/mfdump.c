// SPDX-License-Identifier: MIT
// Test helper: print a recording's manifest as greppable lines (state,
// events with their id counts and the ids that lost samples, shards with
// totals, the build-id table).
// Usage: mfdump DIR
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

static const char *hex(const uint8_t *id, unsigned size, char *buf)
{
	for (unsigned i = 0; i < size; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	buf[2 * size] = 0;
	return buf;
}

int main(int argc, char **argv)
{
	struct prec_manifest *m;
	const char *why = NULL;
	char buf[64];
	int dirfd, err;

	if (argc < 2) {
		fprintf(stderr, "usage: mfdump DIR\n");
		return 2;
	}
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dirfd < 0) {
		perror(argv[1]);
		return 2;
	}
	err = prec_manifest__read(&m, dirfd, &why);
	close(dirfd);
	if (err) {
		printf("manifest error=%d why=%s\n", err, why ? why : "?");
		return 1;
	}
	printf("state %s\n", m->state == PREC_STATE_COMPLETE ? "complete" :
	       m->state == PREC_STATE_RECORDING ? "recording" : "unknown");
	printf("clockid %d start %llu stop %llu sample_type %#llx\n", m->clockid,
	       (unsigned long long)m->start_time, (unsigned long long)m->stop_time,
	       (unsigned long long)m->sample_type);
	for (uint32_t i = 0; i < m->argc; i++)
		printf("argv %u %s\n", i, m->argv[i]);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];

		printf("event %u %s ids=%u\n", i, e->name, e->nr_ids);
		for (uint32_t j = 0; j < e->nr_ids; j++)
			printf("id %u %llu cpu=%d tid=%d\n", i, (unsigned long long)e->ids[j],
			       e->id_cpus[j], e->id_tids[j]);
		/* the ids that lost samples (ID_LOST) */
		for (uint32_t j = 0; e->id_lost && j < e->nr_ids; j++)
			if (e->id_lost[j])
				printf("idlost %u %llu %llu\n", i, (unsigned long long)e->ids[j],
				       (unsigned long long)e->id_lost[j]);
	}
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		printf("tracepoint %s:%s id=%llu\n", m->tracepoints[i].system,
		       m->tracepoints[i].name, (unsigned long long)m->tracepoints[i].id);
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];

		printf("shard %s cpu=%d chunks=%llu records=%llu bytes=%llu lost=%llu lost_samples=%llu\n",
		       s->name, s->cpu, (unsigned long long)s->chunks,
		       (unsigned long long)s->records, (unsigned long long)s->bytes,
		       (unsigned long long)s->lost, (unsigned long long)s->lost_samples);
	}
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		printf("buildid %s %s\n", hex(m->buildids[i].id, m->buildids[i].size, buf),
		       m->buildids[i].path);
	prec_manifest__delete(m);
	return 0;
}
