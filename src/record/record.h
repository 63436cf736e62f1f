/* SPDX-License-Identifier: MIT */
/* prec record: the public entry of the recording layer. */
#ifndef PREC_RECORD_H
#define PREC_RECORD_H

/* `prec record` subcommand. argv[0] is "record". Returns the process exit
 * status: the workload's status in workload mode, 0 on success, 1 on a
 * recording failure, 2 on a bad command line. */
int prec_cmd_record(int argc, char **argv);

/* `prec mark` subcommand (user markers through trace_marker). */
int prec_cmd_mark(int argc, char **argv);

#endif
