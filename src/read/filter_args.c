// SPDX-License-Identifier: MIT
// --time START,END and --cpu LIST for prec merge and prec dump.
#include "read/filter_args.h"
#include "util/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEC (UINT64_MAX / 1000000000ull) /* 18446744073 */

/* "12.345678901" seconds -> ns, exactly; empty -> 0 (no bound). Digits
 * past the ninth decimal are read and dropped. A value whose nanoseconds do
 * not fit in 64 bits (past 18446744073.709551615) is -EINVAL: a wrapped
 * bound would silently keep or drop everything. */
static int parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ull;
	size_t i = 0;

	*ns = 0;
	if (!len)
		return 0;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		sec = sec * 10 + (uint64_t)(s[i] - '0');
		/* checked after each digit, so sec * 10 + 9 never wraps */
		if (sec > MAX_SEC)
			return -EINVAL;
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
	if (i != len || (len == 1 && s[0] == '.'))
		return -EINVAL;
	if (sec * 1000000000ull > UINT64_MAX - frac)
		return -EINVAL;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

int prec_filter__parse_time(const char *arg, uint64_t *start_ns, uint64_t *end_ns)
{
	const char *comma = strchr(arg, ',');

	if (!comma || parse_seconds(arg, (size_t)(comma - arg), start_ns) < 0 ||
	    parse_seconds(comma + 1, strlen(comma + 1), end_ns) < 0)
		return -EINVAL;
	if (*end_ns && *start_ns > *end_ns)
		return -ERANGE;
	return 0;
}

int prec_filter__parse_cpus(const char *arg, bool **cpus, int *nr)
{
	int *list = NULL, n = prec_cpu_list__parse(arg, &list);

	free(*cpus);
	*cpus = NULL;
	*nr = 0;
	if (n < 0)
		return n;
	*cpus = calloc(PREC_FILTER_MAX_CPUS, sizeof(**cpus));
	if (!*cpus) {
		free(list);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		(*cpus)[list[i]] = true;
	*nr = list[n - 1] + 1;
	free(list);
	return 0;
}
