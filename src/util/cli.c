// SPDX-License-Identifier: MIT
// One-line answers to bad command lines, shared by the subcommands.
#include "util/cli.h"

#include <getopt.h>

#include "util/log.h"

void prec_cli__bad_option(const char *cmd, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	pr_err("%s: option '%s': unknown or missing its argument (see 'prec %s --help')",
	       cmd, arg, cmd);
}

void prec_cli__bad_args(const char *cmd, const char *want)
{
	pr_err("%s: %s (see 'prec %s --help')", cmd, want, cmd);
}
