// SPDX-License-Identifier: MIT
// Test helper: re-encode a recording directory chunk for chunk with another
// codec (raw <-> lz4, any level), keeping every chunk's metadata and the
// manifest, whose shard byte totals it updates. Lets a test merge the same
// shard set stored raw and compressed and compare the outputs byte for byte.
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

struct cfg {
	const char *in, *out;
	enum prec_codec codec;
	int level;
};

static int copy_chunks(struct prec_shard_reader *rd, struct prec_shard_writer *w,
		       const char *name)
{
	struct prec_chunk ch;
	int r;

	while ((r = prec_shard_reader__next(rd, &ch)) == 1) {
		struct prec_chunk_meta m = {
			.type = (enum prec_chunk_type)ch.hdr.type,
			.records = ch.hdr.records,
			.first_time = ch.hdr.first_time,
			.last_time = ch.hdr.last_time,
			.watermark = ch.hdr.watermark,
			.aux_offset = ch.hdr.aux_offset,
			.flags = ch.hdr.flags,
		};
		struct iovec v = { (void *)ch.payload, ch.len };
		int64_t t = prec_shard_writer__append(w, &m, &v, ch.len ? 1 : 0);

		if (t < 0)
			return (int)t;
	}
	if (r < 0)
		fprintf(stderr, "reshard: %s: offset 0x%llx: %s\n", name,
			(unsigned long long)prec_shard_reader__offset(rd),
			r == -EBADMSG ? prec_shard_reader__why(rd) : strerror(-r));
	return r;
}

static int one_shard(const struct cfg *c, int in_fd, int out_fd,
		     struct prec_manifest_shard *s)
{
	struct prec_shard_writer_opts o = { .cpu = s->cpu, .copy = true,
					    .codec = c->codec, .lz4_level = c->level };
	struct prec_shard_writer_stats st;
	struct prec_shard_reader *rd;
	struct prec_shard_writer *w = NULL;
	int r, e;

	r = prec_shard_reader__open(&rd, in_fd, s->name);
	if (r < 0)
		return r;
	memcpy(o.session_id, prec_shard_reader__header(rd)->session_id, 16);
	r = prec_shard_writer__open(&w, out_fd, s->name, &o);
	if (!r)
		r = copy_chunks(rd, w, s->name);
	if (!r) {
		r = prec_shard_writer__flush(w);
		prec_shard_writer__stats(w, &st);
		s->chunks = st.chunks;
		s->bytes = st.payload_bytes;
		s->raw_bytes = st.raw_bytes;
	}
	e = prec_shard_writer__close(w);
	prec_shard_reader__close(rd);
	return r ? r : e;
}

static int run(const struct cfg *c)
{
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	int in_fd, out_fd = -1, r;

	in_fd = open(c->in, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (in_fd < 0 || (mkdir(c->out, 0700) && errno != EEXIST))
		return -errno;
	out_fd = open(c->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = out_fd < 0 ? -errno : prec_manifest__read(&m, in_fd, &why);
	for (uint32_t i = 0; !r && i < m->nr_shards; i++)
		r = one_shard(c, in_fd, out_fd, &m->shards[i]);
	if (!r)
		r = prec_manifest__write(m, out_fd);
	if (why)
		fprintf(stderr, "reshard: %s/manifest: %s\n", c->in, why);
	prec_manifest__delete(m);
	if (out_fd >= 0)
		close(out_fd);
	close(in_fd);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lz4", no_argument, NULL, 'l' },
		{ "raw", no_argument, NULL, 'r' },
		{ "level", required_argument, NULL, 'L' },
		{ 0 }
	};
	struct cfg c = { .codec = PREC_CODEC_NONE };
	int o, r;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l': c.codec = PREC_CODEC_LZ4; break;
		case 'r': c.codec = PREC_CODEC_NONE; break;
		case 'L': c.level = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 2)
		goto usage;
	c.in = argv[optind];
	c.out = argv[optind + 1];
	r = run(&c);
	if (r < 0) {
		fprintf(stderr, "reshard: %s -> %s: %s\n", c.in, c.out, strerror(-r));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: reshard IN_DIR OUT_DIR [--lz4 [--level N] | --raw]\n");
	return 2;
}
