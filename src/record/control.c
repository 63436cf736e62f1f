// SPDX-License-Identifier: MIT
// `prec record --control`: the command channel (fifo:CTL[,ACK] or
// fd:CTL[,ACK], as perf record's), its line parser and acks; plus the
// parsers of the flight-recorder options (-D, --aux-size, -m ,AUX).
#include "record/cmd_record.h"
#include "record/tail.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

#define CTL_LINE 256
#define CTL_READS 64   /* reads of the buffer's size in one call */

struct prec_control {
	int ctl_fd, ack_fd;
	bool own_fds;           /* fifo: opened here, closed here */
	char *name;             /* "fifo:PATH" or "fd:N", for messages */
	char buf[CTL_LINE];
	size_t len;
	bool discard;           /* in a line too long: dropped up to its end */
	bool eof;               /* writer gone or read failed: not polled */
};

static const char *const commands[] = {
	[PREC_CTL_ENABLE] = "enable",
	[PREC_CTL_DISABLE] = "disable",
	[PREC_CTL_SNAPSHOT] = "snapshot",
	[PREC_CTL_STOP] = "stop",
	[PREC_CTL_PING] = "ping",
};

/* "fifo:A[,B]" / "fd:N[,M]" split into its kind and the two names. */
static int split_spec(const char *spec, bool *is_fd, char *a, char *b,
		      size_t cap)
{
	const char *p, *comma;
	size_t n;

	if (!strncmp(spec, "fifo:", 5)) {
		*is_fd = false;
		p = spec + 5;
	} else if (!strncmp(spec, "fd:", 3)) {
		*is_fd = true;
		p = spec + 3;
	} else {
		return -EINVAL;
	}
	comma = strchr(p, ',');
	n = comma ? (size_t)(comma - p) : strlen(p);
	if (!n || n >= cap || (comma && (!comma[1] || strlen(comma + 1) >= cap)))
		return -EINVAL;
	memcpy(a, p, n);
	a[n] = 0;
	b[0] = 0;
	if (comma)
		strcpy(b, comma + 1);
	return 0;
}

static int parse_fd(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > INT_MAX)
		return -EINVAL;
	return fcntl((int)v, F_GETFD) < 0 ? -EBADF : (int)v;
}

int prec_control__check_spec(const char *spec)
{
	char a[PATH_MAX], b[PATH_MAX];
	bool is_fd;

	return split_spec(spec, &is_fd, a, b, sizeof(a));
}

/* O_RDWR: opening never blocks on the other end, and the fifo never
 * reports EOF (nor POLLHUP) when a writer goes away. The path is often in
 * a directory others can write (/tmp): a symbolic link is refused (it could
 * lead root to anyone's fifo, or open a device), and so is a fifo that
 * someone else owns (they would hold a channel into the recorder). */
/* The FIFO at path, looked at before anything opens it: the directory part
 * by prec_path__open_dir() (no link another user planted), the name itself
 * O_PATH|O_NOFOLLOW (opens nothing: no device acts, no FIFO is joined), and
 * only a FIFO of the effective user is then opened, through that same
 * descriptor, O_RDWR so that writers may come and go. */
