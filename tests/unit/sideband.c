// SPDX-License-Identifier: MIT
// Side band synthesis into a real shard, read back with the shard reader:
// the kernel MMAP, FORK/COMM/MMAP2 of this process (and a named thread),
// record framing and chunk counts, build-ids, all-tasks mode finding pid 1;
// --namespaces: each thread's NAMESPACES (the 7 kinds' dev and inode as
// stat() of /proc/TID/ns/* gives them), after its COMM for a process
// named by pid and before it in all-tasks mode, as perf orders them;
// bounded (--max-disk), this process's 3000 maps cut to its sixteenth of
// the bound while a child forked after it (a later pid) keeps its COMM.
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "util/buildid.h"
#include "record/internal.h"
#include "record/sideband.h"
#include "store/store.h"

#define NR_EXTRA_MAPS 3000 /* forces the output over one chunk */

struct seen {
	int records, chunks;
	bool first_is_kernel, comm_self, comm_thread, fork_self, fork_thread;
	bool mmap2_exe, pid1_comm, pid1_fork, anon, child_comm;
	int extra_maps;
	uint64_t bytes, self_bytes; /* of the records; of this process's */
	int ns_self;           /* NAMESPACES of this process's threads */
	int comm_self_n;       /* COMMs of this process's threads (each has one
				* NAMESPACES; io_uring's workers are threads too,
				* so their number is the scan's) */
	int ns_after_comm, ns_before_comm; /* of them: right after the COMM */
	uint32_t last_type, last_tid; /* the record before this one */
};

static pid_t g_thread_tid, g_child;
static uint64_t g_anon;
static sem_t g_named; /* posted once the thread has its name */

static uint32_t u32at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64at(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static uint64_t ksym(const char *name)
{
	char cmd[128], buf[64];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "awk '$3 == \"%s\" {print $1; exit}' /proc/kallsyms", name);
	p = popen(cmd, "r");
	CHECK(p);
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	return strtoull(buf, NULL, 16);
}

static void check_kernel_mmap(const uint8_t *r)
{
	const struct perf_event_header *h = (const void *)r;
	uint64_t text = ksym("_text"), etext = ksym("_etext");
	/* arm64's kallsyms has no _text: the map starts at _stext (perf's
	 * second reference symbol) and is named after it */
	const char *name = text ? "[kernel.kallsyms]_text" : "[kernel.kallsyms]_stext";

	if (!text)
		text = ksym("_stext");

	CHECK_EQ(h->type, PERF_RECORD_MMAP);
	CHECK_EQ(h->misc, PERF_RECORD_MISC_KERNEL);
	CHECK_EQ(h->size, 8 + 8 + 24 + 24 + PREC_SAMPLE_ID_TRAILER);
	CHECK_EQ(u32at(r + 8), 0xffffffffu);
	CHECK_EQ(u32at(r + 12), 0);
	CHECK_EQ(u64at(r + 16), text);
	CHECK_EQ(u64at(r + 24), etext - text);
	CHECK_EQ(u64at(r + 32), text);
	CHECK(!strcmp((const char *)r + 40, name));
}

/* The kernel's order of the kinds (NET_NS_INDEX ...), as /proc names them. */
static const char *const ns_kinds[] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static void check_namespaces(struct seen *s, const uint8_t *r, uint32_t tid)
{
	const struct perf_event_header *h = (const void *)r;

	CHECK_EQ(h->size, 8 + 16 + 7 * 16 + PREC_SAMPLE_ID_TRAILER);
	CHECK_EQ(h->misc, 0);
	CHECK_EQ(u64at(r + 16), 7);
	for (int i = 0; i < 7; i++) {
		char path[96];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/self/task/%u/ns/%s", tid, ns_kinds[i]);
		CHECK(stat(path, &st) == 0);
		CHECK_EQ(u64at(r + 24 + 16 * i), (uint64_t)st.st_dev);
		CHECK_EQ(u64at(r + 32 + 16 * i), (uint64_t)st.st_ino);
	}
	s->ns_self++;
	if (s->last_type == PERF_RECORD_COMM && s->last_tid == tid)
		s->ns_after_comm++;
}

