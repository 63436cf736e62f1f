// SPDX-License-Identifier: MIT
// prec merge: read a recording directory, merge its shards in timestamp
// order and write one perf.data (file format when the output can seek,
// pipe format otherwise) that perf report/script read as their own.
#include "read/crash_window.h"
#include "read/kcore_dir.h"
#include "read/filter_args.h"
#include "read/follow.h"
#include "read/internal.h"
#include "read/lost_samples.h"
#include "read/offcpu.h"
#include "read/owner.h"
#include "read/bytebuf.h"
#include "read/read.h"
#include "read/zstd_out.h"
#include "util/bytes.h"
#include "util/cli.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Round cuts: the merged stream is sorted, so any cut is safe; these only
 * bound how much perf queues (pipe mode copies every queued record). */
#define ROUND_RECORDS 8192u
#define ROUND_NS 100000000ull

struct merge_args {
	const char *dir, *out;
	uint64_t time_start, time_end;
	const char *cpu_arg;     /* --cpu as given, for messages */
	bool *cpus;
	int nr_cpus;
	bool salvage, force;
	bool follow;             /* --follow */
	int zlevel;              /* -z: zstd level; 0 = not compressed */
	bool zset;               /* -z or --no-compression-level given: not
				  * the recording's level (record -z's) */
};

struct merge_totals {
	uint64_t records, bytes, samples, aux;
	uint64_t first, last;
	bool read_failed; /* the merge, not a write, returned the error */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: prec merge DIR [-o FILE] [--time START,END] [--cpu LIST] [--salvage] [-f]\n"
		"                  [-z | --compression-level N | --no-compression-level] [--follow] [-q]\n"
		"  -o, --output FILE     write FILE instead of stdout ('-' = stdout)\n"
		"      --time START,END  keep samples with START <= time <= END (seconds, either may be empty)\n"
		"  -C, --cpu LIST        keep samples of these CPUs only (e.g. 0-3,7); side band of all\n"
		"      --salvage         exit 0 after corrupt data (its shard's rest is skipped anyway)\n"
		"  -f, --force           replace FILE (or a symlink there) if it exists, and read\n"
		"                        a recording of another user's\n"
		"  -z                    zstd-compress the records, as perf record -z (level 1)\n"
		"      --compression-level N\n"
		"                        the same at zstd level N (1 fastest .. 22 smallest); also -zN\n"
		"                        (default: a record -z recording's level, else none)\n"
		"      --no-compression-level\n"
		"                        not compressed, whatever the recording's -z\n"
		"      --follow          merge while the recording runs, as its shards' watermarks\n"
		"                        allow, until it ends (pipe format: stdout, a pipe or a FIFO)\n"
		"  -q, --quiet           no summary line (warnings and errors still)\n"
		"  -h, --help            this text\n");
}

/* -z's level: none = perf record's default; else a whole number in range. */
static int parse_level(const char *arg, int *level)
{
	int n = 0;

	if (!arg) {
		*level = PREC_ZSTD_LEVEL_DEFAULT;
		return 0;
	}
	if (!*arg)
		return -EINVAL;
	for (; *arg; arg++) {
		if (*arg < '0' || *arg > '9' || n > PREC_ZSTD_LEVEL_MAX)
			return -EINVAL;
		n = n * 10 + (*arg - '0');
	}
	if (n < PREC_ZSTD_LEVEL_MIN || n > PREC_ZSTD_LEVEL_MAX)
		return -EINVAL;
	*level = n;
	return 0;
}

