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

/* One loop serves both ways of timing an op: per call (each: a stamp pair
 * around every call, the dither between them) and as a batch (one pair
 * around all calls), so both timings run the same code and the same call
 * instruction.  `each` is hidden from the optimizer so it cannot split the
 * loop in two.
 *
 * Out of line and cache-line aligned, so the timed loop's code never
 * straddles a page: under TCG a loop split across two pages cannot chain
 * its translated blocks and ran ~5x slower depending on where the linker
 * happened to put it (harness throughput 101 instead of 21 cycles). */
static inline __attribute__((always_inline)) uint32_t
timed_calls(uint64_t (*op)(void), uint64_t *out, uint32_t n, uint64_t deadline, bool each, bool rdtscp_end,
	    bool mfence)
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
	if (!each)
		out[0] = stamp_end(rdtscp_end, mfence) - start;
	keep(acc);
	return i;
}

#define TIMED_CALLS_VARIANT(name, rdtscp_end, mfence)                                                      \
	static __attribute__((noinline, aligned(64))) uint32_t name(uint64_t (*op)(void), uint64_t *out,     \
								       uint32_t n, uint64_t deadline, bool each) \
	{                                                                                                    \
		return timed_calls(op, out, n, deadline, each, rdtscp_end, mfence);                          \
	}
TIMED_CALLS_VARIANT(timed_calls_lfence, false, false)
TIMED_CALLS_VARIANT(timed_calls_lfence_rdtscp, true, false)
TIMED_CALLS_VARIANT(timed_calls_mfence, false, true)
TIMED_CALLS_VARIANT(timed_calls_mfence_rdtscp, true, true)

static uint32_t timed_calls_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint32_t n,
			       uint64_t deadline, bool each)
{
	if (ctx->fence == STAMP_FENCE_MFENCE)
		return ctx->rdtscp_end ? timed_calls_mfence_rdtscp(op, out, n, deadline, each)
				       : timed_calls_mfence(op, out, n, deadline, each);
	return ctx->rdtscp_end ? timed_calls_lfence_rdtscp(op, out, n, deadline, each)
			       : timed_calls_lfence(op, out, n, deadline, each);
}

static uint32_t sample_window_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint32_t n,
				  uint64_t deadline)
{
	return timed_calls_any(ctx, op, out, n, deadline, true);
}

static uint64_t batch_cycles(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t reads)
{
	uint64_t total = 0;
	timed_calls_any(ctx, op, &total, reads, UINT64_MAX, false);
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

/* Median over several batches, each timed with interrupts masked. */
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
	return per_batch[n / 2] * 1000 / reads;
}

static uint64_t window_median(const uint64_t *v, uint32_t n)
{
	uint64_t copy[MEASURE_WINDOW_SAMPLES];
	n = MIN(n, (uint32_t)MEASURE_WINDOW_SAMPLES);
	memcpy(copy, v, n * sizeof *v);
	stats_sort_u64(copy, n);
	return stats_percentile_sorted(copy, n, STATS_P50);
}

/* Sums for the unbiased estimate, trimmed alike on both sides. */
struct estimate_sums {
	unsigned __int128 op, harness;
	uint32_t op_n, harness_n, trimmed;
};

/* A sample far above both window medians is a vCPU that did not run (or
 * an interrupt-free host hiccup), not a read: it would move a mean by
 * thousands of ticks.  8x the larger median keeps any real tail. */
#define OUTLIER_FACTOR 8

/* Adds the samples at or under the cutoff to a trimmed sum. */
static void add_trimmed(unsigned __int128 *sum, uint32_t *n, uint32_t *trimmed, const uint64_t *v, uint32_t k,
			uint64_t cutoff)
{
	for (uint32_t i = 0; i < k; i++) {
		if (v[i] <= cutoff) {
			*sum += v[i];
			(*n)++;
		} else {
			(*trimmed)++;
		}
	}
}

