// SPDX-License-Identifier: MIT
// Manifest file and API tests: the atomic replace of the file (mode 0600,
// no temporary left), refusal of a truncated file, a symlink or a FIFO,
// the builders' edge cases, and --json output that python's json reads
// back with the values of the struct.
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_io(const struct prec_manifest *m)
{
	char *dir = test_tmpdir("manifest");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct prec_manifest *d, *m2 = test_manifest_small();
	const char *why;
	struct stat st;

	CHECK(dfd >= 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -ENOENT);
	CHECK(d == NULL && !strcmp(why, "No such file or directory"));
	CHECK_EQ(prec_manifest__write(m2, dfd), 0);
	CHECK_EQ(prec_manifest__write(m, dfd), 0); /* replaces */
	CHECK_EQ(fstatat(dfd, "manifest", &st, AT_SYMLINK_NOFOLLOW), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(faccessat(dfd, "manifest.tmp", F_OK, 0), -1);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), 0);
	test_manifest_check_eq(m, d);
	prec_manifest__delete(d);
	/* Truncated on disk. */
	{
		int fd = openat(dfd, "manifest", O_WRONLY);

		CHECK(fd >= 0);
		CHECK_EQ(ftruncate(fd, st.st_size - 8), 0);
		close(fd);
	}
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -EBADMSG);
	CHECK(!strcmp(why, "truncated"));
	/* A symlink is never followed. */
	CHECK_EQ(unlinkat(dfd, "manifest", 0), 0);
	CHECK_EQ(symlinkat("/etc/passwd", dfd, "manifest"), 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -ELOOP);
	CHECK(why && !strcmp(why, "is a symbolic link"));
	/* Nor a FIFO opened: its open() would wait for a writer, forever. */
	CHECK_EQ(unlinkat(dfd, "manifest", 0), 0);
	CHECK_EQ(mkfifoat(dfd, "manifest", 0600), 0);
	CHECK_EQ(prec_manifest__read(&d, dfd, &why), -EINVAL);
	CHECK(why && !strcmp(why, "not a regular file"));
	close(dfd);
	test_rmdir(dir);
	free(dir);
	prec_manifest__delete(m2);
}

static void test_api(void)
{
	struct prec_manifest *m = prec_manifest__new();
	struct prec_manifest_buildid b = { .size = 20, .pid = -1, .path = (char *)"/bin/true" };
	uint8_t attr[128] = { 1 };
	char *argv[] = { (char *)"prec", (char *)"record", NULL };

	CHECK(m);
	prec_manifest__delete(NULL);
	CHECK_EQ(m->state, PREC_STATE_RECORDING);
	memset(b.id, 0xab, sizeof(b.id));
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 1);
	b.cpumode = 3; /* same id and path: still a duplicate */
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 1);
	b.size = 19; /* a different id */
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	b.path = (char *)"/bin/false";
	CHECK_EQ(prec_manifest__add_buildid(m, &b), 0);
	CHECK_EQ(m->nr_buildids, 3);
	CHECK(m->buildids[1].id[19] == 0); /* bytes past size zeroed */
	b.size = 21;
	CHECK_EQ(prec_manifest__add_buildid(m, &b), -EINVAL);
	CHECK_EQ(prec_manifest__add_event(m, attr, "cpu-clock"), 0);
	CHECK_EQ(prec_manifest__add_event(m, attr, NULL), 1);
	CHECK_EQ(prec_manifest__add_event_id(m, 2, 7, 0, -1), -EINVAL);
	CHECK_EQ(prec_manifest__add_event_id(m, 1, 7, 0, -1), 0);
	CHECK_EQ(m->events[1].nr_ids, 1);
	CHECK_EQ(prec_manifest__set_argv(m, 2, argv), 0);
	CHECK(m->argc == 2 && !strcmp(m->argv[1], "record") && !m->argv[2]);
	CHECK_EQ(prec_manifest__set_argv(m, 0, NULL), 0);
	CHECK(m->argc == 0 && m->argv == NULL);
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, "h"), 0);
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, NULL), 0);
	CHECK(m->hostname == NULL);
	prec_manifest__delete(m);
}

static void test_json(struct prec_manifest *m)
{
	static const char tricky[] = "h\"o\\s\nt\t\x01\x7f\xc3\xa9\xff\xed\xa0\x80 end";
	char *dir = test_tmpdir("manifest-json"), *path, *cmd;
	FILE *f;
	int rc;

	if (system("python3 -c 'import json' >/dev/null 2>&1") != 0) {
		printf("json: python3 missing, skipped\n");
		goto out;
	}
	CHECK_EQ(prec_manifest__set_str(m, &m->hostname, tricky), 0);
	CHECK(asprintf(&path, "%s/m.json", dir) > 0);
	f = fopen(path, "w");
	CHECK(f);
	CHECK_EQ(prec_manifest__print_json(m, f), 0);
	fclose(f);
	/* json.tool must parse it; then spot-check values against the struct:
	 * valid UTF-8 kept, invalid bytes as U+00XX. */
	CHECK(asprintf(&cmd, "python3 -m json.tool '%s' >/dev/null && python3 -c '"
		       "import json,sys; d=json.load(open(sys.argv[1])); "
		       "assert d[\"host\"][\"hostname\"] == \"h\\\"o\\\\s\\nt\\t\\x01\\x7f\\xe9\\xff\\xed\\xa0\\x80 end\", d[\"host\"][\"hostname\"]; "
		       "assert len(d[\"shards\"]) == %u and len(d[\"buildids\"]) == %u; "
		       "assert len(d[\"events\"][0][\"ids\"]) == %u; "
		       "assert d[\"events\"][0][\"attr\"][\"hex\"][:8] == \"%02x%02x%02x%02x\"; "
		       "assert d[\"shards\"][1][\"records\"] == %llu' '%s'",
		       path, m->nr_shards, m->nr_buildids, m->events[0].nr_ids,
		       m->events[0].attr[0], m->events[0].attr[1], m->events[0].attr[2],
		       m->events[0].attr[3], (unsigned long long)m->shards[1].records, path) > 0);
	rc = system(cmd);
	CHECK_EQ(rc, 0);
	free(cmd);
	free(path);
out:
	test_rmdir(dir);
	free(dir);
}

int main(void)
{
	struct prec_manifest *big;

	test_manifest_seed(test_seed());
	test_api();
	big = test_manifest_big();
	test_io(big);
	test_json(big);
	prec_manifest__delete(big);
	printf("ok\n");
	return 0;
}
