// SPDX-License-Identifier: MIT
// The escaper of text from a recording (src/util/escape.c) and the log
// lines it guards: C0 controls, DEL, C1 controls, bytes that are not UTF-8
// (overlong, surrogate, past U+10FFFF, cut short) come out as \xNN (\n \t
// \r by name), a backslash and the quote doubled, printable UTF-8 as it is;
// a buffer too small cuts between escapes and says so; a log line holds no
// control byte and stays one line, however long its message.
#include <stdio.h>
#include <string.h>

#include "../lib/test.h"
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
	test_cut();
	test_log();
	printf("ok\n");
	return 0;
}
