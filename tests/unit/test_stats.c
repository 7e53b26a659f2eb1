/* Expected values are nearest-rank percentiles worked out by hand:
 * index = ceil(p * n) - 1 on the ascending samples. */
#include "check.h"
#include "stats.h"

static void check_ascending(const uint64_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (v[i - 1] > v[i]) {
			CHECK(v[i - 1] <= v[i]);
			return;
		}
}

TEST(stats_ten_shuffled)
{
	uint64_t v[] = { 7, 3, 10, 1, 9, 2, 8, 5, 4, 6 };
	struct dist d;

	stats_dist_compute(&d, v, 10);
	CHECK_EQ_U64(d.n, 10);
	CHECK_EQ_U64(d.min, 1);
	CHECK_EQ_U64(d.max, 10);
	CHECK_EQ_U64(d.p50, 5);   /* ceil(5.0) = 5th */
	CHECK_EQ_U64(d.p90, 9);   /* ceil(9.0) = 9th */
	CHECK_EQ_U64(d.p99, 10);  /* ceil(9.9) = 10th */
	CHECK_EQ_U64(d.p999, 10);
	CHECK_EQ_U64(d.mean, 6);  /* 55 / 10 = 5.5, halves round up */
	for (uint64_t i = 0; i < 10; i++)
		CHECK_EQ_U64(v[i], i + 1);
}

TEST(stats_zero_samples)
{
	struct dist d;

	memset(&d, 0xAA, sizeof(d));
	stats_dist_compute(&d, NULL, 0);
	CHECK_EQ_U64(d.n, 0);
	CHECK_EQ_U64(d.min, 0);
	CHECK_EQ_U64(d.max, 0);
	CHECK_EQ_U64(d.p50, 0);
	CHECK_EQ_U64(d.mean, 0);
	CHECK_EQ_U64(stats_percentile_sorted(NULL, 0, STATS_P50), 0);
}

TEST(stats_one_sample)
{
	uint64_t v[] = { 123 };
	struct dist d;

	stats_dist_compute(&d, v, 1);
	CHECK_EQ_U64(d.n, 1);
	CHECK_EQ_U64(d.min, 123);
	CHECK_EQ_U64(d.p50, 123);
	CHECK_EQ_U64(d.p999, 123);
	CHECK_EQ_U64(d.max, 123);
	CHECK_EQ_U64(d.mean, 123);
}

TEST(stats_two_samples)
{
	uint64_t v[] = { 7, 3 };
	struct dist d;

	stats_dist_compute(&d, v, 2);
	CHECK_EQ_U64(d.p50, 3);  /* ceil(1.0) = 1st */
	CHECK_EQ_U64(d.p90, 7);  /* ceil(1.8) = 2nd */
	CHECK_EQ_U64(d.mean, 5);
}

TEST(stats_n_not_divisible)
{
	uint64_t v[] = { 70, 10, 60, 20, 50, 30, 40 };
	struct dist d;

	stats_dist_compute(&d, v, 7);
	CHECK_EQ_U64(d.p50, 40); /* ceil(3.5) = 4th */
	CHECK_EQ_U64(d.p90, 70); /* ceil(6.3) = 7th */
	CHECK_EQ_U64(d.mean, 40);
}

TEST(stats_thousand_and_one)
{
	static uint64_t v[1001];
	struct dist d;

	/* 1..1001 in a scrambled order: 379 is coprime with 1001. */
	for (uint32_t i = 0; i < 1001; i++)
		v[i] = (uint64_t)((i * 379u) % 1001u) + 1;
	stats_dist_compute(&d, v, 1001);
	CHECK_EQ_U64(d.p50, 501);   /* ceil(500.5) */
	CHECK_EQ_U64(d.p90, 901);   /* ceil(900.9) */
	CHECK_EQ_U64(d.p99, 991);   /* ceil(990.99) */
	CHECK_EQ_U64(d.p999, 1000); /* ceil(999.999) */
	CHECK_EQ_U64(d.mean, 501);
	CHECK_EQ_U64(d.min, 1);
	CHECK_EQ_U64(d.max, 1001);
}

TEST(stats_thousand_exact)
{
	static uint64_t v[1000];
	struct dist d;

	for (uint32_t i = 0; i < 1000; i++)
		v[i] = 1000 - i;
	stats_dist_compute(&d, v, 1000);
	CHECK_EQ_U64(d.p50, 500);
	CHECK_EQ_U64(d.p90, 900);
	CHECK_EQ_U64(d.p99, 990);
	CHECK_EQ_U64(d.p999, 999);
	CHECK_EQ_U64(d.mean, 501); /* 500.5 rounds up */
}

TEST(stats_ties)
{
	uint64_t v[] = { 5, 5, 5, 1, 1, 9 };
	struct dist d;

	stats_dist_compute(&d, v, 6);
	CHECK_EQ_U64(d.min, 1);
	CHECK_EQ_U64(d.p50, 5);  /* 3rd of 1,1,5,5,5,9 */
	CHECK_EQ_U64(d.p90, 9);  /* ceil(5.4) = 6th */
	CHECK_EQ_U64(d.mean, 4); /* 26 / 6 = 4.33 */
}

