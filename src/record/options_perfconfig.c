// SPDX-License-Identifier: MIT
// perf's config settings for perf record applied to prec record's options
// (options_perfconfig.h).
#include "record/options_perfconfig.h"

#include <errno.h>
#include <string.h>

#include "record/callgraph_mode.h"
#include "util/log.h"
#include "util/perfconfig.h"

/* The value as read: the log line escapes the whole message (escaped
 * here too, its backslashes came out doubled). */
static int refuse(const struct prec_perfconfig_item *it, const char *why)
{
	pr_err("%s line %u: %s = '%s': %s (perf's config, as perf record reads it)",
	       it->file, it->line, it->key, it->value, why);
	return -EINVAL;
}

/* perf's main reads every call-graph.* key first (perf_default_config),
 * then perf record its record.* keys (perf_record_config): so a
 * record.call-graph resets a dump-size whatever their order. */
static int apply_callgraph(struct prec_record_opts *o, const struct prec_perfconfig_item *it)
{
	struct prec_callgraph_mode *cg = &o->config_callgraph;
	const char *why;

	/* As perf's: a dump-size before record-mode is reset (dwarf's 8192). */
	if (!strcmp(it->key, "call-graph.record-mode") || !strcmp(it->key, "record.call-graph")) {
		if (prec_callgraph_mode__parse(it->value, cg, &why))
			return refuse(it, why);
		return 0;
	}
	if (!strcmp(it->key, "call-graph.dump-size") &&
	    prec_callgraph_mode__stack_size(it->value, &cg->stack_size, &why))
		return refuse(it, why);
	return 0;
}

static int apply_record(struct prec_record_opts *o, const struct prec_perfconfig_item *it)
{
	if (!strcmp(it->key, "record.call-graph"))
		return apply_callgraph(o, it);
	if (strcmp(it->key, "record.build-id"))
		return 0;
	if (!strcmp(it->value, "cache"))
		o->no_buildid_cache = false;
	else if (!strcmp(it->value, "no-cache"))
		o->no_buildid_cache = true;
	else if (!strcmp(it->value, "skip"))
		o->no_buildid = true;
	else if (!strcmp(it->value, "mmap"))
		o->buildid_mmap = true;
	else
		return refuse(it, "expected cache, no-cache, skip or mmap");
	return 0;
}

int prec_record_opts__apply_perfconfig(struct prec_record_opts *o)
{
	struct prec_perfconfig conf;
	int err = prec_perfconfig__read(&conf);

	for (size_t i = 0; !err && i < conf.nr; i++)
		if (!strncmp(conf.items[i].key, "call-graph.", 11))
			err = apply_callgraph(o, &conf.items[i]);
	for (size_t i = 0; !err && i < conf.nr; i++)
		err = apply_record(o, &conf.items[i]);
	prec_perfconfig__exit(&conf);
	return err;
}