static void look(struct seen *s, const uint8_t *r, const char *exe,
		 const struct stat *exe_st)
{
	const struct perf_event_header *h = (const void *)r;
	uint32_t pid = u32at(r + 8), tid = u32at(r + 12);
	uint32_t me = (uint32_t)getpid();

	s->bytes += h->size;
	if (pid == me)
		s->self_bytes += h->size;
	if (h->type == PERF_RECORD_COMM && g_child && pid == (uint32_t)g_child)
		s->child_comm = true;
	if (h->type == PERF_RECORD_COMM && pid == me && tid == me) {
		char comm[64] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		CHECK(f && fgets(comm, sizeof(comm), f));
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		CHECK_EQ(h->misc, 0);
		CHECK(!strcmp((const char *)r + 16, comm));
		s->comm_self = true;
	}
	if (h->type == PERF_RECORD_COMM && pid == me)
		s->comm_self_n++;
	if (h->type == PERF_RECORD_COMM && pid == me && tid == (uint32_t)g_thread_tid)
		s->comm_thread = !strcmp((const char *)r + 16, "sbthread");
	if (h->type == PERF_RECORD_FORK && pid == me && u32at(r + 16) == me) {
		CHECK_EQ(h->size, 8 + 24 + PREC_SAMPLE_ID_TRAILER);
		/* as perf's: its reader copies no parent's maps into the child */
		CHECK_EQ(h->misc, PERF_RECORD_MISC_FORK_EXEC);
		CHECK_EQ(u32at(r + 12), (uint32_t)getppid());
		CHECK_EQ(u32at(r + 20), (uint32_t)getppid());
		CHECK_EQ(u64at(r + 24), 0);
		s->fork_self = true;
	}
	if (h->type == PERF_RECORD_FORK && pid == me &&
	    u32at(r + 16) == (uint32_t)g_thread_tid)
		s->fork_thread = u32at(r + 12) == me && u32at(r + 20) == me;
	if (h->type == PERF_RECORD_MMAP2 && pid == me) {
		CHECK_EQ(h->misc, PERF_RECORD_MISC_USER);
		CHECK_EQ(tid, me);
		CHECK(u32at(r + 64) & PROT_EXEC);
		CHECK_EQ(u32at(r + 68), MAP_PRIVATE);
		if (!strcmp((const char *)r + 72, exe)) {
			CHECK_EQ(u32at(r + 40), major(exe_st->st_dev));
			CHECK_EQ(u32at(r + 44), minor(exe_st->st_dev));
			CHECK_EQ(u64at(r + 48), exe_st->st_ino);
			CHECK_EQ(u64at(r + 56), 0);
			s->mmap2_exe = true;
		}
		if (u64at(r + 16) == g_anon) {
			CHECK(!strcmp((const char *)r + 72, "//anon"));
			CHECK_EQ(u64at(r + 24), 8192);
			CHECK_EQ(u64at(r + 48), 0);
			s->anon = true;
		}
		if (!strcmp((const char *)r + 72, "/bin/true") ||
		    !strcmp((const char *)r + 72, "/usr/bin/true"))
			s->extra_maps++;
	}
	if (h->type == PERF_RECORD_COMM && pid == 1 && tid == 1)
		s->pid1_comm = true;
	if (h->type == PERF_RECORD_FORK && pid == 1 && u32at(r + 16) == 1)
		s->pid1_fork = true;
	if (h->type == PERF_RECORD_NAMESPACES && pid == me)
		check_namespaces(s, r, tid);
	if (h->type == PERF_RECORD_COMM && pid == me &&
	    s->last_type == PERF_RECORD_NAMESPACES && s->last_tid == tid)
		s->ns_before_comm++;
	s->last_type = h->type;
	s->last_tid = h->type == PERF_RECORD_FORK ? u32at(r + 16) : tid;
}

