// SPDX-License-Identifier: MIT
// The vDSO: found in this process, its build-id as readelf reads it in the
// image saved as vdso.so (0600, O_EXCL, never through a symlink); the
// in-memory note reader (prec_buildid__read_image) against the file reader
// on real images, and on every cut and seeded mutations of the vDSO's
// image in a buffer of exactly its size (ASan sees any read past it).
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buildid.h"
#include "record/vdso.h"
#include "store/store.h"

static void hex(const uint8_t *id, int n, char *out)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

static void readelf_id(const char *path, char *out, size_t size)
{
	char cmd[600];
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -1", path);
	out[0] = '\0';
	p = popen(cmd, "r");
	CHECK(p);
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

/* The file reader on the same bytes, through a memfd. */
static int read_bytes_fd(const uint8_t *img, size_t len, uint8_t id[20])
{
	int fd = memfd_create("prec-test-vdso", MFD_CLOEXEC), ret;

	CHECK(fd >= 0);
	CHECK(write(fd, img, len) == (ssize_t)len);
	ret = prec_buildid__read_fd(fd, id);
	close(fd);
	return ret;
}

/* A found id must sit behind a GNU build-id note header in the image. */
static void check_found_in(const uint8_t *img, size_t len, const uint8_t *id, int n)
{
	bool found = false;

	for (size_t i = 0; i + 16 + (size_t)n <= len && !found; i++)
		found = !memcmp(img + i + 12, "GNU", 4) && img[i + 8] == 3 &&
			img[i + 4] == n && !memcmp(img + i + 16, id, (size_t)n);
	CHECK(found);
}

static bool unlink_vdso(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, PREC_VDSO_NAME);
	return unlink(path) == 0;
}

static void check_saved(const struct prec_vdso *v, const char *dir)
{
	char path[512], want[128], got[64];
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct prec_manifest *m = prec_manifest__new();

	CHECK(dfd >= 0 && m);
	/* The image, and the id added to a manifest that lacks it (the
	 * stop's one read of the vDSO), once however often it is saved. */
	CHECK_EQ(prec_vdso__save(dfd, m), 0);
	CHECK_EQ(m->nr_buildids, 1);
	CHECK(!strcmp(m->buildids[0].path, PREC_VDSO_MAP));
	CHECK_EQ(m->buildids[0].size, v->id_size);
	CHECK(!memcmp(m->buildids[0].id, v->id, v->id_size));
	CHECK_EQ(m->buildids[0].pid, -1);
	CHECK(unlink_vdso(dir));
	CHECK_EQ(prec_vdso__save(dfd, m), 0);
	CHECK_EQ(m->nr_buildids, 1);
	prec_manifest__delete(m);
	snprintf(path, sizeof(path), "%s/%s", dir, PREC_VDSO_NAME);
	CHECK(stat(path, &st) == 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(st.st_size, v->len);
	readelf_id(path, want, sizeof(want));
	hex(v->id, v->id_size, got);
	CHECK(!strcmp(got, want));
	/* Never over what is there, nor through a symlink planted there. */
	CHECK_EQ(prec_vdso__save(dfd, NULL), -EEXIST);
	CHECK(unlink(path) == 0);
	CHECK(symlink("/nonexistent-prec-target", path) == 0);
	CHECK_EQ(prec_vdso__save(dfd, NULL), -EEXIST);
	CHECK(access("/nonexistent-prec-target", F_OK) != 0);
	CHECK(unlink(path) == 0);
	close(dfd);
}

static void check_real_file(const char *path)
{
	uint8_t a[20], b[20];
	struct stat st;
	uint8_t *img;
	int fd = open(path, O_RDONLY | O_CLOEXEC), na, nb;

	CHECK(fd >= 0);
	CHECK(fstat(fd, &st) == 0);
	img = malloc((size_t)st.st_size);
	CHECK(img);
	CHECK(read(fd, img, (size_t)st.st_size) == st.st_size);
	na = prec_buildid__read_image(img, (size_t)st.st_size, a);
	nb = prec_buildid__read_fd(fd, b);
	close(fd);
	CHECK_EQ(na, nb);
	CHECK(na > 0 && !memcmp(a, b, (size_t)na));
	free(img);
}

/* Every cut of the image, and mutations: no read outside the buffer, and
 * an id only where the bytes hold one. */
static void check_hostile(const struct prec_vdso *v)
{
	uint64_t seed = test_seed(), st = seed;
	uint8_t id[20];

	for (size_t len = 0; len <= v->len; len++) {
		uint8_t *b = malloc(len ? len : 1);
		int n;

		CHECK(b);
		memcpy(b, v->image, len);
		n = prec_buildid__read_image(b, len, id);
		CHECK(n == -ENOEXEC || n == -ENODATA || n == v->id_size);
		if (n > 0)
			check_found_in(b, len, id, n);
		free(b);
	}
	for (int round = 0; round < 20000; round++) {
		uint8_t *b = malloc(v->len);
		int n, flips = 1 + (int)(test_rand(&st) % 8);

		CHECK(b);
		memcpy(b, v->image, v->len);
		for (int i = 0; i < flips; i++) {
			/* Mostly the headers, where offsets and sizes live. */
			size_t at = test_rand(&st) % (test_rand(&st) % 2 ? 256 : v->len);

			b[at] = (uint8_t)test_rand(&st);
		}
		n = prec_buildid__read_image(b, v->len, id);
		CHECK(n == -ENOEXEC || n == -ENODATA || n == -EINVAL || (n >= 1 && n <= 20));
		if (n > 0)
			check_found_in(b, v->len, id, n);
		free(b);
	}
}

int main(void)
{
	struct prec_vdso v;
	char *dir = test_tmpdir("vdso");
	uint8_t id[20];
	int ret = prec_vdso__find(&v);

	if (ret == -ENOENT) {
		fprintf(stderr, "no vDSO in this process\n");
		return TEST_SKIP;
	}
	CHECK_EQ(ret, 0);
	CHECK(v.len >= 64 && v.id_size >= 1 && v.id_size <= 20);
	/* The same id from the file reader on the same bytes. */
	CHECK_EQ(read_bytes_fd(v.image, v.len, id), v.id_size);
	CHECK(!memcmp(id, v.id, v.id_size));
	check_saved(&v, dir);
	check_real_file("/bin/true");
	check_hostile(&v);
	test_rmdir(dir);
	free(dir);
	return 0;
}
