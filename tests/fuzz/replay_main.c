// SPDX-License-Identifier: MIT
// Corpus replayer: a plain main() that feeds every file named on the command
// line, and every regular file in each directory named, to the target's
// LLVMFuzzerTestOneInput, so any compiler can replay the fuzz corpus.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read a whole file into a buffer of exactly its size (so ASan sees reads
 * past the input as it would under libFuzzer). */
static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "replay %s: open: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	while (buf && done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (!buf || done != (size_t)st.st_size) {
		fprintf(stderr, "replay %s: read failed\n", path);
		free(buf);
		return -EIO;
	}
	LLVMFuzzerTestOneInput(buf, done);
	free(buf);
	return 0;
}

/* Every regular file of dir, in name order. Returns files run or -errno. */
static int run_dir(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), runs = 0, err = 0;

	if (n < 0) {
		fprintf(stderr, "replay %s: scandir: %s\n", dir, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				err = -EIO;
			else
				runs++;
		}
		free(ents[i]);
	}
	free(ents);
	return err ? err : runs;
}

int main(int argc, char **argv)
{
	int files = 0, failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int r;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay %s: %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		r = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
		if (r < 0)
			failed++;
		else
			files += S_ISDIR(st.st_mode) ? r : 1;
	}
	printf("replayed %d inputs\n", files);
	return failed ? 1 : 0;
}