TEST(stats_all_equal)
{
	static uint64_t v[1000];
	struct dist d;

	for (uint32_t i = 0; i < 1000; i++)
		v[i] = 42;
	stats_dist_compute(&d, v, 1000);
	CHECK_EQ_U64(d.min, 42);
	CHECK_EQ_U64(d.p50, 42);
	CHECK_EQ_U64(d.p999, 42);
	CHECK_EQ_U64(d.max, 42);
	CHECK_EQ_U64(d.mean, 42);
}

TEST(stats_mean_no_overflow)
{
	static uint64_t v[1000];
	uint64_t pair[] = { UINT64_MAX, UINT64_MAX - 1 };
	uint64_t half[] = { UINT64_MAX, 0 };

	for (uint32_t i = 0; i < 1000; i++)
		v[i] = UINT64_MAX;
	CHECK_EQ_U64(stats_mean(v, 1000), UINT64_MAX);
	/* (2^65 - 3) / 2 = 2^64 - 1.5 -> rounds up to 2^64 - 1 */
	CHECK_EQ_U64(stats_mean(pair, 2), UINT64_MAX);
	/* (2^64 - 1) / 2 = 2^63 - 0.5 -> 2^63 */
	CHECK_EQ_U64(stats_mean(half, 2), 1ull << 63);
}

TEST(stats_sort_extremes)
{
	uint64_t v[] = { UINT64_MAX, 0, 1, UINT64_MAX, 0, 1ull << 63 };
	struct dist d;

	stats_dist_compute(&d, v, 6);
	CHECK_EQ_U64(v[0], 0);
	CHECK_EQ_U64(v[1], 0);
	CHECK_EQ_U64(v[2], 1);
	CHECK_EQ_U64(v[3], 1ull << 63);
	CHECK_EQ_U64(v[4], UINT64_MAX);
	CHECK_EQ_U64(v[5], UINT64_MAX);
	CHECK_EQ_U64(d.max, UINT64_MAX);
	CHECK_EQ_U64(d.p50, 1);
}

TEST(stats_sort_million)
{
	enum { N = 1000000 };
	static uint64_t v[N];
	uint64_t x = 88172645463325252ull, sum = 0, xor = 0, after_sum = 0,
		 after_xor = 0;

	/* xorshift64 values, masked so plenty of duplicates appear. */
	for (uint32_t i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = x & 0xFFFFF;
		sum += v[i];
		xor ^= v[i] * 0x9E3779B97F4A7C15ull;
	}
	stats_sort_u64(v, N);
	check_ascending(v, N);
	for (uint32_t i = 0; i < N; i++) {
		after_sum += v[i];
		after_xor ^= v[i] * 0x9E3779B97F4A7C15ull;
	}
	CHECK_EQ_U64(after_sum, sum);
	CHECK_EQ_U64(after_xor, xor);
}

TEST(stats_subtract_harness_clamps)
{
	uint64_t v[] = { 10, 20, 30, 5, 20 };

	CHECK_EQ_U64(stats_subtract_harness(v, 5, 20), 2);
	CHECK_EQ_U64(v[0], 0);
	CHECK_EQ_U64(v[1], 0);
	CHECK_EQ_U64(v[2], 10);
	CHECK_EQ_U64(v[3], 0);
	CHECK_EQ_U64(v[4], 0);
	CHECK_EQ_U64(stats_subtract_harness(v, 5, 0), 0);
	CHECK_EQ_U64(v[2], 10);
}

TEST(stats_log2_bins)
{
	CHECK_EQ_U64(log2_hist_bin_of(0), 0);
	CHECK_EQ_U64(log2_hist_bin_of(1), 1);
	CHECK_EQ_U64(log2_hist_bin_of(2), 2);
	CHECK_EQ_U64(log2_hist_bin_of(3), 2);
	CHECK_EQ_U64(log2_hist_bin_of(4), 3);
	CHECK_EQ_U64(log2_hist_bin_of(1023), 10);
	CHECK_EQ_U64(log2_hist_bin_of(1024), 11);
	CHECK_EQ_U64(log2_hist_bin_of((1ull << 63) - 1), 63);
	CHECK_EQ_U64(log2_hist_bin_of(1ull << 63), 64);
	CHECK_EQ_U64(log2_hist_bin_of(UINT64_MAX), 64);
}

TEST(stats_log2_hist_fill)
{
	struct log2_hist h;
	uint64_t v[] = { 0, 26, 26, 27, 31, 32, 170, 5000 };

	log2_hist_init(&h);
	CHECK_EQ_I64(log2_hist_highest(&h), -1);
	log2_hist_add_all(&h, v, 8);
	CHECK_EQ_U64(h.bins[0], 1);
	CHECK_EQ_U64(h.bins[5], 4);  /* 26, 26, 27, 31 in [16, 32) */
	CHECK_EQ_U64(h.bins[6], 1);  /* 32 */
	CHECK_EQ_U64(h.bins[8], 1);  /* 170 in [128, 256) */
	CHECK_EQ_U64(h.bins[13], 1); /* 5000 in [4096, 8192) */
	CHECK_EQ_I64(log2_hist_highest(&h), 13);
	log2_hist_add(&h, UINT64_MAX);
	CHECK_EQ_I64(log2_hist_highest(&h), 64);
}

