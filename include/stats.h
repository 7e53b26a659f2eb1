/* Sample statistics for read-cost distributions: in-place sort,
 * nearest-rank percentiles, rounded mean, log2 histogram and the
 * harness-cost subtraction.  Pure integer code, no allocation. */
#ifndef CP_STATS_H
#define CP_STATS_H
#include "util.h"

struct dist {
	uint64_t min, p50, p90, p99, p999, max, mean;
	uint32_t n;
};

/* Percentiles are given per 100000 so p99.9 stays an integer. */
#define STATS_P50  50000u
#define STATS_P90  90000u
#define STATS_P99  99000u
#define STATS_P999 99900u
#define STATS_PER  100000u

/* Ascending, in place, O(n log n), no recursion (heapsort). */
void stats_sort_u64(uint64_t *v, uint32_t n);

/* Nearest-rank percentile of an ascending array: the smallest sample x such
 * that at least per_100000/100000 of the samples are <= x, i.e. element
 * ceil(p * n) - 1 (element 0 for p = 0).  0 when n = 0. */
uint64_t stats_percentile_sorted(const uint64_t *sorted, uint32_t n,
				 uint32_t per_100000);

/* Mean rounded to nearest (halves up); the sum is kept in 128 bits so
 * 1,000,000 samples of UINT64_MAX cannot overflow.  0 when n = 0. */
uint64_t stats_mean(const uint64_t *v, uint32_t n);

/* Fills d from an ascending array; all fields 0 when n = 0. */
void stats_dist_from_sorted(struct dist *d, const uint64_t *sorted, uint32_t n);
/* Sorts v in place, then fills d. */
void stats_dist_compute(struct dist *d, uint64_t *v, uint32_t n);

/* Subtracts the harness cost from every sample, clamping at 0.  Returns how
 * many samples were strictly below the harness cost (the ones clamped):
 * a large count means the harness estimate is too high for this source. */
uint32_t stats_subtract_harness(uint64_t *v, uint32_t n, uint64_t harness);

/* bins[0] counts the value 0; bins[k] (k = 1..64) counts [2^(k-1), 2^k). */
#define LOG2_HIST_BINS 65
struct log2_hist {
	uint32_t bins[LOG2_HIST_BINS];
};

void log2_hist_init(struct log2_hist *h);
unsigned log2_hist_bin_of(uint64_t value);
/* Saturates a bin at UINT32_MAX rather than wrapping. */
void log2_hist_add(struct log2_hist *h, uint64_t value);
void log2_hist_add_all(struct log2_hist *h, const uint64_t *v, uint32_t n);
/* Index of the highest non-empty bin, or -1 when the histogram is empty;
 * the report prints bins 0..highest only. */
int log2_hist_highest(const struct log2_hist *h);

/* Integer square root: the largest r with r * r <= v. */
uint64_t stats_isqrt_u128(unsigned __int128 v);

/* The standard error of a mean difference measured window by window.
 * Each window w contributes its own difference d_w (x1000) over n_w
 * samples; the estimate e is (close to) the n-weighted mean of the d_w.
 * Its standard error follows from how the windows scatter around it
 * (the cluster, or ratio-estimator, variance):
 *     SE^2 = W / (W - 1) * sum n_w^2 (d_w - e)^2 / (sum n_w)^2
 * so noise inside a window and drift between windows (a TCG translation
 * cache warming up, a host that slows down) both count.  Kept as sums so
 * the windows need not be stored; exact in 128 bits for |d_w| < 2^40. */
struct window_se {
	uint32_t windows;
	uint64_t sum_n;            /* sum n_w */
	uint64_t sum_n2;           /* sum n_w^2 */
	__int128 sum_n2d;          /* sum n_w^2 d_w */
	__int128 sum_n2d2;         /* sum n_w^2 d_w^2 */
};
void window_se_add(struct window_se *s, int64_t d_milli, uint32_t n);
/* SE x1000 of the estimate e_milli; 0 with fewer than two windows. */
uint64_t window_se_milli(const struct window_se *s, int64_t e_milli);

/* Mean of sorted[cut .. n - cut) x1000, and its standard error x1000 by
 * Tukey and McLaughlin's rule for a trimmed mean: the SD of the sample
 * winsorized at the same cut, over (1 - 2 cut / n) sqrt(n).  Both 0 when
 * nothing is left; the SE is 0 for fewer than two kept values. */
void stats_trimmed_mean_se(const uint64_t *sorted, uint32_t n, uint32_t cut, uint64_t *mean_milli,
			   uint64_t *se_milli);

/* Decimals (0..3) that show a standard error x1000 to two significant
 * digits: 0.28 -> 2, 2.7 -> 1, 14 -> 0; 3 when it is 0 (exact, or
 * unknown: the figure keeps every digit it has). */
unsigned stats_se_decimals(uint64_t se_milli);
/* v x1000 rounded to nearest (halves away from zero) at `decimals`
 * decimals, returned as v x 10^decimals (what json_fixed takes). */
int64_t stats_round_milli(int64_t v_milli, unsigned decimals);
#endif
