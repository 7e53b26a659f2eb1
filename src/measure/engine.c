/* Read-cost engine.  Every sample is a serialized time-stamp pair around
 * exactly one call through a function pointer.  Each window of samples is
 * preceded, in the same interrupt-masked stretch, by a window of the same
 * pair around an empty call: the harness, whose window median that window
 * subtracts.  No firmware call inside a window; a window that ends with
 * interrupts enabled is thrown away.
 *
 * Stateless: the stamp pair, the TSC's step, the scratch and the harness
 * tally all come in the struct measure_ctx every function takes. */
#include "ioports.h"
#include "measure.h"
#include "source.h"
#include "arch.h"
#include "counter.h"

/* Keeps a read's result observable, so the compiler cannot drop the read. */
static inline __attribute__((always_inline)) void keep(uint64_t v)
{
	__asm__ volatile("" ::"r"(v));
}

static const char *const methods[2][2] = {
	[STAMP_FENCE_LFENCE] = {
		"lfence;rdtsc;lfence | read | lfence;rdtsc;lfence (no RDTSCP on this CPU), "
		"minus the median of the interleaved empty-call window",
		"lfence;rdtsc;lfence | read | rdtscp;lfence (RDTSCP waits for the read to complete), "
		"minus the median of the interleaved empty-call window",
	},
	[STAMP_FENCE_MFENCE] = {
		"mfence;rdtsc;mfence | read | mfence;rdtsc;mfence (LFENCE not known to serialize, no RDTSCP), "
		"minus the median of the interleaved empty-call window",
		"mfence;rdtsc;mfence | read | rdtscp;mfence (LFENCE not known to serialize), "
		"minus the median of the interleaved empty-call window",
	},
};

static inline __attribute__((always_inline)) uint64_t stamp_begin(bool mfence)
{
	return mfence ? tsc_stamp_begin_mfence() : tsc_stamp_begin();
}

static inline __attribute__((always_inline)) uint64_t stamp_end(bool rdtscp_end, bool mfence)
{
	if (rdtscp_end)
		return mfence ? tsc_stamp_end_rdtscp_mfence() : tsc_stamp_end_rdtscp();
	return mfence ? tsc_stamp_begin_mfence() : tsc_stamp_end_lfence();
}

void measure_ctx_init(struct measure_ctx *ctx, const struct serialization *ser, bool have_rdtscp,
		      const struct measure_plan *plan)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->fence = ser->fence;
	ctx->rdtscp_end = have_rdtscp;
	ctx->method = methods[ctx->fence][ctx->rdtscp_end];
	ctx->plan = *plan;
}

static __attribute__((aligned(16))) uint64_t empty_op(void) { return 0; }

/* One masked window of per-call samples; returns how many were taken. */
/* A short, varying pause between samples, outside the timed interval.
 * The mean-difference estimate is unbiased only if each sample starts at a
 * random phase of the TSC's step; a loop whose period happens to be a
 * multiple of the step would start every sample at the same phase and
 * round every one the same way.  The same sequence runs in the harness
 * windows and the op windows, and it is deterministic (icount runs stay
 * bit-identical). */
#define DITHER_MAX 31

static inline __attribute__((always_inline)) uint32_t dither(uint32_t state)
{
	state = state * 1103515245u + 12345u;
	for (volatile uint32_t k = 0; k < ((state >> 16) & DITHER_MAX); k++)
		;
	return state;
}

/* One loop serves every way of timing an op: per call (each: a stamp
 * pair around every call, the dither between them, out[i] each call's
 * time) and as a batch (one pair around all calls: *total), back to
 * back (each false) or around the per-call loop itself (each true and
 * total set: the same code the samples run, timed whole), so every
 * timing runs the same code and the same call instruction.  `each` is
 * hidden from the optimizer so it cannot split the loop in two.
 *
 * Out of line and cache-line aligned, so the timed loop's code never
 * straddles a page: under TCG a loop split across two pages cannot chain
 * its translated blocks and ran ~5x slower depending on where the linker
 * happened to put it (harness throughput 101 instead of 21 cycles). */
