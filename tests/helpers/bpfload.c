// SPDX-License-Identifier: MIT
// Test workload for BPF programs in a recording. Exit 77 when the kernel
// refuses BPF.
//   bpfload N NAME HOLD_MS: load N socket filters ("r0 = 0; exit") named
//     NAME0..NAME<N-1>, hold them all for HOLD_MS, close them: a known
//     number of loads, so of PERF_RECORD_KSYMBOL and BPF_EVENT records.
//   bpfload -r NAME WAIT_MS MS: load one long filter named NAME, wait
//     WAIT_MS, then for MS send datagrams through a socketpair whose
//     receiver runs it: the CPU's time goes mostly into the program.
//   bpfload -b FUNC ...: either of the above, each program loaded with BTF
//     of its own (one static function FUNC, "int FUNC(void)") and its func
//     and line info, so the kernel, perf and prec name it bpf_prog_<tag>_FUNC
//     and the BTF object is one perf records.
//   bpfload -l N NAME HOLD_MS: the first form with long filters (the -r
//     one's 4000 instructions): some 16 KiB of JITed code each.
//   bpfload -n INSNS N NAME HOLD_MS: the first form with filters of INSNS
//     instructions adding 1000 each (6 bytes of x86 code each).
//   bpfload -s [-b FUNC] N NAME HOLD_MS: the first form with programs of
//     two functions (the main one calls the other, which returns 0): two
//     JITed functions each; with -b the second one's BTF name is FUNC_sub.
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LONG_INSNS 4000 /* r0 += 1 each: some microseconds a packet */

static const char *btf_func; /* -b: the function's name in the BTF */
static int two_funcs;        /* -s */
static int add_imm = 1;      /* what each added instruction adds */

/* A BTF object of four types, [1] int, [2] int (void), [3] static
 * function btf_func and [4] static function btf_func_sub, both of type 2,
 * and the strings a line info names: its fd, or -1. *file and *line are
 * those strings' offsets. */
static int load_btf(uint32_t *file, uint32_t *line)
{
	static const char src[] = "bpfload.c", text[] = "return 0;";
	size_t nf = strlen(btf_func) + 1;
	uint32_t types[] = {
		1, BTF_KIND_INT << 24, 4, (BTF_INT_SIGNED << 24) | 32,
		0, BTF_KIND_FUNC_PROTO << 24, 1,
		5, (BTF_KIND_FUNC << 24) | BTF_FUNC_STATIC, 2,
		(uint32_t)(5 + nf), (BTF_KIND_FUNC << 24) | BTF_FUNC_STATIC, 2,
	};
	size_t str_len = 5 + nf + nf + 4 + sizeof(src) + sizeof(text);
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h), .type_len = sizeof(types),
				.str_off = sizeof(types), .str_len = (uint32_t)str_len };
	char *blob = calloc(1, sizeof(h) + sizeof(types) + str_len), *str;
	union bpf_attr a;
	int fd;

	if (!blob)
		return -1;
	memcpy(blob, &h, sizeof(h));
	memcpy(blob + sizeof(h), types, sizeof(types));
	str = blob + sizeof(h) + sizeof(types);
	memcpy(str + 1, "int", 4);
	memcpy(str + 5, btf_func, nf);
	memcpy(str + 5 + nf, btf_func, nf - 1);
	memcpy(str + 5 + nf + nf - 1, "_sub", 5);
	*file = (uint32_t)(5 + nf + nf + 4);
	memcpy(str + *file, src, sizeof(src));
	*line = *file + (uint32_t)sizeof(src);
	memcpy(str + *line, text, sizeof(text));
	memset(&a, 0, sizeof(a));
	a.btf = (uint64_t)(uintptr_t)blob;
	a.btf_size = (uint32_t)(sizeof(h) + sizeof(types) + str_len);
	fd = (int)syscall(SYS_bpf, BPF_BTF_LOAD, &a, sizeof(a));
	free(blob);
	return fd;
}

/* With BPFLOAD_IDS=FILE, the id of the program fd appended to FILE as
 * "id N", as perf script prints a BPF_EVENT's: a test counts its own
 * programs' records among those of whatever else loads BPF meanwhile
 * (a -a recording, or any, gets every program's). */
static int say_id(int fd)
{
	const char *path = getenv("BPFLOAD_IDS");
	struct bpf_prog_info info;
	union bpf_attr a;
	FILE *f;
	int err;

	if (!path || fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)))
		return -1;
	f = fopen(path, "a");
	if (!f)
		return -1;
	fprintf(f, "id %u\n", info.id);
	err = fclose(f);
	return err ? -1 : 0;
}

