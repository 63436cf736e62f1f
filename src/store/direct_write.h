/* SPDX-License-Identifier: MIT */
/* Private to src/store: copy mode's writes past the page cache (O_DIRECT),
 * from a staging ring laid out as a mirror of the file (see
 * direct_write.c). */
#ifndef PREC_STORE_DIRECT_WRITE_H
#define PREC_STORE_DIRECT_WRITE_H

#include "store/write_path.h"

/* After the shard header (hdr, len bytes) is written, switch s->fd to
 * O_DIRECT where the file system takes it, lay out staging for it and take
 * the ring's PREC_UR_DIO completions. Returns 0 (with out->ops left NULL
 * when the file system refuses O_DIRECT: the caller writes buffered), or
 * -ENOMEM. */
int prec_direct_write__new(struct prec_write_path *out,
			   const struct prec_write_setup *s,
			   const void *hdr, size_t len);

#endif
