/* The step decision (src/analysis/tsc_step.c) on recorded differences. */
#include "check.h"
#include "tsc_step.h"

/* An -icount boot (issue 22): back-to-back differences all 12 or 14, no
 * repeats, no clusters.  The divisor 2 bounds the step; it is not one. */
TEST(tsc_step_icount_divisor_is_a_bound)
{
	uint64_t d[64];
	for (int i = 0; i < 64; i++)
		d[i] = i % 3 ? 12 : 14;
	struct tsc_step s = { .pairs = 64, .stalls = 0 };
	tsc_step_decide(&s, 0, d, 64);
	CHECK_EQ_U64(s.ticks, 0);
	CHECK_EQ_U64(s.bound_ticks, 2);
	CHECK_EQ_U64(s.min_nonzero, 12);
	CHECK_EQ_U64(s.max_nonzero, 14);
	CHECK(strstr(s.method, "not observable") != NULL);
}

/* All equal (the 17s of a shift=0 PVH boot): not observable either. */
TEST(tsc_step_all_equal)
{
	uint64_t d[16];
	for (int i = 0; i < 16; i++)
		d[i] = 17;
	struct tsc_step s = { 0 };
	tsc_step_decide(&s, 0, d, 16);
	CHECK_EQ_U64(s.ticks, 0);
	CHECK_EQ_U64(s.bound_ticks, 17);
	CHECK(strstr(s.method, "all equal") != NULL);
}

/* A divisor of 1 is the step: the TSC moved by single ticks. */
TEST(tsc_step_divisor_one)
{
	uint64_t d[] = { 20, 21, 22, 21, 20 };
	struct tsc_step s = { 0 };
	tsc_step_decide(&s, 0, d, 5);
	CHECK_EQ_U64(s.ticks, 1);
}

/* Repeats: the median non-zero difference (a q35 TCG TSC in 21s);
 * clusters win over everything. */
TEST(tsc_step_repeats_and_clusters)
{
	uint64_t d[] = { 21, 21, 42, 21, 21 };
	struct tsc_step s = { .stalls = 40 };
	tsc_step_decide(&s, 0, d, 5);
	CHECK_EQ_U64(s.ticks, 21);
	struct tsc_step c = { 0 };
	uint64_t e[] = { 12, 14 };
	tsc_step_decide(&c, 25, e, 2);
	CHECK_EQ_U64(c.ticks, 25);
	struct tsc_step z = { .stalls = 100 };
	tsc_step_decide(&z, 0, e, 0);
	CHECK_EQ_U64(z.ticks, 0);
	CHECK_STR(z.method, "the TSC did not move");
}
