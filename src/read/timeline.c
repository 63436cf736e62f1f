// SPDX-License-Identifier: MIT
// prec info --timeline: the shards' chunks binned over time (a histogram
// whose span doubles as later chunks arrive), then drawn as one row of
// block characters per shard, a loss row under a shard that lost records,
// and a time axis in seconds from the recording's start.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "read/live_scan.h"
#include "read/timeline.h"
#include "util/escape.h"
#include "util/log.h"
#include "util/sat.h"

/* Fine bins per row; drawn columns are groups of them, so at least half
 * of them (the span only doubles) cover the data at any width. */
#define BINS 2048u
#define MIN_COLS 10
#define MAX_COLS 1000
#define LABEL_MAX 16
#define RIGHT 9 /* "| %7s": the closing bar and the row's total */

struct row {
	double bytes[BINS];
	uint64_t lost[BINS];
	uint64_t total_raw, total_lost;
	char label[LABEL_MAX * PREC_ESCAPE_MAX_PER_BYTE + 4];
};

struct timeline {
	struct row *rows;
	uint32_t nr;
	uint64_t t0;       /* time of bin 0's start */
	uint64_t bin_ns;   /* each bin's span; doubles as needed */
	uint64_t tmax;     /* latest time seen */
	bool have_t0;
	struct row *cur;   /* the row the scan fills */
};

/* Halve the resolution of every row: bin i takes bins 2i and 2i+1. */
static void widen(struct timeline *tl)
{
	for (uint32_t r = 0; r < tl->nr; r++) {
		struct row *w = &tl->rows[r];

		for (uint32_t i = 0; i < BINS / 2; i++) {
			w->bytes[i] = w->bytes[2 * i] + w->bytes[2 * i + 1];
			w->lost[i] = prec_add_sat(w->lost[2 * i], w->lost[2 * i + 1]);
		}
		memset(w->bytes + BINS / 2, 0, sizeof(w->bytes) / 2);
		memset(w->lost + BINS / 2, 0, sizeof(w->lost) / 2);
	}
	tl->bin_ns *= 2;
}

static uint32_t bin_of(struct timeline *tl, uint64_t t)
{
	if (t <= tl->t0)
		return 0;
	while ((t - tl->t0) / tl->bin_ns >= BINS)
		widen(tl);
	return (uint32_t)((t - tl->t0) / tl->bin_ns);
}

/* A chunk's bytes spread evenly over the bins its records' times cover. */
static void on_chunk(void *arg, const struct prec_live_chunk *c)
{
	struct timeline *tl = arg;
	struct row *w = tl->cur;
	uint32_t a, b;

	w->total_raw += c->raw_len;
	w->total_lost = prec_add_sat(w->total_lost, c->lost);
	if (!c->first_time)
		return;
	if (!tl->have_t0) {
		tl->t0 = c->first_time;
		tl->have_t0 = true;
	}
	if (c->last_time > tl->tmax)
		tl->tmax = c->last_time;
	b = bin_of(tl, c->last_time > c->first_time ? c->last_time : c->first_time);
	a = bin_of(tl, c->first_time);
	for (uint32_t i = a; i <= b; i++)
		w->bytes[i] += (double)c->raw_len / (double)(b - a + 1);
	if (c->lost) {
		uint64_t *at = &w->lost[bin_of(tl, c->lost_time ? c->lost_time : c->first_time)];

		*at = prec_add_sat(*at, c->lost);
	}
}

