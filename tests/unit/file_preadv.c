// SPDX-License-Identifier: MIT
// prec_file__preadv_full(): the buffers filled in turn, short only at the
// end of the file, empty buffers skipped, offsets past the end give 0.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/test.h"
#include "util/file.h"

#define LEN 100000

int main(void)
{
	char path[] = "/tmp/prec-preadv.XXXXXX";
	static unsigned char data[LEN], a[LEN], b[LEN];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	unlink(path);
	for (size_t i = 0; i < LEN; i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	CHECK_EQ(write(fd, data, LEN), LEN);

	/* two buffers, the second past the end: a whole, b short */
	struct iovec two[2] = { { a, 30000 }, { b, LEN } };
	CHECK_EQ(prec_file__preadv_full(fd, two, 2, 5), LEN - 5);
	CHECK(!memcmp(a, data + 5, 30000));
	CHECK(!memcmp(b, data + 30005, LEN - 30005));

	/* an empty first buffer, then one that fits exactly */
	memset(b, 0, sizeof(b));
	struct iovec skip[3] = { { a, 0 }, { b, 4096 }, { a, 0 } };
	CHECK_EQ(prec_file__preadv_full(fd, skip, 3, LEN - 4096), 4096);
	CHECK(!memcmp(b, data + LEN - 4096, 4096));

	/* at and past the end; offsets that overflow with the length */
	struct iovec one = { a, 10 };
	CHECK_EQ(prec_file__preadv_full(fd, &one, 1, LEN), 0);
	CHECK_EQ(prec_file__preadv_full(fd, &one, 1, (uint64_t)LEN * 5), 0);
	CHECK_EQ(prec_file__preadv_full(fd, &one, 1, UINT64_MAX - 3), 0);
	/* too many buffers; a descriptor not open for reading */
	CHECK_EQ(prec_file__preadv_full(fd, two, 9, 0), -EINVAL);
	CHECK_EQ(prec_file__preadv_full(-1, &one, 1, 0), -EBADF);
	close(fd);
	return 0;
}
