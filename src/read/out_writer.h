/* SPDX-License-Identifier: MIT */
/* The perf.data writer's buffered output (out_writer.c). */
#ifndef PREC_READ_OUT_WRITER_H
#define PREC_READ_OUT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the perf.data writer's buffers go: with async, two buffers and an
 * io_uring that writes one (at the file position, as write() would) while
 * the caller fills the other; without it, or where io_uring cannot be set
 * up, one buffer and write(). One thread uses a writer. */
struct prec_out_writer;

/* Two buffers of size bytes (one without async). Returns 0 or -ENOMEM. */
int prec_out_writer__new(struct prec_out_writer **out, int fd, size_t size,
			 bool async);
/* Are writes made in the background (two buffers)? */
bool prec_out_writer__async(const struct prec_out_writer *w);
/* The buffer to fill first. */
uint8_t *prec_out_writer__first(struct prec_out_writer *w);
/* Write (*buf)[0, len), *buf being one of the writer's buffers, and set
 * *buf to the buffer to fill next. Blocks for the write before it (async)
 * or for this one. Returns 0 or the first write error (sticky), which an
 * async write reports one call late, or at wait(). */
int prec_out_writer__put(struct prec_out_writer *w, uint8_t **buf, size_t len);
/* Block until every put() is written. Returns 0 or the first error. */
int prec_out_writer__wait(struct prec_out_writer *w);
/* Wait, then free; NULL is fine. */
void prec_out_writer__delete(struct prec_out_writer *w);

#endif