static int term_width(FILE *f)
{
	struct winsize ws;
	const char *e = getenv("COLUMNS");
	long n;

	if (isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	if (e && *e) {
		char *end;

		n = strtol(e, &end, 10);
		if (!*end && n > 0)
			return n > MAX_COLS ? MAX_COLS : (int)n;
	}
	return 80;
}

/* Shard names come from the manifest: escaped, without ".shard", cut. */
static void set_label(struct row *w, const char *name)
{
	size_t n = strlen(name);

	if (n > 6 && !strcmp(name + n - 6, ".shard"))
		n -= 6;
	if (n > LABEL_MAX)
		n = LABEL_MAX;
	prec_escape__to_buf(w->label, sizeof(w->label), name, n, 0);
}

static const char *human(char *buf, size_t len, double v)
{
	static const char unit[] = " KMGTP";
	int u = 0;

	while (v >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%cB" : "%.0fB", v, unit[u]);
	return buf;
}

/* Column c of cols covers fine bins [lo, hi) of the used ones. */
static void col_bins(uint32_t used, int cols, int c, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)((uint64_t)c * used / (uint64_t)cols);
	*hi = (uint32_t)((uint64_t)(c + 1) * used / (uint64_t)cols);
	if (*hi <= *lo)
		*hi = *lo + 1;
}

static double col_bytes(const struct row *w, uint32_t lo, uint32_t hi)
{
	double s = 0;

	for (uint32_t i = lo; i < hi; i++)
		s += w->bytes[i];
	return s / (double)(hi - lo);
}

static void draw_row(FILE *f, const struct row *w, int lw,
		     int cols, uint32_t used, double max)
{
	static const char *const level[9] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
					      "\u2585", "\u2586", "\u2587", "\u2588" };
	char h[16];

	fprintf(f, "%-*s|", lw, w->label);
	for (int c = 0; c < cols; c++) {
		uint32_t lo, hi;
		double v;
		int l = 0;

		col_bins(used, cols, c, &lo, &hi);
		v = col_bytes(w, lo, hi);
		if (v > 0 && max > 0) {
			l = (int)(v / max * 8.0 + 0.999);
			l = l < 1 ? 1 : l > 8 ? 8 : l;
		}
		fputs(level[l], f);
	}
	fprintf(f, "| %7s\n", human(h, sizeof(h), (double)w->total_raw));
	if (!w->total_lost)
		return;
	/* where the ring overflowed: a '!' under each column with a LOST */
	fprintf(f, "%*s|", lw, "lost");
	for (int c = 0; c < cols; c++) {
		uint32_t lo, hi;
		uint64_t n = 0;

		col_bins(used, cols, c, &lo, &hi);
		for (uint32_t i = lo; i < hi; i++)
			n = prec_add_sat(n, w->lost[i]);
		fputc(n ? '!' : ' ', f);
	}
	fprintf(f, "| %7llu\n", (unsigned long long)w->total_lost);
}

/* Ticks every 1, 2 or 5 x 10^k seconds, at least 10 columns apart. */
static void draw_axis(FILE *f, int lw, int cols, double secs)
{
	static const double steps[] = { 1, 2, 5 };
	double step = 1e-6, per_col = secs / cols;
	char *ruler, *labels;
	int k = 0;

	while (step / per_col < 10 && k < 60) {
		step = steps[k % 3] * __builtin_powi(10.0, k / 3 - 6);
		k++;
	}
	ruler = malloc((size_t)cols + 1);
	labels = malloc((size_t)cols + 16);
	if (!ruler || !labels)
		goto out;
	memset(ruler, '-', (size_t)cols);
	memset(labels, ' ', (size_t)cols + 15);
	ruler[cols] = labels[cols + 15] = 0;
	for (int i = 0;; i++) {
		double t = i * step;
		int c = (int)(t / per_col + 0.5);
		char txt[24];
		int n;

		if (c >= cols || secs <= 0)
			break;
		ruler[c] = '+';
		n = snprintf(txt, sizeof(txt), "%gs", t);
		if (n > 0 && c + n <= cols + RIGHT)
			memcpy(labels + c, txt, (size_t)n);
	}
	/* trailing blanks off */
	for (int i = cols + 14; i >= 0 && labels[i] == ' '; i--)
		labels[i] = 0;
	fprintf(f, "%*s %s+\n%*s %s\n", lw, "", ruler, lw, "", labels);
out:
	free(ruler);
	free(labels);
}

/* Each shard's chunks into its row. Returns how many shards of a finished
 * recording could not be read to their end, each said in one error line:
 * there no chunk is being written, so one that is not whole is damage and
 * the row stops short. While it records (or after it died), a shard's
 * last chunk may be half written: its row ends there without a word. */