static inline __attribute__((always_inline)) uint32_t
timed_calls(uint64_t (*op)(void), uint64_t *out, uint32_t n, uint64_t deadline, bool each, uint64_t *total,
	    bool rdtscp_end, bool mfence)
{
	uint64_t acc = 0, t0 = 0;
	uint32_t i, state = n;
	uint64_t start = stamp_begin(mfence);
	for (i = 0; i < n; i++) {
		bool per_call = each;
		__asm__ volatile("" : "+r"(per_call));
		if (per_call) {
			state = dither(state);
			t0 = stamp_begin(mfence);
		}
		acc ^= op();
		if (per_call) {
			uint64_t t1 = stamp_end(rdtscp_end, mfence);
			out[i] = t1 - t0;
			if (t1 > deadline) {
				i++;
				break;
			}
		}
	}
	if (total)
		*total = stamp_end(rdtscp_end, mfence) - start;
	keep(acc);
	return i;
}

#define TIMED_CALLS_VARIANT(name, rdtscp_end, mfence)                                                      \
	static __attribute__((noinline, aligned(64))) uint32_t name(uint64_t (*op)(void), uint64_t *out,     \
								       uint32_t n, uint64_t deadline, bool each, \
								       uint64_t *total)                          \
	{                                                                                                    \
		return timed_calls(op, out, n, deadline, each, total, rdtscp_end, mfence);                   \
	}
TIMED_CALLS_VARIANT(timed_calls_lfence, false, false)
TIMED_CALLS_VARIANT(timed_calls_lfence_rdtscp, true, false)
TIMED_CALLS_VARIANT(timed_calls_mfence, false, true)
TIMED_CALLS_VARIANT(timed_calls_mfence_rdtscp, true, true)

static uint32_t timed_calls_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint32_t n,
			       uint64_t deadline, bool each, uint64_t *total)
{
	if (ctx->fence == STAMP_FENCE_MFENCE)
		return ctx->rdtscp_end ? timed_calls_mfence_rdtscp(op, out, n, deadline, each, total)
				       : timed_calls_mfence(op, out, n, deadline, each, total);
	return ctx->rdtscp_end ? timed_calls_lfence_rdtscp(op, out, n, deadline, each, total)
			       : timed_calls_lfence(op, out, n, deadline, each, total);
}

static uint32_t sample_window_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint32_t n,
				  uint64_t deadline)
{
	return timed_calls_any(ctx, op, out, n, deadline, true, NULL);
}

static uint64_t batch_cycles(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t reads)
{
	uint64_t total = 0, unused;
	timed_calls_any(ctx, op, &unused, reads, UINT64_MAX, false, &total);
	return total;
}

/* The per-call loop, stamps and all, timed as one batch (the stamps it
 * takes land in scratch and are not used). */
static uint64_t calls_batch_cycles(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *scratch,
				   uint32_t reads)
{
	uint64_t total = 0;
	timed_calls_any(ctx, op, scratch, reads, UINT64_MAX, true, &total);
	return total;
}

/* How many back-to-back calls fit one masked window: a slow source (an
 * MMIO exit of tens of microseconds under nested virtualization) gets
 * fewer, so no window keeps interrupts off much past its deadline. */
#define WINDOW_CALLS_MIN 16 /* keeps the stamps' own cost small per call */

static uint32_t calls_per_window(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t max)
{
	/* Best of three: the first run can include one-off costs (a cold
	 * cache, TCG translating the loop). */
	uint64_t c = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		bool was_on = irq_save();
		uint64_t t = batch_cycles(ctx, op, 4) / 4;
		irq_restore(was_on);
		c = MIN(c, t);
	}
	uint64_t n = c ? ctx->plan.window_deadline_cycles / c : max;
	return (uint32_t)(n < WINDOW_CALLS_MIN ? WINDOW_CALLS_MIN : n > max ? max : n);
}

/* How many batches (or batch pairs) each end of a sorted list loses
 * before a mean: a tenth, and at least one once there are three, so one
 * batch a preempted vCPU stretched never moves the mean. */
