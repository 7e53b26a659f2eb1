/* The measurement engine: read cost, throughput and behaviour of any clock
 * source, known only through struct clock_source / source_desc. */
#ifndef CP_MEASURE_H
#define CP_MEASURE_H
#include "stats.h"
#include "tsc_order.h"
#include "tsc_step.h"

struct cpu_info;
struct source_desc;
struct source_result;

/* Samples per interrupt-masked window: short against the firmware's 10 ms
 * tick, long enough to amortise the mask/unmask around it. */
#define MEASURE_WINDOW_SAMPLES 128
#define MEASURE_BATCH_READS 256
#define MEASURE_BATCHES 9

/* Per-call cost of one operation.  Every window of samples is paired with
 * a window of the empty harness taken right before it, in the same masked
 * stretch, and the pair's harness median is what that window subtracts. */
struct op_cost {
	struct dist cycles;       /* per call, the paired harness median subtracted */
	struct dist harness;      /* the interleaved empty harness, raw */
	uint64_t harness_window_p50_min, harness_window_p50_max;
	uint32_t windows;         /* harness/op window pairs kept */
	/* Unbiased cost per call, x1000: the mean of whole turns of the loop
	 * in the op windows (from one call's closing stamp to the next's, the
	 * dither between them included: everything a call costs, the part that
	 * lands after its own closing stamp too) minus the same mean in the
	 * interleaved harness windows, which run the same dither sequence;
	 * each side trimmed at its window's median plus one common excess (a
	 * vCPU preempted inside a turn).  The turns of a window add up to its
	 * whole span, hundreds of steps of a counter that moves in steps, so
	 * no quantization is left in the mean. */
	int64_t estimate_milli;
	/* estimate_milli is never below 0 (a read costs something): where the
	 * difference came out negative (noise about the harness, or a read
	 * cheaper than the harness's own variation) it is 0 and this says so,
	 * with the difference as measured. */
	bool estimate_clamped;
	int64_t estimate_signed_milli;
	/* Its standard error, x1000: from how the per-window differences
	 * scatter around it (stats.h, struct window_se: the cluster variance,
	 * so drift between windows counts). */
	uint64_t estimate_se_milli;
	/* The SE was computed (two windows or batch pairs at least): an SE of
	 * 0 is then a measured 0, not a missing one (issue 40's per-CPU SEs). */
	bool estimate_se_known;
	/* The same difference with nothing trimmed, x1000. */
	int64_t estimate_untrimmed_milli;
	/* The stamped intervals alone: mean of the raw reads minus mean of the
	 * interleaved harness samples, trimmed alike, x1000, with its SE.
	 * What falls between a call's closing stamp and the next call is not
	 * in it. */
	int64_t stamped_milli;
	uint64_t stamped_se_milli;
	const char *estimate_method; /* "interleaved_turns" | "batch_net" */
	uint32_t estimate_trimmed;   /* turns above their window's cutoff */
	uint64_t step_ticks;      /* the TSC's step in this run (0 = not observable) */
	bool below_resolution;    /* net cost under two steps: percentiles mean nothing */
	/* Per call in a back-to-back batch, x1000: the raw batch mean, loop and
	 * call overhead included, as peer exit-cost benchmarks (kvm-unit-tests
	 * vmexit) report it; _net has the empty batch's mean subtracted. */
	/* Both are means over the same batch pairs (the tenth with the
	 * highest and the tenth with the lowest difference left out), so the
	 * net figure is never above the raw one. */
	uint64_t throughput_milli;
	/* The standard error of throughput_milli, x1000: of the kept op
	 * batches' mean (the harness alone: of its trimmed batch mean). */
	uint64_t throughput_se_milli;
	uint64_t throughput_net_milli;
	/* The standard error of throughput_net_milli, x1000 (Tukey-McLaughlin
	 * over the pairs, stats_trimmed_mean_se). */
	uint64_t throughput_net_se_milli;
	uint32_t batch_pairs;     /* batch pairs behind the two figures above */
	uint32_t batch_pairs_trimmed; /* of those, left out of both means */
	/* The estimate checked on other data: the per-call loop (its stamps
	 * and pauses, the same code the samples ran) as extra window pairs,
	 * the estimate's own estimator per pair, the plain mean over pairs,
	 * x1000, with its standard error.  It measures what the
	 * estimate measures; throughput_net (back to back, nothing between
	 * the calls) measures a different thing and may differ from both. */
	uint64_t estimate_batch_milli;
	uint64_t estimate_batch_se_milli;
	uint32_t estimate_batch_pairs;
	uint32_t windows_discarded; /* interrupts found enabled at the end */
	uint32_t below_harness;   /* samples cheaper than their harness median */
	uint32_t at_harness;      /* samples equal to it: clamped to 0 as well */
	bool deadline_hit;        /* the time budget ended sampling early */
	struct log2_hist hist;
};

/* struct tsc_step: tsc_step.h (its decision is pure). */

struct behaviour {
	uint32_t reads;
	uint32_t forward, same, wraps, backward;
	uint64_t min_step_ticks;   /* smallest non-zero forward step */
	uint64_t max_backward_ticks;
	bool frozen;               /* every read returned the same value */
};

/* The run-wide spread of the interleaved harness: the range of every
 * window median, over every op measured (baselines.harness_stability). */
struct harness_totals {
	uint64_t window_p50_min, window_p50_max;
	uint32_t windows;
};