/* Returns 0, 1 for -h (done), or -EINVAL after printing the problem. */
static int parse_args(int argc, char **argv, struct merge_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "salvage", no_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "compression-level", required_argument, NULL, 'z' },
		{ "no-compression-level", no_argument, NULL, 'Z' },
		{ "follow", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0; /* 0, not 1: a full reset of getopt's state */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:C:fhqz::", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 'q':
			if (prec_log_level > PREC_LOG_WARN)
				prec_log_level = PREC_LOG_WARN;
			break;
		case 's': a->salvage = true; break;
		case 'f': a->force = true; break;
		case 'F': a->follow = true; break;
		case 'h': usage(stdout); return 1;
		case 'Z':
			a->zlevel = 0;
			a->zset = true;
			break;
		case 'z':
			a->zset = true;
			if (parse_level(optarg, &a->zlevel) == 0)
				break;
			pr_err("merge: --compression-level %s: expected a zstd level from %d to %d",
			       optarg, PREC_ZSTD_LEVEL_MIN, PREC_ZSTD_LEVEL_MAX);
			return -EINVAL;
		case 't':
			c = prec_filter__parse_time(optarg, &a->time_start, &a->time_end);
			if (c == 0)
				break;
			pr_err("merge: --time %s: %s", optarg, c == -ERANGE ?
			       "END is before START" : "expected START,END in seconds");
			return -EINVAL;
		case 'C':
			a->cpu_arg = optarg;
			if (prec_filter__parse_cpus(optarg, &a->cpus, &a->nr_cpus) == 0)
				break;
			pr_err("merge: --cpu %s: expected a CPU list such as 0-3,7", optarg);
			return -EINVAL;
		default: prec_cli__bad_option("merge", argv); return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		prec_cli__bad_args("merge", "want exactly one directory");
		return -EINVAL;
	}
	a->dir = argv[optind];
	return 0;
}

static int read_manifest(const char *dir, int *dirfd, struct prec_manifest **m,
			 bool follow, bool force)
{
	const char *why = NULL;
	int err;

	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0) {
		err = -errno;
		pr_err("merge %s: cannot open directory: %s", dir, strerror(-err));
		return err;
	}
	err = prec_owner__check("merge", dir, *dirfd, force);
	if (err < 0)
		return err;
	err = prec_manifest__read(m, *dirfd, &why);
	/* --follow of a recorder just starting: its lock comes first */
	while (follow && err == -ENOENT && prec_follow__starting(*dirfd))
		err = prec_manifest__read(m, *dirfd, &why);
	if (err < 0) {
		pr_err("merge %s: cannot read manifest: %s", dir, why ? why : strerror(-err));
		return err;
	}
	if ((*m)->state == PREC_STATE_RECORDING && !follow)
		pr_warn("%s: recording did not finish (manifest says recording): merging what is readable",
			dir);
	prec_merge__say_state(dir, *m);
	return 0;
}

/* An AUX snapshot (-S) bigger than a chunk comes as pieces (a RUN, then
 * CONTs: store/shard_format.h), next to each other in the merged order
 * (same time, same cursor). perf writes one AUXTRACE per snapshot, and its
 * intel_pt decoder takes two as overlapping snapshots, dropping what
 * precedes the second's first PSB: the pieces are joined here, at most one
 * snapshot's bytes held (a buffer reused, grown amortized). */
struct aux_join {
	struct prec_bytebuf b;
	uint64_t offset;
	int32_t cpu;
	bool open;
};

static int aux_out(struct prec_perfdata *pd, struct merge_totals *t, const void *p,
		   size_t len, uint64_t offset, int32_t cpu)
{
	t->aux++;
	return prec_perfdata__write_auxtrace(pd, p, (uint32_t)len, offset, (uint32_t)cpu);
}

/* The joined snapshot out, however many of its pieces came. */
static int join_flush(struct prec_perfdata *pd, struct merge_totals *t, struct aux_join *j)
{
	if (!j->open)
		return 0;
	j->open = false;
	if (j->b.err)
		return j->b.err;
	return aux_out(pd, t, j->b.p, j->b.len, j->offset, j->cpu);
}

/* Returns 0 or -errno. */
static int aux_piece(struct prec_perfdata *pd, const struct prec_merge_rec *r,
		     struct merge_totals *t, struct aux_join *j)
{
	int err;

