// SPDX-License-Identifier: MIT
// perf's configuration files (perfconfig.h), parsed with perf's syntax: an
// ini file of [section] or [section "sub"] headers and key = value lines;
// a section's name is lower-cased, a key's first letter only (perf keeps
// the rest as written); '#' and ';' start a comment outside double quotes;
// a value's inner blanks stay, its outer ones go; \\, \", \n, \t and \b
// are escapes and a backslash ends a line that goes on. A line perf would
// refuse ends the file's reading with perf's warning.
#include "util/perfconfig.h"
#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A perfconfig is a few lines; a bigger one is read no further. */
#define CONFIG_MAX (64u << 10)

static bool is_key_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/* The file name items of this file point to: kept until exit. */
static const char *keep_name(struct prec_perfconfig *c, const char *name)
{
	if (c->nr_files == (int)(sizeof(c->files) / sizeof(c->files[0])))
		return c->files[c->nr_files - 1];
	c->files[c->nr_files] = strdup(name);
	return c->files[c->nr_files] ? c->files[c->nr_files++] : NULL;
}

static int put(struct prec_perfconfig *c, const char *key, const char *value,
	       const char *file, unsigned int line)
{
	struct prec_perfconfig_item *it = (struct prec_perfconfig_item *)prec_perfconfig__get(c, key);
	char *v = strdup(value);

	if (!v)
		return -ENOMEM;
	if (!it) {
		if (c->nr == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			void *p = realloc(c->items, cap * sizeof(*c->items));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			c->items = p;
			c->cap = cap;
		}
		it = &c->items[c->nr];
		it->key = strdup(key);
		if (!it->key) {
			free(v);
			return -ENOMEM;
		}
		it->value = NULL;
		c->nr++;
	}
	free(it->value);
	it->value = v;
	it->file = file;
	it->line = line;
	return 0;
}

/* A [section] or [section "sub"] header at *p (past its '['), into
 * sect (size n), lower-cased but for the sub name. Returns false for a
 * header perf refuses. */
static bool section(const char **p, char *sect, size_t n)
{
	const char *s = *p;
	size_t len = 0;

	for (; *s && *s != ']'; s++) {
		if (isspace((unsigned char)*s))
			break;
		if (!is_key_char((unsigned char)*s) && *s != '.')
			return false;
		if (len + 1 >= n)
			return false;
		sect[len++] = (char)tolower((unsigned char)*s);
	}
	if (isspace((unsigned char)*s)) {
		while (isspace((unsigned char)*s) && *s != '\n')
			s++;
		if (*s++ != '"' || len + 1 >= n)
			return false;
		sect[len++] = '.';
		for (; *s && *s != '"' && *s != '\n'; s++) {
			if (*s == '\\' && s[1] && s[1] != '\n')
				s++;
			if (len + 1 >= n)
				return false;
			sect[len++] = *s;
		}
		if (*s++ != '"')
			return false;
	}
	if (*s != ']')
		return false;
	sect[len] = '\0';
	*p = s + 1;
	return true;
}

/* The value at *p (past the '='), up to its line's end, into v (size n);
 * *lines counts the lines a backslash continued it over. Returns false
 * for a value perf refuses. */
static bool value(const char **p, char *v, size_t n, unsigned int *lines)
{
	const char *s = *p;
	size_t len = 0, space = 0;
	bool quote = false, comment = false;

	for (;; s++) {
		char c = *s;

		if (c == '\n' || !c) {
			if (quote)
				return false;
			break;
		}
		if (comment)
			continue;
		if (isspace((unsigned char)c) && !quote) {
			space += len != 0;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--) {
			if (len + 1 >= n)
				return false;
			v[len++] = ' ';
		}
		if (c == '\\') {
			c = *++s;
			switch (c) {
			case '\n':
				++*lines;
				continue;
			case 't': c = '\t'; break;
			case 'b': c = '\b'; break;
			case 'n': c = '\n'; break;
			case '\\': case '"': break;
			default: return false;
			}
		} else if (c == '"') {
			quote = !quote;
			continue;
		}
		if (len + 1 >= n)
			return false;
		v[len++] = c;
	}
	v[len] = '\0';
	*p = s;
	return true;
}

