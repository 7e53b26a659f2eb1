/* Busy-wait caps from the measured cost of one spin (src/lib/spincap.c):
 * the per-spin figure rounds up, an unknown cost falls back to 1 tick a
 * spin, caps keep the margin and the floor and saturate. */
#include "check.h"
#include "spincap.h"

TEST(spin_cycles_rounds_up)
{
	/* 256 spins in 10240 ticks: exactly 40. */
	CHECK_EQ_U64(spin_cycles_per_iteration(10240, 256), 40);
	/* 10241 / 256 = 40.004 -> 41: never under the real cost. */
	CHECK_EQ_U64(spin_cycles_per_iteration(10241, 256), 41);
	/* Fewer ticks than spins (a coarse TSC) is still at least 1. */
	CHECK_EQ_U64(spin_cycles_per_iteration(3, 256), 1);
	/* Huge tick counts do not overflow the rounding. */
	CHECK_EQ_U64(spin_cycles_per_iteration(UINT64_MAX, 2), UINT64_MAX / 2 + 1);
	CHECK_EQ_U64(spin_cycles_per_iteration(UINT64_MAX, 1), UINT64_MAX);
}

TEST(spin_cycles_unknown)
{
	/* A TSC that did not move over the timing: unknown, not 0 ticks. */
	CHECK_EQ_U64(spin_cycles_per_iteration(0, 65536), 0);
	CHECK_EQ_U64(spin_cycles_per_iteration(1000, 0), 0);
}

TEST(spin_measure_grows_then_stops)
{
	CHECK_EQ_U64(spin_measure_next(0, 0), SPIN_MEASURE_FIRST);
	/* 256 spins in 10000 ticks: short of 80000, doubled. */
	CHECK_EQ_U64(spin_measure_next(256, 10000), 512);
	CHECK_EQ_U64(spin_measure_next(4096, SPIN_MEASURE_TARGET_TICKS - 1), 8192);
	/* Long enough. */
	CHECK_EQ_U64(spin_measure_next(256, SPIN_MEASURE_TARGET_TICKS), 0);
	CHECK_EQ_U64(spin_measure_next(256, 8000000), 0);
	/* A frozen TSC grows to the bound and stops there. */
	CHECK_EQ_U64(spin_measure_next(SPIN_MEASURE_MAX / 2, 0), SPIN_MEASURE_MAX);
	CHECK_EQ_U64(spin_measure_next(SPIN_MEASURE_MAX, 0), 0);
	CHECK_EQ_U64(spin_measure_next(SPIN_MEASURE_MAX / 2 + 1, 0), SPIN_MEASURE_MAX);
	uint32_t n = SPIN_MEASURE_FIRST, steps = 0;
	uint64_t total = 0;
	while (n) {
		total += n;
		n = spin_measure_next(n, 0);
		steps++;
	}
	/* 256 .. 65536: 9 timings, under 2^17 spins in all. */
	CHECK_EQ_U64(steps, 9);
	CHECK(total < 2 * SPIN_MEASURE_MAX);
}

TEST(spin_cap_normal)
{
	/* 10 ms at 4 GHz = 4e7 ticks, 40 ticks a spin: 1e6 spins, x4. */
	CHECK_EQ_U64(spin_cap(40000000, 40), 4000000);
	/* A nested hypervisor: 8 us a spin = 32000 ticks; 1 s = 4e9 ticks
	 * allows 125000 spins, x4 = 500000 (4 s of spinning, not hours). */
	CHECK_EQ_U64(spin_cap(4000000000ull, 32000), 500000);
	/* Budget not a multiple of the cost: rounded down before the margin. */
	CHECK_EQ_U64(spin_cap(40000039, 40), 4000000);
}

TEST(spin_cap_unknown_is_one_tick)
{
	/* Unknown cost: 1 tick a spin, the budget x4. */
	CHECK_EQ_U64(spin_cap(40000000, 0), 160000000);
	CHECK_EQ_U64(spin_cap(40000000, 0), spin_cap(40000000, 1));
}

TEST(spin_cap_floor)
{
	CHECK_EQ_U64(spin_cap(0, 40), SPIN_CAP_FLOOR);
	CHECK_EQ_U64(spin_cap(0, 0), SPIN_CAP_FLOOR);
	CHECK_EQ_U64(spin_cap(1000, 40), SPIN_CAP_FLOOR);     /* 25 x 4 = 100 */
	CHECK_EQ_U64(spin_cap(10000, 40), SPIN_CAP_FLOOR);    /* exactly 1000 */
	CHECK_EQ_U64(spin_cap(10040, 40), 1004);
	/* A cost larger than the budget. */
	CHECK_EQ_U64(spin_cap(5, UINT64_MAX), SPIN_CAP_FLOOR);
}

TEST(spin_cap_saturates)
{
	/* budget x4 would overflow: saturate, never wrap to a small cap. */
	CHECK_EQ_U64(spin_cap(UINT64_MAX, 0), UINT64_MAX);
	CHECK_EQ_U64(spin_cap(UINT64_MAX, 1), UINT64_MAX);
	CHECK_EQ_U64(spin_cap(UINT64_MAX / 4 + 1, 1), UINT64_MAX);
	CHECK_EQ_U64(spin_cap(UINT64_MAX / 4, 1), (UINT64_MAX / 4) * 4);
	/* Huge but finite: a week's watch at 4 GHz (2.4e15 ticks), 40 a spin. */
	CHECK_EQ_U64(spin_cap(604800ull * 4000000000ull, 40), 604800ull * 4000000000ull / 40 * 4);
	CHECK_EQ_U64(spin_cap(UINT64_MAX, 2), UINT64_MAX); /* (2^64-1)/2 x 4 overflows */
	CHECK_EQ_U64(spin_cap(UINT64_MAX, 8), UINT64_MAX / 8 * 4);
}

TEST(spin_cap_reads_bounds)
{
	/* A 1 s window at 4 GHz, 25 ticks a round: 4e9 / 25 x 4 = 6.4e8,
	 * under the old 4e9 / 4 + 2 = 1e9 + 2. */
	CHECK_EQ_U64(spin_cap_reads(4000000000ull, 25), 640000000);
	/* Unknown cost (0), or a round cheaper than 16 ticks: the old bound. */
	CHECK_EQ_U64(spin_cap_reads(4000000000ull, 0), 1000000002);
	CHECK_EQ_U64(spin_cap_reads(4000000000ull, 4), 1000000002);
	CHECK_EQ_U64(spin_cap_reads(4000000000ull, 16), 1000000000);
	/* A slow emulated round (8 us = 32000 ticks): 500000 rounds, not 1e9. */
	CHECK_EQ_U64(spin_cap_reads(4000000000ull, 32000), 500000);
	/* Tiny windows: the old bound (below the spin floor) wins. */
	CHECK_EQ_U64(spin_cap_reads(0, 25), 2);
	CHECK_EQ_U64(spin_cap_reads(400, 25), 102);
	/* No overflow at the top. */
	CHECK_EQ_U64(spin_cap_reads(UINT64_MAX, 0), UINT64_MAX / 4 + 2);
}