/* Walk every chunk record by record: framing, trailers, counts. */
static void read_back(const char *dir, const char *name, struct seen *s)
{
	static const uint8_t zero[PREC_SAMPLE_ID_TRAILER];
	struct prec_shard_reader *r;
	struct prec_chunk c;
	struct stat exe_st;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), ret;

	CHECK(n > 0 && dfd >= 0 && stat("/proc/self/exe", &exe_st) == 0);
	exe[n] = '\0';
	memset(s, 0, sizeof(*s));
	CHECK_EQ(prec_shard_reader__open(&r, dfd, name), 0);
	CHECK_EQ(prec_shard_reader__header(r)->cpu, PREC_SIDEBAND_CPU);
	while ((ret = prec_shard_reader__next(r, &c)) == 1) {
		const uint8_t *p = c.payload;
		uint32_t off = 0, recs = 0;

		CHECK_EQ(c.hdr.type, PREC_CHUNK_DATA);
		CHECK_EQ(c.hdr.first_time, 0);
		CHECK_EQ(c.hdr.last_time, 0);
		CHECK_EQ(c.hdr.watermark, 0);
		CHECK(c.len <= PREC_CHUNK_MAX_PAYLOAD && c.len > 0);
		while (off < c.len) {
			const struct perf_event_header *h = (const void *)(p + off);

			CHECK(c.len - off >= 8);
			CHECK(h->size >= 8 + PREC_SAMPLE_ID_TRAILER);
			CHECK(h->size % 8 == 0);
			CHECK(h->size <= c.len - off); /* never split */
			CHECK(!memcmp(p + off + h->size - PREC_SAMPLE_ID_TRAILER, zero,
				      sizeof(zero)));
			if (s->records == 0)
				check_kernel_mmap(p + off);
			look(s, p + off, exe, &exe_st);
			off += h->size;
			recs++;
			s->records++;
		}
		CHECK_EQ(recs, c.hdr.records);
		s->chunks++;
	}
	CHECK_EQ(ret, 0);
	prec_shard_reader__close(r);
	close(dfd);
}

static int64_t run(const char *dir, const char *name, struct prec_manifest *m,
		   const struct prec_sideband_opts *o, double *ms)
{
	struct prec_shard_writer_opts wo = { .cpu = PREC_SIDEBAND_CPU };
	struct prec_shard_writer *w;
	struct timespec a, b;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int n;

	CHECK(dfd >= 0);
	CHECK_EQ(prec_shard_writer__open(&w, dfd, name, &wo), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = prec_sideband__synthesize(w, m, o);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	CHECK_EQ(prec_shard_writer__close(w), 0);
	close(dfd);
	return n;
}

static const struct prec_manifest_buildid *find_bid(const struct prec_manifest *m,
						     const char *path)
{
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		if (!strcmp(m->buildids[i].path, path))
			return &m->buildids[i];
	return NULL;
}

static int open_read(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), len;

	if (fd < 0)
		return -errno;
	len = prec_buildid__read_fd(fd, id);
	close(fd);
	return len;
}

static void check_buildids(const struct prec_manifest *m)
{
	const struct prec_manifest_buildid *b;
	uint8_t id[20];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int len;

	CHECK(n > 0);
	exe[n] = '\0';
	b = find_bid(m, "[kernel.kallsyms]");
	CHECK(b && b->cpumode == PERF_RECORD_MISC_KERNEL && b->pid == -1);
	len = prec_buildid__read_kernel(id);
	CHECK(len > 0 && b->size == len && !memcmp(b->id, id, (size_t)len));
	len = open_read(exe, id);
	if (len > 0) {
		b = find_bid(m, exe);
		CHECK(b && b->cpumode == PERF_RECORD_MISC_USER && b->pid == -1);
		CHECK(b->size == len && !memcmp(b->id, id, (size_t)len));
	}
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		for (uint32_t j = i + 1; j < m->nr_buildids; j++)
			CHECK(strcmp(m->buildids[i].path, m->buildids[j].path));
}

static void *thread_fn(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sbthread");
	g_thread_tid = (pid_t)syscall(SYS_gettid);
	sem_post(&g_named);
	pause();
	return NULL;
}

/* Map one page of /bin/true many times, at offsets that stop the kernel
 * from merging neighbours, so this process has thousands of exec maps. */