int prec_perfconfig__parse(struct prec_perfconfig *c, const char *name, const char *text)
{
	char sect[PREC_PERFCONFIG_KEY_MAX] = "", key[PREC_PERFCONFIG_KEY_MAX];
	char val[PREC_PERFCONFIG_KEY_MAX];
	const char *p = text, *file = keep_name(c, name);
	unsigned int line = 1, first;
	bool in_section = false;

	if (!file)
		return -ENOMEM;
	while (*p) {
		size_t klen = 0, slen;
		int err;

		if (*p == '\n') {
			line++;
			p++;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == '#' || *p == ';') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '[') {
			p++;
			if (!section(&p, sect, sizeof(sect)))
				goto bad;
			in_section = true;
			continue;
		}
		if (!isalpha((unsigned char)*p) || !in_section)
			goto bad;
		slen = strlen(sect);
		if (slen + 2 >= sizeof(key))
			goto bad;
		memcpy(key, sect, slen);
		key[slen] = '.';
		klen = slen + 1;
		key[klen++] = (char)tolower((unsigned char)*p++);
		for (; is_key_char((unsigned char)*p); p++) {
			if (klen + 1 >= sizeof(key))
				goto bad;
			key[klen++] = *p;
		}
		key[klen] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		/* A key without '=' is perf's bad line (its value NULL). */
		if (*p != '=')
			goto bad;
		p++;
		first = line;
		if (!value(&p, val, sizeof(val), &line))
			goto bad;
		err = put(c, key, val, file, first);
		if (err)
			return err;
	}
	return 0;
bad:
	if (!c->quiet)
		pr_warn("bad config file line %u in %s", line, name);
	return 0;
}

/* dirfd/name, if it is a regular file of root's or the effective user's,
 * parsed into c; a file of another user's is skipped with perf's warning
 * (warn false: silently; /etc is root's). perf reads $PERF_CONFIG's file
 * whoever owns it: prec, as root, does not let it choose where root
 * writes (buildid.dir). */
static int read_file(struct prec_perfconfig *c, int dirfd, const char *name,
		     const char *shown, bool warn)
{
	const char *why = NULL;
	char *buf = NULL, path[64];
	size_t cap = 0;
	struct stat st;
	ssize_t len;
	int fd = prec_file__open_regular(dirfd, name, &why), err = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || (st.st_uid && st.st_uid != geteuid())) {
		if (warn && !c->quiet)
			pr_warn("File %s not owned by current user or root, ignoring it.", shown);
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = prec_file__read_text(path, &buf, &cap, CONFIG_MAX);
	close(fd);
	/* Said, not skipped in silence: its settings would have held for
	 * perf, which reads any size. */
	if (len == -EFBIG && !c->quiet)
		pr_warn("File %s is over %u KiB, ignoring it.", shown, CONFIG_MAX >> 10);
	else if (len < 0 && len != -EFBIG && !c->quiet)
		pr_warn("File %s: %s, ignoring it.", shown, strerror((int)-len));
	else if (len > 0)
		err = prec_perfconfig__parse(c, shown, buf);
	free(buf);
	return err;
}

/* Whether a reading came before this one in the process. */
static atomic_bool read_before;

/* perf's reading of a boolean environment variable: set and true. */
static bool env_true(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return false;
	return !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") ||
	       strtol(v, NULL, 10) != 0;
}

int prec_perfconfig__read(struct prec_perfconfig *c)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME"), *why, *bad;
	char shown[4096];
	int err = 0, hfd;

	memset(c, 0, sizeof(*c));
	/* prec record reads them at its start and its end (the build-id
	 * cache's place): what is wrong with them is said once, as perf's
	 * one reading says it. */
	c->quiet = atomic_exchange(&read_before, true);
	if (only && *only) {
		err = read_file(c, AT_FDCWD, only, only, true);
		goto out;
	}
	if (!env_true("PERF_CONFIG_NOSYSTEM"))
		err = read_file(c, AT_FDCWD, "/etc/perfconfig", "/etc/perfconfig", false);
	if (err || env_true("PERF_CONFIG_NOGLOBAL") || !home || home[0] != '/')
		goto out;
	/* HOME may be another user's (sudo -E): walked by descriptor. */
	hfd = prec_path__open_dir(home, &why, &bad);
	if (hfd < 0)
		goto out;
	snprintf(shown, sizeof(shown), "%s/.perfconfig", home);
	err = read_file(c, hfd, ".perfconfig", shown, true);
	close(hfd);
out:
	if (err)
		prec_perfconfig__exit(c);
	return err;
}

const struct prec_perfconfig_item *prec_perfconfig__get(const struct prec_perfconfig *c,
							const char *key)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->items[i].key, key))
			return &c->items[i];
	return NULL;
}

void prec_perfconfig__exit(struct prec_perfconfig *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		free(c->items[i].key);
		free(c->items[i].value);
	}
	free(c->items);
	for (int i = 0; i < c->nr_files; i++)
		free(c->files[i]);
	memset(c, 0, sizeof(*c));
}
