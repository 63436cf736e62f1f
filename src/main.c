// SPDX-License-Identifier: MIT
// prec: dispatches subcommands; each subcommand parses its own options,
// and says what was built (--version); ends the process by a signal when
// a command asks (record, as perf record).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "read/read.h"
#include "record/record.h"
#include "util/cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", prec_cmd_record, "record per-CPU shards into a directory" },
	{ "merge", prec_cmd_merge, "merge a directory into one perf.data" },
	{ "info", prec_cmd_info, "show a recording's manifest and totals" },
	{ "dump", prec_cmd_dump, "print every record in merged order" },
	{ "mark", prec_cmd_mark, "write a user marker into the trace" },
	{ "archive", prec_cmd_archive, "tar the recording's binaries for perf elsewhere" },
};

/* What the Makefile knew at build time, passed as -D defines to this file
 * only; empty when it could not tell (no git tree, no pkg-config). */
#ifndef PREC_GIT_DESCRIBE
#define PREC_GIT_DESCRIBE ""
#endif
#ifndef PREC_LIBURING_VERSION
#define PREC_LIBURING_VERSION ""
#endif
#ifndef PREC_LIBELF_VERSION
#define PREC_LIBELF_VERSION ""
#endif
#ifndef PREC_LZ4_VERSION
#define PREC_LZ4_VERSION ""
#endif
#ifndef PREC_ZSTD_VERSION
#define PREC_ZSTD_VERSION ""
#endif

#if defined(__clang__)
#define COMPILER __VERSION__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER "unknown"
#endif

static const char *or_unknown(const char *s)
{
	return s[0] ? s : "unknown";
}

/* What a bug report needs: the version, the commit (dirty marked) when
 * built from a git tree, the compiler and the libraries built against. */
static void version(void)
{
	printf("prec %s\n", PREC_VERSION);
	if (PREC_GIT_DESCRIBE[0])
		printf("  git:      %s\n", PREC_GIT_DESCRIBE);
	else
		printf("  git:      none (not built from a git tree)\n");
	printf("  compiler: %s\n", COMPILER);
	printf("  built against: liburing %s, libelf %s, lz4 %s, zstd %s\n",
	       or_unknown(PREC_LIBURING_VERSION), or_unknown(PREC_LIBELF_VERSION),
	       or_unknown(PREC_LZ4_VERSION), or_unknown(PREC_ZSTD_VERSION));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: prec <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'prec <command> -h' shows the command's options; 'prec --version' the version.\n");
}

/* A command's status, or its end by a signal: the output flushed, the
 * signal's default action back and the signal unblocked (record takes
 * its signals by a signalfd, blocked), then raised. No core file: prec
 * did not crash, its command's SIGSEGV is only passed on. 128 + the
 * signal only if it did not end us. */
static int end(int rc)
{
	int sig = rc - PREC_END_BY_SIGNAL(0);
	sigset_t set;

	if (rc < PREC_END_BY_SIGNAL(1))
		return rc;
	fflush(NULL);
	prctl(PR_SET_DUMPABLE, 0);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "prec: error: no command (try 'prec --help')\n");
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		version();
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return end(commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "prec: error: unknown command '%s' (try 'prec --help')\n", argv[1]);
	return 2;
}
