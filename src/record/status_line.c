// SPDX-License-Identifier: MIT
// The status line of prec record on a terminal: drawn at most once a second
// from the drainers' published counters, over itself with \r, erased with
// \r ESC[K before anything else is printed (log.c erases it before a
// message).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "record/drainer.h"
#include "record/drainer_pool.h"
#include "record/recording.h"
#include "record/session.h"
#include "record/status_line.h"
#include "util/clock.h"
#include "util/log.h"

#define PERIOD_NS 1000000000ull
#define LINE_MAX_BYTES 512

struct prec_status_line {
	int fd;
	const struct prec_session *s;
	int nr_cpus;
	const int *cpus;        /* the session's */
	uint64_t t0, last_ns;   /* CLOCK_MONOTONIC: start, last draw (0: none) */
	uint64_t last_bytes;    /* drained at the last draw */
	uint64_t *cpu_bytes;    /* per drainer, at the last draw */
	uint64_t budget;        /* --max-disk, 0 = none */
	bool drawn;             /* text is on the line now */
};

int prec_status_line__new(struct prec_status_line **out, int fd,
			  const struct prec_session *s, bool quiet)
{
	struct prec_session_report rep;
	struct prec_status_line *sl;

	*out = NULL;
	if (quiet || !isatty(fd))
		return 0;
	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	prec_session__report(s, &rep);
	sl->cpu_bytes = calloc((size_t)rep.nr_cpus + 1, sizeof(*sl->cpu_bytes));
	if (!sl->cpu_bytes) {
		free(sl);
		return -ENOMEM;
	}
	sl->fd = fd;
	sl->s = s;
	sl->nr_cpus = rep.nr_cpus;
	sl->cpus = rep.cpus;
	sl->t0 = rep.enable_ns ? rep.enable_ns : prec_now_ns(CLOCK_MONOTONIC);
	sl->last_ns = sl->t0;
	*out = sl;
	return 0;
}

void prec_status_line__set_budget(struct prec_status_line *sl, uint64_t bytes)
{
	if (sl)
		sl->budget = bytes;
}

int prec_status_line__timeout_ms(const struct prec_status_line *sl)
{
	uint64_t now, due;

	if (!sl)
		return -1;
	now = prec_now_ns(CLOCK_MONOTONIC);
	due = sl->last_ns + PERIOD_NS;
	return now >= due ? 0 : (int)((due - now + 999999) / 1000000);
}

/* 1.23 GB, 456.7 MB, 12.0 kB: decimal, as the summary line's MB. */
static const char *human(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int u = 0;

	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

/* What to say about the CPUs: the one that drained most since the last
 * draw, and its share of what all drained. Updates the per-CPU figures. */
static void busiest(struct prec_status_line *sl, char *buf, size_t len)
{
	const struct prec_drainer_pool *pool = prec_session__pool(sl->s);
	uint64_t best = 0, all = 0;
	int who = -1;

	for (int c = 0; pool && c < sl->nr_cpus; c++) {
		uint64_t b = prec_drainer_pool__at(pool, c) ? prec_drainer__bytes(prec_drainer_pool__at(pool, c)) : 0;
		uint64_t d = b - sl->cpu_bytes[c];

		sl->cpu_bytes[c] = b;
		all += d;
		if (d > best) {
			best = d;
			who = sl->cpus[c];
		}
	}
	if (who < 0)
		snprintf(buf, len, "idle");
	else
		snprintf(buf, len, "busiest cpu%d %.0f%%", who, 100.0 * (double)best / (double)all);
}

static int width(int fd)
{
	struct winsize ws;

	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 1)
		return ws.ws_col < LINE_MAX_BYTES ? ws.ws_col : LINE_MAX_BYTES;
	return 80;
}

static void put(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

void prec_status_line__tick(struct prec_status_line *sl)
{
	const struct prec_drainer_pool *pool;
	uint64_t now, bytes = 0, records = 0, lost = 0;
	char line[LINE_MAX_BYTES + 8], b1[24], b2[24], b3[24], b4[24], disk[56], who[48];
	char lostbuf[48];
	double secs, dt;
	int n, cols;

	if (!sl || prec_status_line__timeout_ms(sl) > 0)
		return;
	/* its output stopped: no line this time (the write would wait) */
	if (!prec_log__tty_ready(sl->fd, 0)) {
		sl->last_ns = prec_now_ns(CLOCK_MONOTONIC);
		return;
	}
	pool = prec_session__pool(sl->s);
	now = prec_now_ns(CLOCK_MONOTONIC);
	for (int c = 0; pool && c < sl->nr_cpus; c++) {
		uint64_t r, l;

		if (!prec_drainer_pool__at(pool, c))
			continue;
		bytes += prec_drainer__bytes(prec_drainer_pool__at(pool, c));
		prec_drainer__progress(prec_drainer_pool__at(pool, c), &r, &l);
		records += r;
		lost += l;
	}
	secs = (double)(now - sl->t0) / 1e9;
	dt = (double)(now - sl->last_ns) / 1e9;
	busiest(sl, who, sizeof(who));
	/* loud, in words a screen reader and a log keep too: no colour */
	if (lost)
		snprintf(lostbuf, sizeof(lostbuf), "LOST %llu!", (unsigned long long)lost);
	else
		snprintf(lostbuf, sizeof(lostbuf), "0 lost");
	human(b3, sizeof(b3),
	      (double)prec_recording__disk_used(prec_session__recording(sl->s)));
	if (sl->budget)
		snprintf(disk, sizeof(disk), "%s of %s", b3,
			 human(b4, sizeof(b4), (double)sl->budget));
	else
		snprintf(disk, sizeof(disk), "%s", b3);
	/* what matters most first: a narrow terminal cuts the end */
	n = snprintf(line, sizeof(line),
		     "prec record %.0f s: %s, %llu records, %s (%s/s), %s on disk, %s",
		     secs, lostbuf, (unsigned long long)records,
		     human(b1, sizeof(b1), (double)bytes),
		     human(b2, sizeof(b2), dt > 0 ? (double)(bytes - sl->last_bytes) / dt : 0),
		     disk, who);
	sl->last_ns = now;
	sl->last_bytes = bytes;
	if (n < 0)
		return;
	/* One line, never wrapped: a wrapped line cannot be redrawn with \r. */
	cols = width(sl->fd) - 1;
	if (n > cols)
		n = cols > 0 ? cols : 0;
	put(sl->fd, "\r", 1);
	put(sl->fd, line, (size_t)n);
	put(sl->fd, "\033[K", 3);
	sl->drawn = true;
	prec_log__status_line(true);
}

void prec_status_line__clear(struct prec_status_line *sl)
{
	if (!sl || !sl->drawn || !prec_log__tty_ready(sl->fd, 200))
		return;
	put(sl->fd, "\r\033[K", 4);
	sl->drawn = false;
	prec_log__status_line(false);
}

void prec_status_line__delete(struct prec_status_line *sl)
{
	if (!sl)
		return;
	prec_status_line__clear(sl);
	free(sl->cpu_bytes);
	free(sl);
}