struct baselines {
	struct op_cost harness; /* not subtracted from itself */
	struct op_cost rdtsc_raw; /* plain RDTSC, unordered */
	struct op_cost cpuid;
	struct op_cost port;
	struct op_cost kernel_port;
	uint16_t unassigned_port;
	uint16_t kernel_port_number;
	struct tsc_step step;
	/* An RDTSC-free loop of dependent adds, timed whole with interrupts
	 * masked: what one plain instruction costs on this vCPU.  It tells an
	 * RDTSC that exits from a vCPU that runs everything slowly (a
	 * hypervisor that emulates the guest's every instruction). */
	struct ref_loop {
		uint32_t iterations, insns_per_iteration, rounds;
		uint64_t ticks_min, ticks_max; /* one round's TSC ticks: fewest, most */
	} ref_loop;
	/* Every op's harness windows, the sources' included. */
	struct harness_totals totals;
};

/* One op's batch pairs (empty, then op, same length) and the estimate's
 * check, kept while it is measured: scratch the run allocates with the
 * sample buffers.  Back-to-back calls between the sample windows (op[],
 * diff[]: the throughput figures); the held-out window pairs' differences
 * of whole turns (calls_diff[]: the estimate's check, free of the TSC's
 * step as the estimate is). */
#define MEASURE_MAX_BATCH_PAIRS 256
struct batch_log {
	uint64_t op[MEASURE_MAX_BATCH_PAIRS], diff[MEASURE_MAX_BATCH_PAIRS];
	uint32_t n, reads;
	uint64_t calls_diff[MEASURE_MAX_BATCH_PAIRS]; /* each pair's difference, biased (engine.c) */
	uint32_t calls_n;
	/* Where every per-call window pair's stamped intervals (op, empty)
	 * and whole turns land while timed: one warm place for all of them. */
	uint64_t stamps[MEASURE_WINDOW_SAMPLES], stamps_h[MEASURE_WINDOW_SAMPLES];
	uint64_t turns[MEASURE_WINDOW_SAMPLES], turns_h[MEASURE_WINDOW_SAMPLES];
};

struct measure_plan {
	uint32_t samples;
	uint64_t budget_cycles; /* per source */
	uint64_t window_deadline_cycles;
	uint64_t *scratch;      /* samples entries */
	uint64_t *harness_scratch; /* samples entries, for the interleaved harness */
	struct batch_log *batches;
	/* Samples per timed window pair, 0 = MEASURE_WINDOW_SAMPLES (set
	 * smaller where few samples must still make several windows). */
	uint32_t window_samples;
};

/* Everything a measurement depends on besides its own arguments, passed to
 * each one: how this CPU's time stamps are taken, what the run learned of
 * its TSC, the sampling plan, and where harness windows are tallied.  The
 * engine keeps no state of its own: the same context and op give the same
 * kind of figure wherever they are measured. */
struct measure_ctx {
	enum stamp_fence fence;   /* from serialization_choose() */
	enum tsc_read read;       /* this CPU's one ordered read (tsc_order.h) */
	bool rdtscp_end;          /* the closing stamp is RDTSCP (the CPU has it) */
	const char *method;       /* the stamp pair in words (read_cost.method) */
	/* The TSC's step in this run, 0 = not observable: measure_baselines()
	 * finds it before any op is measured; estimates and the gap scan use it. */
	uint64_t step_ticks;
	struct measure_plan plan;
	/* Each measure_op() adds its interleaved harness windows here (NULL:
	 * nowhere); the run points it at its baselines.totals. */
	struct harness_totals *totals;
};

/* The stamp pair for this CPU (fence and RDTSCP) and the plan; step 0,
 * no totals yet. */
void measure_ctx_init(struct measure_ctx *ctx, const struct serialization *ser, bool have_rdtscp,
		      const struct measure_plan *plan);
/* Picks the ordered read and the stamp fence for the BSP from its CPUID
 * decode, reading DE_CFG where that decides (serialize.c). */
void serialization_choose(struct serialization *out, const struct cpu_info *cpu);
/* The same on the CPU that calls it, from its own CPUID (an AP). */
void serialization_choose_here(struct serialization *out);

/* Measures any argument-less operation (a source read, CPUID, a port read,
 * an MSR access) the same way: per-call distribution with the empty
 * harness subtracted, and batch throughput. */
void measure_op(const struct measure_ctx *ctx, struct op_cost *out, uint64_t (*op)(void));
/* The TSC's step (into b->step and ctx->step_ticks), the empty harness and
 * the CPUID and port yardsticks; ctx->totals tallies from here on. */
void measure_baselines(struct measure_ctx *ctx, struct baselines *b);
/* The step detector alone (measure_baselines runs it first). */
void measure_tsc_step(struct tsc_step *out, const struct measure_ctx *ctx);
void measure_behaviour(const struct measure_ctx *ctx, struct behaviour *out, const struct source_desc *d);

/* One prepared source (s->src, s->desc, s->status from its prepare):
 * behaviour, read cost and its own extra measurements while it is OK, its
 * facts collected either way (sources.c). */
void measure_source(const struct measure_ctx *ctx, struct source_result *s);
struct run_results;
/* Every source's facts again: some counts (pvclock retries) grow while
 * later stages read the sources. */
void sources_collect(struct run_results *r);
/* Every source handed back (HPET configuration, pvclock page): after the
 * last reading, the watch's included. */
void sources_release(struct run_results *r);

/* One reference reading for a rate or an offset: of `tries` reads, the one
 * with the narrowest TSC bracket (an interrupt or a preempted vCPU widens
 * it); returns the raw value, with the bracket's midpoint and width
 * (stamp.c).  The frequency window and the watch both time against it. */
uint64_t measure_stamp(const struct measure_ctx *ctx, const struct source_desc *d, unsigned tries,
		       uint64_t *tsc_mid, uint64_t *bracket);
#endif
