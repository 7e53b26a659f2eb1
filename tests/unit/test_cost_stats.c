/* The read-cost engine's statistics (src/analysis/cost_stats.c) on
 * constructed windows and batches whose figures can be worked by hand. */
#include "check.h"
#include "cost_stats.h"

TEST(cost_batch_cut_a_tenth_and_one_from_three)
{
	CHECK_EQ_U64(cost_batch_cut(0), 0);
	CHECK_EQ_U64(cost_batch_cut(2), 0);
	CHECK_EQ_U64(cost_batch_cut(3), 1);
	CHECK_EQ_U64(cost_batch_cut(19), 1);
	CHECK_EQ_U64(cost_batch_cut(20), 2);
	CHECK_EQ_U64(cost_batch_cut(256), 25);
}

TEST(cost_window_median_leaves_the_window_alone)
{
	uint64_t v[] = { 50, 10, 30, 40, 20 };
	CHECK_EQ_U64(cost_window_median(v, 5), 30);
	CHECK_EQ_U64(v[0], 50);
	CHECK_EQ_U64(v[4], 20);
}

TEST(cost_outlier_excess_seven_times_the_larger_median)
{
	CHECK_EQ_U64(cost_outlier_excess(10, 20), 7 * 20 + 64);
	CHECK_EQ_U64(cost_outlier_excess(30, 20), 7 * 30 + 64);
}

/* A vCPU that did not run: the 1000-tick sample is cut from the op side,
 * counted in the untrimmed sum, and the window's difference is 10 ticks. */
TEST(cost_add_pair_cuts_a_hiccup)
{
	uint64_t op[] = { 20, 20, 1000, 20, 20 }, h[] = { 10, 10, 10, 10, 10 };
	struct trimmed_means m = { 0 };
	CHECK_EQ_I64(cost_add_pair(&m, op, 5, h, 5), 10000);
	CHECK_EQ_U64(m.trimmed, 1);
	CHECK_EQ_U64(m.op_n, 4);
	CHECK_EQ_U64(m.harness_n, 5);
	CHECK_EQ_U64(m.all_n, 5);
	CHECK_EQ_U64((uint64_t)m.op_all, 1080);
	CHECK_EQ_U64((uint64_t)m.harness_all, 50);
}

/* Pooled only from ESTIMATE_MIN_SAMPLES on each side; every window the
 * same difference: no spread, so no standard error. */
TEST(cost_pooled_needs_enough_samples)
{
	uint64_t op[] = { 25, 25, 25, 25, 25 }, h[] = { 12, 12, 12, 12, 12 };
	struct trimmed_means m = { 0 };
	int64_t milli = -1, untrimmed = -1;
	uint64_t se = 99;
	for (int w = 0; w < 12; w++)
		cost_add_pair(&m, op, 5, h, 5);
	CHECK(!cost_pooled(&m, &milli, &se, &untrimmed)); /* 60 < 64 */
	cost_add_pair(&m, op, 5, h, 5);
	CHECK(cost_pooled(&m, &milli, &se, &untrimmed));
	CHECK_EQ_I64(milli, 13000);
	CHECK_EQ_U64(se, 0);
	CHECK_EQ_I64(untrimmed, 13000);
}

TEST(cost_biased_offsets_and_clamps)
{
	CHECK_EQ_U64(cost_biased(-5), (uint64_t)(DIFF_BIAS - 5));
	CHECK_EQ_U64(cost_biased(DIFF_BIAS + 7), (uint64_t)(2 * DIFF_BIAS - 1));
	CHECK_EQ_U64(cost_biased(-DIFF_BIAS - 7), 1);
}

/* The check's plain mean: negative differences survive the bias. */
TEST(cost_biased_mean_signed)
{
	uint64_t v[] = { cost_biased(3000), cost_biased(-1000), cost_biased(1000) };
	uint64_t se = 0;
	CHECK_EQ_I64(cost_biased_mean(v, 3, &se), 1000);
	CHECK(se > 0);
}

/* Ten batch pairs of 2 reads, differences 10..100 shuffled, each op
 * batch 50 above its harness: one pair cut from each end, net 55 / 2
 * reads, raw (70+..+140) / 16 reads, each op batch moving with its pair. */