static int open_fifo(const char *path, const char *what)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *why = NULL, *bad = NULL;
	char dir[PATH_MAX];
	struct stat st;
	int dirfd, pfd, fd, err;

	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, n ? path : ".", n ? n : 1);
	dir[n ? n : 1] = '\0';
	dirfd = prec_path__open_dir(dir, &why, &bad);
	if (dirfd < 0) {
		if (dirfd == -EPERM && bad)
			pr_err("control %s fifo %s: %s: %s, not followed", what, path, bad, why);
		else
			pr_err("control %s fifo %s: %s", what, path, strerror(-dirfd));
		return dirfd;
	}
	pfd = openat(dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	err = pfd < 0 ? -errno : 0;
	close(dirfd);
	if (err) {
		pr_err("control %s fifo %s: %s (create it with mkfifo)", what, path,
		       strerror(-err));
		return err;
	}
	if (fstat(pfd, &st)) {
		err = -errno;
		pr_err("control %s fifo %s: fstat: %s", what, path, strerror(-err));
	} else if (S_ISLNK(st.st_mode)) {
		pr_err("control %s fifo %s: a symbolic link: refused", what, path);
		err = -ELOOP;
	} else if (!S_ISFIFO(st.st_mode)) {
		pr_err("control %s fifo %s: not a fifo", what, path);
		err = -EINVAL;
	} else if (st.st_uid != geteuid()) {
		pr_err("control %s fifo %s: owned by uid %u, not by uid %u: refused",
		       what, path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		err = -EPERM;
	}
	if (err) {
		close(pfd);
		return err;
	}
	fd = prec_file__reopen(pfd, &st, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		pr_err("control %s fifo %s: open: %s", what, path, strerror(-fd));
	return fd;
}

static int open_ends(struct prec_control *c, bool is_fd, const char *a,
		     const char *b)
{
	if (is_fd) {
		c->ctl_fd = parse_fd(a);
		c->ack_fd = *b ? parse_fd(b) : -1;
		if (c->ctl_fd < 0 || (*b && c->ack_fd < 0)) {
			pr_err("control fd:%s%s%s: not an open file descriptor", a,
			       *b ? "," : "", b);
			return -EBADF;
		}
		return fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK)
			       ? -errno : 0;
	}
	c->own_fds = true;
	c->ctl_fd = open_fifo(a, "command");
	if (c->ctl_fd < 0)
		return c->ctl_fd;
	if (*b) {
		c->ack_fd = open_fifo(b, "ack");
		if (c->ack_fd < 0)
			return c->ack_fd;
	}
	return 0;
}

int prec_control__open(struct prec_control **out, const char *spec)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct prec_control *c;
	bool is_fd;
	int err;

	*out = NULL;
	if (split_spec(spec, &is_fd, a, b, sizeof(a))) {
		pr_err("option --control '%s': expected fifo:CTL[,ACK] or fd:CTL[,ACK]", spec);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctl_fd = c->ack_fd = -1;
	if (asprintf(&c->name, "%s:%s", is_fd ? "fd" : "fifo", a) < 0) {
		free(c);
		return -ENOMEM;
	}
	err = open_ends(c, is_fd, a, b);
	if (err) {
		prec_control__close(c);
		return err;
	}
	*out = c;
	return 0;
}

int prec_control__fd(const struct prec_control *c)
{
	return c && !c->eof ? c->ctl_fd : -1;
}

/* Where the first line in the buffer ends ('\n', or '\0' as perf's tools
 * send), or len if it does not end there yet. */
static size_t line_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\0')
			return i;
	return len;
}

/* The next command out of the buffer: a PREC_CTL_* value, 0 when no whole
 * line is left, -EINVAL for an unknown one. A line longer than the buffer
 * is dropped to its end, never read as two commands. */
static int take_line(struct prec_control *c)
{
	char line[CTL_LINE];

	for (;;) {
		size_t n = line_end(c->buf, c->len);
		int cmd;

		if (n == c->len) {
			if (c->len == sizeof(c->buf)) {
				if (!c->discard)
					pr_warn("control %s: command longer than %d bytes: dropped",
						c->name, CTL_LINE - 1);
				c->discard = true;
				c->len = 0;
			}
			return 0;
		}
		memcpy(line, c->buf, n);
		line[n] = 0;
		memmove(c->buf, c->buf + n + 1, c->len - n - 1);
		c->len -= n + 1;
		if (c->discard) {
			c->discard = false; /* the overlong line's tail */
			continue;
		}
		cmd = prec_control__parse(line);
		if (cmd)
			return cmd;
	}
}

