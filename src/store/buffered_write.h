/* SPDX-License-Identifier: MIT */
/* Private to src/store: writes through the page cache, consecutive appends
 * batched into one pwritev (see buffered_write.c). */
#ifndef PREC_STORE_BUFFERED_WRITE_H
#define PREC_STORE_BUFFERED_WRITE_H

#include "store/write_path.h"

/* Set up the path over s (its staging when s->copy) and take the ring's
 * PREC_UR_WRITE completions. Returns 0 or -ENOMEM. */
int prec_buffered_write__new(struct prec_write_path *out,
			     const struct prec_write_setup *s);

#endif