	t->bytes += r->aux_len;
	if ((r->aux_flags & PREC_AUX_CHUNK_CONT) && j->open && r->cpu == j->cpu &&
	    r->aux_offset == j->offset + j->b.len && j->b.len + r->aux_len <= UINT32_MAX) {
		prec_bytebuf__put(&j->b, r->aux, r->aux_len);
		return j->b.err;
	}
	err = join_flush(pd, t, j);
	if (err || !(r->aux_flags & PREC_AUX_CHUNK_RUN))
		return err ? err : aux_out(pd, t, r->aux, r->aux_len, r->aux_offset, r->cpu);
	j->open = true;
	j->b.len = 0;
	j->offset = r->aux_offset;
	j->cpu = r->cpu;
	prec_bytebuf__put(&j->b, r->aux, r->aux_len);
	return j->b.err;
}

/* oc: an --off-cpu recording's conversion, else NULL. */
static int write_one(struct prec_perfdata *pd, const struct prec_merge_rec *r,
		     struct merge_totals *t, struct aux_join *j, struct prec_offcpu *oc)
{
	const void *rec = r->rec;
	uint32_t len = r->rec_len;
	int err;

	if (!rec)
		return aux_piece(pd, r, t, j);
	if (oc) {
		int n = prec_offcpu__filter(oc, r->rec, r->rec_len, r->time, &rec, &len);

		if (n <= 0)
			return n;
	}
	err = join_flush(pd, t, j);
	if (err)
		return err;
	t->bytes += len;
	if (prec_ld32(rec) == PERF_RECORD_SAMPLE) { /* its type, maybe unaligned */
		t->samples++;
		prec_perfdata__saw_time(&t->first, &t->last, r->time);
	}
	return prec_perfdata__write_record(pd, rec, len);
}

/* --follow: what went out before a wait reaches the reader now, and perf
 * hands it on: at a FINISHED_ROUND perf delivers only what it had queued by
 * the round before, so two in a row deliver everything (the stream is
 * sorted: nothing to come is older). */
static int catch_up(struct prec_perfdata *pd)
{
	int err = prec_perfdata__finish_round(pd);

	if (!err)
		err = prec_perfdata__finish_round(pd);
	return err ? err : prec_perfdata__flush(pd);
}

/* The merge loop: no allocation, no logging per record. Returns 0 or
 * -errno (of a write, or of the merge when t->read_failed). f: following
 * a live recording, whose merge says -EAGAIN where it must wait. */
static int pump(struct prec_merge *mg, struct prec_perfdata *pd,
		struct merge_totals *t, struct prec_follow *f, struct prec_offcpu *oc)
{
	struct prec_merge_rec r;
	struct aux_join j = { 0 };
	uint64_t round_time = 0, caught_up = UINT64_MAX;
	uint32_t in_round = 0;
	bool init_done = false;
	int n, err = 0;

	for (;;) {
		n = prec_merge__next(mg, &r);
		if (n == -EAGAIN && f) {
			if (caught_up != t->records) {
				err = join_flush(pd, t, &j);
				if (!err)
					err = catch_up(pd);
				if (err)
					return err;
				caught_up = t->records;
				in_round = 0;
				round_time = 0;
			}
			n = prec_follow__wait(f, mg);
			if (n < 0)
				break;
			continue;
		}
		if (n <= 0)
			break;
		/* The side band read from /proc at the start has time 0 and
		 * comes first; perf's FINISHED_INIT follows its own. */
		if (!init_done && r.time) {
			init_done = true;
			err = join_flush(pd, t, &j);
			if (!err)
				err = prec_perfdata__finish_init(pd);
			if (err)
				break;
		}
		err = write_one(pd, &r, t, &j, oc);
		if (err)
			break;
		t->records++;
		in_round++;
		if (r.time && !round_time)
			round_time = r.time;
		/* not inside a snapshot being joined */
		if (!j.open && (in_round >= ROUND_RECORDS ||
				(r.time && r.time - round_time >= ROUND_NS))) {
			err = prec_perfdata__finish_round(pd);
			if (err)
				break;
			in_round = 0;
			round_time = r.time;
		}
	}
	if (!err)
		err = join_flush(pd, t, &j);
	if (!err && !init_done)
		err = prec_perfdata__finish_init(pd);
	free(j.b.p);
	if (err)
		return err;
	/* Nothing merged still gets a non-empty data section: perf reads a
	 * zero data size as an unterminated recording. */
	if (in_round || !t->records)
		err = prec_perfdata__finish_round(pd);
	t->read_failed = n < 0 && n != -EPIPE;
	return n < 0 ? n : err;
}

