// SPDX-License-Identifier: MIT
// The one place that formats diagnostics; one write(2) per line so lines from
// different threads never interleave.
#include "util/log.h"
#include "util/escape.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int prec_log_level = PREC_LOG_INFO;
static bool status_line; /* atomic: set by the main thread, read by any */

void prec_log__status_line(bool on)
{
	__atomic_store_n(&status_line, on, __ATOMIC_RELAXED);
}

bool prec_log__tty_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (!isatty(fd))
		return true;
	while (poll(&p, 1, ms) < 0)
		continue; /* EINTR */
	return p.revents != 0;
}

/* A message may carry text from a recording or a workload (a file name, a
 * comm, a shard name): it is escaped whole, so none of its bytes can act on
 * the terminal or end the line early. */
void prec_log(int level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	char msg[1024], line[1024];
	va_list ap;
	size_t len;
	int n;

	if (level > prec_log_level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = n < 0 ? 0 : (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1;
	if (len && msg[len - 1] == '\n')
		len--;
	n = snprintf(line, sizeof(line), "%sprec: %s",
		     __atomic_load_n(&status_line, __ATOMIC_RELAXED) ? "\r\033[K" : "",
		     prefix[level]);
	n += (int)prec_escape__to_buf(line + n, sizeof(line) - (size_t)n - 1, msg, len, 0);
	line[n++] = '\n';
	/* a terminal stopped for a while: the message is dropped, the
	 * thread (a drainer, the main loop) goes on */
	if (!prec_log__tty_ready(STDERR_FILENO, 200))
		return;
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
