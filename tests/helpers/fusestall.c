// SPDX-License-Identifier: MIT
// Test helper for tests/e2e/attack_archive.sh: a FUSE file system that
// stops answering, spoken straight to /dev/fuse (no libfuse). It mounts
// MNT holding one file, stall.so, of SRC's bytes followed by zeros up to
// 1 MiB; reads that start in its first 64 KiB are answered, every later
// one is never answered (a server that hangs, as a user's sshfs or a
// hostile FUSE mount may). Needs root (mount).
// Usage: fusestall MNT SRC: prints "ready" once mounted, serves until the
// mount goes (umount) or it is killed.
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_SIZE (1u << 20)
#define ANSWERED (64u << 10)
#define FILE_INO 2

static uint8_t data[FILE_SIZE];
static int dev;

static void reply(const struct fuse_in_header *in, int error, const void *body, size_t len)
{
	static uint8_t out[sizeof(struct fuse_out_header) + ANSWERED];
	struct fuse_out_header h = { .len = (uint32_t)(sizeof(h) + (error ? 0 : len)),
				     .error = error, .unique = in->unique };

	memcpy(out, &h, sizeof(h));
	if (!error && len)
		memcpy(out + sizeof(h), body, len);
	if (write(dev, out, h.len) < 0 && errno != ENOENT)
		perror("fusestall: reply");
}

static void attr_of(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0755;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

static void serve(const struct fuse_in_header *in, const void *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *i = arg;
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
			.minor = i->minor < FUSE_KERNEL_MINOR_VERSION ? i->minor : FUSE_KERNEL_MINOR_VERSION,
			.max_readahead = 0, .max_write = 4096, .time_gran = 1, .max_background = 4,
			.congestion_threshold = 3 };
		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out o = { .nodeid = FILE_INO, .generation = 1 };

		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "stall.so")) {
			reply(in, -ENOENT, NULL, 0);
			break;
		}
		attr_of(FILE_INO, &o.attr);
		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out o = { 0 };

		attr_of(in->nodeid, &o.attr);
		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_STATFS: {
		struct fuse_statfs_out o = { .st = { .blocks = 1024, .bsize = 4096,
						     .namelen = 255, .frsize = 4096 } };
		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_OPEN: case FUSE_OPENDIR: {
		struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_DIRECT_IO };

		reply(in, 0, &o, sizeof(o));
		break;
	}
	case FUSE_READ: {
		const struct fuse_read_in *r = arg;
		size_t n = r->size;

		if (r->offset >= ANSWERED)
			break; /* never answered */
		if (r->offset >= FILE_SIZE)
			n = 0;
		else if (n > FILE_SIZE - r->offset)
			n = FILE_SIZE - r->offset;
		if (n > ANSWERED)
			n = ANSWERED;
		reply(in, 0, data + r->offset, n);
		break;
	}
	case FUSE_FLUSH: case FUSE_RELEASE: case FUSE_RELEASEDIR: case FUSE_ACCESS:
		reply(in, 0, NULL, 0);
		break;
	case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT:
		break; /* no reply */
	default:
		reply(in, -ENOSYS, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	static uint8_t buf[FUSE_MIN_READ_BUFFER + FILE_SIZE];
	char opts[128];
	int src;
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: fusestall MNT SRC\n");
		return 2;
	}
	src = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (src < 0 || read(src, data, FILE_SIZE) < 0) {
		perror(argv[2]);
		return 1;
	}
	dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("/dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", dev);
	if (mount("fusestall", argv[1], "fuse.fusestall", MS_NOSUID | MS_NODEV, opts) < 0) {
		perror("mount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while ((n = read(dev, buf, sizeof(buf))) > 0 || (n < 0 && (errno == EINTR || errno == ENOENT))) {
		if (n > 0)
			serve((const struct fuse_in_header *)buf, buf + sizeof(struct fuse_in_header));
	}
	return 0;
}
