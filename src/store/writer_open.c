// SPDX-License-Identifier: MIT
// Shard writer: creating the file and its header, sizing the queue and the
// staging ring, setting up the io_uring; and tearing it all down.
#include "store/shard_writer.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_QD 256u
#define MAX_QD 8192u
#define DEFAULT_BATCH (1024u * 1024u)
#define DEFAULT_STAGING (8u * 1024u * 1024u)
#define HDR_SIZE ((uint32_t)sizeof(struct prec_chunk_header))

static int write_shard_header(struct prec_shard_writer *w,
			      const struct prec_shard_writer_opts *o,
			      struct prec_shard_header *hp)
{
	struct prec_shard_header h;
	struct timespec ts;
	size_t done = 0;

	memset(&h, 0, sizeof(h));
	clock_gettime(CLOCK_REALTIME, &ts);
	h.magic = htole64(PREC_SHARD_MAGIC);
	h.version_major = htole16(PREC_FORMAT_MAJOR);
	h.version_minor = htole16(PREC_FORMAT_MINOR);
	h.header_size = htole32((uint32_t)sizeof(h));
	h.cpu = (int32_t)htole32((uint32_t)o->cpu);
	memcpy(h.session_id, o->session_id, sizeof(h.session_id));
	h.created_ns = htole64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	while (done < sizeof(h)) {
		ssize_t n = pwrite(w->fd, (char *)&h + done, sizeof(h) - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	w->pos = w->durable = w->st.file_bytes = sizeof(h);
	*hp = h;
	return 0;
}

static int alloc_buffers(struct prec_shard_writer *w, const struct prec_shard_writer_opts *o)
{
	size_t min_st = 2 * (HDR_SIZE + (size_t)LZ4_COMPRESSBOUND(PREC_CHUNK_MAX_PAYLOAD));

	w->qd = o->queue_depth ? o->queue_depth : DEFAULT_QD;
	if (w->qd > MAX_QD)
		w->qd = MAX_QD;
	w->batch_max = o->batch_bytes ? o->batch_bytes : DEFAULT_BATCH;
	w->slots = calloc(w->qd, sizeof(*w->slots));
	w->iov = calloc(3 * (size_t)w->qd, sizeof(*w->iov));
	w->hdrs = calloc(w->qd, sizeof(*w->hdrs));
	if (!w->slots || !w->iov || !w->hdrs)
		return -ENOMEM;
	if (!w->copy)
		return 0;
	/* Room for two worst-case chunks, so one can fill while one writes. */
	w->st_size = o->staging_bytes ? o->staging_bytes : DEFAULT_STAGING;
	if (w->st_size < min_st)
		w->st_size = min_st;
	w->staging = malloc(w->st_size);
	return w->staging ? 0 : -ENOMEM;
}

static void destroy(struct prec_shard_writer *w)
{
	if (w->ring_ok)
		io_uring_queue_exit(&w->ring);
	if (w->fd >= 0)
		close(w->fd);
	free(w->slots);
	free(w->iov);
	free(w->hdrs);
	free(w->staging);
	free(w->dio_tail);
	free(w->lz4_state);
	free(w->lz4_lin);
	free(w);
}

int prec_shard_writer__open(struct prec_shard_writer **out, int dirfd,
			    const char *name,
			    const struct prec_shard_writer_opts *opts)
{
	struct prec_shard_header hdr;
	struct prec_shard_writer *w;
	int ret;

	*out = NULL;
	if (!opts || !name || (opts->codec != PREC_CODEC_NONE && opts->codec != PREC_CODEC_LZ4))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->cpu = opts->cpu;
	w->codec = opts->codec;
	w->lz4_level = opts->lz4_level;
	w->copy = opts->copy || opts->codec == PREC_CODEC_LZ4;
	for (int i = 0; i < WR_MAX_POLLS; i++)
		w->polls[i].fd = -1;
	ret = alloc_buffers(w, opts);
	if (ret)
		goto free_writer;
	ret = io_uring_queue_init(w->qd + 2 * WR_MAX_POLLS + 4, &w->ring, 0);
	if (ret < 0)
		goto free_writer;
	w->ring_ok = true;
	w->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		ret = -errno;
		goto free_writer;
	}
	ret = write_shard_header(w, opts, &hdr);
	if (!ret && opts->direct && w->copy)
		ret = prec_wr__dio_setup(w, &hdr, sizeof(hdr));
	if (ret)
		goto unlink_file;
	*out = w;
	return 0;

unlink_file:
	unlinkat(dirfd, name, 0);
free_writer:
	destroy(w);
	return ret;
}

int prec_shard_writer__close(struct prec_shard_writer *w)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->ring_ok && w->fd >= 0)
		ret = prec_shard_writer__flush(w);
	if (!ret)
		ret = w->err;
	destroy(w);
	return ret;
}

int prec_shard_writer__worker_cpus(struct prec_shard_writer *w,
				   const cpu_set_t *cpus)
{
	struct io_uring_sqe *sqe;
	int ret;

	if (!w->ring_ok)
		return -EINVAL;
	/* The workers belong to the submitting thread's io_uring context,
	 * made at its first submission: a thread that has not submitted yet
	 * gets EINVAL, so submit a no-op first. */
	sqe = prec_wr__sqe(w);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_IGNORE, 0));
	ret = prec_wr__submit(w);
	if (ret)
		return ret;
	return io_uring_register_iowq_aff(&w->ring, sizeof(*cpus), cpus);
}
