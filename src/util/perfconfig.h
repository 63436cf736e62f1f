/* SPDX-License-Identifier: MIT */
/* perf's configuration files read as perf 6.1 reads them, so that a perf
 * user's settings (~/.perfconfig's call-graph mode, build-id choices, the
 * build-id cache's place) hold for prec too: $PERF_CONFIG alone when set,
 * else /etc/perfconfig (unless $PERF_CONFIG_NOSYSTEM) then ~/.perfconfig
 * (unless $PERF_CONFIG_NOGLOBAL), each read only if it belongs to root or
 * the effective user (prec runs as root: another user's file is theirs to
 * write). A key is "section.name" ("section.sub.name" under [section
 * "sub"]); a later file's value of a key replaces an earlier one's, in the
 * place the key first had, which is the order perf applies them in. */
#ifndef PREC_UTIL_PERFCONFIG_H
#define PREC_UTIL_PERFCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* perf's own bounds: a key fits 1024 bytes, a value a line. */
#define PREC_PERFCONFIG_KEY_MAX 1024

struct prec_perfconfig_item {
	char *key, *value;
	const char *file;      /* the file the value was read from */
	unsigned int line;     /* its line there, from 1 */
};

struct prec_perfconfig {
	struct prec_perfconfig_item *items;
	size_t nr, cap;
	char *files[3];        /* the names the items' file point to */
	int nr_files;
	bool quiet;            /* warnings said by an earlier reading */
};

/* Read perf's files into c (zeroed first). What perf warns of (a file of
 * another user, a line that is no key = value) is warned of likewise and
 * skipped, the rest of that file with the bad line, as perf does; only by
 * the process's first reading (prec record reads them twice). Returns 0,
 * or -ENOMEM (c then empty). */
int prec_perfconfig__read(struct prec_perfconfig *c);
/* The text text (named name in warnings) read into c, as one file is:
 * for tests, and for a file already open. Returns 0 or -ENOMEM. */
int prec_perfconfig__parse(struct prec_perfconfig *c, const char *name, const char *text);
/* The item of key, or NULL. */
const struct prec_perfconfig_item *prec_perfconfig__get(const struct prec_perfconfig *c,
							const char *key);
void prec_perfconfig__exit(struct prec_perfconfig *c);

#endif