static void report(const struct merge_args *a, struct prec_merge *mg,
		   const struct merge_totals *t, enum prec_perfdata_mode mode)
{
	char extra[160] = "";
	size_t l = 0;
	unsigned int bad = prec_merge__errors(mg);
	uint64_t inv = prec_merge__inversions(mg), forced = prec_merge__forced(mg);

	if (t->aux)
		l += (size_t)snprintf(extra + l, sizeof(extra) - l, ", %llu AUX chunks",
				      (unsigned long long)t->aux);
	if (bad)
		l += (size_t)snprintf(extra + l, sizeof(extra) - l,
				      ", %u corrupt chunk%s or shard%s: the rest of %s skipped", bad,
				      bad == 1 ? "" : "s", bad == 1 ? "" : "s", bad == 1 ? "it" : "each");
	pr_info("merge %s: %llu records (%llu samples), %llu bytes -> %s (%s format)%s",
		a->dir, (unsigned long long)t->records, (unsigned long long)t->samples,
		(unsigned long long)t->bytes,
		a->out && strcmp(a->out, "-") ? a->out : "stdout",
		mode == PREC_PERFDATA_FILE ? "file" : "pipe", extra);
	/* The output is whole but not sorted: perf says so too when a late
	 * record crosses one of its rounds, and the user should know why. A
	 * full reorder window releases records before their order is proven;
	 * otherwise a shard broke its own watermarks. */
	if (inv && forced)
		pr_warn("merge %s: %llu records went out after a later one (%llu released early "
			"by a full reorder window): perf may report out of order events",
			a->dir, (unsigned long long)inv, (unsigned long long)forced);
	else if (inv)
		pr_warn("merge %s: %llu records went out after a later one (a shard's records "
			"came later than its chunk watermarks promised): perf may report out "
			"of order events", a->dir, (unsigned long long)inv);
}

/* --cpu naming no CPU of the recording is an error, some missing a warning. */
static int check_cpus(const struct merge_args *a, const struct prec_manifest *m)
{
	struct prec_merge_opts o = { .cpu_allowed = a->cpus, .nr_cpu_allowed = a->nr_cpus };
	char why[256];
	int r = prec_merge__check_cpus(m, &o, why, sizeof(why));

	if (r < 0)
		pr_err("merge %s: --cpu %s: %s", a->dir, a->cpu_arg, why);
	else if (r > 0)
		pr_warn("merge %s: --cpu %s: %s", a->dir, a->cpu_arg, why);
	return r;
}

/* A pipe's SAMPLE_TIME goes out before the first sample: the CPU shards'
 * first and last record times (the session's start and stop when the
 * recorder died before counting them), within --time's window. */
static void pipe_times(const struct merge_args *a, const struct prec_manifest *m,
		       struct prec_manifest *copy, bool live, uint64_t window)
{
	uint64_t first = 0, last = 0;

	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];

		if (s->cpu < 0 || !s->first_time)
			continue;
		if (!first || s->first_time < first)
			first = s->first_time;
		if (s->last_time > last)
			last = s->last_time;
	}
	copy->start_time = first ? first : m->start_time;
	copy->stop_time = last ? last : m->stop_time;
	if (copy->start_time < window)
		copy->start_time = window;
	if (live) /* not known yet: SAMPLE_TIME 0 and 0, as perf's pipe */
		copy->start_time = copy->stop_time = 0;
	if (a->time_start && copy->start_time < a->time_start)
		copy->start_time = a->time_start;
	if (a->time_end && copy->stop_time > a->time_end)
		copy->stop_time = a->time_end;
}

/* A --kcore recording's kcore_dir/kcore, as long as its manifest says?
 * Returns 0 or -EBADMSG after one line. */
