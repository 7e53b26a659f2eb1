/* Synthetic TSC streams: readings every 26 cycles (TCG-like) with extra
 * delays injected at known reads; offsets and sizes derived by hand. */
#include "check.h"
#include "gaps.h"

#define START 1000000ull

/* t[0] = START, t[i] = t[i-1] + 26 + extra(i); feeds every pair. */
static uint64_t feed_stream(struct gaps *g, uint32_t reads,
			    const uint32_t *at, const uint64_t *extra,
			    uint32_t n_extra)
{
	uint64_t prev = START;

	for (uint32_t i = 1; i < reads; i++) {
		uint64_t now = prev + 26;

		for (uint32_t k = 0; k < n_extra; k++)
			if (at[k] == i)
				now += extra[k];
		gaps_feed(g, prev, now);
		prev = now;
	}
	return prev;
}

TEST(gaps_two_known_gaps)
{
	struct gaps g;
	const uint32_t at[] = { 100, 5000 };
	const uint64_t extra[] = { 50000, 1000000 };
	uint64_t end;

	gaps_init(&g, 25961, START);
	end = feed_stream(&g, 10000, at, extra, 2);
	gaps_finish(&g, end);
	CHECK_EQ_U64(g.reads, 9999);
	CHECK_EQ_U64(g.count, 2);
	CHECK_EQ_U64(g.max, 1000026);
	CHECK_EQ_U64(g.total, 50026 + 1000026);
	CHECK_EQ_U64(g.recorded, 2);
	/* gap 1 starts at t[99] = START + 99 * 26 */
	CHECK_EQ_U64(g.first[0].offset, 2574);
	CHECK_EQ_U64(g.first[0].size, 50026);
	/* gap 2 starts at t[4999] = START + 4999 * 26 + 50000 */
	CHECK_EQ_U64(g.first[1].offset, 179974);
	CHECK_EQ_U64(g.first[1].size, 1000026);
	/* window: 9999 * 26 + 50000 + 1000000 */
	CHECK_EQ_U64(g.window, 1309974);
	/* 1050052 / 1309974 = 801582.32 ppm */
	CHECK_EQ_U64(gaps_share_ppm(&g), 801582);
	/* 50026 in [2^15, 2^16) -> bin 16; 1000026 in [2^19, 2^20) -> 20 */
	CHECK_EQ_U64(g.hist.bins[16], 1);
	CHECK_EQ_U64(g.hist.bins[20], 1);
	CHECK_EQ_I64(log2_hist_highest(&g.hist), 20);
	CHECK_EQ_U64(g.backward, 0);
}

TEST(gaps_none)
{
	struct gaps g;
	uint64_t end;

	gaps_init(&g, 1300, START);
	end = feed_stream(&g, 1000, NULL, NULL, 0);
	gaps_finish(&g, end);
	CHECK_EQ_U64(g.count, 0);
	CHECK_EQ_U64(g.max, 0);
	CHECK_EQ_U64(g.recorded, 0);
	CHECK_EQ_U64(g.window, 999 * 26);
	CHECK_EQ_U64(gaps_share_ppm(&g), 0);
	CHECK_EQ_I64(log2_hist_highest(&g.hist), -1);
}

TEST(gaps_threshold_is_strict)
{
	struct gaps g;

	gaps_init(&g, 1000, 0);
	gaps_feed(&g, 0, 1000);		/* equal: not a gap */
	gaps_feed(&g, 1000, 2001);	/* one above: a gap */
	CHECK_EQ_U64(g.count, 1);
	CHECK_EQ_U64(g.first[0].offset, 1000);
	CHECK_EQ_U64(g.first[0].size, 1001);
}

TEST(gaps_first_n_only)
{
	struct gaps g;
	uint32_t at[20];
	uint64_t extra[20];

	/* a 100,000-cycle stall every 10 reads, 20 of them */
	for (uint32_t k = 0; k < 20; k++) {
		at[k] = 10 * (k + 1);
		extra[k] = 100000 + k;
	}
	gaps_init(&g, 25961, START);
	gaps_finish(&g, feed_stream(&g, 300, at, extra, 20));
	CHECK_EQ_U64(g.count, 20);
	CHECK_EQ_U64(g.recorded, GAPS_FIRST_N);
	/* 8th gap: read 80, after 7 earlier stalls of 100000..100006 */
	CHECK_EQ_U64(g.first[7].size, 100026 + 7);
	CHECK_EQ_U64(g.first[7].offset, 79 * 26 + 7 * 100000 + (0 + 1 + 2 + 3 + 4 + 5 + 6));
	CHECK_EQ_U64(g.max, 100026 + 19);
	/* sizes 100026..100045, sum = 20 * 100026 + 190 */
	CHECK_EQ_U64(g.total, 20 * 100026ull + 190);
	/* all in [2^16, 2^17) */
	CHECK_EQ_U64(g.hist.bins[17], 20);
}

TEST(gaps_backward_not_a_gap)
{
	struct gaps g;

	gaps_init(&g, 100, 0);
	gaps_feed(&g, 5000, 4000);
	CHECK_EQ_U64(g.backward, 1);
	CHECK_EQ_U64(g.count, 0);
	gaps_finish(&g, 0);
	CHECK_EQ_U64(g.window, 0);
}

TEST(gaps_threshold_helper)
{
	/* 2.596123456 GHz: 10 us = 25961.23 cycles -> 25961; 50 * 26 = 1300 */
	CHECK_EQ_U64(gaps_threshold(2596123456ull, 26), 25961);
	/* a slow emulated TSC read: 50 * 800 = 40000 beats 25961 */
	CHECK_EQ_U64(gaps_threshold(2596123456ull, 800), 40000);
	/* 1 GHz icount TSC: 10 us = 10000 cycles */
	CHECK_EQ_U64(gaps_threshold(1000000000ull, 3), 10000);
	CHECK_EQ_U64(gaps_threshold(0, 26), 1300);
	CHECK_EQ_U64(gaps_threshold(0, UINT64_MAX), UINT64_MAX);
}

TEST(gaps_threshold_from_the_scan_loop)
{
	/* 2.6 GHz: 10 us = 26,000 cycles; a TCG loop round of ~270 cycles
	 * stays under the floor, a trapped RDTSC of 36,000 sets 288,000. */
	CHECK_EQ_U64(gaps_threshold_for_loop(2600000000ull, 270), 26000);
	CHECK_EQ_U64(gaps_threshold_for_loop(2600000000ull, 36000), 288000);
	CHECK_EQ_U64(gaps_threshold_for_loop(0, 5), 40);
	CHECK_EQ_U64(gaps_threshold_for_loop(1, UINT64_MAX), UINT64_MAX);
}
