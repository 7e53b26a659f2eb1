/* The verdict the verdict tests judge into, and the two questions they
 * ask of it: which clocksource a kernel release picks on the inputs, and
 * whether a reasoning line says a text; and how they set a source.  Header-only, as
 * verdict_inputs_fixture.h: each test binary is one file plus check.o and
 * libpure. */
#ifndef VERDICT_PROBE_H
#define VERDICT_PROBE_H
#include <string.h>
#include "check.h"
#include "verdict.h"

static struct verdict v;

/* base judged for `kernel` ("6.1"): the clocksource it picks. */
static const char *on(const struct verdict_input *base, const char *kernel)
{
	struct verdict_input in = *base;
	CHECK(verdict_kernel_parse(kernel, strlen(kernel), &in.kernel));
	verdict_decide(&v, &in);
	CHECK_STR(v.linux_kernel, kernel);
	return v.linux_clocksource;
}

/* One source of the inputs: present or not, its read cost in ns/1000, a
 * device model's read path when present. */
static void set_source(struct verdict_input *in, enum verdict_source s, enum verdict_tri present,
		       uint64_t cost_milli)
{
	in->sources[s].present = present;
	in->sources[s].read_ns_milli = cost_milli;
	in->sources[s].read_path = present == VERDICT_YES ? VERDICT_PATH_DEVICE_MODEL : VERDICT_PATH_UNKNOWN;
}

static bool reasoning_says(const char *text)
{
	for (uint32_t i = 0; i < v.reasoning_count; i++)
		if (strstr(v.reasoning[i], text))
			return true;
	return false;
}
#endif
