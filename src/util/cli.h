/* SPDX-License-Identifier: MIT */
/* Shared command-line diagnostics: every subcommand answers a bad command
 * line with exactly one line on stderr and exit status 2. */
#ifndef PREC_UTIL_CLI_H
#define PREC_UTIL_CLI_H

/* `prec --version`, and the recorder named in every manifest. */
#define PREC_VERSION "0.1"

/* getopt_long returned '?' (with opterr = 0): name the offending argument,
 * argv[optind - 1], in one line. */
void prec_cli__bad_option(const char *cmd, char **argv);
/* Wrong positional arguments: one line saying what cmd wants. */
void prec_cli__bad_args(const char *cmd, const char *want);

#endif