static void add_exec_maps(void)
{
	int fd = open("/bin/true", O_RDONLY);

	CHECK(fd >= 0);
	for (int i = 0; i < NR_EXTRA_MAPS; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		CHECK(p != MAP_FAILED);
	}
	close(fd);
	/* JIT-like anonymous code, which perf names "//anon". */
	g_anon = (uint64_t)(uintptr_t)mmap(NULL, 8192, PROT_READ | PROT_EXEC,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(g_anon != (uint64_t)(uintptr_t)MAP_FAILED);
}

/* Our MMAP2 and COMM records in the text perf report -D prints. */
static void dump_perf_style(const char *dir, const char *name, FILE *out)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	CHECK(dfd >= 0);
	CHECK_EQ(prec_shard_reader__open(&r, dfd, name), 0);
	while (prec_shard_reader__next(r, &c) == 1) {
		const uint8_t *p = c.payload;

		for (uint32_t off = 0; off < c.len; off += ((const struct perf_event_header *)(p + off))->size) {
			const uint8_t *q = p + off;
			const struct perf_event_header *h = (const void *)q;
			uint32_t prot = u32at(q + 64), fl = u32at(q + 68);

			if (h->type == PERF_RECORD_COMM)
				fprintf(out, "PERF_RECORD_COMM: %s:%u/%u\n", (const char *)q + 16,
					u32at(q + 8), u32at(q + 12));
			if (h->type != PERF_RECORD_MMAP2)
				continue;
			fprintf(out, "PERF_RECORD_MMAP2 %u/%u: [%#llx(%#llx) @ %#llx %02x:%02x %llu %llu]: %c%c%c%c %s\n",
				u32at(q + 8), u32at(q + 12), (unsigned long long)u64at(q + 16),
				(unsigned long long)u64at(q + 24), (unsigned long long)u64at(q + 32),
				u32at(q + 40), u32at(q + 44), (unsigned long long)u64at(q + 48),
				(unsigned long long)u64at(q + 56), prot & PROT_READ ? 'r' : '-',
				prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
				fl & MAP_SHARED ? 's' : 'p', (const char *)q + 72);
		}
	}
	prec_shard_reader__close(r);
	close(dfd);
}

/* perf record -p synthesizes COMM and MMAP2 for an existing process: ours
 * must print the same, line for line (perf adds no FORK in -p mode). */
static void check_against_perf(const char *dir)
{
	struct prec_manifest *m = prec_manifest__new();
	struct prec_sideband_opts o = { .nr_pids = 1 };
	char path[600], cmd[2048], exe[256] = "";
	pid_t child;
	double ms;
	FILE *f;

	if (system("command -v perf >/dev/null"))
		return;
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		execlp("sleep", "sleep", "20", (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)child);
	for (int i = 0; i < 200 && !strstr(exe, "sleep"); i++) {
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		usleep(10000);
	}
	/* exec'd is not loaded: ld.so maps libc and protects its pages after
	 * the exec, and a loaded machine can hold it there while both sides
	 * look at the maps. In its sleep, the maps are final. */
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)child);
	for (int i = 0; i < 500; i++) {
		FILE *sf = fopen(path, "r");
		long nr = -1;

		if (sf) {
			if (fscanf(sf, "%ld", &nr) != 1)
				nr = -1;
			fclose(sf);
		}
		if (nr == SYS_clock_nanosleep)
			break;
#ifdef SYS_nanosleep
		if (nr == SYS_nanosleep)
			break;
#endif
		usleep(10000);
	}
	o.pids = &child;
	CHECK(run(dir, "child.shard", m, &o, &ms) > 0);
	snprintf(path, sizeof(path), "%s/ours.txt", dir);
	f = fopen(path, "w");
	CHECK(f);
	dump_perf_style(dir, "child.shard", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && perf record -q -o p.data -e dummy -p %d -- sleep 0.3 >/dev/null 2>&1 && "
		 "perf report -D -i p.data 2>/dev/null | grep -E '^0 .*PERF_RECORD_(MMAP2|COMM)' | "
		 "sed 's/^0 0x[0-9a-f]* \\[0x[0-9a-f]*\\]: //' | grep -v perf-exec | sort > perf.txt && "
		 "sort ours.txt > ours.sorted && test -s perf.txt && diff perf.txt ours.sorted >&2",
		 dir, (int)child);
	CHECK(system(cmd) == 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	prec_manifest__delete(m);
}

