// SPDX-License-Identifier: MIT
// --switch-output=SIZE|TIME: when the next epoch is due, counted from the
// last cut whatever made it (perf's meanings: bytes recorded, time passed).
#include "record/switch_trigger.h"

void prec_switch_trigger__init(struct prec_switch_trigger *t, uint64_t every_bytes,
			       uint64_t every_ms, uint64_t drained, uint64_t now_ns)
{
	t->every_bytes = every_bytes;
	t->every_ns = every_ms * 1000000ull;
	prec_switch_trigger__reset(t, drained, now_ns);
}

int prec_switch_trigger__timeout_ms(const struct prec_switch_trigger *t, uint64_t drained,
				    uint64_t now_ns)
{
	uint64_t at, ms;

	if (t->every_bytes && drained - t->from_bytes >= t->every_bytes)
		return 0;
	if (!t->every_ns)
		return -1;
	at = t->from_ns + t->every_ns;
	if (now_ns >= at)
		return 0;
	ms = (at - now_ns + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

uint64_t prec_switch_trigger__next_bytes(const struct prec_switch_trigger *t)
{
	return t->every_bytes ? t->from_bytes + t->every_bytes : 0;
}

bool prec_switch_trigger__due(const struct prec_switch_trigger *t, uint64_t drained,
			      uint64_t now_ns)
{
	if (t->every_bytes && drained - t->from_bytes >= t->every_bytes)
		return true;
	return t->every_ns && now_ns - t->from_ns >= t->every_ns;
}

void prec_switch_trigger__reset(struct prec_switch_trigger *t, uint64_t drained,
				uint64_t now_ns)
{
	t->from_bytes = drained;
	t->from_ns = now_ns;
}