static uint32_t batch_cut(uint32_t n)
{
	return n < 3 ? 0 : MAX(1u, n / 10);
}

/* Trimmed mean over several batches, each timed with interrupts masked. */
static uint64_t throughput_milli(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t reads)
{
	uint64_t per_batch[MEASURE_BATCHES];
	uint64_t deadline = rdtsc() + ctx->plan.budget_cycles;
	uint32_t n = 0;
	for (uint32_t b = 0; b < MEASURE_BATCHES; b++) {
		bool was_on = irq_save();
		uint64_t c = batch_cycles(ctx, op, reads);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			per_batch[n++] = c;
		if (rdtsc() > deadline && n)
			break;
	}
	if (!n)
		return 0;
	stats_sort_u64(per_batch, n);
	uint64_t mean_milli, se_milli;
	stats_trimmed_mean_se(per_batch, n, batch_cut(n), &mean_milli, &se_milli);
	return mean_milli / reads;
}

static uint64_t window_median(const uint64_t *v, uint32_t n)
{
	uint64_t copy[MEASURE_WINDOW_SAMPLES];
	n = MIN(n, (uint32_t)MEASURE_WINDOW_SAMPLES);
	memcpy(copy, v, n * sizeof *v);
	stats_sort_u64(copy, n);
	return stats_percentile_sorted(copy, n, STATS_P50);
}

/* The per-sample sums: the mean of the stamped intervals, trimmed alike
 * on both sides, and the per-window differences behind its SE. */
struct estimate_sums {
	unsigned __int128 op, harness;
	uint32_t op_n, harness_n, trimmed;
	struct window_se se;
};

/* A sample far above its window's median is a vCPU that did not run (or
 * an interrupt-free host hiccup), not a read: it would move a mean by
 * thousands of ticks.  The same excess over the median is cut on both
 * sides (a hiccup is as likely in a harness sample as in an op sample;
 * cutting the harness at 8x the op's median kept harness hiccups the op
 * side lost), and 7x the larger median above it keeps any real tail. */
#define OUTLIER_EXCESS_FACTOR 7

static uint64_t outlier_excess(uint64_t h_med, uint64_t op_med)
{
	return OUTLIER_EXCESS_FACTOR * MAX(h_med, op_med) + 64;
}

/* Adds the samples at or under the cutoff to a trimmed sum; returns the
 * window's trimmed mean x1000, 0 when all were trimmed. */
