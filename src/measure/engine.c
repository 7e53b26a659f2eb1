/* Read-cost engine.  Every sample is a serialized time-stamp pair around
 * exactly one call through a function pointer.  Each window of samples is
 * preceded, in the same interrupt-masked stretch, by a window of the same
 * pair around an empty call: the harness, whose window median that window
 * subtracts.  No firmware call inside a window; a window that ends with
 * interrupts enabled is thrown away.
 *
 * Stateless: the stamp pair, the TSC's step, the scratch and the harness
 * tally all come in the struct measure_ctx every function takes. */
#include "measure.h"
#include "source.h"
#include "arch_api.h"
#include "counter.h"
#include "cost_stats.h"

/* Keeps a read's result observable, so the compiler cannot drop the read. */
static inline __attribute__((always_inline)) void keep(uint64_t v)
{
	__asm__ volatile("" ::"r"(v));
}

static inline __attribute__((always_inline)) uint64_t stamp_begin(bool mfence)
{
	return tb_stamp_begin(mfence ? STAMP_FENCE_MFENCE : STAMP_FENCE_LFENCE);
}

static inline __attribute__((always_inline)) uint64_t stamp_end(bool rdtscp_end, bool mfence)
{
	return tb_stamp_end(rdtscp_end, mfence ? STAMP_FENCE_MFENCE : STAMP_FENCE_LFENCE);
}

void measure_ctx_init(struct measure_ctx *ctx, const struct serialization *ser, bool have_rdtscp,
		      const struct measure_plan *plan)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->fence = ser->fence;
	ctx->read = ser->read;
	ctx->rdtscp_end = have_rdtscp;
	ctx->method = tb_stamp_method(ctx->fence, ctx->rdtscp_end);
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
timed_calls(uint64_t (*op)(void), uint64_t *out, uint64_t *cycles, uint32_t n, uint64_t deadline, bool each,
	    uint64_t *total, bool rdtscp_end, bool mfence)
{
	uint64_t acc = 0, t0 = 0;
	uint32_t i, state = n;
	uint64_t start = stamp_begin(mfence), prev = start;
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
			/* From the last closing stamp to this one: a whole turn of
			 * the loop, what the call left behind after its stamp too. */
			if (cycles)
				cycles[i] = t1 - prev;
			prev = t1;
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
								       uint64_t *cycles, uint32_t n,             \
								       uint64_t deadline, bool each,             \
								       uint64_t *total)                          \
	{                                                                                                    \
		return timed_calls(op, out, cycles, n, deadline, each, total, rdtscp_end, mfence);           \
	}
TIMED_CALLS_VARIANT(timed_calls_lfence, false, false)
TIMED_CALLS_VARIANT(timed_calls_lfence_rdtscp, true, false)
TIMED_CALLS_VARIANT(timed_calls_mfence, false, true)
TIMED_CALLS_VARIANT(timed_calls_mfence_rdtscp, true, true)

static uint32_t timed_calls_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint64_t *cycles,
			       uint32_t n, uint64_t deadline, bool each, uint64_t *total)
{
	if (ctx->fence == STAMP_FENCE_MFENCE)
		return ctx->rdtscp_end ? timed_calls_mfence_rdtscp(op, out, cycles, n, deadline, each, total)
				       : timed_calls_mfence(op, out, cycles, n, deadline, each, total);
	return ctx->rdtscp_end ? timed_calls_lfence_rdtscp(op, out, cycles, n, deadline, each, total)
			       : timed_calls_lfence(op, out, cycles, n, deadline, each, total);
}

static uint32_t sample_window_any(const struct measure_ctx *ctx, uint64_t (*op)(void), uint64_t *out, uint32_t n,
				  uint64_t deadline)
{
	return timed_calls_any(ctx, op, out, NULL, n, deadline, true, NULL);
}

