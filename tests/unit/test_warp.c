/* Synthetic interleavings: each CPU's TSC = real time + that CPU's offset,
 * observations listed in lock order (increasing real time). */
#include "check.h"
#include "warp.h"

struct obs {
	uint32_t cpu;
	uint64_t real;
};

static void replay(struct warp_state *s, const struct obs *o, uint32_t n,
		   const int64_t *cpu_offset)
{
	for (uint32_t i = 0; i < n; i++)
		warp_observe(s, o[i].cpu,
			     o[i].real + (uint64_t)cpu_offset[o[i].cpu]);
}

TEST(warp_synced_cpus)
{
	static const struct obs o[] = {
		{ 0, 1000 }, { 1, 1100 }, { 2, 1150 }, { 0, 1300 },
		{ 1, 1301 }, { 1, 1400 }, { 2, 1500 }, { 0, 1600 },
	};
	const int64_t offsets[] = { 0, 0, 0 };
	struct warp_state s;

	warp_init(&s);
	replay(&s, o, ARRAY_SIZE(o), offsets);
	CHECK_EQ_U64(s.observations, 8);
	CHECK_EQ_U64(s.warps, 0);
	CHECK_EQ_U64(s.max_warp, 0);
}

TEST(warp_one_cpu_behind)
{
	/* CPU 1 runs 500 cycles behind CPU 0.  A warp appears whenever CPU 1
	 * takes the lock right after CPU 0, of size 500 - (real gap):
	 *   0@1000 -> 1000; 1@1100 -> 600   warp 400 (from CPU 0)
	 *   1@1200 -> 700   no (own previous 600)
	 *   0@1300 -> 1300; 1@1350 -> 850   warp 450
	 *   0@1400 -> 1400; 1@1800 -> 1300  warp 100
	 *   1@2000 -> 1500; 0@2010 -> 2010  no (CPU 0 ahead) */
	static const struct obs o[] = {
		{ 0, 1000 }, { 1, 1100 }, { 1, 1200 }, { 0, 1300 },
		{ 1, 1350 }, { 0, 1400 }, { 1, 1800 }, { 1, 2000 },
		{ 0, 2010 },
	};
	const int64_t offsets[] = { 0, -500 };
	struct warp_state s;

	warp_init(&s);
	replay(&s, o, ARRAY_SIZE(o), offsets);
	CHECK_EQ_U64(s.warps, 3);
	CHECK_EQ_U64(s.same_cpu_warps, 0);
	CHECK_EQ_U64(s.max_warp, 450);
	CHECK_EQ_U64(s.max_warp_cpu, 1);
	CHECK_EQ_U64(s.max_warp_from, 0);
}

TEST(warp_observe_return_and_first)
{
	struct warp_state s;

	warp_init(&s);
	CHECK(!warp_observe(&s, 3, 0));		/* first reading: nothing to compare */
	CHECK(!warp_observe(&s, 4, 0));		/* equal is not a warp */
	CHECK(warp_observe(&s, 3, UINT64_MAX) == false);
	CHECK(warp_observe(&s, 4, 0));		/* max warp of the whole range */
	CHECK_EQ_U64(s.max_warp, UINT64_MAX);
	CHECK_EQ_U64(s.max_warp_cpu, 4);
	CHECK_EQ_U64(s.max_warp_from, 3);
}

TEST(warp_same_cpu_backwards)
{
	struct warp_state s;

	warp_init(&s);
	warp_observe(&s, 2, 5000);
	CHECK(warp_observe(&s, 2, 4990));
	CHECK_EQ_U64(s.warps, 1);
	CHECK_EQ_U64(s.same_cpu_warps, 1);
	CHECK_EQ_U64(s.max_warp, 10);
}

TEST(warp_equal_readings_are_stalls)
{
	struct warp_state s;

	warp_init(&s);
	warp_observe(&s, 0, 100);		/* first: nothing to be equal to */
	CHECK(!warp_observe(&s, 1, 100));	/* a stall, not a warp */
	CHECK(!warp_observe(&s, 0, 100));
	CHECK(!warp_observe(&s, 1, 126));
	CHECK_EQ_U64(s.equal, 2);
	CHECK_EQ_U64(s.warps, 0);
	CHECK_EQ_U64(s.observations, 4);
}

TEST(warp_skew_symmetric)
{
	struct warp_skew e;

	/* AP 300 behind, 40 cycles each way: t0 = 10000, AP reads at real
	 * 10040 -> 9740, t2 = 10080: offset = 9740 - 10040 = -300 exactly */
	warp_skew_init(&e);
	CHECK(!e.valid);
	CHECK(warp_skew_add(&e, 10000, 9740, 10080));
	CHECK(e.valid);
	CHECK_EQ_I64(e.offset, -300);
	CHECK_EQ_U64(e.bound, 40);
	CHECK_EQ_U64(e.rtt, 80);
}

TEST(warp_skew_asymmetric_keeps_best)
{
	struct warp_skew e;

	warp_skew_init(&e);
	/* true offset +100; 50 out, 10 back: t0 1000, AP at real 1050 reads
	 * 1150, t2 1060; midpoint 1030 -> estimate 120, bound 30 (100 is
	 * within 120 +- 30) */
	CHECK(warp_skew_add(&e, 1000, 1150, 1060));
	CHECK_EQ_I64(e.offset, 120);
	CHECK_EQ_U64(e.bound, 30);
	/* worse round trip (200 out, 0 back): ignored */
	CHECK(warp_skew_add(&e, 5000, 5300, 5200));
	CHECK_EQ_I64(e.offset, 120);
	/* better one, 10 each way: exact */
	CHECK(warp_skew_add(&e, 9000, 9110, 9020));
	CHECK_EQ_I64(e.offset, 100);
	CHECK_EQ_U64(e.bound, 10);
	/* equal round trip does not replace the kept one */
	CHECK(warp_skew_add(&e, 20000, 20150, 20020));
	CHECK_EQ_I64(e.offset, 100);
	CHECK_EQ_U64(e.exchanges, 4);
}

TEST(warp_skew_odd_rtt_and_rejects)
{
	struct warp_skew e;

	warp_skew_init(&e);
	/* rtt 7: midpoint 0 + 3 = 3, offset 97, bound ceil(3.5) = 4 */
	CHECK(warp_skew_add(&e, 0, 100, 7));
	CHECK_EQ_I64(e.offset, 97);
	CHECK_EQ_U64(e.bound, 4);
	CHECK(!warp_skew_add(&e, 50, 60, 40));
	CHECK_EQ_U64(e.rejected, 1);
	CHECK_EQ_U64(e.exchanges, 1);
	/* near the top of the range: no overflow in the midpoint */
	warp_skew_init(&e);
	CHECK(warp_skew_add(&e, UINT64_MAX - 100, UINT64_MAX - 1000,
			    UINT64_MAX - 20));
	/* midpoint UINT64_MAX - 60; offset -940, bound 40 */
	CHECK_EQ_I64(e.offset, -940);
	CHECK_EQ_U64(e.bound, 40);
}
