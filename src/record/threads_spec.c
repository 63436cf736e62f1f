// SPDX-License-Identifier: MIT
// perf record's --threads=SPEC, checked as perf checks it before it
// records (threads_spec.h); prec's drainers, one per CPU, use none of it.
#include "record/threads_spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "record/options.h"
#include "util/cpu_list.h"
#include "util/log.h"

/* CPU n among cpus[0..nr)? */
static bool has_cpu(const int *cpus, int nr, int n)
{
	for (int i = 0; i < nr; i++)
		if (cpus[i] == n)
			return true;
	return false;
}

/* One mask of a --threads SPEC, as perf's record__init_thread_masks_spec
 * reads it: a CPU list (libperf's, as -C), none above the possible CPUs'
 * count; the recording's CPUs in it, of which there must be one, and none
 * that an earlier mask of the same kind has (*used, grown). Returns 0 or
 * a refusal's reason. */
static const char *thread_mask(const char *text, const int *rec, int nr_rec, int nr_possible,
			       int **used, int *nr_used)
{
	const char *rest;
	int *m = NULL, n = prec_cpu_list__parse_perf(text, &m, &rest), kept = 0;
	const char *why = NULL;

	if (n <= 0)
		return n == -ENOMEM ? "out of memory" : "not a CPU list";
	for (int i = 0; i < n && !why; i++) {
		if (m[i] > nr_possible)
			why = "a CPU above the possible ones";
		else if (has_cpu(rec, nr_rec, m[i]) && has_cpu(*used, *nr_used, m[i]))
			why = "intersecting masks";
	}
	for (int i = 0; i < n && !why; i++) {
		int *t;

		if (!has_cpu(rec, nr_rec, m[i]))
			continue;
		t = realloc(*used, (size_t)(*nr_used + 1) * sizeof(*t));
		if (!t) {
			why = "out of memory";
			break;
		}
		*used = t;
		t[(*nr_used)++] = m[i];
		kept++;
	}
	free(m);
	return why ? why : kept ? NULL : "an empty mask (none of the recording's CPUs)";
}

/* --threads=SPEC checked as perf checks it before recording (prec itself
 * uses none of it): a name (cpu, core, package, numa: a prefix in any
 * case), or MAPS/AFFINITY[:MAPS/AFFINITY...], blank items dropped, each
 * mask as thread_mask() says. */
int prec_threads_spec__check(const struct prec_record_opts *o)
{
	static const char *const names[] = { "cpu", "core", "package", "numa" };
	int *online = NULL, *possible = NULL, *maps = NULL, *aff = NULL;
	int nr_maps = 0, nr_aff = 0, nr_rec, nr_possible;
	const int *rec;
	const char *why = NULL;
	char *spec, *item, *save = NULL;

	if (!o->threads_set || !o->threads_spec)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncasecmp(o->threads_spec, names[i], strlen(names[i])))
			return 0;
	spec = strdup(o->threads_spec);
	if (!spec)
		return -ENOMEM;
	nr_rec = o->cpus ? o->nr_cpus : prec_cpu_list__online(&online);
	rec = o->cpus ? o->cpus : online;
	nr_possible = prec_cpu_list__possible(&possible);
	if (nr_possible > 0)
		nr_possible = possible[nr_possible - 1] + 1;
	else
		nr_possible = PREC_CPU_LIST_MAX;
	for (item = strtok_r(spec, ":", &save); item && !why; item = strtok_r(NULL, ":", &save)) {
		char *in = NULL, *m = strtok_r(item, "/", &in), *a = m ? strtok_r(NULL, "/", &in) : NULL;

		if (!a)
			why = "expected MAPS/AFFINITY CPU lists, ':' between them";
		else if (!(why = thread_mask(m, rec, nr_rec, nr_possible, &maps, &nr_maps)))
			why = thread_mask(a, rec, nr_rec, nr_possible, &aff, &nr_aff);
	}
	free(spec);
	free(online);
	free(possible);
	free(maps);
	free(aff);
	if (why) {
		pr_err("option --threads '%s': %s (perf refuses it)", o->threads_spec, why);
		return -EINVAL;
	}
	return 0;
}
