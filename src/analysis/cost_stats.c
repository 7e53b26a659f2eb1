/* The read-cost engine's statistics (include/cost_stats.h): everything
 * here is arithmetic on samples already taken, so the same figures come
 * out on the host from recorded or constructed samples. */
#include "cost_stats.h"

/* How many batches (or batch pairs) each end of a sorted list loses
 * before a mean: a tenth, and at least one once there are three, so one
 * batch a preempted vCPU stretched never moves the mean. */
uint32_t cost_batch_cut(uint32_t n)
{
	return n < 3 ? 0 : MAX(1u, n / 10);
}

uint64_t cost_window_median(const uint64_t *v, uint32_t n)
{
	uint64_t copy[MEASURE_WINDOW_SAMPLES];
	n = MIN(n, (uint32_t)MEASURE_WINDOW_SAMPLES);
	memcpy(copy, v, n * sizeof *v);
	stats_sort_u64(copy, n);
	return stats_percentile_sorted(copy, n, STATS_P50);
}

uint64_t cost_outlier_excess(uint64_t h_med, uint64_t op_med)
{
	return OUTLIER_EXCESS_FACTOR * MAX(h_med, op_med) + 64;
}

/* Adds the samples at or under the cutoff to a trimmed sum (every one to
 * the untrimmed sum); returns the window's trimmed mean x1000, 0 when all
 * were trimmed. */
static int64_t add_trimmed(unsigned __int128 *sum, uint32_t *n, uint32_t *trimmed, unsigned __int128 *all,
			   const uint64_t *v, uint32_t k, uint64_t cutoff)
{
	unsigned __int128 wsum = 0;
	uint32_t wn = 0;
	for (uint32_t i = 0; i < k; i++) {
		*all += v[i];
		if (v[i] <= cutoff) {
			wsum += v[i];
			wn++;
		} else {
			(*trimmed)++;
		}
	}
	*sum += wsum;
	*n += wn;
	return wn ? (int64_t)u128_div_u64(wsum * 1000 + wn / 2, wn) : 0;
}

/* One window pair into the means: each side trimmed at its own median
 * plus the common excess; returns the window's difference x1000. */
int64_t cost_add_pair(struct trimmed_means *m, const uint64_t *op_v, uint32_t op_k, const uint64_t *h_v,
		      uint32_t h_k)
{
	uint64_t h_med = cost_window_median(h_v, h_k), op_med = cost_window_median(op_v, op_k);
	uint64_t excess = cost_outlier_excess(h_med, op_med);
	int64_t h_mean = add_trimmed(&m->harness, &m->harness_n, &m->trimmed, &m->harness_all, h_v, h_k, h_med + excess);
	int64_t op_mean = add_trimmed(&m->op, &m->op_n, &m->trimmed, &m->op_all, op_v, op_k, op_med + excess);
	m->all_n += MIN(op_k, h_k);
	int64_t d = op_mean - h_mean;
	window_se_add(&m->se, d, MIN(op_k, h_k));
	return d;
}

/* Pooled trimmed difference of means x1000 (unclamped) and its SE. */
bool cost_pooled(const struct trimmed_means *m, int64_t *milli, uint64_t *se_milli, int64_t *untrimmed_milli)
{
	if (m->op_n < ESTIMATE_MIN_SAMPLES || m->harness_n < ESTIMATE_MIN_SAMPLES)
		return false;
	int64_t op = (int64_t)u128_div_u64(m->op * 1000 + m->op_n / 2, m->op_n);
	int64_t h = (int64_t)u128_div_u64(m->harness * 1000 + m->harness_n / 2, m->harness_n);
	*milli = op - h;
	*se_milli = window_se_milli(&m->se, op - h);
	if (untrimmed_milli && m->all_n) {
		int64_t oa = (int64_t)u128_div_u64(m->op_all * 1000 + m->all_n / 2, m->all_n);
		int64_t ha = (int64_t)u128_div_u64(m->harness_all * 1000 + m->all_n / 2, m->all_n);
		*untrimmed_milli = oa - ha;
	}
	return true;
}

uint64_t cost_biased(int64_t milli)
{
	if (milli >= DIFF_BIAS)
		milli = DIFF_BIAS - 1;
	if (milli <= -DIFF_BIAS)
		milli = -DIFF_BIAS + 1;
	return (uint64_t)(milli + DIFF_BIAS);
}

/* The plain mean (x1000) and its SE of n biased differences, sorted here.
 * Not trimmed: each pair's turns were trimmed already, as the estimate's
 * are, and the estimate pools every window pair untrimmed; a tenth cut
 * off each end of right-skewed pair differences put the check 1-2 ticks
 * under the estimate in most boots (z 2-3 on the tsc and HPET rows). */
int64_t cost_biased_mean(uint64_t *v, uint32_t n, uint64_t *se_milli)
{
	uint64_t m, se;
	stats_sort_u64(v, n);
	stats_trimmed_mean_se(v, n, 0, &m, &se);
	*se_milli = (se + 500) / 1000;
	return (int64_t)((m + 500) / 1000) - DIFF_BIAS;
}

/* One window pair into the estimate's sums and the op's tallies; returns
 * the pair's difference of whole turns x1000.  A held-out pair (the
 * check) runs the same statistics into sums and tallies of its own, so
 * whatever follows it follows the same work. */
