// SPDX-License-Identifier: MIT
// Workload with an exactly known number of page faults on top of its
// start-up's: K fresh anonymous pages, each written once, on one CPU.
// Usage: faults K [FILE]: FILE gets the first page's address (0x...), so a
// test knows the K data addresses the faults have.
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A task's per-CPU events each count towards their own period: the K
 * faults all on one CPU make -c N give exactly K / N samples of them. */
static void stay_on_this_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? strtol(argv[1], NULL, 0) : -1;
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *p;

	if (k < 0) {
		fprintf(stderr, "usage: faults K\n");
		return 2;
	}
	stay_on_this_cpu();
	if (!k)
		return 0;
	p = mmap(NULL, (size_t)(k * ps), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* A transparent huge page would take 512 pages in one fault; a read
	 * before the write would take two (the zero page, then a copy). */
	if (madvise((void *)p, (size_t)(k * ps), MADV_NOHUGEPAGE))
		perror("madvise");
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (!f || fprintf(f, "%#lx\n", (unsigned long)p) < 0 || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
	}
	for (long i = 0; i < k; i++)
		p[i * ps] = 1;
	return 0;
}