static int64_t add_trimmed(unsigned __int128 *sum, uint32_t *n, uint32_t *trimmed, const uint64_t *v, uint32_t k,
			   uint64_t cutoff)
{
	unsigned __int128 wsum = 0;
	uint32_t wn = 0;
	for (uint32_t i = 0; i < k; i++) {
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

/* A window of timed calls as a whole: the time from its first stamp to
 * its last per call, x1000, less what samples above cutoff spent beyond
 * the median (a hiccup inside a stamped interval).  Everything the calls
 * cost is in it, the part that lands after a call's closing stamp too:
 * under TCG an I/O read's emulation is still finishing when the next
 * RDTSC reads the host's counter, and the stamped intervals alone missed
 * 10-18 ticks of it (port, PM timer, PIT). */
static int64_t span_per_call_milli(uint64_t span, const uint64_t *v, uint32_t k, uint64_t med, uint64_t cutoff)
{
	if (!k)
		return 0;
	uint64_t excess = 0;
	for (uint32_t i = 0; i < k; i++)
		if (v[i] > cutoff)
			excess += v[i] - med;
	uint64_t t = span > excess ? span - excess : 0;
	return (int64_t)u128_div_u64((unsigned __int128)t * 1000 + k / 2, k);
}

/* Window differences are signed (an op cheaper than the harness); kept
 * offset by this, in milli-ticks, so they sort as unsigned numbers. */
#define DIFF_BIAS ((int64_t)1 << 40)

static uint64_t biased(int64_t milli)
{
	if (milli >= DIFF_BIAS)
		milli = DIFF_BIAS - 1;
	if (milli <= -DIFF_BIAS)
		milli = -DIFF_BIAS + 1;
	return (uint64_t)(milli + DIFF_BIAS);
}

/* The trimmed mean (x1000) and its SE of n biased differences, sorted here. */
static int64_t biased_trimmed_mean(uint64_t *v, uint32_t n, uint64_t *se_milli)
{
	uint64_t m, se;
	stats_sort_u64(v, n);
	stats_trimmed_mean_se(v, n, batch_cut(n), &m, &se);
	*se_milli = (se + 500) / 1000;
	return (int64_t)((m + 500) / 1000) - DIFF_BIAS;
}

struct window_pair {
	uint64_t *op_v, *h_v;      /* each call's stamped interval */
	uint32_t op_got, h_got;
	uint64_t op_span, h_span;  /* first stamp to last, each window */
};

/* Medians of both windows and their common outlier excess. */
static void pair_medians(const struct window_pair *w, uint64_t *op_med, uint64_t *h_med, uint64_t *excess)
{
	*h_med = window_median(w->h_v, w->h_got);
	*op_med = window_median(w->op_v, w->op_got);
	*excess = outlier_excess(*h_med, *op_med);
}

static int64_t pair_span_diff_milli(const struct window_pair *w)
{
	uint64_t op_med, h_med, excess;
	pair_medians(w, &op_med, &h_med, &excess);
	return span_per_call_milli(w->op_span, w->op_v, w->op_got, op_med, op_med + excess) -
	       span_per_call_milli(w->h_span, w->h_v, w->h_got, h_med, h_med + excess);
}

static void pair_window(struct op_cost *out, struct estimate_sums *e, struct batch_log *b, const struct window_pair *w)
{
	uint32_t k = MIN(w->op_got, w->h_got);
	uint64_t op_med, h_med, excess;
	pair_medians(w, &op_med, &h_med, &excess);
	if (!out->windows || h_med < out->harness_window_p50_min)
		out->harness_window_p50_min = h_med;
	if (h_med > out->harness_window_p50_max)
		out->harness_window_p50_max = h_med;
	out->windows++;
	/* The windows as wholes: the estimate. */
	if (b->win_n < MEASURE_MAX_WINDOWS) {
		int64_t d = pair_span_diff_milli(w);
		b->win[b->win_n++] = biased(d);
		b->win_all += d; /* nothing cut: the untrimmed figure */
	}
	/* The stamped intervals alone: the per-sample mean. */
	int64_t h_mean = add_trimmed(&e->harness, &e->harness_n, &e->trimmed, w->h_v, k, h_med + excess);
	int64_t op_mean = add_trimmed(&e->op, &e->op_n, &e->trimmed, w->op_v, k, op_med + excess);
	window_se_add(&e->se, op_mean - h_mean, k);
	for (uint32_t i = 0; i < k; i++)
		out->at_harness += w->op_v[i] == h_med;
	out->below_harness += stats_subtract_harness(w->op_v, k, h_med);
}

/* Unpaired windows: the harness's own baseline. */
static void sample_alone(const struct measure_ctx *ctx, struct op_cost *out, uint64_t (*op)(void), uint32_t *taken)
{
	const struct measure_plan *plan = &ctx->plan;
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	uint32_t n = 0;
	/* Bounded twice: by the sample count (each pass adds a window or counts
	 * a discarded one) and by the TSC deadline. */
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(MEASURE_WINDOW_SAMPLES, plan->samples - n);
		uint64_t window_deadline = MIN(deadline, rdtsc() + plan->window_deadline_cycles);
		bool was_on = irq_save();
		uint32_t got = sample_window_any(ctx, op, plan->scratch + n, want, window_deadline);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			n += got;
		else
			out->windows_discarded++;
		if (rdtsc() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
}

/* Batch pairs (op, then empty, same length) taken between the sample
 * windows, so the batch figures and the per-call estimate cover the same
 * stretch of time: under TCG the cost of a call changes over a run (the
 * translated-block jump cache), and figures from two different moments
 * disagreed by 2x.  Back-to-back pairs and checked pairs (the per-call
 * loop timed whole) in turn; logged into the plan's struct batch_log. */
static void log_batch_pair(const struct measure_ctx *ctx, struct batch_log *b, uint64_t (*op)(void), bool checked)
{
	if (checked) {
		if (b->calls_n >= MEASURE_MAX_BATCH_PAIRS || !b->calls_reads)
			return;
		struct window_pair w = { .op_v = b->stamps, .h_v = b->stamps_h, .op_got = b->calls_reads,
					 .h_got = b->calls_reads };
		/* Empty first, as in a window pair: whichever runs first after
		 * the mask pays for the cold start. */
		bool was_on = irq_save();
		w.h_span = calls_batch_cycles(ctx, empty_op, b->stamps_h, b->calls_reads);
		w.op_span = calls_batch_cycles(ctx, op, b->stamps, b->calls_reads);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			b->calls_diff[b->calls_n++] = biased(pair_span_diff_milli(&w));
		return;
	}
	if (b->n >= MEASURE_MAX_BATCH_PAIRS || !b->reads)
		return;
	bool was_on = irq_save();
	uint64_t c = batch_cycles(ctx, op, b->reads);
	uint64_t h = batch_cycles(ctx, empty_op, b->reads);
	bool clean = !irq_enabled();
	irq_restore(was_on);
	if (clean) {
		b->op[b->n] = c;
		b->diff[b->n++] = c > h ? c - h : 0;
	}
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
static void batch_figures(struct op_cost *out, struct batch_log *b)
{
	if (!b->n)
		return;
	sort_pairs(b);
	uint32_t cut = batch_cut(b->n), kept = b->n - 2 * cut;
	uint64_t net_milli, net_se_milli;
	stats_trimmed_mean_se(b->diff, b->n, cut, &net_milli, &net_se_milli);
	out->throughput_net_milli = net_milli / b->reads;
	out->throughput_net_se_milli = (net_se_milli + b->reads / 2) / b->reads;
	unsigned __int128 sum = 0;
	for (uint32_t i = cut; i < b->n - cut; i++)
		sum += b->op[i];
	out->throughput_milli = u128_div_u64(sum * 1000 + (uint64_t)b->reads * kept / 2, (uint64_t)b->reads * kept);
	out->batch_pairs = b->n;
	out->batch_pairs_trimmed = 2 * cut;
	if (b->calls_n) {
		int64_t m = biased_trimmed_mean(b->calls_diff, b->calls_n, &out->estimate_batch_se_milli);
		out->estimate_batch_milli = m > 0 ? (uint64_t)m : 0;
		out->estimate_batch_pairs = b->calls_n;
	}
}

/* Harness window, then op window, in one masked stretch; the op samples
 * come back with their window's harness median subtracted, and a batch
 * pair follows. */
static void sample_paired(const struct measure_ctx *ctx, struct op_cost *out, struct estimate_sums *e,
			  uint64_t (*op)(void), uint32_t *taken, struct batch_log *batches)
{
	const struct measure_plan *plan = &ctx->plan;
	/* Three times the budget: every window pair is half harness, and a
	 * batch pair follows it. */
	uint64_t deadline = rdtsc() + 3 * plan->budget_cycles;
	uint32_t n = 0;
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(MEASURE_WINDOW_SAMPLES, plan->samples - n);
		uint64_t *h_v = plan->harness_scratch + n, *op_v = plan->scratch + n;
		struct window_pair w = { .op_v = op_v, .h_v = h_v };
		bool was_on = irq_save();
		w.h_got = timed_calls_any(ctx, empty_op, h_v, want, MIN(deadline, rdtsc() + plan->window_deadline_cycles),
					  true, &w.h_span);
		w.op_got = timed_calls_any(ctx, op, op_v, want, MIN(deadline, rdtsc() + plan->window_deadline_cycles),
					   true, &w.op_span);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		uint32_t k = MIN(w.h_got, w.op_got);
		if (clean && k) {
			pair_window(out, e, batches, &w);
			n += k;
		} else if (!clean) {
			out->windows_discarded++;
		}
		log_batch_pair(ctx, batches, op, pass & 1);
		if (rdtsc() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
}

/* Too few samples for a trustworthy mean: fall back to the long batch. */
#define ESTIMATE_MIN_SAMPLES 64

/* Fewer windows than this: no trimmed mean over them. */
#define ESTIMATE_MIN_WINDOWS 3

static void fill_estimate(struct op_cost *out, const struct estimate_sums *e, struct batch_log *b,
			  uint64_t step_ticks)
{
	out->estimate_trimmed = e->trimmed;
	if (e->op_n >= ESTIMATE_MIN_SAMPLES && e->harness_n >= ESTIMATE_MIN_SAMPLES) {
		int64_t op = (int64_t)u128_div_u64(e->op * 1000 + e->op_n / 2, e->op_n);
		int64_t h = (int64_t)u128_div_u64(e->harness * 1000 + e->harness_n / 2, e->harness_n);
		/* The spread is taken about the unclamped difference. */
		out->stamped_se_milli = window_se_milli(&e->se, op - h);
		out->stamped_milli = op > h ? op - h : 0;
	}
	if (b->win_n) {
		int64_t all = b->win_all / (int64_t)b->win_n;
		out->estimate_untrimmed_milli = all > 0 ? all : 0;
	}
	if (b->win_n >= ESTIMATE_MIN_WINDOWS) {
		int64_t m = biased_trimmed_mean(b->win, b->win_n, &out->estimate_se_milli);
		out->estimate_milli = m > 0 ? m : 0;
		out->estimate_windows_trimmed = 2 * batch_cut(b->win_n);
		out->estimate_method = "interleaved_windows";
	} else if (e->op_n >= ESTIMATE_MIN_SAMPLES && e->harness_n >= ESTIMATE_MIN_SAMPLES) {
		out->estimate_milli = out->stamped_milli;
		out->estimate_se_milli = out->stamped_se_milli;
		out->estimate_method = "interleaved_mean";
	} else {
		out->estimate_milli = (int64_t)out->throughput_net_milli;
		out->estimate_se_milli = out->throughput_net_se_milli;
		out->estimate_method = "batch_net";
	}
	/* Under two steps the per-sample figures are mostly quantization: a
	 * p50 of 0 or one step says nothing about the read. */
	out->step_ticks = step_ticks;
	out->below_resolution = out->cycles.n == 0 || out->cycles.p50 == 0 ||
				(step_ticks && (uint64_t)out->estimate_milli < 2 * step_ticks * 1000);
}

static void note_harness_windows(struct harness_totals *t, const struct op_cost *c)
{
	if (!t || !c->windows)
		return;
	if (!t->windows || c->harness_window_p50_min < t->window_p50_min)
		t->window_p50_min = c->harness_window_p50_min;
	if (c->harness_window_p50_max > t->window_p50_max)
		t->window_p50_max = c->harness_window_p50_max;
	t->windows += c->windows;
}

void measure_op(const struct measure_ctx *ctx, struct op_cost *out, uint64_t (*op)(void))
{
	const struct measure_plan *plan = &ctx->plan;
	struct batch_log *batches = plan->batches;
	uint32_t n = 0;
	struct estimate_sums e = { 0 };
	memset(out, 0, sizeof *out);
	log2_hist_init(&out->hist);
	/* Warm caches, TLB and the branch predictor before the first window. */
	for (int i = 0; i < 16; i++)
		keep(op() ^ empty_op());
	/* The empty batch runs the same number of calls, so the stamps' fixed
	 * cost is spread alike and the difference is the op alone. */
	batches->n = batches->calls_n = batches->win_n = 0;
	batches->win_all = 0;
	batches->reads = calls_per_window(ctx, op, MEASURE_BATCH_READS);
	/* A checked batch is one window's worth of timed calls. */
	batches->calls_reads = calls_per_window(ctx, op, MEASURE_WINDOW_SAMPLES);
	sample_paired(ctx, out, &e, op, &n, batches);
	stats_dist_compute(&out->cycles, plan->scratch, n);
	stats_dist_compute(&out->harness, plan->harness_scratch, n);
	log2_hist_add_all(&out->hist, plan->scratch, n);
	/* A short run (few samples, or a budget spent early) leaves few
	 * pairs: top up to the usual batch count, still bounded in time. */
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	for (uint32_t i = 0; (batches->n < MEASURE_BATCHES || batches->calls_n < MEASURE_BATCHES) &&
			     i < 2 * MEASURE_BATCHES; i++) {
		log_batch_pair(ctx, batches, op, batches->calls_n < batches->n);
		if (rdtsc() > deadline && batches->n && batches->calls_n)
			break;
	}
	batch_figures(out, batches);
	fill_estimate(out, &e, batches, ctx->step_ticks);
	note_harness_windows(ctx->totals, out);
}

/* Greatest common divisor, for step detection. */
static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

#define STEP_READS 4096
#define STEP_MIN_STALLS 8
#define STEP_SPINS 96
#define STEP_ROUNDS 4
#define STEP_MIN_CLUSTERS 4
#define STEP_CLUSTER_GAP 8 /* ticks: wider than any jitter of one step */

static void __attribute__((noinline)) spin(uint32_t n)
{
	for (volatile uint32_t k = 0; k < n; k++)
		;
}

/* Intervals of growing length (a spin between two stamps) land in tight
 * clusters one step apart when the counter moves in steps (an AMD Zen TSC
 * advances ~25-26 ticks at 100 MHz), and spread evenly when it does not.
 * Returns the median distance between adjacent cluster centres, or 0 when
 * the intervals do not cluster regularly. */
static uint64_t step_from_clusters(uint64_t *v, uint32_t n)
{
	uint64_t centre[64], dist[64];
	uint32_t clusters = 0;
	stats_sort_u64(v, n);
	for (uint32_t i = 0; i < n && clusters < ARRAY_SIZE(centre);) {
		uint32_t j = i;
		while (j + 1 < n && v[j + 1] - v[j] < STEP_CLUSTER_GAP)
			j++;
		centre[clusters++] = (v[i] + v[j]) / 2;
		i = j + 1;
	}
	if (clusters < STEP_MIN_CLUSTERS)
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

/* The TSC's step.  Quantized counters are found by clustering (above).
 * Otherwise the step hides below one read's cost: back-to-back reads
 * bound it by the common divisor of their differences, unless those are
 * all equal (a deterministic clock, e.g. QEMU -icount): not observable. */
static void measure_step(struct tsc_step *out, const struct measure_plan *plan)
{
	uint64_t *v = plan->scratch;
	uint32_t n = MIN(plan->samples, (uint32_t)STEP_READS);
	uint64_t deadline = rdtsc() + plan->window_deadline_cycles * 4;
	memset(out, 0, sizeof *out);

	uint32_t got = 0;
	bool was_on = irq_save();
	for (uint32_t round = 0; round < STEP_ROUNDS && got < n; round++)
		for (uint32_t k = 0; k < STEP_SPINS && got < n && rdtsc() < deadline; k++) {
			uint64_t t0 = rdtsc_ordered();
			spin(k);
			v[got++] = rdtsc_ordered() - t0;
		}
	irq_restore(was_on);
	uint64_t clustered = step_from_clusters(v, got);

	got = 0;
	deadline = rdtsc() + plan->window_deadline_cycles * 4;
	was_on = irq_save();
	for (; got < n; got++) {
		v[got] = rdtsc();
		if (v[got] > deadline) {
			got++;
			break;
		}
	}
	irq_restore(was_on);
	uint32_t nz = 0;
	uint64_t g = 0;
	bool all_equal = true;
	for (uint32_t i = 1; i < got; i++) {
		out->pairs++;
		if (v[i] <= v[i - 1]) {
			out->stalls += v[i] == v[i - 1];
			continue;
		}
		uint64_t d = v[i] - v[i - 1];
		if (nz && d != v[nz - 1])
			all_equal = false;
		v[nz++] = d; /* differences overwrite the readings behind them */
		g = gcd_u64(d, g);
		if (!out->min_nonzero || d < out->min_nonzero)
			out->min_nonzero = d;
		out->max_nonzero = MAX(out->max_nonzero, d);
	}
	if (clustered) {
		out->ticks = clustered;
		out->method = "intervals of growing length cluster one step apart (median distance)";
	} else if (!nz) {
		out->method = "the TSC did not move";
	} else if (out->stalls >= STEP_MIN_STALLS) {
		stats_sort_u64(v, nz);
		out->ticks = stats_percentile_sorted(v, nz, STATS_P50);
		out->method = "median non-zero difference of back-to-back reads (reads repeat)";
	} else if (!all_equal) {
		out->ticks = g;
		out->method = "common divisor of back-to-back differences (no clusters, reads never repeat)";
	} else {
		out->method = "back-to-back differences all equal (deterministic clock): step not observable";
	}
}

/* Read from memory into DX, as the kernel port (above 255) must be: both
 * port yardsticks run the same instructions around their IN. */
static const volatile uint16_t unassigned_port = UNASSIGNED_PORT;

static uint64_t op_cpuid(void)
{
	uint32_t r[4];
	cpuid_raw(0, 0, r);
	return r[0];
}

static uint64_t op_port_read(void) { return inb(unassigned_port); }
static uint64_t op_kernel_port_read(void) { return inb(ELCR_PORT); }

void measure_baselines(struct measure_ctx *ctx, struct baselines *b)
{
	const struct measure_plan *plan = &ctx->plan;
	uint32_t n = 0;
	memset(b, 0, sizeof *b);
	measure_step(&b->step, plan);
	ctx->step_ticks = b->step.ticks;
	for (int i = 0; i < 16; i++)
		keep(empty_op());
	sample_alone(ctx, &b->harness, empty_op, &n);
	stats_dist_compute(&b->harness.cycles, plan->scratch, n);
	log2_hist_init(&b->harness.hist);
	log2_hist_add_all(&b->harness.hist, plan->scratch, n);
	b->harness.throughput_milli =
		throughput_milli(ctx, empty_op, calls_per_window(ctx, empty_op, MEASURE_BATCH_READS));
	b->harness.step_ticks = ctx->step_ticks;

	measure_op(ctx, &b->cpuid, op_cpuid);
	b->unassigned_port = unassigned_port;
	measure_op(ctx, &b->port, op_port_read);
	b->kernel_port_number = ELCR_PORT;
	measure_op(ctx, &b->kernel_port, op_kernel_port_read);
}

void measure_behaviour(const struct measure_ctx *ctx, struct behaviour *out, const struct source_desc *d)
{
	const struct measure_plan *plan = &ctx->plan;
	memset(out, 0, sizeof *out);
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	uint64_t *v = plan->scratch;
	uint32_t n = 0;
	/* Raw values back to back, in masked windows; pairs are only compared
	 * inside a window, where nothing else ran between two reads. */
	out->min_step_ticks = UINT64_MAX;
	uint32_t per_window = calls_per_window(ctx, d->read, MEASURE_WINDOW_SAMPLES);
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(per_window, plan->samples - n);
		bool was_on = irq_save();
		for (uint32_t i = 0; i < want; i++)
			v[n + i] = d->read();
		irq_restore(was_on);
		for (uint32_t i = 1; i < want; i++) {
			uint64_t dist;
			enum counter_step s = counter_step_classify(v[n + i - 1], v[n + i], d->width_bits,
								   d->counts_down, &dist);
			out->reads++;
			switch (s) {
			case COUNTER_STEP_SAME: out->same++; break;
			case COUNTER_STEP_WRAP: out->wraps++; /* fall through */
			case COUNTER_STEP_FORWARD:
				out->forward++;
				if (dist < out->min_step_ticks)
					out->min_step_ticks = dist;
				break;
			case COUNTER_STEP_BACKWARD:
				out->backward++;
				if (dist > out->max_backward_ticks)
					out->max_backward_ticks = dist;
				break;
			}
		}
		n += want;
		if (rdtsc() > deadline)
			break;
	}
	if (out->min_step_ticks == UINT64_MAX)
		out->min_step_ticks = 0;
	out->frozen = out->reads > 0 && out->forward == 0 && out->backward == 0;
}
