/* SPDX-License-Identifier: MIT */
/* The --control command channel (control_channel.c). */
#ifndef PREC_RECORD_CONTROL_CHANNEL_H
#define PREC_RECORD_CONTROL_CHANNEL_H

#include <stdbool.h>

enum prec_control_cmd {
	PREC_CTL_ENABLE = 1, PREC_CTL_DISABLE, PREC_CTL_SNAPSHOT, PREC_CTL_STOP,
	PREC_CTL_PING, PREC_CTL_SWITCH,
};

struct prec_control;

/* spec: "fifo:CTL[,ACK]" (existing fifos owned by the effective user, not
 * reached through a symbolic link; opened O_RDWR so opening never blocks)
 * or "fd:CTL[,ACK]" (inherited fds). Returns 0 or -errno after printing
 * one line. */
int prec_control__open(struct prec_control **out, const char *spec);
/* 0 if spec has the right shape, -EINVAL if not (no message). */
int prec_control__check_spec(const char *spec);
/* The fd to poll for POLLIN; -1 once its writer is gone (fd form). */
int prec_control__fd(const struct prec_control *c);
/* Next whole command line read so far (non-blocking): a PREC_CTL_* value,
 * 0 when none is complete, -EINVAL for an unknown one (warned), -errno.
 * A line longer than 255 bytes is dropped whole, with one warning. */
int prec_control__next(struct prec_control *c);
/* true when the buffer holds a whole line next() has not returned yet. */
bool prec_control__has_line(const struct prec_control *c);
/* One line to a command (PREC_CTL_* or 0 for a blank line / -EINVAL). */
int prec_control__parse(const char *line);
/* Write "ack\n" to the ack end, if any. Returns 0 or -errno. */
int prec_control__ack(struct prec_control *c);
const char *prec_control__name(int cmd);
void prec_control__close(struct prec_control *c);

#endif