TEST(stats_log2_hist_saturates)
{
	struct log2_hist h;

	log2_hist_init(&h);
	h.bins[3] = UINT32_MAX;
	log2_hist_add(&h, 5);
	CHECK_EQ_U64(h.bins[3], UINT32_MAX);
}

TEST(stats_isqrt_exact_and_floor)
{
	CHECK_EQ_U64(stats_isqrt_u128(0), 0);
	CHECK_EQ_U64(stats_isqrt_u128(1), 1);
	CHECK_EQ_U64(stats_isqrt_u128(15), 3);
	CHECK_EQ_U64(stats_isqrt_u128(16), 4);
	CHECK_EQ_U64(stats_isqrt_u128((unsigned __int128)1 << 126), (uint64_t)1 << 63);
	unsigned __int128 top = (unsigned __int128)UINT64_MAX * UINT64_MAX;
	CHECK_EQ_U64(stats_isqrt_u128(top), UINT64_MAX);
	CHECK_EQ_U64(stats_isqrt_u128(top - 1), UINT64_MAX - 1);
}

/* Three windows of 100 samples whose differences are 1, 2 and 3 ticks:
 * the SE of their mean is sd / sqrt(3) = 1 / sqrt(3) = 0.577 ticks. */
TEST(window_se_of_three_windows)
{
	struct window_se s = { 0 };
	window_se_add(&s, 1000, 100);
	window_se_add(&s, 2000, 100);
	window_se_add(&s, 3000, 100);
	CHECK_EQ_U64(window_se_milli(&s, 2000), 577);
	/* About a wrong centre it only grows. */
	CHECK(window_se_milli(&s, 2500) > 577);
}

TEST(window_se_needs_two_windows_and_sees_drift)
{
	struct window_se s = { 0 };
	window_se_add(&s, 5000, 128);
	CHECK_EQ_U64(window_se_milli(&s, 5000), 0);
	window_se_add(&s, 5000, 128);
	CHECK_EQ_U64(window_se_milli(&s, 5000), 0); /* identical windows: exact (icount) */
	/* A cost that drifts from 5 to 7 ticks over the run: the SE says so. */
	window_se_add(&s, 7000, 128);
	window_se_add(&s, 7000, 128);
	CHECK_EQ_U64(window_se_milli(&s, 6000), 577); /* sd 1.155 / sqrt 4 */
	/* Empty windows are no windows. */
	window_se_add(&s, 1000000, 0);
	CHECK_EQ_U64(s.windows, 4);
}

/* 1..10 trimmed by one at each end: mean 5.5; winsorized {2,2,3..9,9}
 * has sum of squares 66.5, so SE = sqrt(66.5 / 9 * 10) / 8 = 1.074. */
TEST(trimmed_mean_se_by_hand)
{
	uint64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	uint64_t mean, se;
	stats_trimmed_mean_se(v, 10, 1, &mean, &se);
	CHECK_EQ_U64(mean, 5500);
	CHECK_EQ_U64(se, 1074);
	stats_trimmed_mean_se(v, 10, 5, &mean, &se);
	CHECK_EQ_U64(mean, 0);
	CHECK_EQ_U64(se, 0);
	uint64_t same[] = { 7, 7, 7, 7 };
	stats_trimmed_mean_se(same, 4, 1, &mean, &se);
	CHECK_EQ_U64(mean, 7000);
	CHECK_EQ_U64(se, 0);
}

TEST(se_precision_two_significant_digits)
{
	CHECK_EQ_U64(stats_se_decimals(0), 3);
	CHECK_EQ_U64(stats_se_decimals(50), 3);
	CHECK_EQ_U64(stats_se_decimals(280), 2);    /* 0.28 */
	CHECK_EQ_U64(stats_se_decimals(2700), 1);   /* 2.7 */
	CHECK_EQ_U64(stats_se_decimals(9949), 1);   /* 9.9 */
	CHECK_EQ_U64(stats_se_decimals(9950), 0);   /* 10 */
	CHECK_EQ_U64(stats_se_decimals(14000), 0);
	CHECK_EQ_I64(stats_round_milli(71345, 1), 713);
	CHECK_EQ_I64(stats_round_milli(71350, 1), 714);
	CHECK_EQ_I64(stats_round_milli(-71350, 1), -714);
	CHECK_EQ_I64(stats_round_milli(12500, 0), 13);
	CHECK_EQ_I64(stats_round_milli(999, 3), 999);
	CHECK_EQ_I64(stats_round_milli(1000, 2), 100);
}
