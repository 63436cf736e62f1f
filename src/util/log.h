/* SPDX-License-Identifier: MIT */
/* Logging for every layer: one line per message, "prec: " prefixed, on stderr.
 * Message shape: "object id: what failed: reason". Never called per record. */
#ifndef PREC_UTIL_LOG_H
#define PREC_UTIL_LOG_H

#include <stdbool.h>

enum prec_log_level { PREC_LOG_ERR, PREC_LOG_WARN, PREC_LOG_INFO, PREC_LOG_DEBUG };

/* Messages above this level are dropped; set once by main() before threads start. */
extern int prec_log_level;

void prec_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A status line is (on) or is not (off) drawn on stderr without a newline:
 * while on, each message first erases it (CR ESC[K, in the same write), so
 * the message has the line to itself; its next redraw puts it back under.
 * Any thread. */
void prec_log__status_line(bool on);

/* Whether a write to fd would not wait: true unless fd is a terminal
 * whose output is stopped (tcflow TCOOFF, ^S) for ms milliseconds. Anyone
 * holding the terminal may stop it (a workload run with --user keeps
 * prec's stdout), and a write then waits until it is restarted: the
 * recorder's main thread, which reads its signals, with it. */
bool prec_log__tty_ready(int fd, int ms);

/* The level is tested where the message is: a message dropped (most are
 * debug ones) costs a load and a branch, its arguments never evaluated. */
#define prec_log_at(level, ...) \
	((level) <= prec_log_level ? prec_log((level), __VA_ARGS__) : (void)0)
#define pr_err(...)   prec_log_at(PREC_LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  prec_log_at(PREC_LOG_WARN, __VA_ARGS__)
#define pr_info(...)  prec_log_at(PREC_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) prec_log_at(PREC_LOG_DEBUG, __VA_ARGS__)

#endif