/* The command end gives no more: stop polling it (a pipe whose writer has
 * gone stays readable forever). */
static void end_channel(struct prec_control *c)
{
	c->eof = true;
	/* a final unterminated line still counts, unless it was too long */
	if (c->len && !c->discard && c->len < sizeof(c->buf))
		c->buf[c->len++] = '\n';
	else
		c->len = 0;
	c->discard = false;
}

int prec_control__parse(const char *line)
{
	size_t n;

	while (isspace((unsigned char)*line))
		line++;
	n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	if (!n)
		return 0;
	for (size_t i = 1; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i] && strlen(commands[i]) == n && !strncmp(line, commands[i], n))
			return (int)i;
	pr_warn("control: unknown command '%.*s' (enable, disable, snapshot, stop, ping)",
		(int)n, line);
	return -EINVAL;
}

int prec_control__next(struct prec_control *c)
{
	/* A writer that never pauses (or fd:N on /dev/zero) yields the main
	 * loop now and then: signals and the drainers' errors come first. */
	for (unsigned int reads = 0;; reads++) {
		int cmd = take_line(c), err;
		ssize_t n;

		if (cmd)
			return cmd;
		if (c->eof || reads == CTL_READS)
			return 0;
		n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0) {
			err = -errno;
			pr_warn("control %s: read: %s: no longer read", c->name, strerror(-err));
			c->len = 0; /* the partial line goes too */
			end_channel(c);
			return err;
		}
		if (n == 0) {
			pr_debug("control %s: the writer closed it: no longer polled", c->name);
			end_channel(c);
			continue;
		}
		c->len += (size_t)n;
	}
}

int prec_control__ack(struct prec_control *c)
{
	static const char ack[] = "ack\n";

	if (!c || c->ack_fd < 0)
		return 0;
	if (write(c->ack_fd, ack, sizeof(ack) - 1) != (ssize_t)sizeof(ack) - 1)
		return -errno;
	return 0;
}

const char *prec_control__name(int cmd)
{
	if (cmd <= 0 || cmd >= (int)(sizeof(commands) / sizeof(commands[0])))
		return "?";
	return commands[cmd];
}

void prec_control__close(struct prec_control *c)
{
	if (!c)
		return;
	if (c->own_fds && c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->own_fds && c->ack_fd >= 0)
		close(c->ack_fd);
	free(c->name);
	free(c);
}

/* ---- option parsers ---- */

int prec_size__parse(const char *arg, size_t page_size, uint64_t *bytes)
{
	uint64_t v, mult = 0;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || !isdigit((unsigned char)*arg) || !v)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 0: mult = page_size; break; /* a page count */
	case 'K': mult = 1ull << 10; break;
	case 'M': mult = 1ull << 20; break;
	case 'G': mult = 1ull << 30; break;
	default: return -EINVAL;
	}
	if (*end && end[1] && strcasecmp(end + 1, "B") && strcasecmp(end + 1, "iB"))
		return -EINVAL;
	if (v > (1ull << 40) / mult)
		return -ERANGE;
	v *= mult;
	/* The kernel wants a power-of-two number of pages. */
	v = (v + page_size - 1) / page_size;
	while (v & (v - 1))
		v = (v | (v - 1)) + 1;
	*bytes = v * page_size;
	return 0;
}

int prec_delay__parse(const char *arg, int64_t *ms)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < -1 || v > 86400000)
		return -EINVAL;
	*ms = v;
	return 0;
}

/* ---- the recorder's flight controls: delay, control channel, markers ---- */

static uint64_t mono_ns(void)
{
	return prec_now_ns(CLOCK_MONOTONIC);
}

int prec_flight__init(struct prec_flight *f, const struct prec_record_opts *o)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->delay_ms = o->delay_ms;
	if (o->control) {
		err = prec_control__open(&f->ctl, o->control);
		if (err)
			return err;
	}
	if (o->markers) {
		err = prec_markers__open(&f->mk, o->clockid);
		if (err)
			return err;
	}
	return 0;
}