static int kcore_size(const struct merge_args *a, int dirfd, const struct prec_manifest *m)
{
	uint64_t got = 0;

	if (prec_kcore_dir__check(dirfd, m->kcore.bytes, &got) != -EBADMSG)
		return 0;
	pr_err("merge %s: %s/kcore: %llu bytes, the manifest says %llu", a->dir,
	       PREC_MANIFEST_KCORE_DIR, (unsigned long long)got,
	       (unsigned long long)m->kcore.bytes);
	return -EBADMSG;
}

/* The recording's per-id losses as perf record's LOST_SAMPLES records; a
 * followed one's from its final manifest (the start's has none), when it
 * finished. 0 or a write's -errno. */
static int write_lost(const struct merge_args *a, int dirfd, const struct prec_manifest *m,
		      struct prec_perfdata *pd, const struct prec_follow *f)
{
	struct prec_manifest *fin = NULL;
	const char *why;
	int n;

	if (f && !prec_follow__died(f) && prec_manifest__read(&fin, dirfd, &why) == 0 &&
	    fin->state == PREC_STATE_COMPLETE && fin->nr_events == m->nr_events &&
	    fin->offcpu.switch1 == m->offcpu.switch1)
		m = fin;
	n = prec_lost_samples__write(pd, m, m->offcpu.switch1, a->cpus, a->nr_cpus);
	prec_manifest__delete(fin);
	return n < 0 ? n : 0;
}

/* live: --follow on a recording still being written. */
static int merge_to(const struct merge_args *a, int dirfd,
		    const struct prec_manifest *m, int fd,
		    enum prec_perfdata_mode mode, bool live)
{
	struct prec_merge_opts o = {
		.time_start = a->time_start, .time_end = a->time_end,
		.cpu_allowed = a->cpus, .nr_cpu_allowed = a->nr_cpus,
		.salvage = a->salvage, .reads_records = true, .live = live,
		.window_start = prec_merge__window(m),
	};
	struct prec_follow *f = NULL;
	struct merge_totals t = { 0 };
	struct prec_perfdata *pd = NULL;
	/* shallow: its times differ, and --off-cpu's source is not shown */
	struct prec_manifest shown = *m;
	struct prec_offcpu *oc = NULL;
	struct prec_merge *mg;
	int err, cerr;

