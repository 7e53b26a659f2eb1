/* The read-cost engine's statistics, pure functions of the samples the
 * engine (src/measure/engine.c) takes: per-window medians and the outlier
 * cut, trimmed sums pooled into the estimate and its standard error, the
 * batch pairs' trimmed means, and the held-out check.  Compiled into the
 * probe and into the host unit tests (tests/unit/test_cost_stats.c). */
#ifndef CP_COST_STATS_H
#define CP_COST_STATS_H
#include "measure.h"

/* Too few samples for a trustworthy mean: fall back to the long batch. */
#define ESTIMATE_MIN_SAMPLES 64

/* A sample far above its window's median is a vCPU that did not run (or
 * an interrupt-free host hiccup), not a read: it would move a mean by
 * thousands of ticks.  The same excess over the median is cut on both
 * sides (a hiccup is as likely in a harness sample as in an op sample;
 * cutting the harness at 8x the op's median kept harness hiccups the op
 * side lost), and 7x the larger median above it keeps any real tail. */
#define OUTLIER_EXCESS_FACTOR 7

/* Trimmed sums of one kind of per-call figure over every window pair,
 * and the windows' own differences behind its standard error. */
struct trimmed_means {
	unsigned __int128 op, harness, op_all, harness_all;
	uint32_t op_n, harness_n, all_n, trimmed;
	struct window_se se;
};

/* The estimate's sums: whole turns of the loop (from one closing stamp to
 * the next: everything a call costs, the part that lands after its own
 * closing stamp too: under TCG an I/O read's emulation is still finishing
 * when the next RDTSC reads the host's counter, and the stamped intervals
 * alone missed 8-18 ticks of port, PM timer and PIT reads), and the
 * stamped intervals alone (estimate_stamped). */
struct estimate_sums {
	struct trimmed_means turns, stamped;
};

/* Window differences are signed (an op cheaper than the harness); kept
 * offset by this, in milli-ticks, so they sort as unsigned numbers. */
#define DIFF_BIAS ((int64_t)1 << 40)

struct window_pair {
	uint64_t *op_v, *h_v;      /* each call's stamped interval */
	uint64_t *op_c, *h_c;      /* each call's whole turn */
	uint32_t op_got, h_got;
};

/* How many batches (or batch pairs) each end of a sorted list loses
 * before a mean: a tenth, and at least one once there are three, so one
 * batch a preempted vCPU stretched never moves the mean. */
uint32_t cost_batch_cut(uint32_t n);

/* The median of a window's samples (at most MEASURE_WINDOW_SAMPLES; v is
 * left as it was). */
uint64_t cost_window_median(const uint64_t *v, uint32_t n);

/* How far above its window's median a sample may be and still count
 * (OUTLIER_EXCESS_FACTOR). */
uint64_t cost_outlier_excess(uint64_t h_med, uint64_t op_med);

/* One window pair into the means: each side trimmed at its own median
 * plus the common excess; returns the window's difference x1000. */
int64_t cost_add_pair(struct trimmed_means *m, const uint64_t *op_v, uint32_t op_k, const uint64_t *h_v,
		      uint32_t h_k);

/* Pooled trimmed difference of means x1000 (unclamped) and its SE. */
bool cost_pooled(const struct trimmed_means *m, int64_t *milli, uint64_t *se_milli, int64_t *untrimmed_milli);

/* A signed difference x1000 offset by DIFF_BIAS (clamped inside it). */
uint64_t cost_biased(int64_t milli);

/* The plain mean (x1000) and its SE of n biased differences, sorted here.
 * Not trimmed: each pair's turns were trimmed already, as the estimate's
 * are, and the estimate pools every window pair untrimmed; a tenth cut
 * off each end of right-skewed pair differences put the check 1-2 ticks
 * under the estimate in most boots (z 2-3 on the tsc and HPET rows). */
int64_t cost_biased_mean(uint64_t *v, uint32_t n, uint64_t *se_milli);

/* One window pair into the estimate's sums and the op's tallies; returns
 * the pair's difference of whole turns x1000.  A held-out pair (the
 * check) runs the same statistics into sums and tallies of its own, so
 * whatever follows it follows the same work. */
int64_t cost_pair_window(struct op_cost *out, struct estimate_sums *e, const struct window_pair *w);

/* Net: the mean of the pairs' differences with the highest and lowest
 * tenth left out, the same kind of figure as the per-call estimate, with
 * its standard error.  Raw: the mean of the op batches of the same pairs,
 * so raw and net are one kind of figure over one set of batches (a
 * median raw against a trimmed-mean net put PIT's net 397 above its raw
 * 362).  A pair's difference never exceeds its op batch, so net <= raw. */
void cost_batch_figures(struct op_cost *out, struct batch_log *b);

/* A held-out pair: the same statistics as a window's, into sums and
 * tallies of its own, its difference of whole turns into the check. */
void cost_hold_out(struct batch_log *b, const struct window_pair *w);

/* The op's estimate from the pooled sums (interleaved_turns), or the
 * batch net when too few samples were kept (batch_net); below_resolution
 * against the TSC's step. */
void cost_fill_estimate(struct op_cost *out, const struct estimate_sums *e, uint64_t step_ticks);

/* The op's harness window medians into the run-wide spread (t may be NULL). */
void cost_note_harness_windows(struct harness_totals *t, const struct op_cost *c);

#endif
