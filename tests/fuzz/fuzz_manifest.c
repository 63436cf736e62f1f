// SPDX-License-Identifier: MIT
// Fuzz target: the manifest decoder, the encoder on whatever it accepts
// (decode -> encode -> decode -> encode must give the same bytes twice),
// and the JSON printer. Byte 0 bit 0 picks raw bytes or bytes whose header
// (magic, version, size, total length, checksum) is made right first, so
// the fuzzer gets past the checksum into the sections.
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		__builtin_trap();
	return f;
}

static void roundtrip(const struct prec_manifest *m)
{
	struct prec_manifest *m2;
	void *e1, *e2;
	size_t l1, l2;
	const char *why;

	if (prec_manifest__encode(m, &e1, &l1))
		__builtin_trap(); /* whatever decode accepts must encode */
	if (prec_manifest__decode(&m2, e1, l1, &why))
		__builtin_trap(); /* and our own encoding must decode */
	if (prec_manifest__encode(m2, &e2, &l2))
		__builtin_trap();
	if (l1 != l2 || memcmp(e1, e2, l1))
		__builtin_trap();
	if (prec_manifest__print_json(m2, devnull()))
		__builtin_trap();
	prec_manifest__delete(m2);
	free(e1);
	free(e2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prec_manifest *m;
	const char *why = NULL;
	uint8_t *buf = NULL;
	unsigned int ctl;
	size_t len;
	int r;

	fz_quiet();
	if (!size)
		return 0;
	ctl = data[0];
	if (ctl & 1) {
		buf = fz_manifest_fixup(data + 1, size - 1, ctl, &len);
		r = prec_manifest__decode(&m, buf, len, &why);
	} else {
		r = prec_manifest__decode(&m, data + 1, size - 1, &why);
	}
	if (r == 0) {
		if (why || prec_manifest__print_json(m, devnull()))
			__builtin_trap();
		roundtrip(m);
		prec_manifest__delete(m);
	} else if (m || !why || (r != -EBADMSG && r != -EPROTONOSUPPORT && r != -ENOMEM)) {
		__builtin_trap(); /* failures leave no object and say why */
	}
	free(buf);
	return 0;
}