/* A bound that everyone else's records fit in twice over, but this
 * process's 3000 maps not in its sixteenth of it: they are cut there, the
 * total keeps within it, and a later pid still has its COMM. */
static void check_bound(const char *dir, struct prec_manifest *m, const struct seen *all)
{
	uint64_t bound = 2 * (all->bytes - all->self_bytes) + 65536;
	struct prec_sideband_opts o = { .all_tasks = true, .max_bytes = bound };
	struct seen s;
	double ms;
	int64_t n;

	g_child = fork();
	CHECK(g_child >= 0);
	if (!g_child) {
		pause();
		_exit(0);
	}
	CHECK(all->self_bytes > bound / 16);
	n = run(dir, "bound.shard", m, &o, &ms);
	read_back(dir, "bound.shard", &s);
	kill(g_child, SIGKILL);
	waitpid(g_child, NULL, 0);
	printf("bounded to %llu bytes: %lld records, %llu bytes, this process's %llu (of %llu)\n",
	       (unsigned long long)bound, (long long)n, (unsigned long long)s.bytes,
	       (unsigned long long)s.self_bytes, (unsigned long long)all->self_bytes);
	CHECK_EQ(s.records, n);
	CHECK(s.bytes <= bound);
	CHECK(s.self_bytes <= bound / 16);
	CHECK(s.self_bytes > bound / 32); /* cut at its share, not before */
	CHECK(s.comm_self && s.pid1_comm && s.child_comm);
	CHECK(s.extra_maps < NR_EXTRA_MAPS);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *dir = test_tmpdir("sideband");
	struct prec_manifest *m = prec_manifest__new();
	pid_t self = getpid();
	struct prec_sideband_opts o = { .pids = &self, .nr_pids = 1,
					.namespaces = true };
	pthread_t th;
	struct seen s;
	double ms;
	int64_t n;

	CHECK(m);
	CHECK(sem_init(&g_named, 0, 0) == 0);
	CHECK(pthread_create(&th, NULL, thread_fn, NULL) == 0);
	while (sem_wait(&g_named) < 0) /* the thread is named */
		;
	add_exec_maps();

	n = run(dir, "self.shard", m, &o, &ms);
	printf("self: %lld records in %.2f ms\n", (long long)n, ms);
	CHECK(n > NR_EXTRA_MAPS);
	read_back(dir, "self.shard", &s);
	CHECK_EQ(s.records, n);
	CHECK(s.chunks >= 2);
	/* as perf's synthesis of its thread map (the command, -p): COMM and
	 * MMAP2, no FORK (the parent is not recorded) */
	CHECK(s.comm_self && !s.fork_self && s.mmap2_exe);
	CHECK(s.comm_thread && !s.fork_thread);
	CHECK_EQ(s.extra_maps, NR_EXTRA_MAPS);
	CHECK(s.anon);
	CHECK(!s.pid1_comm);
	/* the process's two threads, perf's -p order: COMM, NAMESPACES */
	CHECK(s.comm_self_n >= 2);
	CHECK_EQ(s.ns_self, s.comm_self_n);
	CHECK_EQ(s.ns_after_comm, s.comm_self_n);
	check_buildids(m);

	o = (struct prec_sideband_opts){ .all_tasks = true, .namespaces = true };
	n = run(dir, "all.shard", m, &o, &ms);
	read_back(dir, "all.shard", &s);
	printf("all tasks: %lld records, %d chunks, %u build-ids in %.2f ms\n",
	       (long long)n, s.chunks, m->nr_buildids, ms);
	CHECK_EQ(s.records, n);
	CHECK(s.pid1_comm && s.pid1_fork);
	CHECK(s.comm_self && s.mmap2_exe && s.comm_thread);
	CHECK(s.fork_self && s.fork_thread);
	/* perf's -a order: FORK, NAMESPACES, COMM */
	CHECK(s.comm_self_n >= 2);
	CHECK_EQ(s.ns_self, s.comm_self_n);
	CHECK_EQ(s.ns_before_comm, s.comm_self_n);
	CHECK_EQ(s.ns_after_comm, 0);
	check_bound(dir, m, &s);

	prec_manifest__delete(m);
	check_against_perf(dir);
	test_rmdir(dir);
	free(dir);
	return 0;
}