	prec_merge__say_window(o.window_start);
	if (mode == PREC_PERFDATA_PIPE)
		pipe_times(a, m, &shown, live, o.window_start);
	if (prec_offcpu__new(&oc, m, &shown) < 0) {
		pr_err("merge %s: %s", a->dir, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (live && prec_follow__new(&f, a->dir, dirfd, fd) < 0) {
		pr_err("merge %s: %s", a->dir, strerror(ENOMEM));
		prec_offcpu__delete(oc);
		return -ENOMEM;
	}
	err = prec_merge__open(&mg, dirfd, m, &o);
	if (err < 0) {
		pr_err("merge %s: cannot open shards: %s", a->dir, strerror(-err));
		prec_follow__delete(f);
		prec_offcpu__delete(oc);
		return err;
	}
	err = prec_perfdata__open_zstd(&pd, fd, &shown, mode, a->zlevel);
	if (!err)
		err = pump(mg, pd, &t, f, oc);
	/* perf record's last records: the per-id losses read at its stop */
	if (!err)
		err = write_lost(a, dirfd, m, pd, f);
	cerr = pd ? prec_perfdata__close(pd, t.first, t.last) : 0;
	if (err == -EPIPE || (!err && cerr == -EPIPE))
		err = -EPIPE; /* the reader stopped reading: no news to it */
	else if (err && t.read_failed)
		pr_err("merge %s: %s", a->dir, strerror(-err));
	else if (err || cerr)
		pr_err("merge %s: write %s: %s", a->dir,
		       a->out && strcmp(a->out, "-") ? a->out : "stdout",
		       strerror(-(err ? err : cerr)));
	/* Corrupt input still gets a well-formed perf.data of what was read,
	 * and an exit status that says so unless --salvage asked for it. */
	if (!err && !cerr && prec_merge__errors(mg) && !a->salvage)
		err = -EBADMSG;
	/* The recorder died while followed (said): what it wrote went out. */
	if (!err && !cerr && prec_follow__died(f))
		err = -EBADMSG;
	prec_follow__delete(f);
	/* A background write's error may come only at close. */
	if ((!err || err == -EBADMSG) && !cerr)
		report(a, mg, &t, mode);
	prec_merge__close(mg);
	prec_offcpu__delete(oc);
	return err ? err : cerr;
}

int prec_cmd_merge(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct prec_manifest *m = NULL;
	struct prec_merge_output out = { .fd = -1 };
	int dirfd = -1, rc = 1, err;
	bool live = false;

	err = parse_args(argc, argv, &a);
	if (err) {
		free(a.cpus);
		return err > 0 ? 0 : 2;
	}
	/* A reader that goes away must come back as EPIPE, not kill us
	 * before the output is cleaned up. */
	signal(SIGPIPE, SIG_IGN);
	if (read_manifest(a.dir, &dirfd, &m, a.follow, a.force) < 0)
		goto out;
	if (a.follow && prec_follow__check(a.dir, dirfd, &m, &live) < 0)
		goto out;
	/* record -z: its perf.data zstd-compressed, as perf record -z's */
	if (!a.zset)
		a.zlevel = (int)m->zstd_level;
	if (!live && prec_crash_window__take(dirfd, m, "merge", a.dir) < 0)
		goto out;
	if (check_cpus(&a, m) < 0 || prec_merge_output__check_target(a.out, a.dir, dirfd, m) < 0) {
		rc = 2;
		goto out;
	}
	err = m->kcore.segments ? prec_merge_output__open_layout(&out, a.out, a.force, dirfd,
								 m->kcore.bytes) :
	      prec_merge_output__open(&out, a.out, a.force);
	if (err) {
		rc = err == -EINVAL ? 2 : 1;
		goto out;
	}
	/* what perf would read as the kernel's code: told before the merge
	 * (the copy at the end checks it again) */
	if (out.layout_from >= 0 && kcore_size(&a, dirfd, m) < 0) {
		prec_merge_output__finish(&out, false);
		goto out;
	}
	/* perf's layout is a directory, which a stream cannot be (perf
	 * record --kcore -o - fails): perf finds the kcore beside the
	 * kallsyms it is given. */
	if (m->kcore.segments && out.layout_from < 0)
		pr_info("note: %s: perf.data alone (perf's kcore_dir layout needs -o FILE); perf report/script --kallsyms %s/%s/kallsyms reads the kernel's code from the recording",
			out.name ? out.name : "stdout", a.dir, PREC_MANIFEST_KCORE_DIR);
	/* perf's file format is whole only once its header is rewritten at
	 * the end: what is followed goes out in the pipe format, which perf
	 * reads as it comes (perf record -o - writes it too). */
	if (a.follow && out.mode == PREC_PERFDATA_FILE) {
		pr_err("merge --follow: %s is a regular file: --follow writes the pipe format, to stdout, a pipe or a FIFO (| perf script -i -, or | cat > FILE)",
		       out.name ? out.name : "stdout");
		prec_merge_output__finish(&out, false);
		rc = 2;
		goto out;
	}
	err = merge_to(&a, dirfd, m, out.fd, out.mode, live);
	rc = err ? 1 : 0;
	/* Corrupt input (exit 1) still leaves the well-formed merge of what
	 * could be read; a write error leaves nothing. */
	if (prec_merge_output__finish(&out, !err || err == -EBADMSG))
		rc = 1;
	/* `prec merge d | head`: end as cat or perf would, by the signal the
	 * ignored SIGPIPE stood for, silently (the shell's status 141). */
	if (err == -EPIPE) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
out:
	prec_manifest__delete(m);
	if (dirfd >= 0)
		close(dirfd);
	free(a.cpus);
	return rc;
}
