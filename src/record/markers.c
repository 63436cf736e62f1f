// SPDX-License-Identifier: MIT
// The --markers reader: a private ftrace instance copying every
// trace_marker write, read by one thread each round into ftrace:print
// SAMPLE records in the side band shard.
#include "record/markers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "record/markers_page.h"
#include "record/tracefs.h"
#include "store/store.h"
#include "util/bytes.h"
#include "util/cpu_list.h"
#include "util/log.h"
#include "util/proc.h"

#define PASS_BYTES (256u * 1024u)
#define PASS_RECS 4096u

struct mrec {
	uint64_t time;
	uint32_t off, len;
};

struct prec_markers {
	struct prec_markers_opts o;
	char *inst;             /* instance directory, for messages */
	char name[32];          /* its name in instances/: prec-<pid> */
	int ifd, dfd;           /* instances/ and the instance */
	bool made;              /* created here: removed here */
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

static int write_file(int dfd, const char *name, const char *text)
{
	int fd, err = 0;

	fd = openat(dfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int read_u64_file(int dfd, const char *name, uint64_t *v)
{
	char text[64];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
	uint64_t v = 4;
	int err;

	err = write_file(mk->dfd, "trace_clock", clock);
	if (err) {
		pr_err("markers: %s/trace_clock '%s': %s", mk->inst, clock, strerror(-err));
		return err;
	}
	/* Markers are small and read every round: a small buffer is plenty. */
	if (write_file(mk->dfd, "buffer_size_kb", "256"))
		pr_debug("markers: %s/buffer_size_kb: left as it was", mk->inst);
	err = write_file(mk->dfd, "options/copy_trace_marker", "1");
	if (err == -ENOENT) {
		struct utsname u;

		pr_err("--markers needs Linux 6.17 or later (tracefs option copy_trace_marker); this kernel is %s",
		       uname(&u) ? "older" : u.release);
		return -ENODEV;
	}
	if (err) {
		pr_err("markers: %s/options/copy_trace_marker: %s", mk->inst,
		       strerror(-err));
		return err;
	}
	if (read_u64_file(mk->dfd, "buffer_subbuf_size_kb", &v) || !v || v > 1024)
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
	err = read_u64_file(AT_FDCWD, path, &v);
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

/* The pid in an instance name that is exactly "prec-<pid>" as we write it
 * (no sign, no leading zero, no suffix), or 0. */
static pid_t instance_pid(const char *name)
{
	char *end;
	long v;

	if (strncmp(name, "prec-", 5) || name[5] < '1' || name[5] > '9')
		return 0;
	errno = 0;
	v = strtol(name + 5, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

/* A recorder killed with SIGKILL leaves its instance, which goes on
 * copying every trace_marker write into its buffer: remove the instances
 * of recorders that are gone. Ours cannot exist yet, so one with our pid
 * is a dead recorder's too. One in use (an open trace_pipe_raw) is EBUSY
 * to rmdir: the kernel keeps it. */
static void remove_stale(int ifd, const char *dir)
{
	struct dirent *de;
	int fd = dup(ifd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		pr_debug("markers: %s: listing for stale instances: %s", dir, strerror(err));
		return;
	}
	while ((de = readdir(d))) {
		pid_t pid = instance_pid(de->d_name);

		if (!pid || (pid != getpid() && (!kill(pid, 0) || errno != ESRCH)))
			continue;
		if (unlinkat(ifd, de->d_name, AT_REMOVEDIR)) {
			if (errno != ENOENT) /* another recorder removed it first */
				pr_warn("markers: %s/%s: removing a dead recorder's instance: %s",
					dir, de->d_name, strerror(errno));
		} else {
			pr_info("markers: %s/%s: removed (its recorder, pid %d, is gone)",
				dir, de->d_name, (int)pid);
		}
	}
	closedir(d);
}

static int make_instance(struct prec_markers *mk, const char *root)
{
	char dir[300];
	int err;

	snprintf(dir, sizeof(dir), "%s/instances", root);
	mk->ifd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (mk->ifd < 0) {
		err = -errno;
		pr_err("markers: %s: %s", dir, strerror(-err));
		return err;
	}
	remove_stale(mk->ifd, dir);
	snprintf(mk->name, sizeof(mk->name), "prec-%d", (int)getpid());
	if (asprintf(&mk->inst, "%s/%s", dir, mk->name) < 0) {
		mk->inst = NULL;
		return -ENOMEM;
	}
	if (mkdirat(mk->ifd, mk->name, 0700)) {
		err = -errno;
		pr_err("markers: %s: mkdir: %s", mk->inst, strerror(-err));
		return err;
	}
	mk->made = true;
	mk->dfd = openat(mk->ifd, mk->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (mk->dfd < 0) {
		err = -errno;
		pr_err("markers: %s: %s", mk->inst, strerror(-err));
		return err;
	}
	return 0;
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
	mk->efd = mk->ifd = mk->dfd = -1;
	err = print_event_id(root, &mk->print_id);
	if (err) {
		pr_err("markers: %s/events/ftrace/print/id: %s", root, strerror(-err));
		goto fail;
	}
	err = make_instance(mk, root);
	if (err)
		goto fail;
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
	pid_t tgid = prec_proc__tgid((pid_t)tid);

	return tgid > 0 ? (uint32_t)tgid : tid;
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
	/* a record's size is 16 bits: a longer entry is counted lost (and
	 * the sums below cannot wrap) */
	uint32_t raw = len < 65536 ? ((len + 4 + 7) & ~7u) - 4 : 65536;
	uint32_t size = 48 + 4 + raw;
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

/* A pass that found nothing: its watermark alone, as a drainer's idle
 * round writes one, so that a reader following the recording (merge
 * --follow) knows the side band has nothing older to come. */
static int idle_marker(struct prec_markers *mk, uint64_t wm)
{
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_MARKER, .watermark = wm };
	int64_t t;

	if (!wm)
		return 0;
	t = prec_shard_writer__append(mk->o.writer, &meta, NULL, 0);
	if (t < 0)
		return (int)t;
	return prec_shard_writer__wait(mk->o.writer, t);
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
		return idle_marker(mk, wm);
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
	uint64_t round = mk->o.round_ns ? mk->o.round_ns : 100000000ull;
	bool stop = false;

	/* Asleep in the side band writer's ring, as a drainer in its own:
	 * an O_DIRECT writer writes its partial last block when it idles
	 * there, so a reader following the recording sees each pass soon. */
	while (!stop && !mk->err) {
		int rc = prec_shard_writer__sleep(mk->o.writer, &mk->efd, 1, round);

		if (rc < 0) {
			mk->err = rc;
			break;
		}
		stop = rc > 0;
		mk->err = pass(mk);
	}
	if (mk->err)
		pr_err("markers: writing the side band: %s", strerror(-mk->err));
	return NULL;
}

static int open_cpus(struct prec_markers *mk)
{
	char path[64];
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
		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", online[i]);
		mk->fds[online[i]] = openat(mk->dfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (mk->fds[online[i]] < 0)
			pr_warn("markers: %s/%s: %s", mk->inst, path, strerror(errno));
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
	if (mk->dfd >= 0)
		close(mk->dfd);
	if (mk->made && unlinkat(mk->ifd, mk->name, AT_REMOVEDIR))
		pr_warn("markers: %s: rmdir: %s", mk->inst, strerror(errno));
	if (mk->ifd >= 0)
		close(mk->ifd);
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
