// SPDX-License-Identifier: MIT
// User markers: `prec mark` writes text to the kernel's trace_marker; the
// recorder (--markers) copies every trace_marker write out of a private
// ftrace instance into ftrace:print SAMPLE records in the side band shard.
#include "record/record.h"
#include "util/bytes.h"
#include "util/cli.h"
#include "record/cmd_record.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"

#define MARK_MAX_TEXT 4000u  /* one write: trace_marker splits nothing */
#define MARK_MAX_CPUS 4096
#define PASS_BYTES (256u * 1024u)
#define PASS_RECS 4096u
/* ring_buffer event types (kernel/trace/ring_buffer.c) */
#define RB_TYPE_MAX_DATA 28u
#define RB_TYPE_PADDING 29u
#define RB_TYPE_TIME_EXTEND 30u
#define RB_TYPE_TIME_STAMP 31u
#define RB_TS_SHIFT 27
#define RB_TS_MSB (0xf8ull << 56)
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_COMMIT_MASK ((1ull << 30) - 1)
#define PAGE_HDR 16u

/* One data event at p (header already read): its payload bounds. */
static int data_event(const uint8_t *p, uint32_t type_len, uint32_t room,
		      uint32_t *ev_len, const uint8_t **data, uint32_t *dlen)
{
	if (type_len) {
		*dlen = type_len * 4;
		*data = p + 4;
		*ev_len = 4 + *dlen;
	} else {
		if (room < 8)
			return -EBADMSG;
		/* array[0] counts itself: data follows it */
		*ev_len = 4 + prec_ld32(p + 4);
		*dlen = prec_ld32(p + 4) - 4;
		*data = p + 8;
		if (prec_ld32(p + 4) < 4)
			return -EBADMSG;
	}
	return *ev_len <= room ? 0 : -EBADMSG;
}

int prec_markers__parse_page(const void *page, size_t len, uint16_t print_id,
			     prec_marker_fn fn, void *arg, bool *missed)
{
	const uint8_t *pg = page, *p, *end;
	uint64_t ts, commit;
	int n = 0;

	*missed = false;
	if (len < PAGE_HDR)
		return -EBADMSG;
	ts = prec_ld64(pg);
	commit = prec_ld64(pg + 8);
	*missed = !!(commit & RB_MISSED_EVENTS);
	if ((commit & RB_COMMIT_MASK) > len - PAGE_HDR)
		return -EBADMSG;
	p = pg + PAGE_HDR;
	end = p + (commit & RB_COMMIT_MASK);
	while (end - p >= 4) {
		uint32_t hdr = prec_ld32(p), type_len = hdr & 31, delta = hdr >> 5;
		uint32_t room = (uint32_t)(end - p), ev_len, dlen;
		const uint8_t *data;

		if (type_len == RB_TYPE_PADDING) {
			if (!delta || room < 8)
				break; /* the rest of the page is padding */
			ev_len = 4 + prec_ld32(p + 4);
			ts += delta;
		} else if (type_len >= RB_TYPE_TIME_EXTEND) {
			uint64_t v;

			if (room < 8)
				return -EBADMSG;
			v = ((uint64_t)prec_ld32(p + 4) << RB_TS_SHIFT) | delta;
			if (type_len == RB_TYPE_TIME_EXTEND)
				ts += v;
			else
				ts = v | (ts & RB_TS_MSB);
			ev_len = 8;
		} else {
			if (data_event(p, type_len, room, &ev_len, &data, &dlen))
				return -EBADMSG;
			ts += delta;
			if (dlen >= 16 && (prec_ld32(data) & 0xffff) == print_id) {
				fn(arg, ts, data, dlen);
				n++;
			}
		}
		if (ev_len > room || ev_len < 4)
			return -EBADMSG;
		p += ev_len;
	}
	return n;
}

/* ---- the recorder side ---- */

struct mrec {
	uint64_t time;
	uint32_t off, len;
};

struct prec_markers {
	struct prec_markers_opts o;
	char *inst;             /* instance directory */
	int *fds;               /* per_cpu/cpuN/trace_pipe_raw, -1 if absent */
	int nr_fds;
	uint16_t print_id;
	size_t page_size;
	uint8_t *page;
	uint8_t *buf;           /* this pass's synthesized records */
	uint32_t used;
	struct mrec *recs;
	uint32_t nr_recs;
	uint8_t *out;           /* the records in time order: a chunk */
	uint64_t wm;            /* watermark of the previous pass */
	int cur_cpu;
	int efd, err;
	uint64_t captured, missed, chunks;
	bool started;
	pthread_t thread;
};

