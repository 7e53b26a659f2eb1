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
#endif
