/* SPDX-License-Identifier: MIT */
/* prec record: the public entry of the recording layer. */
#ifndef PREC_RECORD_H
#define PREC_RECORD_H

/* A command's return above any exit status: main ends the process by
 * this signal instead of exiting, as perf record ends by the signal that
 * stopped it or killed its command. */
#define PREC_END_BY_SIGNAL(sig) (256 + (sig))

/* `prec record` subcommand. argv[0] is "record". Returns the process exit
 * status: the workload's status in workload mode, 0 on success, 1 on a
 * recording failure, 2 on a bad command line; or, once the recording is
 * whole on disk and its summary said, PREC_END_BY_SIGNAL(sig) for the
 * signal that killed the command (unless the recording failed), else the
 * one that stopped prec (SIGINT, SIGTERM, SIGHUP), as perf's. */
int prec_cmd_record(int argc, char **argv);

/* `prec mark` subcommand (user markers through trace_marker). */
int prec_cmd_mark(int argc, char **argv);

#endif
