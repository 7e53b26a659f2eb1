#include "stats.h"

/* Sift v[root] down within v[0..end); heap is a max-heap so the sort
 * comes out ascending.  Each step doubles the index: at most 32 steps. */
static void sift_down(uint64_t *v, uint32_t root, uint32_t end)
{
	uint64_t value = v[root];
	uint32_t pos = root;

	for (;;) {
		uint64_t child = 2 * (uint64_t)pos + 1;

		if (child >= end)
			break;
		if (child + 1 < end && v[child + 1] > v[child])
			child++;
		if (v[child] <= value)
			break;
		v[pos] = v[child];
		pos = (uint32_t)child;
	}
	v[pos] = value;
}

void stats_sort_u64(uint64_t *v, uint32_t n)
{
	if (n < 2)
		return;
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (uint32_t end = n - 1; end > 0; end--) {
		uint64_t top = v[0];

		v[0] = v[end];
		v[end] = top;
		sift_down(v, 0, end);
	}
}

uint64_t stats_percentile_sorted(const uint64_t *sorted, uint32_t n,
				 uint32_t per_100000)
{
	if (n == 0)
		return 0;
	if (per_100000 > STATS_PER)
		per_100000 = STATS_PER;
	/* ceil(p * n) in exact integers: p * n <= 1e5 * 2^32 fits in 64 bits. */
	uint64_t rank = ((uint64_t)per_100000 * n + STATS_PER - 1) / STATS_PER;

	return sorted[rank ? rank - 1 : 0];
}

uint64_t stats_mean(const uint64_t *v, uint32_t n)
{
	unsigned __int128 sum = 0;

	if (n == 0)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		sum += v[i];
	return u128_div_u64(sum + n / 2, n);
}

void stats_dist_from_sorted(struct dist *d, const uint64_t *sorted, uint32_t n)
{
	memset(d, 0, sizeof(*d));
	if (n == 0)
		return;
	d->n = n;
	d->min = sorted[0];
	d->max = sorted[n - 1];
	d->p50 = stats_percentile_sorted(sorted, n, STATS_P50);
	d->p90 = stats_percentile_sorted(sorted, n, STATS_P90);
	d->p99 = stats_percentile_sorted(sorted, n, STATS_P99);
	d->p999 = stats_percentile_sorted(sorted, n, STATS_P999);
	d->mean = stats_mean(sorted, n);
}

void stats_dist_compute(struct dist *d, uint64_t *v, uint32_t n)
{
	stats_sort_u64(v, n);
	stats_dist_from_sorted(d, v, n);
}

uint32_t stats_subtract_harness(uint64_t *v, uint32_t n, uint64_t harness)
{
	uint32_t below = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < harness)
			below++;
		v[i] = v[i] > harness ? v[i] - harness : 0;
	}
	return below;
}

void log2_hist_init(struct log2_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned log2_hist_bin_of(uint64_t value)
{
	if (value == 0)
		return 0;
	return 64 - (unsigned)__builtin_clzll(value);
}

void log2_hist_add(struct log2_hist *h, uint64_t value)
{
	uint32_t *bin = &h->bins[log2_hist_bin_of(value)];

	if (*bin != UINT32_MAX)
		(*bin)++;
}

void log2_hist_add_all(struct log2_hist *h, const uint64_t *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		log2_hist_add(h, v[i]);
}

int log2_hist_highest(const struct log2_hist *h)
{
	for (int k = LOG2_HIST_BINS - 1; k >= 0; k--)
		if (h->bins[k])
			return k;
	return -1;
}
