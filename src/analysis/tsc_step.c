/* The TSC's step from back-to-back reads (include/tsc_step.h).
 *
 * A counter that moves in steps either repeats when read faster than it
 * steps (stalls: the median non-zero difference is the step) or, timed
 * over growing intervals, lands in clusters one step apart.  Without
 * either, the common divisor of the differences only bounds the step:
 * under QEMU -icount the TSC counts instructions, the differences are the
 * read's own instruction counts (all 12 or 14 in one boot), and their
 * divisor 2 is arithmetic, not a step.  So a divisor above 1 is reported
 * as a bound with the step null; a divisor of 1 is the step (the counter
 * moved by single ticks). */
#include "tsc_step.h"
#include "stats.h"

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Intervals of growing length (a spin between two stamps) land in tight
 * clusters one step apart when the counter moves in steps (an AMD Zen TSC
 * advances ~25-26 ticks at 100 MHz), and spread evenly when it does not. */
uint64_t tsc_step_clusters(uint64_t *v, uint32_t n, uint32_t *clusters_out)
{
	uint64_t centre[TSC_STEP_MAX_CLUSTERS], dist[TSC_STEP_MAX_CLUSTERS];
	uint32_t clusters = 0;
	stats_sort_u64(v, n);
	for (uint32_t i = 0; i < n && clusters < TSC_STEP_MAX_CLUSTERS;) {
		uint32_t j = i;
		while (j + 1 < n && v[j + 1] - v[j] < TSC_STEP_CLUSTER_GAP)
			j++;
		centre[clusters++] = v[i] + (v[j] - v[i]) / 2;
		i = j + 1;
	}
	if (clusters_out)
		*clusters_out = clusters;
	if (clusters < TSC_STEP_MIN_CLUSTERS)
		return 0;
	for (uint32_t i = 1; i < clusters; i++)
		dist[i - 1] = centre[i] - centre[i - 1];
	uint32_t nd = clusters - 1;
	stats_sort_u64(dist, nd);
	uint64_t step = stats_percentile_sorted(dist, nd, STATS_P50);
	/* Regular: most neighbours one step apart (15 %); a far outlier (a
	 * preempted sample) only adds one odd distance. */
	uint32_t regular = 0;
	for (uint32_t i = 0; i < nd; i++)
		if (dist[i] * 100 >= step * 85 && dist[i] * 100 <= step * 115)
			regular++;
	return regular * 4 >= nd * 3 ? step : 0;
}

void tsc_step_decide(struct tsc_step *out, uint64_t clustered, uint64_t *diffs, uint32_t nz)
{
	uint64_t g = 0;
	out->ticks = 0;
	out->min_nonzero = out->max_nonzero = 0;
	for (uint32_t i = 0; i < nz; i++) {
		g = gcd_u64(diffs[i], g);
		if (!out->min_nonzero || diffs[i] < out->min_nonzero)
			out->min_nonzero = diffs[i];
		if (diffs[i] > out->max_nonzero)
			out->max_nonzero = diffs[i];
	}
	out->bound_ticks = g;
	if (clustered) {
		out->ticks = clustered;
		out->method = "intervals of growing length cluster one step apart (median distance)";
	} else if (!nz) {
		out->method = "the TSC did not move";
	} else if (out->stalls >= TSC_STEP_MIN_STALLS) {
		stats_sort_u64(diffs, nz);
		out->ticks = stats_percentile_sorted(diffs, nz, STATS_P50);
		out->method = "median non-zero difference of back-to-back reads (reads repeat)";
	} else if (out->min_nonzero == out->max_nonzero) {
		out->method = "back-to-back differences all equal (deterministic clock): step not observable";
	} else if (g == 1) {
		out->ticks = 1;
		out->method = "back-to-back differences with common divisor 1: the TSC moves by single ticks";
	} else {
		out->method = "back-to-back differences all multiples of bound_ticks, no repeats, no clusters (a "
			      "deterministic clock such as QEMU -icount gives this): bound_ticks bounds the step, "
			      "step not observable";
	}
}
