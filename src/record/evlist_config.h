/* SPDX-License-Identifier: MIT */
/* The events' attrs from the options and their terms (evlist_config.c):
 * after parsing, before any open. */
#ifndef PREC_RECORD_EVLIST_CONFIG_H
#define PREC_RECORD_EVLIST_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

struct prec_evlist;
struct prec_record_opts;

/* Fill the common attr bits from the options (sample_type, freq/period,
 * callchains, clock, watermark, inherit, enable_on_exec, write_backward
 * as prec_evlist__channels chose). */
void prec_evlist__config(struct prec_evlist *el,
			 const struct prec_record_opts *o, bool workload,
			 bool inherit);
/* After prec_evlist__config, for a user the kernel refuses kernel samples
 * (perm.h): every event that counts user space gets exclude_kernel and
 * exclude_hv, as perf's fallback sets them, and a sampling event's name
 * its ":u" as perf renames it. Returns how many sampling events changed
 * (the tracking dummy, changed too, is not counted: its side band does not
 * care), or -ENOMEM. */
int prec_evlist__user_only(struct prec_evlist *el);
/* True when every event excludes the kernel (perf's evlist__exclude_kernel). */
bool prec_evlist__exclude_kernel(const struct prec_evlist *el);
/* Common base sample_type of every attr (PREC_SAMPLE_BASE). */
uint64_t prec_evlist__sample_base(const struct prec_evlist *el);
/* -D, after prec_evlist__config: every event but the tracking one waits
 * for prec's enable, not for the workload's exec (enable_on_exec off). */
void prec_evlist__delay_enable(struct prec_evlist *el);

#endif