int64_t cost_pair_window(struct op_cost *out, struct estimate_sums *e, const struct window_pair *w)
{
	uint32_t k = MIN(w->op_got, w->h_got);
	uint64_t h_med = cost_window_median(w->h_v, k);
	if (!out->windows || h_med < out->harness_window_p50_min)
		out->harness_window_p50_min = h_med;
	if (h_med > out->harness_window_p50_max)
		out->harness_window_p50_max = h_med;
	out->windows++;
	int64_t d = cost_add_pair(&e->turns, w->op_c, k, w->h_c, k);
	cost_add_pair(&e->stamped, w->op_v, k, w->h_v, k);
	for (uint32_t i = 0; i < k; i++)
		out->at_harness += w->op_v[i] == h_med;
	out->below_harness += stats_subtract_harness(w->op_v, k, h_med);
	return d;
}

/* The pairs sorted by their difference, each op batch moving with its
 * pair (at most MEASURE_MAX_BATCH_PAIRS: insertion sort is enough). */
static void sort_pairs(struct batch_log *b)
{
	for (uint32_t i = 1; i < b->n; i++) {
		uint64_t d = b->diff[i], o = b->op[i];
		uint32_t j = i;
		for (; j > 0 && b->diff[j - 1] > d; j--) {
			b->diff[j] = b->diff[j - 1];
			b->op[j] = b->op[j - 1];
		}
		b->diff[j] = d;
		b->op[j] = o;
	}
}

/* Net: the mean of the pairs' differences with the highest and lowest
 * tenth left out, the same kind of figure as the per-call estimate, with
 * its standard error.  Raw: the mean of the op batches of the same pairs,
 * so raw and net are one kind of figure over one set of batches (a
 * median raw against a trimmed-mean net put PIT's net 397 above its raw
 * 362).  A pair's difference never exceeds its op batch, so net <= raw. */
void cost_batch_figures(struct op_cost *out, struct batch_log *b)
{
	if (!b->n)
		return;
	sort_pairs(b);
	uint32_t cut = cost_batch_cut(b->n), kept = b->n - 2 * cut;
	uint64_t net_milli, net_se_milli;
	stats_trimmed_mean_se(b->diff, b->n, cut, &net_milli, &net_se_milli);
	out->throughput_net_milli = net_milli / b->reads;
	out->throughput_net_se_milli = (net_se_milli + b->reads / 2) / b->reads;
	unsigned __int128 sum = 0;
	for (uint32_t i = cut; i < b->n - cut; i++)
		sum += b->op[i];
	out->throughput_milli = u128_div_u64(sum * 1000 + (uint64_t)b->reads * kept / 2, (uint64_t)b->reads * kept);
	/* The raw mean's SE: of the same kept op batches, nothing more cut
	 * (with no cut the order does not matter; one batch a preempted vCPU
	 * stretched shows here, as it moves the mean). */
	uint64_t raw_mean_milli, raw_se_milli;
	stats_trimmed_mean_se(b->op + cut, kept, 0, &raw_mean_milli, &raw_se_milli);
	out->throughput_se_milli = (raw_se_milli + b->reads / 2) / b->reads;
	out->batch_pairs = b->n;
	out->batch_pairs_trimmed = 2 * cut;
	if (b->calls_n) {
		int64_t m = cost_biased_mean(b->calls_diff, b->calls_n, &out->estimate_batch_se_milli);
		out->estimate_batch_milli = m > 0 ? (uint64_t)m : 0;
		out->estimate_batch_pairs = b->calls_n;
	}
}

/* A held-out pair: the same statistics as a window's, into sums and
 * tallies of its own, its difference of whole turns into the check. */
void cost_hold_out(struct batch_log *b, const struct window_pair *w)
{
	struct estimate_sums own = { 0 };
	struct op_cost tally = { 0 };
	if (b->calls_n < MEASURE_MAX_BATCH_PAIRS)
		b->calls_diff[b->calls_n++] = cost_biased(cost_pair_window(&tally, &own, w));
}

void cost_fill_estimate(struct op_cost *out, const struct estimate_sums *e, uint64_t step_ticks)
{
	int64_t m, untrimmed = 0;
	uint64_t se;
	out->estimate_trimmed = e->turns.trimmed;
	if (cost_pooled(&e->stamped, &m, &se, NULL)) {
		out->stamped_milli = m > 0 ? m : 0;
		out->stamped_se_milli = se;
	}
	if (cost_pooled(&e->turns, &m, &se, &untrimmed)) {
		out->estimate_milli = m > 0 ? m : 0;
		out->estimate_signed_milli = m;
		out->estimate_clamped = m < 0;
		out->estimate_se_milli = se; /* taken about the unclamped difference */
		out->estimate_se_known = e->turns.se.windows >= 2;
		out->estimate_untrimmed_milli = untrimmed > 0 ? untrimmed : 0;
		out->estimate_method = "interleaved_turns";
	} else {
		out->estimate_milli = (int64_t)out->throughput_net_milli;
		out->estimate_signed_milli = out->estimate_milli;
		out->estimate_se_milli = out->throughput_net_se_milli;
		out->estimate_se_known = out->batch_pairs >= 2;
		out->estimate_method = "batch_net";
	}
	/* Under two steps the per-sample figures are mostly quantization: a
	 * p50 of 0 or one step says nothing about the read. */
	out->step_ticks = step_ticks;
	out->below_resolution = out->cycles.n == 0 || out->cycles.p50 == 0 ||
				(step_ticks && (uint64_t)out->estimate_milli < 2 * step_ticks * 1000);
}

void cost_note_harness_windows(struct harness_totals *t, const struct op_cost *c)
{
	if (!t || !c->windows)
		return;
	if (!t->windows || c->harness_window_p50_min < t->window_p50_min)
		t->window_p50_min = c->harness_window_p50_min;
	if (c->harness_window_p50_max > t->window_p50_max)
		t->window_p50_max = c->harness_window_p50_max;
	t->windows += c->windows;
}
