// SPDX-License-Identifier: MIT
// The one place that formats diagnostics; one write(2) per line so lines from
// different threads never interleave.
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int prec_log_level = PREC_LOG_INFO;

void prec_log(int level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	char line[1024];
	va_list ap;
	int n;

	if (level > prec_log_level)
		return;
	n = snprintf(line, sizeof(line), "prec: %s", prefix[level]);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	if (line[n - 1] != '\n')
		line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
