// SPDX-License-Identifier: MIT
// Test helper: count the records of every shard in a recording directory
// with the shard reader, and the SAMPLE records of one pid (pid sits at
// byte 24 of a SAMPLE with IDENTIFIER|IP|TID). Also validates every chunk.
// Usage: shardcount DIR [PID]. Prints one line per shard and a total line:
//   shard NAME cpu=N chunks=N records=N samples=N pid_samples=N end=ok|bad
//   total shards=N records=N samples=N pid_samples=N bad=N
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

struct counts {
	unsigned long long chunks, records, samples, pid_samples;
};

static void walk(const struct prec_chunk *c, long pid, struct counts *n)
{
	const unsigned char *p = c->payload;
	uint32_t off = 0;

	while (off + 8 <= c->len) {
		struct perf_event_header h;
		uint32_t tid_pid;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < 8 || off + h.size > c->len)
			break;
		n->records++;
		if (h.type == PERF_RECORD_SAMPLE) {
			n->samples++;
			if (h.size >= 28) {
				memcpy(&tid_pid, p + off + 24, 4);
				if ((long)tid_pid == pid)
					n->pid_samples++;
			}
		}
		off += h.size;
	}
}

static int count_shard(int dirfd, const char *name, long pid, struct counts *tot)
{
	struct prec_shard_reader *r;
	struct counts n = { 0 };
	struct prec_chunk c;
	int err = prec_shard_reader__open(&r, dirfd, name);

	if (err) {
		printf("shard %s open=%s\n", name, strerror(-err));
		return 1;
	}
	while ((err = prec_shard_reader__next(r, &c)) == 1) {
		n.chunks++;
		if (c.hdr.type == PREC_CHUNK_DATA)
			walk(&c, pid, &n);
	}
	printf("shard %s cpu=%d chunks=%llu records=%llu samples=%llu pid_samples=%llu end=%s\n",
	       name, prec_shard_reader__header(r)->cpu, n.chunks, n.records,
	       n.samples, n.pid_samples, err ? prec_shard_reader__why(r) : "ok");
	prec_shard_reader__close(r);
	tot->records += n.records;
	tot->samples += n.samples;
	tot->pid_samples += n.pid_samples;
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct counts tot = { 0 };
	long pid = argc > 2 ? strtol(argv[2], NULL, 0) : -2;
	int dfd, bad = 0, shards = 0;
	struct dirent *e;
	DIR *d;

	if (argc < 2) {
		fprintf(stderr, "usage: shardcount DIR [PID]\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 2;
	}
	dfd = dirfd(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 6, ".shard"))
			continue;
		shards++;
		bad += count_shard(dfd, e->d_name, pid, &tot);
	}
	closedir(d);
	printf("total shards=%d records=%llu samples=%llu pid_samples=%llu bad=%d\n",
	       shards, tot.records, tot.samples, tot.pid_samples, bad);
	return bad ? 1 : 0;
}
