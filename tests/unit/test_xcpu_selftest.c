/* The self-test's decision from recorded brackets: a TSC at 2.6 GHz, the
 * PM timer at 3.579545 MHz, each CPU's TSC = real time (in TSC ticks) +
 * what the write added; reads constructed as they would have come. */
#include "check.h"
#include "xcpu_selftest.h"

#define TSC_HZ 2600000000ull
#define PM_HZ 3579545ull
#define OFFSET 100000000ull

static const struct xcpu_ref_clock pm = { .hz = PM_HZ, .width_bits = 24, .tsc_hz = TSC_HZ, .tsc_ppm = 500 };

/* A bracket read at real time t (TSC ticks) with `moved` added to the TSC
 * and the reads `cost` apart. */
static struct xcpu_bracket at(uint64_t t, uint64_t moved, uint64_t cost)
{
	struct xcpu_bracket b = { .tsc_lo = t + moved, .tsc_hi = t + moved + 2 * cost };
	b.ref = (uint64_t)(((unsigned __int128)(t + cost) * PM_HZ) / TSC_HZ) & 0xffffff;
	return b;
}

TEST(selftest_honoured_write)
{
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000, OFFSET, 700);
	int64_t lo, hi;
	CHECK(xcpu_selftest_decide(&b, &a, &pm, OFFSET, &lo, &hi) == XCPU_MOVED_YES);
	CHECK(lo <= (int64_t)OFFSET && hi >= (int64_t)OFFSET);
	CHECK(hi - lo < 10000);
}

TEST(selftest_ignored_write)
{
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000, 0, 700);
	CHECK(xcpu_selftest_decide(&b, &a, &pm, OFFSET, NULL, NULL) == XCPU_MOVED_NO);
}

/* The AP is preempted across an ignored write for 1.5x the offset (~58 ms):
 * its TSC jumps by more than the offset, which the old one-sided test read
 * as honoured.  The PM timer ran through the preemption too. */
TEST(selftest_preempted_across_ignored_write_never_honoured)
{
	uint64_t stolen = OFFSET + OFFSET / 2;
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000 + stolen, 0, 700);
	enum xcpu_moved m = xcpu_selftest_decide(&b, &a, &pm, OFFSET, NULL, NULL);
	CHECK(m != XCPU_MOVED_YES);
	CHECK(m == XCPU_MOVED_NO);
	/* The old test, for contrast: the jump alone says "honoured". */
	CHECK(a.tsc_lo - b.tsc_hi >= OFFSET);
}

/* Preempted for the offset exactly, inside the bracket before the write
 * (between the reference read and the TSC read closing it): the bounds
 * straddle both answers. */
TEST(selftest_preempted_inside_bracket_undetermined)
{
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5000000 + OFFSET + 20000, 0, 700);
	b.tsc_hi += OFFSET; /* the closing read came OFFSET late */
	enum xcpu_moved m = xcpu_selftest_decide(&b, &a, &pm, OFFSET, NULL, NULL);
	CHECK(m == XCPU_MOVED_UNDETERMINED);
}

/* A preemption longer than half the 24-bit PM timer's period (2.3 s): it
 * may have wrapped, so nothing is decided. */
TEST(selftest_preempted_past_wrap_undetermined)
{
	uint64_t stolen = 3 * TSC_HZ;
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000 + stolen, 0, 700);
	CHECK(xcpu_selftest_decide(&b, &a, &pm, OFFSET, NULL, NULL) == XCPU_MOVED_UNDETERMINED);
	struct xcpu_bracket a2 = at(5020000 + stolen, OFFSET, 700);
	CHECK(xcpu_selftest_decide(&b, &a2, &pm, OFFSET, NULL, NULL) == XCPU_MOVED_UNDETERMINED);
}

/* A write honoured and then a preemption: still the offset, not more. */
TEST(selftest_preempted_across_honoured_write)
{
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000 + OFFSET / 2, OFFSET, 700);
	CHECK(xcpu_selftest_decide(&b, &a, &pm, OFFSET, NULL, NULL) == XCPU_MOVED_YES);
}

TEST(selftest_no_reference_undetermined)
{
	struct xcpu_ref_clock none = { 0 };
	struct xcpu_bracket b = at(5000000, 0, 700), a = at(5020000, OFFSET, 700);
	CHECK(xcpu_selftest_decide(&b, &a, &none, OFFSET, NULL, NULL) == XCPU_MOVED_UNDETERMINED);
	CHECK(!strcmp(xcpu_moved_name(XCPU_MOVED_UNDETERMINED), "undetermined"));
	CHECK(!strcmp(xcpu_moved_name(XCPU_MOVED_YES), "honoured"));
	CHECK(!strcmp(xcpu_moved_name(XCPU_MOVED_NO), "not_honoured"));
}
