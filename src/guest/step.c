/* The TSC's step as the guest sees it.  The method is the probe's
 * (baselines.tsc_step, README "Costs below the TSC's step"): intervals of
 * growing length land in tight clusters one step apart when the counter
 * advances in steps, and spread evenly when it does not.  Pure. */
#include "gparse.h"
#include "stats.h"

#define STEP_CLUSTER_GAP 8	/* ticks: wider than any jitter of one step */
#define STEP_MIN_CLUSTERS 4
#define STEP_MAX_CLUSTERS 64
#define STEP_MIN_STALLS 8

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Median distance between adjacent cluster centres, or 0 when the sorted
 * intervals do not cluster regularly (at least 3/4 of the distances within
 * 15 % of the median: one preempted sample adds only one odd distance). */
static uint64_t step_from_clusters(uint64_t *v, uint32_t n, uint32_t *clusters_out)
{
	uint64_t centre[STEP_MAX_CLUSTERS], dist[STEP_MAX_CLUSTERS];
	uint32_t clusters = 0;
	stats_sort_u64(v, n);
	for (uint32_t i = 0; i < n && clusters < STEP_MAX_CLUSTERS;) {
		uint32_t j = i;
		while (j + 1 < n && v[j + 1] - v[j] < STEP_CLUSTER_GAP)
			j++;
		centre[clusters++] = v[i] + (v[j] - v[i]) / 2;
		i = j + 1;
	}
	*clusters_out = clusters;
	if (clusters < STEP_MIN_CLUSTERS)
		return 0;
	uint32_t nd = clusters - 1;
	for (uint32_t i = 1; i < clusters; i++)
		dist[i - 1] = centre[i] - centre[i - 1];
	stats_sort_u64(dist, nd);
	uint64_t step = stats_percentile_sorted(dist, nd, STATS_P50);
	uint32_t regular = 0;
	for (uint32_t i = 0; i < nd; i++)
		if (dist[i] * 100 >= step * 85 && dist[i] * 100 <= step * 115)
			regular++;
	return regular * 4 >= nd * 3 ? step : 0;
}

void guest_step_find(struct guest_step *out, uint64_t *intervals, uint32_t ni, uint64_t *b2b, uint32_t nb)
{
	memset(out, 0, sizeof *out);
	uint64_t clustered = ni ? step_from_clusters(intervals, ni, &out->clusters) : 0;
	uint32_t nz = 0;
	uint64_t g = 0;
	bool all_equal = true;
	out->pairs = nb;
	for (uint32_t i = 0; i < nb; i++) {
		uint64_t d = b2b[i];
		if (!d) {
			out->stalls++;
			continue;
		}
		if (nz && d != b2b[0])
			all_equal = false;
		b2b[nz++] = d;	/* the non-zero ones, compacted in place */
		g = gcd_u64(d, g);
		if (!out->min_nonzero || d < out->min_nonzero)
			out->min_nonzero = d;
		out->max_nonzero = MAX(out->max_nonzero, d);
	}
	if (clustered) {
		out->ticks = clustered;
		out->method = "intervals of growing length cluster one step apart (median distance)";
	} else if (!nz) {
		out->method = nb ? "the TSC did not move" : "no TSC reads (RDTSC not usable here)";
	} else if (out->stalls >= STEP_MIN_STALLS) {
		stats_sort_u64(b2b, nz);
		out->ticks = stats_percentile_sorted(b2b, nz, STATS_P50);
		out->method = "median non-zero difference of back-to-back reads (reads repeat)";
	} else if (!all_equal) {
		out->ticks = g;
		out->method = "common divisor of back-to-back differences (no clusters, reads never repeat)";
	} else {
		out->method = "back-to-back differences all equal (deterministic clock): step not observable";
	}
}