static void pair_window(struct op_cost *out, struct estimate_sums *e, uint64_t *op_v, const uint64_t *h_v,
			uint32_t k)
{
	uint64_t h_med = window_median(h_v, k);
	uint64_t op_med = window_median(op_v, k);
	uint64_t cutoff = OUTLIER_FACTOR * MAX(h_med, op_med) + 64;
	if (!out->windows || h_med < out->harness_window_p50_min)
		out->harness_window_p50_min = h_med;
	if (h_med > out->harness_window_p50_max)
		out->harness_window_p50_max = h_med;
	out->windows++;
	add_trimmed(&e->harness, &e->harness_n, &e->trimmed, h_v, k, cutoff);
	add_trimmed(&e->op, &e->op_n, &e->trimmed, op_v, k, cutoff);
	for (uint32_t i = 0; i < k; i++)
		out->at_harness += op_v[i] == h_med;
	out->below_harness += stats_subtract_harness(op_v, k, h_med);
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
 * disagreed by 2x.  Logged into the plan's struct batch_log. */
static void log_batch_pair(const struct measure_ctx *ctx, struct batch_log *b, uint64_t (*op)(void))
{
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

/* Raw throughput: the median batch.  Net: the mean of the pairs'
 * differences with the highest and lowest tenth left out, the same kind
 * of figure as the per-call estimate. */
static void batch_figures(struct op_cost *out, struct batch_log *b)
{
	if (!b->n)
		return;
	stats_sort_u64(b->op, b->n);
	stats_sort_u64(b->diff, b->n);
	out->throughput_milli = b->op[b->n / 2] * 1000 / b->reads;
	uint32_t cut = b->n / 10, kept = b->n - 2 * cut;
	unsigned __int128 sum = 0;
	for (uint32_t i = cut; i < b->n - cut; i++)
		sum += b->diff[i];
	out->throughput_net_milli = u128_div_u64(sum * 1000, (uint64_t)b->reads * kept);
	out->batch_pairs = b->n;
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
		bool was_on = irq_save();
		uint32_t h_got = sample_window_any(ctx, empty_op, h_v, want,
						   MIN(deadline, rdtsc() + plan->window_deadline_cycles));
		uint32_t got = sample_window_any(ctx, op, op_v, want,
						 MIN(deadline, rdtsc() + plan->window_deadline_cycles));
		bool clean = !irq_enabled();
		irq_restore(was_on);
		uint32_t k = MIN(h_got, got);
		if (clean && k) {
			pair_window(out, e, op_v, h_v, k);
			n += k;
		} else if (!clean) {
			out->windows_discarded++;
		}
		log_batch_pair(ctx, batches, op);
		if (rdtsc() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
}

/* Too few samples for a trustworthy mean: fall back to the long batch. */
#define ESTIMATE_MIN_SAMPLES 64

static void fill_estimate(struct op_cost *out, const struct estimate_sums *e, uint64_t step_ticks)
{
	out->estimate_trimmed = e->trimmed;
	if (e->op_n >= ESTIMATE_MIN_SAMPLES && e->harness_n >= ESTIMATE_MIN_SAMPLES) {
		int64_t op = (int64_t)u128_div_u64(e->op * 1000 + e->op_n / 2, e->op_n);
		int64_t h = (int64_t)u128_div_u64(e->harness * 1000 + e->harness_n / 2, e->harness_n);
		out->estimate_milli = op > h ? op - h : 0;
		out->estimate_method = "interleaved_mean";
	} else {
		out->estimate_milli = (int64_t)out->throughput_net_milli;
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
	batches->n = 0;
	batches->reads = calls_per_window(ctx, op, MEASURE_BATCH_READS);
	sample_paired(ctx, out, &e, op, &n, batches);
	stats_dist_compute(&out->cycles, plan->scratch, n);
	stats_dist_compute(&out->harness, plan->harness_scratch, n);
	log2_hist_add_all(&out->hist, plan->scratch, n);
	/* A short run (few samples, or a budget spent early) leaves few
	 * pairs: top up to the usual batch count, still bounded in time. */
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	for (uint32_t i = 0; batches->n < MEASURE_BATCHES && i < MEASURE_BATCHES; i++) {
		log_batch_pair(ctx, batches, op);
		if (rdtsc() > deadline && batches->n)
			break;
	}
	batch_figures(out, batches);
	fill_estimate(out, &e, ctx->step_ticks);
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
