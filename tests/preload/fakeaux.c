// SPDX-License-Identifier: MIT
// LD_PRELOAD stand-in for an AUX area PMU (tests/e2e/record_aux_snapshot.sh):
// perf_event_open of an event of type FAKEAUX_TYPE (a fake intel_pt's, 9 by
// default) opens a dummy software event in its place; the mmap of that fd
// past its ring (the AUX area) is anonymous shared memory, which a thread
// fills while the event is enabled (PERF_EVENT_IOC_ENABLE / DISABLE on the
// fd, seen here), as a PMU in overwrite mode: 8-byte words holding their
// own position in the endless stream (8, 16, 24 ...), aux_head in the real
// control page kept within the area (intel_pt's way). A DISABLE returns
// only once no word is being written, as the kernel stops the hardware.
// prec's view of the area is a second mapping of the same memory, readable
// only while the event is disabled: a read of a running area (a copy that
// did not disable the event first) is a SIGSEGV, not a lucky race.
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_FAKE 64
#define BURST 512u /* bytes a tick writes */

struct fake {
	int fd;
	bool enabled;
	struct perf_event_mmap_page *pc;
	uint8_t *aux;           /* the filler's view */
	void *view;             /* prec's: PROT_NONE while enabled */
	uint64_t size, written; /* written: the stream's end position */
};

static struct fake fakes[MAX_FAKE];
static int nr_fakes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t writer;
static bool writer_started;

static long (*real_syscall)(long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_ioctl)(int, unsigned long, ...);

long syscall(long nr, ...);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int ioctl(int fd, unsigned long req, ...);

static void resolve(void)
{
	if (!real_syscall) {
		real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	}
}

static struct fake *find(int fd)
{
	for (int i = 0; i < nr_fakes; i++)
		if (fakes[i].fd == fd)
			return &fakes[i];
	return NULL;
}

static uint32_t fake_type(void)
{
	const char *t = getenv("FAKEAUX_TYPE");

	return t ? (uint32_t)strtoul(t, NULL, 0) : 9;
}

/* One burst into every enabled area, under the lock. */
static void *write_loop(void *arg)
{
	struct timespec tick = { 0, 200000 };

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		for (int i = 0; i < nr_fakes; i++) {
			struct fake *f = &fakes[i];
			uint64_t head;

			if (!f->enabled || !f->aux || !f->pc)
				continue;
			head = f->written & (f->size - 1);
			for (uint64_t b = 0; b < BURST; b += 8) {
				uint64_t w = f->written + b + 8;

				memcpy(f->aux + ((head + b) & (f->size - 1)), &w, 8);
			}
			f->written += BURST;
			__atomic_store_n(&f->pc->aux_head, f->written & (f->size - 1),
					 __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&lock);
		nanosleep(&tick, NULL);
	}
	return NULL;
}

static long open_fake(struct perf_event_attr *a, long pid, long cpu, long group, long flags)
{
	struct perf_event_attr d = *a;
	long fd;

	d.type = PERF_TYPE_SOFTWARE;
	d.config = PERF_COUNT_SW_DUMMY;
	d.aux_watermark = 0;
	d.exclude_guest = 0;
	fd = real_syscall(SYS_perf_event_open, &d, pid, cpu, group, flags);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&lock);
	if (nr_fakes < MAX_FAKE)
		fakes[nr_fakes++] = (struct fake){ .fd = (int)fd, .enabled = !a->disabled };
	pthread_mutex_unlock(&lock);
	return fd;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	resolve();
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && a[0] &&
	    ((struct perf_event_attr *)a[0])->type == fake_type())
		return open_fake((struct perf_event_attr *)a[0], a[1], a[2], a[3], a[4]);
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake *f;
	void *p;

	resolve();
	pthread_mutex_lock(&lock);
	f = fd >= 0 ? find(fd) : NULL;
	pthread_mutex_unlock(&lock);
	if (!f)
		return real_mmap(addr, len, prot, flags, fd, off);
	if (!off) {
		p = real_mmap(addr, len, prot, flags, fd, off);
		pthread_mutex_lock(&lock);
		if (p != MAP_FAILED)
			f->pc = p;
		pthread_mutex_unlock(&lock);
		return p;
	}
	/* the AUX area: zeroed memory, as the kernel's, mapped twice */
	{
		int mfd = (int)real_syscall(SYS_memfd_create, "fakeaux", 0L);
		void *w;

		if (mfd < 0 || ftruncate(mfd, (off_t)len))
			return MAP_FAILED;
		w = real_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
		p = real_mmap(NULL, len, PROT_READ, MAP_SHARED, mfd, 0);
		close(mfd);
		if (w == MAP_FAILED || p == MAP_FAILED)
			return MAP_FAILED;
		pthread_mutex_lock(&lock);
		f->aux = w;
	}
	f->view = p;
	f->size = len;
	if (f->enabled)
		mprotect(p, len, PROT_NONE);
	if (!writer_started && !pthread_create(&writer, NULL, write_loop, NULL))
		writer_started = true;
	pthread_mutex_unlock(&lock);
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int ioctl(int fd, unsigned long req, ...)
{
	struct fake *f;
	va_list ap;
	unsigned long arg;

	resolve();
	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	pthread_mutex_lock(&lock);
	f = find(fd);
	if (f && (req == PERF_EVENT_IOC_ENABLE || req == PERF_EVENT_IOC_DISABLE)) {
		f->enabled = req == PERF_EVENT_IOC_ENABLE;
		if (f->view)
			mprotect(f->view, f->size, f->enabled ? PROT_NONE : PROT_READ);
	}
	pthread_mutex_unlock(&lock);
	return real_ioctl(fd, req, arg);
}
