// SPDX-License-Identifier: MIT
// prec_perfconfig: perf's config syntax (keys "section.name", a section's
// name lower-cased and a key's first letter only, [x "sub"], quotes,
// comments, escapes, a backslash continuing a line, inner blanks kept, each as a space), a
// key given again replacing its value in its first place, a bad line
// ending the file with the items before it kept, and the line each value
// came from.
#include "util/perfconfig.h"
#include "../lib/test.h"

#include <string.h>

static const char *get(const struct prec_perfconfig *c, const char *key)
{
	const struct prec_perfconfig_item *it = prec_perfconfig__get(c, key);

	return it ? it->value : NULL;
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int main(void)
{
	struct prec_perfconfig c = { 0 };

	CHECK_EQ(prec_perfconfig__parse(&c, "a.cfg",
		"# comment\n"
		"; another\n"
		"[Call-Graph]\n"
		"\tRecord-Mode = dwarf\n"
		"\trecord-mode = \"fp,3\" ; after\n"
		"[report]  percent-limit = 5 # trailing\n"
		"[buildid \"Sub\"]\n"
		"  dir=  a  b\t c  \n"
		"[x]\n"
		"esc = \"q\\\"t\\tn\\nb\\\\\" \"#kept\"\n"
		"cont = one\\\n"
		"two\n"
		"after = 1\n"), 0);
	CHECK(same(get(&c, "call-graph.record-Mode"), "dwarf"));
	CHECK(same(get(&c, "call-graph.record-mode"), "fp,3"));
	CHECK(!get(&c, "Call-Graph.record-mode"));
	CHECK(same(get(&c, "report.percent-limit"), "5"));
	CHECK(same(get(&c, "buildid.Sub.dir"), "a  b  c"));
	CHECK(same(get(&c, "x.esc"), "q\"t\tn\nb\\ #kept"));
	CHECK(same(get(&c, "x.cont"), "onetwo"));
	/* the line a value starts on; after a continued one, counted on */
	CHECK_EQ(prec_perfconfig__get(&c, "call-graph.record-mode")->line, 5);
	CHECK_EQ(prec_perfconfig__get(&c, "x.after")->line, 13);
	CHECK(same(prec_perfconfig__get(&c, "x.after")->file, "a.cfg"));

	/* a later file's value in the key's first place */
	CHECK_EQ(prec_perfconfig__parse(&c, "b.cfg", "[report]\npercent-limit = 7\n[new]\nk = v\n"), 0);
	CHECK(same(c.items[2].key, "report.percent-limit") && same(c.items[2].value, "7"));
	CHECK(same(c.items[2].file, "b.cfg"));
	CHECK(same(c.items[c.nr - 1].key, "new.k"));
	prec_perfconfig__exit(&c);

	/* perf's bad lines: the file ends there, what came before stays */
	{
		static const char *const bad[] = {
			"[s]\nkept = 1\nno-value\nlost = 2\n",
			"[s]\nkept = 1\n9digit = 2\nlost = 2\n",
			"[s]\nkept = 1\nk = \"open quote\nlost = 2\n",
			"[s]\nkept = 1\nk = bad \\q escape\nlost = 2\n",
			"[s]\nkept = 1\n[s!]\nlost = 2\n",
			"[s]\nkept = 1\n[s \"sub]\nlost = 2\n",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			CHECK_EQ(prec_perfconfig__parse(&c, "bad.cfg", bad[i]), 0);
			CHECK(same(get(&c, "s.kept"), "1"));
			CHECK(!get(&c, "s.lost") && !get(&c, "s.sub.lost"));
			prec_perfconfig__exit(&c);
		}
		/* a key before any section */
		CHECK_EQ(prec_perfconfig__parse(&c, "bad.cfg", "k = 1\n[s]\nlost = 2\n"), 0);
		CHECK_EQ(c.nr, 0);
		prec_perfconfig__exit(&c);
	}
	printf("perfconfig: perf's syntax, values replaced in place, bad lines end the file\n");
	return 0;
}