/* The ftrace:print ids, one per CPU index (first task), for the markers. */
static int marker_ids(const struct prec_evlist *el, uint64_t **ids)
{
	int e = -1;

	for (int i = 0; i < el->nr; i++)
		if (el->evsel[i].tp_system && !strcmp(el->evsel[i].name, "ftrace:print"))
			e = i;
	if (e < 0)
		return -ENOENT;
	*ids = calloc((size_t)el->nr_cpus, sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (int c = 0; c < el->nr_cpus; c++)
		(*ids)[c] = el->ids[((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
				    (size_t)el->nr_tasks];
	return 0;
}

/* A snapshot, then its tail: the tasks alive now, stamped before the
 * snapshot's oldest record, so that its samples are named even when the
 * ring lost their side band. The tail reads /proc after the rings are
 * resumed: it costs the snapshot's caller time, never the rings. */
static int take_snapshot(void *arg)
{
	struct prec_flight *f = arg;
	const struct prec_snapshot_restart *rs;
	struct prec_snapshot_stats st;
	int err = prec_snapshot__take(f->snap), n;
	size_t nr;

	prec_snapshot__stats(f->snap, &st);
	rs = prec_snapshot__restarts(f->snap, &nr);
	n = f->tail ? prec_tail__write(f->tail, st.oldest, rs, nr) : 0;
	return err ? err : n < 0 ? n : 0;
}

/* The tasks a tail names: those the events follow. */
static int start_tail(struct prec_flight *f, struct prec_session *s,
		      const struct prec_record_opts *o, const struct prec_evlist *el)
{
	struct prec_tail_opts to = { .writer = s->tail_writer, .m = s->m,
		.data_maps = o->callgraph == PREC_CG_DWARF,
		.descendants = el->nr && el->evsel[0].attr.inherit };
	int err;

	if (o->nr_pids) {
		to.roots = o->pids;
		to.nr_roots = o->nr_pids;
	} else if (o->nr_tids) {
		to.roots = o->tids;
		to.nr_roots = o->nr_tids;
	} else if (el->nr_tasks > 0 && el->tasks[0] > 0) {
		to.roots = el->tasks; /* the workload */
		to.nr_roots = el->nr_tasks;
	}
	err = prec_tail__new(&f->tail, &to);
	if (err)
		pr_err("%s: %s", PREC_TAIL_SHARD_NAME, strerror(-err));
	return err;
}

static int start_snapshots(struct prec_flight *f, struct prec_session *s,
			   const struct prec_record_opts *o,
			   const struct prec_evlist *el)
{
	struct prec_snapshot_opts so = {
		.rings = el->flight_rings, .writers = s->flight_writers,
		.cpus = el->cpus, .nr = el->nr_cpus, .layout = s->m->time_layout,
	};
	int err = prec_snapshot__new(&f->snap, &so);

	if (err) {
		pr_err("snapshot: %s", strerror(-err));
		return err;
	}
	if (s->tail_writer) {
		err = start_tail(f, s, o, el);
		if (err)
			return err;
	}
	f->snapshot = take_snapshot;
	f->snapshot_arg = f;
	s->snap = f->snap; /* its lost counts go into the shard totals */
	return 0;
}

int prec_flight__start(struct prec_flight *f, struct prec_session *s,
		       const struct prec_record_opts *o,
		       const struct prec_evlist *el)
{
	struct prec_markers_opts mo = { 0 };
	int err;

	if (f->delay_ms > 0)
		f->enable_at_ns = mono_ns() + (uint64_t)f->delay_ms * 1000000ull;
	if (el->overwrite) {
		err = start_snapshots(f, s, o, el);
		if (err)
			return err;
	}
	if (!f->mk)
		return 0;
	err = marker_ids(el, &f->marker_ids);
	if (err)
		return err;
	mo.writer = s->writers[s->nr_cpus];
	mo.clockid = o->clockid;
	mo.round_ns = o->round_ms * 1000000ull;
	mo.ids = f->marker_ids;
	mo.cpus = el->cpus;
	mo.nr_cpus = el->nr_cpus;
	err = prec_markers__start(f->mk, &mo);
	if (err)
		pr_err("markers: starting the reader: %s", strerror(-err));
	return err;
}

bool prec_flight__starts_enabled(const struct prec_flight *f)
{
	return f->delay_ms == 0;
}

int prec_flight__timeout_ms(const struct prec_flight *f)
{
	uint64_t now;

	if (!f->enable_at_ns)
		return -1;
	now = mono_ns();
	if (now >= f->enable_at_ns)
		return 0;
	return (int)((f->enable_at_ns - now + 999999) / 1000000);
}

static int run_command(struct prec_flight *f, struct prec_evlist *el, int cmd)
{
	int err = 0;

	switch (cmd) {
	case PREC_CTL_ENABLE:
		err = prec_evlist__enable(el);
		f->enable_at_ns = 0;
		break;
	case PREC_CTL_DISABLE:
		prec_evlist__disable(el);
		f->enable_at_ns = 0;
		break;
	case PREC_CTL_SNAPSHOT:
		if (f->snapshot)
			err = f->snapshot(f->snapshot_arg);
		else
			pr_warn("control: snapshot: not a flight recording (no event has overwrite)");
		break;
	default:
		break;
	}
	pr_debug("control: %s%s", prec_control__name(cmd), err ? " failed" : "");
	return err;
}

int prec_flight__tick(struct prec_flight *f, struct prec_evlist *el)
{
	int cmd;

	if (f->enable_at_ns && mono_ns() >= f->enable_at_ns) {
		f->enable_at_ns = 0;
		prec_evlist__enable(el);
	}
	while (f->ctl && (cmd = prec_control__next(f->ctl)) != 0) {
		if (cmd < 0 && cmd != -EINVAL)
			return 0;
		if (cmd < 0)
			continue;
		run_command(f, el, cmd);
		/* Acked once done: 'disable' acked means no event is enabled. */
		if (prec_control__ack(f->ctl))
			pr_warn("control: ack: %s", strerror(errno));
		if (cmd == PREC_CTL_STOP)
			return 1;
	}
	return 0;
}

int prec_flight__stop(struct prec_flight *f)
{
	int n;

	if (f->snap) {
		n = take_snapshot(f);
		f->snapshot = NULL;
		if (n)
			return n;
	}
	n = prec_markers__stop(f->mk);

	if (n < 0)
		pr_err("markers: %s", strerror(-n));
	return n < 0 ? n : 0;
}

void prec_flight__exit(struct prec_flight *f)
{
	if (!f)
		return;
	prec_markers__delete(f->mk);
	if (f->snap) {
		struct prec_snapshot_stats st;

		prec_snapshot__stats(f->snap, &st);
		if (st.dropped)
			pr_warn("snapshots: %llu records dropped: the kernel overwrote them while they were copied",
				(unsigned long long)st.dropped);
	}
	if (f->tail) {
		struct prec_tail_stats ts;

		prec_tail__stats(f->tail, &ts);
		pr_debug("tails: %llu written (%llu records), %llu skipped, %llu held back; %.3f ms in all, %.3f ms at most",
			 (unsigned long long)ts.tails, (unsigned long long)ts.records,
			 (unsigned long long)ts.skipped, (unsigned long long)ts.clamped,
			 (double)ts.ns_total / 1e6, (double)ts.ns_max / 1e6);
	}
	prec_tail__delete(f->tail);
	prec_snapshot__delete(f->snap);
	prec_control__close(f->ctl);
	free(f->marker_ids);
	memset(f, 0, sizeof(*f));
}