static const struct {
	int clockid;
	const char *name;
} trace_clocks[] = {
	/* the clocks options.c lets --markers take (prec_clock__nmi_safe) */
	{ CLOCK_MONOTONIC, "mono" }, { CLOCK_MONOTONIC_RAW, "mono_raw" },
};

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int read_u64_file(const char *path, uint64_t *v)
{
	char text[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	text[n] = 0;
	*v = strtoull(text, NULL, 10);
	return 0;
}

static int setup_instance(struct prec_markers *mk, const char *clock)
{
	char path[512];
	uint64_t v = 4;
	int err;

	err = write_file(mk->inst, "trace_clock", clock);
	if (err) {
		pr_err("markers: %s/trace_clock '%s': %s", mk->inst, clock, strerror(-err));
		return err;
	}
	/* Markers are small and read every round: a small buffer is plenty. */
	if (write_file(mk->inst, "buffer_size_kb", "256"))
		pr_debug("markers: %s/buffer_size_kb: left as it was", mk->inst);
	err = write_file(mk->inst, "options/copy_trace_marker", "1");
	if (err) {
		pr_err("markers: %s/options/copy_trace_marker: %s (kernel before 6.17?)",
		       mk->inst, strerror(-err));
		return err == -ENOENT ? -ENODEV : err;
	}
	snprintf(path, sizeof(path), "%s/buffer_subbuf_size_kb", mk->inst);
	if (read_u64_file(path, &v) || !v || v > 1024)
		v = 4;
	mk->page_size = (size_t)v * 1024;
	return 0;
}

static int print_event_id(const char *root, uint16_t *id)
{
	char path[256];
	uint64_t v;
	int err;

	snprintf(path, sizeof(path), "%s/events/ftrace/print/id", root);
	err = read_u64_file(path, &v);
	if (err || !v || v > 0xffff)
		return err ? err : -EINVAL;
	*id = (uint16_t)v;
	return 0;
}

static const char *clock_name(int clockid)
{
	for (size_t i = 0; i < sizeof(trace_clocks) / sizeof(trace_clocks[0]); i++)
		if (trace_clocks[i].clockid == clockid)
			return trace_clocks[i].name;
	return NULL;
}

int prec_markers__open(struct prec_markers **out, int clockid)
{
	const char *root = prec_tracefs__root(), *clock = clock_name(clockid);
	struct prec_markers *mk;
	int err;

	*out = NULL;
	if (!clock) {
		pr_err("markers: no trace clock matches clock %d (use -k monotonic or monotonic_raw)",
		       clockid);
		return -EINVAL;
	}
	if (!root) {
		pr_err("markers: tracefs is not mounted");
		return -ENODEV;
	}
	mk = calloc(1, sizeof(*mk));
	if (!mk)
		return -ENOMEM;
	mk->efd = -1;
	if (asprintf(&mk->inst, "%s/instances/prec-%d", root, (int)getpid()) < 0) {
		mk->inst = NULL;
		free(mk);
		return -ENOMEM;
	}
	err = print_event_id(root, &mk->print_id);
	if (err) {
		pr_err("markers: %s/events/ftrace/print/id: %s", root, strerror(-err));
		goto fail;
	}
	if (mkdir(mk->inst, 0700)) {
		err = -errno;
		pr_err("markers: %s: mkdir: %s", mk->inst, strerror(-err));
		free(mk->inst);
		mk->inst = NULL; /* not ours to remove */
		goto fail;
	}
	err = setup_instance(mk, clock);
	if (err)
		goto fail;
	*out = mk;
	return 0;
fail:
	prec_markers__delete(mk);
	return err;
}

/* Thread id -> process id, for the sample's pid (ftrace keeps the tid). */
static uint32_t tgid_of(uint32_t tid)
{
	char path[64], text[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tid;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return tid;
	text[n] = 0;
	p = strstr(text, "\nTgid:");
	return p ? (uint32_t)strtoul(p + 6, NULL, 10) : tid;
}

static uint64_t id_for_cpu(const struct prec_markers *mk, int cpu)
{
	for (int i = 0; i < mk->o.nr_cpus; i++)
		if (mk->o.cpus[i] == cpu)
			return mk->o.ids[i];
	return mk->o.nr_cpus ? mk->o.ids[0] : 0;
}

/* Build an ftrace:print SAMPLE (IDENTIFIER|IP|TID|TIME|CPU|RAW) around one
 * print entry: what the kernel would emit if it fed the event to perf. */
static void on_marker(void *arg, uint64_t time, const void *entry, uint32_t len)
{
	struct prec_markers *mk = arg;
	const uint8_t *e = entry;
	uint32_t raw = ((len + 4 + 7) & ~7u) - 4, size = 48 + 4 + raw;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
				       (uint16_t)size };
	uint8_t *p = mk->buf + mk->used;
	uint32_t tid = prec_ld32(e + 4), pt[2], cpu[2] = { (uint32_t)mk->cur_cpu, 0 };
	uint64_t id = id_for_cpu(mk, mk->cur_cpu), ip = prec_ld64(e + 8);

	if (size > 65535 || mk->used + size > PASS_BYTES || mk->nr_recs == PASS_RECS) {
		mk->missed++;
		return;
	}
	pt[0] = tgid_of(tid);
	pt[1] = tid;
	memcpy(p, &h, 8);
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &ip, 8);
	memcpy(p + 24, pt, 8);
	memcpy(p + 32, &time, 8);
	memcpy(p + 40, cpu, 8);
	memcpy(p + 48, &raw, 4);
	memcpy(p + 52, e, len);
	memset(p + 52 + len, 0, raw - len);
	mk->recs[mk->nr_recs++] = (struct mrec){ time, mk->used, size };
	mk->used += size;
}

