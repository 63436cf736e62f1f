/* SPDX-License-Identifier: MIT */
/* Logging for every layer: one line per message, "prec: " prefixed, on stderr.
 * Message shape: "object id: what failed: reason". Never called per record. */
#ifndef PREC_UTIL_LOG_H
#define PREC_UTIL_LOG_H

enum prec_log_level { PREC_LOG_ERR, PREC_LOG_WARN, PREC_LOG_INFO, PREC_LOG_DEBUG };

/* Messages above this level are dropped; set once by main() before threads start. */
extern int prec_log_level;

void prec_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_err(...)   prec_log(PREC_LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  prec_log(PREC_LOG_WARN, __VA_ARGS__)
#define pr_info(...)  prec_log(PREC_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) prec_log(PREC_LOG_DEBUG, __VA_ARGS__)

#endif
