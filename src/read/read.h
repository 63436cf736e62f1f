/* SPDX-License-Identifier: MIT */
/* prec read: the public entries of the reading layer (merge, info, dump, archive). */
#ifndef PREC_READ_H
#define PREC_READ_H

/* Subcommands; argv[0] is the subcommand name. Return the exit status:
 * 0 success, 1 failure (corrupt data...), 2 bad command line. */
int prec_cmd_merge(int argc, char **argv);
int prec_cmd_info(int argc, char **argv);
int prec_cmd_dump(int argc, char **argv);
int prec_cmd_archive(int argc, char **argv);

#endif