static int cmp_mrec(const void *a, const void *b)
{
	const struct mrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The pass's records, sorted, as one DATA chunk; waits until it is on
 * disk so the buffers are free again (markers are rare). */
static int flush_pass(struct prec_markers *mk, uint64_t wm)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA };
	struct iovec iov;
	uint32_t pos = 0;
	int64_t t;

	if (!mk->nr_recs)
		return 0;
	qsort(mk->recs, mk->nr_recs, sizeof(*mk->recs), cmp_mrec);
	for (uint32_t i = 0; i < mk->nr_recs; i++) {
		memcpy(mk->out + pos, mk->buf + mk->recs[i].off, mk->recs[i].len);
		pos += mk->recs[i].len;
	}
	meta.records = mk->nr_recs;
	meta.first_time = mk->recs[0].time;
	meta.last_time = mk->recs[mk->nr_recs - 1].time;
	meta.watermark = wm;
	iov = (struct iovec){ mk->out, pos };
	t = prec_shard_writer__append(mk->o.writer, &meta, &iov, 1);
	if (t < 0)
		return (int)t;
	mk->captured += mk->nr_recs;
	mk->chunks++;
	mk->nr_recs = 0;
	mk->used = 0;
	return prec_shard_writer__wait(mk->o.writer, t);
}

static void read_cpu(struct prec_markers *mk, int cpu)
{
	/* A page per read; 0 and EAGAIN both mean "nothing more now". */
	for (int i = 0; i < 1024; i++) {
		ssize_t n = read(mk->fds[cpu], mk->page, mk->page_size);
		bool missed;

		if (n <= 0)
			return;
		mk->cur_cpu = cpu;
		if (prec_markers__parse_page(mk->page, (size_t)n, mk->print_id,
					     on_marker, mk, &missed) < 0)
			mk->missed++;
		mk->missed += missed;
	}
}

static int pass(struct prec_markers *mk)
{
	/* Taken before reading: an entry read later was stamped no earlier
	 * than this, less the time a writer holds its reservation. */
	uint64_t wm = 0;
	struct timespec ts;
	int err;

	if (!clock_gettime((clockid_t)mk->o.clockid, &ts))
		wm = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (int c = 0; c < mk->nr_fds; c++)
		if (mk->fds[c] >= 0)
			read_cpu(mk, c);
	err = flush_pass(mk, wm);
	mk->wm = wm;
	return err;
}

static void *markers_thread(void *arg)
{
	struct prec_markers *mk = arg;
	struct pollfd pfd = { .fd = mk->efd, .events = POLLIN };
	int ms = (int)(mk->o.round_ns / 1000000ull);
	bool stop = false;

	while (!stop && !mk->err) {
		int rc = poll(&pfd, 1, ms > 0 ? ms : 100);

		stop = rc > 0;
		mk->err = pass(mk);
	}
	if (mk->err)
		pr_err("markers: writing the side band: %s", strerror(-mk->err));
	return NULL;
}

static int open_cpus(struct prec_markers *mk)
{
	char path[600];
	int *online = NULL, n = prec_cpu_list__online(&online);

	if (n <= 0)
		return n < 0 ? n : -ENODEV;
	mk->nr_fds = online[n - 1] + 1;
	mk->fds = malloc((size_t)mk->nr_fds * sizeof(int));
	if (!mk->fds) {
		free(online);
		return -ENOMEM;
	}
	for (int c = 0; c < mk->nr_fds; c++)
		mk->fds[c] = -1;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 mk->inst, online[i]);
		mk->fds[online[i]] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (mk->fds[online[i]] < 0)
			pr_warn("markers: %s: %s", path, strerror(errno));
	}
	free(online);
	return 0;
}

int prec_markers__start(struct prec_markers *mk,
			const struct prec_markers_opts *o)
{
	int err;

	mk->o = *o;
	mk->page = malloc(mk->page_size);
	mk->buf = malloc(PASS_BYTES);
	mk->out = malloc(PASS_BYTES);
	mk->recs = malloc(PASS_RECS * sizeof(*mk->recs));
	if (!mk->page || !mk->buf || !mk->out || !mk->recs)
		return -ENOMEM;
	err = open_cpus(mk);
	if (err)
		return err;
	mk->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (mk->efd < 0)
		return -errno;
	err = pthread_create(&mk->thread, NULL, markers_thread, mk);
	if (err)
		return -err;
	mk->started = true;
	return 0;
}