static uint32_t scan_all(struct timeline *tl, int dirfd, const struct prec_manifest *m)
{
	bool done = m->state == PREC_STATE_COMPLETE;
	uint32_t bad = 0;

	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct prec_live_totals t;
		const char *why = NULL;

		tl->cur = &tl->rows[i];
		set_label(tl->cur, m->shards[i].name);
		if (prec_live_scan__shard(dirfd, m->shards[i].name, &m->time_layout, on_chunk,
					  tl, &t, &why) < 0) {
			if (t.torn_file[0])
				prec_log(done ? PREC_LOG_ERR : PREC_LOG_WARN,
					 "shard %s: segment file %s: offset 0x%llx: %s",
					 m->shards[i].name, t.torn_file,
					 (unsigned long long)t.end, why ? why : "?");
			else
				prec_log(done ? PREC_LOG_ERR : PREC_LOG_WARN,
					 "shard %s: cannot read: %s", m->shards[i].name,
					 why ? why : "?");
			bad += done;
		} else if (done && t.torn) {
			pr_err("shard %s: %s%s%soffset 0x%llx: %s: drawn up to it", m->shards[i].name,
			       t.torn_file[0] ? "segment file " : "", t.torn_file,
			       t.torn_file[0] ? ": " : "", (unsigned long long)t.end, t.torn_why);
			bad++;
		}
	}
	return bad;
}

int prec_timeline__print(int dirfd, const struct prec_manifest *m, const char *dir, FILE *f)
{
	struct timeline tl = { .nr = m->nr_shards, .bin_ns = 1000 };
	int width = term_width(f), lw = 4, cols;
	uint32_t used, bad;
	double secs, max = 0;
	char h[16];

	/* Time 0 is the recording's start (the manifest's event-clock time
	 * before the events were enabled): no record of a shard read later
	 * falls before it. Without one, the first record read. */
	tl.t0 = m->start_time;
	tl.have_t0 = m->start_time != 0;
	tl.rows = calloc(m->nr_shards ? m->nr_shards : 1, sizeof(*tl.rows));
	if (!tl.rows)
		return -ENOMEM;
	bad = scan_all(&tl, dirfd, m);
	/* a complete recording is drawn to its stop, idle end included */
	if (tl.have_t0 && m->state == PREC_STATE_COMPLETE && m->stop_time > tl.tmax) {
		bin_of(&tl, m->stop_time);
		tl.tmax = m->stop_time;
	}
	for (uint32_t i = 0; i < tl.nr; i++) {
		int n = (int)strlen(tl.rows[i].label);

		lw = n > lw ? n : lw;
	}
	cols = width - lw - 1 - RIGHT; /* a row is exactly width wide */
	cols = cols < MIN_COLS ? MIN_COLS : cols;
	used = tl.have_t0 ? (uint32_t)((tl.tmax - tl.t0) / tl.bin_ns) + 1 : 1;
	used = used > BINS ? BINS : used;
	secs = (double)used * (double)tl.bin_ns / 1e9;
	for (uint32_t i = 0; i < tl.nr; i++)
		for (int c = 0; c < cols; c++) {
			uint32_t lo, hi;
			double v;

			col_bins(used, cols, c, &lo, &hi);
			v = col_bytes(&tl.rows[i], lo, hi);
			max = v > max ? v : max;
		}
	fputs("timeline:    ", f);
	prec_escape__put(f, dir, strlen(dir), 0);
	fprintf(f, ", %.3f s from the %s, %s\n", secs, m->start_time ? "start" : "first record",
		m->state == PREC_STATE_COMPLETE ? "complete" : "live (manifest not final)");
	fprintf(f, "scale:       one column %.3g s, \u2588 = %s/s drained, ! = records lost\n",
		secs / cols, human(h, sizeof(h), max * 1e9 / (double)tl.bin_ns));
	for (uint32_t i = 0; i < tl.nr; i++)
		draw_row(f, &tl.rows[i], lw, cols, used, max);
	draw_axis(f, lw, cols, secs);
	free(tl.rows);
	return ferror(f) ? -EIO : bad ? -EBADMSG : 0;
}