/* A socket filter of n instructions (r0 = 1, then adds, when n > 2) that
 * drops the packet; with -s, of 4: a call of the function at 2, exit,
 * r0 = 0, exit. */
static int load(const char *name, int n)
{
	struct bpf_insn *prog;
	union bpf_attr a;
	int fd;

	n = two_funcs ? 4 : n;
	prog = calloc((size_t)n, sizeof(*prog));
	if (!prog)
		return -1;
	for (int i = 0; i < n - 2; i++)
		prog[i] = (struct bpf_insn){ .code = BPF_ALU64 | (i ? BPF_ADD : BPF_MOV) | BPF_K,
					     .dst_reg = BPF_REG_0, .imm = add_imm };
	if (two_funcs) {
		prog[0] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
					     .src_reg = BPF_PSEUDO_CALL, .imm = 1 };
		prog[1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	}
	prog[n - 2] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
					 .dst_reg = BPF_REG_0, .imm = 0 };
	prog[n - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t)"GPL";
	snprintf(a.prog_name, sizeof(a.prog_name), "%s", name);
	if (btf_func) {
		uint32_t file, line;
		int btf = load_btf(&file, &line);
		struct bpf_func_info func[2] = { { .insn_off = 0, .type_id = 3 },
						 { .insn_off = 2, .type_id = 4 } };
		/* the first instruction and the last two, each its own line */
		struct bpf_line_info lines[2] = {
			{ .insn_off = 0, .file_name_off = file, .line_off = line,
			  .line_col = 10 << 10 | 2 },
			{ .insn_off = (uint32_t)n - 2, .file_name_off = file,
			  .line_off = line, .line_col = 12 << 10 | 2 },
		};

		if (btf < 0) {
			free(prog);
			return -1;
		}
		a.prog_btf_fd = (uint32_t)btf;
		a.func_info_rec_size = sizeof(func[0]);
		a.func_info = (uint64_t)(uintptr_t)func;
		a.func_info_cnt = two_funcs ? 2 : 1;
		a.line_info_rec_size = sizeof(lines[0]);
		a.line_info = (uint64_t)(uintptr_t)lines;
		a.line_info_cnt = n > 2 ? 2 : 1;
		fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
		close(btf); /* the program holds it */
	} else {
		fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	}
	free(prog);
	if (say_id(fd)) {
		perror("bpfload: BPFLOAD_IDS");
		exit(1);
	}
	return fd;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int refused(const char *what)
{
	fprintf(stderr, "bpfload: %s: %s\n", what, strerror(errno));
	return errno == EPERM || errno == ENOSYS ? 77 : 1;
}

static int run(const char *name, int wait_ms, int ms)
{
	int sv[2], fd = load(name, LONG_INSNS);
	char byte = 1;
	double end;

	if (fd < 0)
		return refused("BPF_PROG_LOAD");
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0 ||
	    setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_BPF, &fd, sizeof(fd)) < 0)
		return refused("socket filter");
	sleep_ms(wait_ms);
	/* the filter drops every datagram, so the receiver never fills */
	for (end = now() + ms / 1000.0; now() < end;)
		for (int i = 0; i < 100; i++)
			if (send(sv[0], &byte, 1, 0) < 0)
				return refused("send");
	return 0;
}

int main(int argc, char **argv)
{
	int n, *fd, insns = 2;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		two_funcs = 1;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "-n")) {
		insns = atoi(argv[2]);
		add_imm = 1000;
		argc -= 2;
		argv += 2;
	}
	if (argc > 1 && !strcmp(argv[1], "-l")) {
		insns = LONG_INSNS;
		argc--;
		argv++;
	}
	if (argc > 2 && !strcmp(argv[1], "-b")) {
		btf_func = argv[2];
		argc -= 2;
		argv += 2;
	}
	n = argc == 4 ? atoi(argv[1]) : -1;

	if (argc == 5 && !strcmp(argv[1], "-r"))
		return run(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (n < 1 || n > 1000 || strlen(argv[2]) > 12) {
		fprintf(stderr, "usage: bpfload [-s] [-n INSNS] [-l] [-b FUNC] N NAME(<= 12 chars) HOLD_MS | [-b FUNC] -r NAME WAIT_MS MS\n");
		return 2;
	}
	fd = calloc((size_t)n, sizeof(*fd));
	if (!fd)
		return 1;
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%s%d", argv[2], i);
		fd[i] = load(name, insns);
		if (fd[i] < 0)
			return refused("BPF_PROG_LOAD");
	}
	sleep_ms(atoi(argv[3]));
	for (int i = 0; i < n; i++)
		close(fd[i]);
	free(fd);
	return 0;
}