int prec_markers__stop(struct prec_markers *mk)
{
	uint64_t one = 1;

	if (!mk || !mk->started)
		return 0;
	if (write(mk->efd, &one, sizeof(one)) < 0) {
		/* the counter is already set: the thread is waking anyway */
	}
	pthread_join(mk->thread, NULL);
	mk->started = false;
	if (mk->missed)
		pr_warn("markers: %llu markers lost (trace buffer overrun or oversized)",
			(unsigned long long)mk->missed);
	pr_debug("markers: %llu captured in %llu chunks",
		 (unsigned long long)mk->captured, (unsigned long long)mk->chunks);
	return mk->err ? mk->err : (int)mk->captured;
}

void prec_markers__delete(struct prec_markers *mk)
{
	if (!mk)
		return;
	prec_markers__stop(mk);
	for (int c = 0; mk->fds && c < mk->nr_fds; c++)
		if (mk->fds[c] >= 0)
			close(mk->fds[c]);
	if (mk->inst && rmdir(mk->inst))
		pr_warn("markers: %s: rmdir: %s", mk->inst, strerror(errno));
	if (mk->efd >= 0)
		close(mk->efd);
	free(mk->fds);
	free(mk->inst);
	free(mk->page);
	free(mk->buf);
	free(mk->out);
	free(mk->recs);
	free(mk);
}

/* ---- prec mark ---- */

/* With -d: the recording there must be running and capturing markers, or
 * the marker would silently go nowhere. */
static int check_recording(const char *dir)
{
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	bool markers = false;

	if (dfd < 0) {
		pr_err("mark: %s: %s", dir, strerror(errno));
		return -errno;
	}
	err = prec_manifest__read(&m, dfd, &why);
	close(dfd);
	if (err) {
		pr_err("mark: %s/manifest: %s", dir, why ? why : strerror(-err));
		return err;
	}
	for (uint32_t i = 0; i < m->nr_events; i++)
		markers |= m->events[i].name && !strcmp(m->events[i].name, "ftrace:print");
	err = m->state != PREC_STATE_RECORDING ? -ESRCH : markers ? 0 : -ENOENT;
	prec_manifest__delete(m);
	if (err == -ESRCH)
		pr_err("mark: %s: the recording is not running", dir);
	else if (err)
		pr_err("mark: %s: recording without markers (record with --markers)", dir);
	return err;
}

static int join_args(int argc, char **argv, char *text, size_t cap)
{
	size_t len = 0;

	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + (i > 0) >= cap)
			return -E2BIG;
		if (i > 0)
			text[len++] = ' ';
		memcpy(text + len, argv[i], n);
		len += n;
	}
	text[len] = 0;
	return (int)len;
}

static int write_marker(const char *text, size_t len)
{
	const char *root = prec_tracefs__root();
	char path[256];
	ssize_t n;
	int fd;

	if (!root) {
		pr_err("mark: tracefs is not mounted");
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "%s/trace_marker", root);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("mark: %s: %s", path, strerror(errno));
		return -errno;
	}
	/* One write is one marker: the kernel stamps it here, on this CPU.
	 * EBADF only says the top-level buffer is off; the copies to
	 * instances (the recorder's) are made before that check. */
	n = write(fd, text, len);
	if (n < 0 && errno != EBADF) {
		pr_err("mark: %s: %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

int prec_cmd_mark(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	char text[MARK_MAX_TEXT + 1];
	int c, len;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:h", longs, NULL)) != -1) {
		if (c == 'd') {
			dir = optarg;
		} else if (c == 'h') {
			printf("usage: prec mark [-d DIR] TEXT...\n\n"
			       "  -d, --dir DIR   check that the recording in DIR is running with --markers\n"
			       "  -h, --help      this text\n\n"
			       "Writes TEXT to the kernel's trace_marker: 'prec record --markers' records\n"
			       "it as an ftrace:print event on this CPU, at this moment.\n");
			return 0;
		} else {
			prec_cli__bad_option("mark", argv);
			return 2;
		}
	}
	if (optind >= argc) {
		pr_err("mark: no text (usage: prec mark [-d DIR] TEXT...)");
		return 2;
	}
	len = join_args(argc - optind, argv + optind, text, sizeof(text));
	if (len <= 0) {
		pr_err("mark: text empty or longer than %u bytes", MARK_MAX_TEXT);
		return 2;
	}
	if (dir && check_recording(dir))
		return 1;
	return write_marker(text, (size_t)len) ? 1 : 0;
}