TEST(cost_batch_figures_trimmed_pairs)
{
	static struct batch_log b;
	static const uint64_t diff[] = { 40, 100, 10, 70, 20, 90, 30, 60, 80, 50 };
	memset(&b, 0, sizeof b);
	b.reads = 2;
	for (uint32_t i = 0; i < 10; i++) {
		b.diff[i] = diff[i];
		b.op[i] = diff[i] + 50;
	}
	b.n = 10;
	struct op_cost out = { 0 };
	cost_batch_figures(&out, &b);
	CHECK_EQ_U64(out.throughput_net_milli, 27500);
	CHECK_EQ_U64(out.throughput_milli, 52500);
	CHECK_EQ_U64(out.batch_pairs, 10);
	CHECK_EQ_U64(out.batch_pairs_trimmed, 2);
	CHECK_EQ_U64(out.estimate_batch_pairs, 0);
	for (uint32_t i = 0; i < 10; i++)
		CHECK_EQ_U64(b.op[i], b.diff[i] + 50);
	CHECK_EQ_U64(b.diff[0], 10);
	CHECK_EQ_U64(b.diff[9], 100);
}

/* A window pair: harness medians tallied, the op's samples at and below
 * the harness median counted, the whole turns' difference returned. */
TEST(cost_pair_window_tallies)
{
	uint64_t op_v[] = { 30, 10, 30, 30, 30 }, h_v[] = { 10, 10, 10, 12, 10 };
	uint64_t op_c[] = { 40, 40, 40, 40, 40 }, h_c[] = { 15, 15, 15, 15, 15 };
	struct window_pair w = { op_v, h_v, op_c, h_c, 5, 5 };
	struct estimate_sums e = { 0 };
	struct op_cost out = { 0 };
	CHECK_EQ_I64(cost_pair_window(&out, &e, &w), 25000);
	CHECK_EQ_U64(out.windows, 1);
	CHECK_EQ_U64(out.harness_window_p50_min, 10);
	CHECK_EQ_U64(out.harness_window_p50_max, 10);
	CHECK_EQ_U64(out.at_harness, 1);
	CHECK_EQ_U64(e.turns.op_n, 5);
	CHECK_EQ_U64(e.stamped.op_n, 5);
}

/* Too few samples for the interleaved estimate: the batch net stands in;
 * with no samples at all it is below resolution. */
TEST(cost_fill_estimate_falls_back_to_batch_net)
{
	struct estimate_sums e = { 0 };
	struct op_cost out = { 0 };
	out.throughput_net_milli = 4200;
	out.throughput_net_se_milli = 30;
	cost_fill_estimate(&out, &e, 0);
	CHECK_EQ_I64(out.estimate_milli, 4200);
	CHECK_EQ_U64(out.estimate_se_milli, 30);
	CHECK_STR(out.estimate_method, "batch_net");
	CHECK(out.below_resolution);
}

/* Four windows that agree exactly (TCG's quantized reads did): an SE of 0
 * that is known, not a missing one; with one window it is unknown. */
TEST(cost_fill_estimate_a_zero_se_from_windows_is_known)
{
	struct estimate_sums e = { 0 };
	struct op_cost out = { 0 };
	e.turns.op = 300 * 256;
	e.turns.op_n = 256;
	e.turns.harness = 147 * 256;
	e.turns.harness_n = 256;
	for (int w = 0; w < 4; w++)
		window_se_add(&e.turns.se, 153000, 64);
	cost_fill_estimate(&out, &e, 0);
	CHECK_EQ_I64(out.estimate_milli, 153000);
	CHECK_EQ_U64(out.estimate_se_milli, 0);
	CHECK(out.estimate_se_known);
	memset(&e.turns.se, 0, sizeof e.turns.se);
	window_se_add(&e.turns.se, 153000, 256);
	memset(&out, 0, sizeof out);
	cost_fill_estimate(&out, &e, 0);
	CHECK(!out.estimate_se_known);
}

TEST(cost_note_harness_windows_spread)
{
	struct harness_totals t = { 0 };
	struct op_cost a = { 0 }, b = { 0 };
	a.windows = 3;
	a.harness_window_p50_min = 12;
	a.harness_window_p50_max = 15;
	b.windows = 2;
	b.harness_window_p50_min = 10;
	b.harness_window_p50_max = 14;
	cost_note_harness_windows(NULL, &a);
	cost_note_harness_windows(&t, &a);
	cost_note_harness_windows(&t, &b);
	CHECK_EQ_U64(t.windows, 5);
	CHECK_EQ_U64(t.window_p50_min, 10);
	CHECK_EQ_U64(t.window_p50_max, 15);
}
