// SPDX-License-Identifier: MIT
// The escaper of text from a recording (src/util/escape.c) and the log
// lines it guards: C0 controls, DEL, C1 controls, bytes that are not UTF-8
// (overlong, surrogate, past U+10FFFF, cut short) come out as \xNN (\n \t
// \r by name), a backslash and the quote doubled, printable UTF-8 as it is;
// a buffer too small cuts between escapes and says so; a log line holds no
// control byte and stays one line, however long its message. The bidi
// controls (U+202A..U+202E, U+2066..U+2069: text shown in another order than
// it is) are escaped too. prec info --json writes C1 and bidi controls as
// \uXXXX, never raw.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"
#include "store/store.h"
#include "util/escape.h"
#include "util/log.h"

static void check_buf(const char *in, size_t len, int quote, const char *want)
{
	char out[256];
	size_t n = prec_escape__to_buf(out, sizeof(out), in, len, quote);

	if (strcmp(out, want) || n != strlen(want)) {
		fprintf(stderr, "escaped \"%s\", want \"%s\"\n", out, want);
		CHECK(0);
	}
}

static void test_forms(void)
{
	static const char all[] = "a\x1b[2J\a\r\n\t\x7f|\xc2\x9b|\xc3\xa9|\xff|\xc0\x80|"
				  "\xed\xa0\x80|\xf4\x90\x80\x80|\\'\"";

	check_buf(all, sizeof(all) - 1, 0,
		  "a\\x1b[2J\\x07\\r\\n\\t\\x7f|\\xc2\\x9b|\xc3\xa9|\\xff|\\xc0\\x80|"
		  "\\xed\\xa0\\x80|\\xf4\\x90\\x80\\x80|\\\\'\"");
	check_buf("it's \"q\"", 8, '\'', "it\\'s \"q\"");
	check_buf("it's \"q\"", 8, '"', "it's \\\"q\\\"");
	/* a character cut by the length, and a NUL that ends the text */
	check_buf("\xe2\x82\xac", 2, 0, "\\xe2\\x82");
	check_buf("\xe2\x82\xac", 3, 0, "\xe2\x82\xac");
	check_buf("ab\0\x1b", 4, 0, "ab");
	CHECK(!prec_escape__needed("plain \xc3\xa9 \\ text", 17));
	CHECK(prec_escape__needed("x\x1b", 2));
	CHECK(prec_escape__needed("\xe2\x82", 2));
}

/* Bidi controls, each a valid printable-looking UTF-8 character: RLO,
 * LRE, PDF, LRI, PDI; their neighbours (U+2029, U+202F, U+2065, U+206A)
 * are left as they are. */
static void test_bidi(void)
{
	static const char in[] = "a\xe2\x80\xae" "b\xe2\x80\xaa\xe2\x80\xac\xe2\x81\xa6\xe2\x81\xa9|"
				 "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa";

	check_buf(in, sizeof(in) - 1, 0,
		  "a\\xe2\\x80\\xaeb\\xe2\\x80\\xaa\\xe2\\x80\\xac\\xe2\\x81\\xa6\\xe2\\x81\\xa9|"
		  "\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
	CHECK(prec_escape__needed("file\xe2\x80\xae.so", 9));
	CHECK(!prec_escape__needed("file\xe2\x80\xaf.so", 9));
}

/* prec info --json: a string with C1 controls (CSI, OSC, U+0080, U+009F),
 * bidi controls and their neighbours, as the manifest's hostname. */
static void test_json(void)
{
	struct prec_manifest *m = test_manifest_small();
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f);
	free(m->hostname);
	m->hostname = strdup("h\xc2\x9b" "2J\xc2\x9d" "0;x\xc2\x80\xc2\x9f\xc2\xa0"
			     "\xe2\x80\xae\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\xaf");
	CHECK(m->hostname);
	CHECK_EQ(prec_manifest__print_json(m, f), 0);
	CHECK_EQ(fclose(f), 0);
	if (!strstr(out, "\"hostname\": \"h\\u009b2J\\u009d0;x\\u0080\\u009f\xc2\xa0"
			 "\\u202e\\u202a\\u2066\\u2069\xe2\x80\xaf\"")) {
		fprintf(stderr, "json: %.300s\n", strstr(out, "hostname") ? strstr(out, "hostname") : out);
		CHECK(0);
	}
	CHECK(!strstr(out, "\xc2\x9b") && !strstr(out, "\xe2\x80\xae"));
	free(out);
	prec_manifest__delete(m);
}

static void test_cut(void)
{
	char out[8];

	/* fits exactly: no mark */
	CHECK_EQ(prec_escape__to_buf(out, sizeof(out), "abcdefg", 7, 0), 7);
	CHECK(!strcmp(out, "abcdefg"));
	CHECK_EQ(prec_escape__to_buf(out, sizeof(out), "abcdefgh", 8, 0), 7);
	CHECK(!strcmp(out, "abcd..."));
	/* never half an escape: "\x1b" takes 4 of the 4 left before the mark */
	CHECK_EQ(prec_escape__to_buf(out, sizeof(out), "\x1b\x1b", 2, 0), 7);
	CHECK(!strcmp(out, "\\x1b..."));
	CHECK_EQ(prec_escape__to_buf(out, sizeof(out), "a\x1b\x1b", 3, 0), 4);
	CHECK(!strcmp(out, "a..."));
	CHECK_EQ(prec_escape__to_buf(out, 3, "abcdef", 6, 0), 0);
	CHECK(!strcmp(out, ""));
}

static const char *log_arg;

static int log_cmd(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("shard %s: corrupt chunk", log_arg);
	return 0;
}

static void test_log(void)
{
	static char big[3000];
	char out[4096], *argv[] = { "log", NULL };
	const char *nl;

	log_arg = "cpu\x1b]52;c;SGk=\a\r\n000";
	CHECK_EQ(test_run_captured(log_cmd, 1, argv, true, out, sizeof(out)), 0);
	if (strcmp(out, "prec: error: shard cpu\\x1b]52;c;SGk=\\x07\\r\\n000: corrupt chunk\n")) {
		fprintf(stderr, "log line: %s", out);
		CHECK(0);
	}
	memset(big, '\x1b', sizeof(big) - 1);
	log_arg = big;
	CHECK_EQ(test_run_captured(log_cmd, 1, argv, true, out, sizeof(out)), 0);
	nl = strchr(out, '\n');
	CHECK(nl && !nl[1] && !strchr(out, '\x1b'));
	CHECK(nl - out < 1024 && !strncmp(nl - 3, "...", 3));
}

int main(void)
{
	test_forms();
	test_bidi();
	test_json();
	test_cut();
	test_log();
	printf("ok\n");
	return 0;
}