static uint64_t batch_cycles(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t reads)
{
	uint64_t total = 0, unused;
	timed_calls_any(ctx, op, &unused, NULL, reads, UINT64_MAX, false, &total);
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

/* Trimmed mean over several batches, each timed with interrupts masked,
 * per read x1000, and its standard error into *se_out. */
static uint64_t throughput_milli(const struct measure_ctx *ctx, uint64_t (*op)(void), uint32_t reads,
				 uint64_t *se_out)
{
	uint64_t per_batch[MEASURE_BATCHES];
	uint64_t deadline = tb_now() + ctx->plan.budget_cycles;
	uint32_t n = 0;
	for (uint32_t b = 0; b < MEASURE_BATCHES; b++) {
		bool was_on = irq_save();
		uint64_t c = batch_cycles(ctx, op, reads);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			per_batch[n++] = c;
		if (tb_now() > deadline && n)
			break;
	}
	*se_out = 0;
	if (!n)
		return 0;
	stats_sort_u64(per_batch, n);
	uint64_t mean_milli, se_milli;
	stats_trimmed_mean_se(per_batch, n, cost_batch_cut(n), &mean_milli, &se_milli);
	*se_out = (se_milli + reads / 2) / reads;
	return mean_milli / reads;
}

/* Unpaired windows: the harness's own baseline. */
static void sample_alone(const struct measure_ctx *ctx, struct op_cost *out, uint64_t (*op)(void), uint32_t *taken)
{
	const struct measure_plan *plan = &ctx->plan;
	uint64_t deadline = tb_now() + plan->budget_cycles;
	uint32_t n = 0;
	/* Bounded twice: by the sample count (each pass adds a window or counts
	 * a discarded one) and by the TSC deadline. */
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(MEASURE_WINDOW_SAMPLES, plan->samples - n);
		uint64_t window_deadline = MIN(deadline, tb_now() + plan->window_deadline_cycles);
		bool was_on = irq_save();
		uint32_t got = sample_window_any(ctx, op, plan->scratch + n, want, window_deadline);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			n += got;
		else
			out->windows_discarded++;
		if (tb_now() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
}

/* Every timed pair of per-call windows starts with the same untimed
 * prelude inside its mask (a few calls of the op, then of the empty op,
 * through the same loop), so the harness window never pays for whatever
 * ran before the mask: the work before a pair differs (statistics, a
 * back-to-back batch), and a harness window inflated by it pulled the
 * estimate and its check apart by 2-2.5 ticks on the tsc row. */
#define PRELUDE_OP_CALLS 4
#define PRELUDE_EMPTY_CALLS 16

static void prelude(const struct measure_ctx *ctx, uint64_t (*op)(void))
{
	uint64_t st[PRELUDE_EMPTY_CALLS], turns[PRELUDE_EMPTY_CALLS];
	timed_calls_any(ctx, op, st, turns, PRELUDE_OP_CALLS, UINT64_MAX, true, NULL);
	timed_calls_any(ctx, empty_op, st, turns, PRELUDE_EMPTY_CALLS, UINT64_MAX, true, NULL);
}

/* Batch pairs (empty, then op, same length) taken between the sample
 * windows, so the batch figures and the per-call estimate cover the same
 * stretch of time: under TCG the cost of a call changes over a run (the
 * translated-block jump cache), and figures from two different moments
 * disagreed by 2x.  Logged into the plan's struct batch_log. */
static void batch_pair(const struct measure_ctx *ctx, struct batch_log *b, uint64_t (*op)(void))
{
	if (b->n >= MEASURE_MAX_BATCH_PAIRS || !b->reads)
		return;
	/* Empty first here too: every harness window and batch then follows
	 * the op's own (an empty batch just before the harness window made it
	 * cheaper than the check's, and the estimate ~1 % dearer). */
	bool was_on = irq_save();
	uint64_t h = batch_cycles(ctx, empty_op, b->reads);
	uint64_t c = batch_cycles(ctx, op, b->reads);
	bool clean = !irq_enabled();
	irq_restore(was_on);
	if (clean) {
		b->op[b->n] = c;
		b->diff[b->n++] = c > h ? c - h : 0;
	}
}

/* Window pairs held out of the estimate as its check: two in every six,
 * so both the check and the estimate have pairs that follow a
 * back-to-back batch (even passes run one) and pairs that do not. */
static bool held_out(uint32_t pass)
{
	return pass % 6 == 1 || pass % 6 == 4;
}

/* Harness window, then op window, in one masked stretch after the
 * prelude, timed into the batch log's stamp arrays (one warm place for
 * every pair, whether it feeds the estimate or its check); true when no
 * interrupt came in between. */
static bool time_window_pair(const struct measure_ctx *ctx, uint64_t (*op)(void), struct batch_log *b,
			     struct window_pair *w, uint32_t want, uint64_t deadline)
{
	const struct measure_plan *plan = &ctx->plan;
	w->op_c = b->turns;
	w->h_c = b->turns_h;
	bool was_on = irq_save();
	prelude(ctx, op);
	w->h_got = timed_calls_any(ctx, empty_op, b->stamps_h, w->h_c, want,
				   MIN(deadline, tb_now() + plan->window_deadline_cycles), true, NULL);
	w->op_got = timed_calls_any(ctx, op, b->stamps, w->op_c, want,
				    MIN(deadline, tb_now() + plan->window_deadline_cycles), true, NULL);
	bool clean = !irq_enabled();
	irq_restore(was_on);
	return clean;
}

/* Samples per timed window: the plan's own size where it sets one (the
 * contention stage, whose few samples per CPU must still make several
 * windows for an SE), else MEASURE_WINDOW_SAMPLES. */
static uint32_t plan_window_samples(const struct measure_plan *plan)
{
	if (plan->window_samples && plan->window_samples < MEASURE_WINDOW_SAMPLES)
		return plan->window_samples;
	return MEASURE_WINDOW_SAMPLES;
}

/* Untimed window pairs before pass 0: the same masked prelude, harness
 * and op windows as a timed pair, nothing kept.  The first pairs of every
 * op cost more than the rest (TCG translating the op's and the loop's
 * blocks, caches and predictors warming): before this, in 30 quick-mode
 * TCG boots the first estimate window was 9-35 ticks dearer than the
 * op's other estimate windows, and the second pair (the first check)
 * still dearer, so one discarded pair is not enough: the mean excess by
 * pair index was +7.9, +7.1, +4.9 ticks (kernel port) and +10.0, +3.3
 * (unassigned port), a transient of about three pairs. */
#ifndef WARMUP_PAIRS
#define WARMUP_PAIRS 3
#endif

static void warm_up(const struct measure_ctx *ctx, uint64_t (*op)(void), struct batch_log *b, uint32_t want,
		    uint64_t deadline)
{
	uint32_t pairs = WARMUP_PAIRS;
	for (uint32_t i = 0; i < pairs && tb_now() < deadline; i++) {
		struct window_pair w = { .op_v = b->stamps, .h_v = b->stamps_h };
		time_window_pair(ctx, op, b, &w, want, deadline);
	}
}

/* The sample windows: each pair's op samples come back with their
 * window's harness median subtracted.  Every pair runs the same code on
 * the same memory after the same work whether it feeds the estimate or
 * its check (held_out()).  Each difference between the two once moved
 * one against the other by 1-7 ticks under TCG: a check writing fresh
 * scratch where windows wrote warm memory (PIT), a check alone in
 * following a window's statistics (tsc, HPET). */
static void sample_paired(const struct measure_ctx *ctx, struct op_cost *out, struct estimate_sums *e,
			  uint64_t (*op)(void), uint32_t *taken, struct batch_log *batches)
{
	const struct measure_plan *plan = &ctx->plan;
	/* Three times the budget: every window pair is half harness, half the
	 * passes add a batch pair, a third are held out. */
	uint64_t deadline = tb_now() + 3 * plan->budget_cycles;
	uint32_t n = 0;
	uint32_t per_window = plan_window_samples(plan);
	warm_up(ctx, op, batches, MIN(per_window, plan->samples), deadline);
	for (uint32_t pass = 0; n < plan->samples && pass < 2 * plan->samples; pass++) {
		uint32_t want = MIN(per_window, plan->samples - n);
		struct window_pair w = { .op_v = plan->scratch + n, .h_v = plan->harness_scratch + n };
		bool clean = time_window_pair(ctx, op, batches, &w, want, deadline);
		/* Copied out after the mask, held out or not: the same work. */
		memcpy(w.h_v, batches->stamps_h, w.h_got * sizeof *w.h_v);
		memcpy(w.op_v, batches->stamps, w.op_got * sizeof *w.op_v);
		uint32_t k = MIN(w.h_got, w.op_got);
		/* Before the statistics: the batch pair leaves the turns alone. */
		if (!(pass & 1))
			batch_pair(ctx, batches, op);
		if (clean && k && held_out(pass)) {
			cost_hold_out(batches, &w); /* its samples: overwritten next */
		} else if (clean && k) {
			cost_pair_window(out, e, &w);
			n += k;
		} else if (!clean) {
			out->windows_discarded++;
		}
		if (tb_now() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
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
	batches->n = batches->calls_n = 0;
	batches->reads = calls_per_window(ctx, op, MEASURE_BATCH_READS);
	sample_paired(ctx, out, &e, op, &n, batches);
	stats_dist_compute(&out->cycles, plan->scratch, n);
	stats_dist_compute(&out->harness, plan->harness_scratch, n);
	log2_hist_add_all(&out->hist, plan->scratch, n);
	/* A short run (few samples, or a budget spent early) leaves few
	 * pairs: top up to the usual batch count, still bounded in time. */
	uint64_t deadline = tb_now() + plan->budget_cycles;
	for (uint32_t i = 0; (batches->n < MEASURE_BATCHES || batches->calls_n < MEASURE_BATCHES) &&
			     i < 2 * MEASURE_BATCHES; i++) {
		if (batches->calls_n < batches->n) {
			struct window_pair w = { .op_v = batches->stamps, .h_v = batches->stamps_h };
			if (time_window_pair(ctx, op, batches, &w, plan_window_samples(plan), UINT64_MAX) &&
			    MIN(w.h_got, w.op_got))
				cost_hold_out(batches, &w);
		} else {
			batch_pair(ctx, batches, op);
		}
		if (tb_now() > deadline && batches->n && batches->calls_n)
			break;
	}
	cost_batch_figures(out, batches);
	cost_fill_estimate(out, &e, ctx->step_ticks);
	cost_note_harness_windows(ctx->totals, out);
}

#define STEP_READS 4096
#define STEP_SPINS 96
#define STEP_ROUNDS 4

static void __attribute__((noinline)) spin(uint32_t n)
{
	for (volatile uint32_t k = 0; k < n; k++)
		;
}

/* The TSC's step.  Quantized counters are found by clustering
 * (tsc_step_clusters()).
 * Otherwise the step hides below one read's cost: back-to-back reads
 * only bound it by the common divisor of their differences, and what that
 * means is decided in tsc_step_decide() (src/analysis/tsc_step.c). */
void measure_tsc_step(struct tsc_step *out, const struct measure_ctx *ctx)
{
	const struct measure_plan *plan = &ctx->plan;
	uint64_t *v = plan->scratch;
	uint32_t n = MIN(plan->samples, (uint32_t)STEP_READS);
	uint64_t deadline = tb_now() + plan->window_deadline_cycles * 4;
	memset(out, 0, sizeof *out);

	uint32_t got = 0;
	bool was_on = irq_save();
	for (uint32_t round = 0; round < STEP_ROUNDS && got < n; round++)
		for (uint32_t k = 0; k < STEP_SPINS && got < n && tb_now() < deadline; k++) {
			uint64_t t0 = tb_ordered(ctx->read);
			spin(k);
			v[got++] = tb_ordered(ctx->read) - t0;
		}
	irq_restore(was_on);
	uint64_t clustered = tsc_step_clusters(v, got, NULL);

	/* Back to back with the same ordered read, so consecutive values are
	 * in order and the differences are the read's own. */
	got = 0;
	deadline = tb_now() + plan->window_deadline_cycles * 4;
	was_on = irq_save();
	for (; got < n; got++) {
		v[got] = tb_ordered(ctx->read);
		if (v[got] > deadline) {
			got++;
			break;
		}
	}
	irq_restore(was_on);
	uint32_t nz = 0;
	for (uint32_t i = 1; i < got; i++) {
		out->pairs++;
		if (v[i] <= v[i - 1]) {
			out->stalls += v[i] == v[i - 1];
			continue;
		}
		v[nz++] = v[i] - v[i - 1]; /* differences overwrite the readings behind them */
	}
	tsc_step_decide(out, clustered, v, nz);
}

/* The TSC as nothing orders it: what the tsc row cost before it measured
 * what a Linux vDSO executes (rdtsc_ordered()). */
static uint64_t op_rdtsc_raw(void) { return tb_now(); }


#define REF_LOOP_ITERATIONS 1000
#define REF_LOOP_ROUNDS 5

/* The fewest ticks of a few rounds (bounded by the window deadline each):
 * a round that took an interrupt or a preemption only adds. */
static void measure_ref_loop(const struct measure_ctx *ctx, struct ref_loop *out)
{
	out->iterations = REF_LOOP_ITERATIONS;
	out->insns_per_iteration = CPU_REF_LOOP_INSNS;
	out->ticks_min = UINT64_MAX;
	keep(cpu_ref_loop(16));
	uint64_t deadline = tb_now() + 4 * ctx->plan.window_deadline_cycles * REF_LOOP_ROUNDS;
	for (uint32_t i = 0; i < REF_LOOP_ROUNDS && (i == 0 || tb_now() < deadline); i++) {
		bool was_on = irq_save();
		uint64_t t0 = tb_ordered(ctx->read);
		keep(cpu_ref_loop(REF_LOOP_ITERATIONS));
		uint64_t t1 = tb_ordered(ctx->read);
		irq_restore(was_on);
		uint64_t d = t1 > t0 ? t1 - t0 : 0;
		out->ticks_min = MIN(out->ticks_min, d);
		out->ticks_max = MAX(out->ticks_max, d);
		out->rounds++;
	}
}

void measure_baselines(struct measure_ctx *ctx, struct baselines *b)
{
	const struct measure_plan *plan = &ctx->plan;
	uint32_t n = 0;
	memset(b, 0, sizeof *b);
	measure_tsc_step(&b->step, ctx);
	ctx->step_ticks = b->step.ticks;
	measure_ref_loop(ctx, &b->ref_loop);
	for (int i = 0; i < 16; i++)
		keep(empty_op());
	sample_alone(ctx, &b->harness, empty_op, &n);
	stats_dist_compute(&b->harness.cycles, plan->scratch, n);
	log2_hist_init(&b->harness.hist);
	log2_hist_add_all(&b->harness.hist, plan->scratch, n);
	b->harness.throughput_milli = throughput_milli(
		ctx, empty_op, calls_per_window(ctx, empty_op, MEASURE_BATCH_READS), &b->harness.throughput_se_milli);
	b->harness.step_ticks = ctx->step_ticks;

	measure_op(ctx, &b->rdtsc_raw, op_rdtsc_raw);
	measure_op(ctx, &b->cpuid, yardstick_trap);
	b->unassigned_port = yardstick_unassigned_port;
	measure_op(ctx, &b->port, yardstick_device_unassigned);
	b->kernel_port_number = YARDSTICK_KERNEL_PORT;
	measure_op(ctx, &b->kernel_port, yardstick_device_kernel);
}

void measure_behaviour(const struct measure_ctx *ctx, struct behaviour *out, const struct source_desc *d)
{
	const struct measure_plan *plan = &ctx->plan;
	memset(out, 0, sizeof *out);
	uint64_t deadline = tb_now() + plan->budget_cycles;
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
		if (tb_now() > deadline)
			break;
	}
	if (out->min_step_ticks == UINT64_MAX)
		out->min_step_ticks = 0;
	out->frozen = out->reads > 0 && out->forward == 0 && out->backward == 0;
}
