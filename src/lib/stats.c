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

/* 128-bit quotient of a 128-bit by a 64-bit divisor (d > 0), without
 * libgcc's __udivti3: sums of squares outgrow u128_div_u64's 64-bit
 * quotient. */
static unsigned __int128 div_wide(unsigned __int128 n, uint64_t d)
{
	unsigned __int128 rem = 0, q = 0;
	for (int bit = 127; bit >= 0; bit--) {
		rem = (rem << 1) | (uint64_t)((n >> bit) & 1);
		q <<= 1;
		if (rem >= d) {
			rem -= d;
			q |= 1;
		}
	}
	return q;
}

uint64_t stats_isqrt_u128(unsigned __int128 v)
{
	/* Bit by bit from the top: 64 rounds, no division, no float. */
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;
	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)r;
}

/* |d| beyond 2^40 milli-ticks (a billion ticks per sample) is no read cost;
 * clamping keeps every sum below exact in 128 bits. */
#define WINDOW_SE_D_MAX ((int64_t)1 << 40)

void window_se_add(struct window_se *s, int64_t d_milli, uint32_t n)
{
	if (!n)
		return;
	if (d_milli > WINDOW_SE_D_MAX)
		d_milli = WINDOW_SE_D_MAX;
	if (d_milli < -WINDOW_SE_D_MAX)
		d_milli = -WINDOW_SE_D_MAX;
	__int128 n2 = (__int128)n * n;
	s->windows++;
	s->sum_n += n;
	s->sum_n2 += (uint64_t)n2;
	s->sum_n2d += n2 * d_milli;
	s->sum_n2d2 += n2 * d_milli * d_milli;
}

uint64_t window_se_milli(const struct window_se *s, int64_t e_milli)
{
	if (s->windows < 2 || !s->sum_n)
		return 0;
	/* sum n^2 (d - e)^2 = sum n^2 d^2 - 2 e sum n^2 d + e^2 sum n^2 */
	__int128 e = e_milli;
	__int128 ss = s->sum_n2d2 - 2 * e * s->sum_n2d + e * e * (__int128)s->sum_n2;
	if (ss <= 0)
		return 0;
	/* SE^2 (milli^2) = W / (W - 1) * ss / (sum n)^2 */
	unsigned __int128 var = div_wide((unsigned __int128)ss * s->windows, s->windows - 1);
	uint64_t root = stats_isqrt_u128(var); /* milli * sum_n */
	return (root + s->sum_n / 2) / s->sum_n;
}

void stats_trimmed_mean_se(const uint64_t *sorted, uint32_t n, uint32_t cut, uint64_t *mean_milli,
			   uint64_t *se_milli)
{
	*mean_milli = *se_milli = 0;
	if (2 * (uint64_t)cut >= n)
		return;
	uint32_t kept = n - 2 * cut;
	unsigned __int128 sum = 0;
	for (uint32_t i = cut; i < n - cut; i++)
		sum += sorted[i];
	*mean_milli = u128_div_u64(sum * 1000 + kept / 2, kept);
	if (kept < 2)
		return;
	/* The winsorized sample: the cut values replaced by the nearest kept
	 * one; its variance about its own mean, x10^6. */
	uint64_t lo = sorted[cut], hi = sorted[n - cut - 1];
	unsigned __int128 wsum = sum + (unsigned __int128)cut * lo + (unsigned __int128)cut * hi;
	unsigned __int128 wmean_milli = div_wide(wsum * 1000 + n / 2, n);
	unsigned __int128 ss = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = i < cut ? lo : i >= n - cut ? hi : sorted[i];
		unsigned __int128 vm = (unsigned __int128)v * 1000;
		unsigned __int128 dv = vm > wmean_milli ? vm - wmean_milli : wmean_milli - vm;
		/* Clamped at 2^50 milli-ticks (10^12 ticks, no batch of reads):
		 * the sums below then stay exact in 128 bits for n < 2^20. */
		if (dv >> 50)
			dv = (unsigned __int128)1 << 50;
		ss += dv * dv;
	}
	/* SE = sqrt(ss / (n - 1)) / sqrt(n) * n / kept = sqrt(ss / (n - 1) * n) / kept */
	uint64_t root = stats_isqrt_u128(div_wide(ss, n - 1) * n);
	*se_milli = (root + kept / 2) / kept;
}

unsigned stats_se_decimals(uint64_t se_milli)
{
	if (!se_milli)
		return 3;
	if (se_milli >= 9950) /* rounds to two digits at 10 or more */
		return 0;
	if (se_milli >= 995)
		return 1;
	if (se_milli >= 100)
		return 2;
	return 3;
}

int64_t stats_round_milli(int64_t v_milli, unsigned decimals)
{
	int64_t div = decimals >= 3 ? 1 : decimals == 2 ? 10 : decimals == 1 ? 100 : 1000;
	if (div == 1)
		return v_milli;
	int64_t half = div / 2;
	return v_milli >= 0 ? (v_milli + half) / div : -((-v_milli + half) / div);
}
