/* What a counter read costs, and the counter's rate against a clock that
 * is not the counter (docs/architecture.md, "src/arch/arm64").
 *
 * Costs.  Each read is measured by the generic engine (src/measure/engine.c,
 * measure_op()) through the arch seam (include/arch_api.h: stamps ISB; MRS
 * CNTVCT_EL0; ISB), as x86 measures every source: per-call windows
 * interleaved with windows of an empty call, IRQs masked per window pair,
 * the estimate from whole turns of the loop (so the counter's coarse step
 * leaves no quantization in it: 16 ns at QEMU's 62.5 MHz, more than one
 * read), its SE from the window pairs' scatter, held-out pairs as its
 * check, and back-to-back batch pairs for the throughput figures.  The
 * counter's step (measure_tsc_step()) is found first, as x86 finds the
 * TSC's.  The virtual timer's costs (vtimer.c, a64_measure_cost) are
 * still the reduced loop below: batches of BATCH_CALLS calls against an
 * empty call, the trimmed mean of the pairs' differences.
 *
 * Trapping.  A counter read the hypervisor traps costs an exit and a
 * return, where a direct read costs a few cycles.  CNTPCT_EL0 is judged
 * against CNTVCT_EL0, the same kind of read, which KVM leaves to the guest
 * (it traps the physical counter only to apply an offset it cannot set
 * without FEAT_ECV): trapped when it costs TRAP_RATIO times CNTVCT's and
 * the excess stands clear of both SEs.  Under TCG both are emulated by one
 * helper alike, so neither traps.  CNTVCT_EL0 itself has no reference of
 * its kind: ISB; MRS MIDR_EL1 (a register no hypervisor can trap: it reads
 * VPIDR_EL2) is measured beside it, but TCG emulates the counter with a
 * host clock call and MIDR as a constant (43 ns against 2 ns on the first
 * boot), so a ratio against it would call TCG's counter trapped: it is
 * reported as not judged, and the verdict gets "unknown". */
#include <efi.h>
#include <efilib.h>
#include "a64.h"
#include "cost_stats.h"
#include "a64_probe.h"
#include "arch_api.h"
#include "stats.h"

#define BATCH_CALLS 32u
#define PAIRS_PER_WINDOW 32u
#define MAX_PAIRS 3072u
/* Each read's share of the run: a deadline in counter ticks (CNTFRQ
 * known) and the pair cap bound it twice. */
#define COST_BUDGET_MS 150u
#define TRAP_RATIO 4u
#define TRAP_SE_MULTIPLE 4u

typedef uint64_t (*read_fn)(void);

/* Out of line, so that the read and the empty call cost the same call
 * and return; the asm keeps the empty one from being folded away. */
static __attribute__((noinline)) uint64_t op_empty(void)
{
	uint64_t v = 0;
	__asm__ volatile("" : "+r"(v));
	return v;
}
static __attribute__((noinline)) uint64_t op_cntvct(void) { return a64_cntvct_ordered(); }
static __attribute__((noinline)) uint64_t op_cntpct(void) { return a64_cntpct_ordered(); }
static __attribute__((noinline)) uint64_t op_cntvctss(void) { return a64_cntvctss(); }
static __attribute__((noinline)) uint64_t op_midr(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, midr_el1" : "=r"(v) : : "memory");
	return v;
}

static volatile uint64_t sink;

/* Out of line, so that the empty call and the measured one are made the
 * same way, through the pointer (BLR): inlined, the empty one became a
 * direct BL while the other stayed indirect, and under TCG every figure
 * carried that difference (about 3.8 ns, seen against the engine's). */
static __attribute__((noinline)) uint64_t batch(read_fn f)
{
	uint64_t acc = 0;
	uint64_t t0 = tb_stamp_begin(STAMP_FENCE_ISB);
	for (uint32_t i = 0; i < BATCH_CALLS; i++)
		acc += f();
	uint64_t t1 = tb_stamp_end(false, STAMP_FENCE_ISB);
	sink = acc;
	return t1 - t0;
}

/* A batch figure (ticks x scale) as picoseconds per call. */
static uint64_t batch_ps(uint64_t v, uint64_t scale, uint64_t hz)
{
	if (!hz)
		return 0;
	unsigned __int128 den = (unsigned __int128)hz * scale * BATCH_CALLS;
	return (uint64_t)(((unsigned __int128)v * 1000000000000u + den / 2) / den);
}

static uint64_t diffs[MAX_PAIRS], opt[MAX_PAIRS], ht[MAX_PAIRS];

/* The reduced loop, kept for the virtual timer's costs (a64_measure_cost):
 * to move them onto the engine is vtimer.c's own change. */
static void measure_one(struct a64_run *r, struct a64_cost *c, read_fn f)
{
	uint64_t budget = r->cntfrq ? r->cntfrq / 1000u * COST_BUDGET_MS : 0;
	uint64_t start = tb_now();
	uint32_t n = 0;
	/* Warm-up: the first calls translate (TCG) or fill caches. */
	for (int i = 0; i < 8; i++) {
		batch(op_empty);
		batch(f);
	}
	while (n < MAX_PAIRS) {
		bool was_on = irq_save();
		for (uint32_t k = 0; k < PAIRS_PER_WINDOW && n < MAX_PAIRS; k++, n++) {
			ht[n] = batch(op_empty);
			opt[n] = batch(f);
			diffs[n] = cost_biased(((int64_t)opt[n] - (int64_t)ht[n]) * 1000);
		}
		irq_restore(was_on);
		if (budget && tb_now() - start > budget) {
			c->deadline_hit = n < MAX_PAIRS;
			break;
		}
	}
	c->pairs = n;
	c->batch_calls = BATCH_CALLS;
	if (n < 3) {
		c->absent = "fewer than three batch pairs inside the deadline";
		return;
	}
	uint64_t mean, se, hmean, hse;
	stats_sort_u64(diffs, n);
	stats_trimmed_mean_se(diffs, n, cost_batch_cut(n), &mean, &se);
	stats_sort_u64(ht, n);
	stats_trimmed_mean_se(ht, n, cost_batch_cut(n), &hmean, &hse);
	stats_sort_u64(opt, n);
	c->batch_ticks_p50 = stats_percentile_sorted(opt, n, STATS_P50);
	/* The differences were milli-ticks, so mean and SE are micro-ticks
	 * (x10^6) per batch; the harness, plain ticks, comes back x1000. */
	int64_t net_micro = (int64_t)mean - (int64_t)DIFF_BIAS * 1000;
	if (net_micro < 0)
		net_micro = 0;
	c->read_ps = batch_ps((uint64_t)net_micro, 1000000u, r->cntfrq);
	c->se_ps = batch_ps(se, 1000000u, r->cntfrq);
	c->se_known = true;	/* n >= 3 pairs: the trimmed mean's SE */
	c->harness_ps = batch_ps(hmean, 1000u, r->cntfrq);
	c->measured = r->cntfrq != 0;
	if (!c->measured)
		c->absent = "CNTFRQ_EL0 reads 0: ticks cannot be turned into time";
}

void a64_measure_cost(struct a64_run *r, struct a64_cost *c, uint64_t (*f)(void))
{
	measure_one(r, c, f);
}

/* "yes"/"no" for a read against its reference, or why not judged. */
static const char *trap_judge(const struct a64_cost *c, const struct a64_cost *ref)
{
	if (!c->measured || !ref->measured)
		return "not judged: a cost is missing";
	uint64_t excess = c->read_ps > ref->read_ps ? c->read_ps - ref->read_ps : 0;
	uint64_t noise = TRAP_SE_MULTIPLE * (c->se_ps + ref->se_ps);
	return c->read_ps > TRAP_RATIO * ref->read_ps && excess > noise ? "yes" : "no";
}

/* The engine's plan: x86's default mode (4096 samples), each read's budget
 * ENGINE_BUDGET_MS (the engine spends up to four budgets: three on the
 * window pairs, one topping up the batch pairs), windows bounded at 2 ms
 * as on x86.  Scratch for one read at a time. */
#define ENGINE_SAMPLES 4096u
#define ENGINE_BUDGET_MS 100u
#define ENGINE_WINDOW_MS 2u
static uint64_t eng_scratch[ENGINE_SAMPLES], eng_harness[ENGINE_SAMPLES], eng_sorted[MEASURE_MAX_BATCH_PAIRS];
static struct batch_log eng_batches;

static void engine_ctx(struct a64_run *r, struct measure_ctx *ctx)
{
	struct serialization ser;
	a64_serialization(&ser);
	uint64_t per_ms = r->cntfrq / 1000u;
	struct measure_plan plan = {
		.samples = ENGINE_SAMPLES,
		.budget_cycles = per_ms * ENGINE_BUDGET_MS,
		.window_deadline_cycles = per_ms * ENGINE_WINDOW_MS,
		.scratch = eng_scratch,
		.harness_scratch = eng_harness,
		.batches = &eng_batches,
	};
	/* No self-waiting closing read on arm64 (arch_impl.h). */
	measure_ctx_init(ctx, &ser, false, &plan);
	measure_tsc_step(&r->step, ctx);
	ctx->step_ticks = r->step.ticks;
	r->method = ctx->method;
}

/* One read through the engine; the old names from its figures: read_ps
 * and se_ps the estimate (what x86's verdict takes as a read's cost),
 * harness_ps the empty call's back-to-back cost per call (the raw batch
 * mean less the net one), the batch names its batch pairs. */
static void engine_one(struct a64_run *r, const struct measure_ctx *ctx, struct a64_cost *c, read_fn f)
{
	const struct op_cost *o = &c->op;
	measure_op(ctx, &c->op, f);
	c->engine = true;
	c->pairs = o->batch_pairs;
	c->batch_calls = eng_batches.reads;
	uint32_t n = MIN(eng_batches.n, (uint32_t)MEASURE_MAX_BATCH_PAIRS);
	memcpy(eng_sorted, eng_batches.op, n * sizeof *eng_sorted);
	stats_sort_u64(eng_sorted, n);
	c->batch_ticks_p50 = n ? stats_percentile_sorted(eng_sorted, n, STATS_P50) : 0;
	c->deadline_hit = o->deadline_hit;
	if (!o->windows && !o->estimate_batch_pairs) {
		c->absent = "no clean window pair inside the deadline";
		return;
	}
	c->read_ps = a64_ticks_to_ps((uint64_t)o->estimate_milli, r->cntfrq);
	c->se_ps = a64_ticks_to_ps(o->estimate_se_milli, r->cntfrq);
	c->se_known = o->estimate_se_known;
	uint64_t harness_milli = o->throughput_milli > o->throughput_net_milli
					 ? o->throughput_milli - o->throughput_net_milli
					 : 0;
	c->harness_ps = a64_ticks_to_ps(harness_milli, r->cntfrq);
	c->measured = true;
}

void a64_measure_costs(struct a64_run *r)
{
	r->cost_cntvct = (struct a64_cost){.name = "cntvct", .instruction = "isb; mrs cntvct_el0"};
	r->cost_cntpct = (struct a64_cost){.name = "cntpct", .instruction = "isb; mrs cntpct_el0"};
	r->cost_cntvctss = (struct a64_cost){.name = "cntvctss", .instruction = "mrs cntvctss_el0"};
	r->cost_midr = (struct a64_cost){.name = "midr", .instruction = "isb; mrs midr_el1"};
	if (!r->cntfrq) {
		static const char why[] = "CNTFRQ_EL0 reads 0: no deadline can be set and ticks cannot be turned into time";
		r->cost_cntvct.absent = r->cost_cntpct.absent = r->cost_cntvctss.absent = r->cost_midr.absent = why;
		r->cntvct_trap = r->cntpct_trap = "not judged: a cost is missing";
		return;
	}
	struct measure_ctx ctx;
	engine_ctx(r, &ctx);
	engine_one(r, &ctx, &r->cost_midr, op_midr);
	engine_one(r, &ctx, &r->cost_cntvct, op_cntvct);
	engine_one(r, &ctx, &r->cost_cntpct, op_cntpct);
	if (r->ecv.cntvctss)
		engine_one(r, &ctx, &r->cost_cntvctss, op_cntvctss);
	else
		r->cost_cntvctss.absent = "no FEAT_ECV (ID_AA64MMFR0_EL1.ECV = 0): the register does not exist";
	r->cntvct_trap = "not judged: no untrappable read of the same kind to compare with";
	r->cntpct_trap = trap_judge(&r->cost_cntpct, &r->cost_cntvct);
}

/* ------------------------------------------------------------- rate */

/* The reference: UEFI's GetTime(), whose seconds AAVMF reads from the
 * PL031 RTC (QEMU backs it with the host's clock; 1 s resolution).  An
 * edge of its seconds is bracketed by the stamps of the last call that
 * saw the old second and of the first that saw the new one; the rate is
 * the counter ticks between the midpoints of two of RATE_EDGES edges, at
 * least RATE_SECONDS apart, its uncertainty the two half-widths summed (how fast GetTime can
 * be polled, measured).  Stall() and the firmware's timer events are not
 * references: AAVMF drives both from this same counter. */
#define RATE_SECONDS 2u
#define RATE_EDGES 4u
#define RATE_POLL_CAP 20000000u

static uint64_t timed_calls, timed_ticks;	/* the polls' own cost */

struct edge {
	uint64_t lo, hi;	/* stamps bracketing the change */
	uint32_t second_of_day;
	bool seen;
};

static uint32_t second_of_day(const EFI_TIME *t)
{
	return (uint32_t)t->Hour * 3600u + t->Minute * 60u + t->Second;
}

static bool wait_edge(EFI_RUNTIME_SERVICES *rt, uint64_t deadline, struct edge *e, struct a64_rate *rate)
{
	EFI_TIME t;
	uint64_t before = tb_stamp_begin(STAMP_FENCE_ISB);
	if (rt->GetTime(&t, NULL) != EFI_SUCCESS)
		return false;
	uint32_t first = second_of_day(&t);
	rate->gettime_calls++;
	for (uint32_t i = 0; i < RATE_POLL_CAP; i++) {
		/* IRQs masked across one poll: UEFI's timer tick landing
		 * inside the bracket would widen it (it waits on nothing). */
		bool was_on = irq_save();
		uint64_t s = tb_stamp_begin(STAMP_FENCE_ISB);
		EFI_STATUS ok = rt->GetTime(&t, NULL);
		uint64_t after = tb_stamp_end(false, STAMP_FENCE_ISB);
		irq_restore(was_on);
		if (ok != EFI_SUCCESS)
			return false;
		rate->gettime_calls++;
		timed_calls++;
		timed_ticks += after - s;
		if (second_of_day(&t) != first) {
			e->lo = before;
			e->hi = after;
			e->second_of_day = second_of_day(&t);
			e->seen = true;
			return true;
		}
		before = s;
		if (deadline && after > deadline)
			return false;
	}
	return false;
}

void a64_measure_rate(struct a64_run *r, void *systab)
{
	EFI_SYSTEM_TABLE *st = systab;
	struct a64_rate *rate = &r->rate;
	rate->reference = "uefi_gettime";
	if (!r->cntfrq) {
		rate->absent = "CNTFRQ_EL0 reads 0: no deadline can be set on the wait";
		return;
	}
	/* A second to find the first edge, then one a second, and a second's
	 * slack. */
	uint64_t deadline = tb_now() + r->cntfrq * (RATE_EDGES + 1u);
	struct edge e[RATE_EDGES] = {0};
	for (uint32_t k = 0; k < RATE_EDGES; k++) {
		if (!wait_edge(st->RuntimeServices, deadline, &e[k], rate)) {
			rate->absent = "GetTime failed or its seconds stopped changing before the deadline";
			return;
		}
		/* A step of the RTC, or a call that took a whole second. */
		if (k && (e[k].second_of_day + 86400u - e[k - 1].second_of_day) % 86400u != 1) {
			rate->absent = "GetTime's seconds did not step by one at each edge";
			return;
		}
	}
	/* The pair at least RATE_SECONDS apart whose brackets are narrowest
	 * for their span: one poll the host held up (a vCPU descheduled on a
	 * loaded host) widens one edge, not the figure. */
	uint32_t best_i = 0, best_j = 0;
	uint64_t best_ppm = UINT64_MAX;
	for (uint32_t i = 0; i < RATE_EDGES; i++)
		for (uint32_t j = i + RATE_SECONDS; j < RATE_EDGES; j++) {
			uint64_t span = (e[j].lo + e[j].hi) / 2 - (e[i].lo + e[i].hi) / 2;
			uint64_t unc = (e[i].hi - e[i].lo + 1) / 2 + (e[j].hi - e[j].lo + 1) / 2;
			uint64_t ppm = span ? (unc * 1000000u + span - 1) / span : UINT64_MAX;
			if (ppm < best_ppm) {
				best_ppm = ppm;
				best_i = i;
				best_j = j;
			}
		}
	const struct edge *a = &e[best_i], *b = &e[best_j];
	uint32_t secs = best_j - best_i;
	uint64_t mid_a = a->lo + (a->hi - a->lo) / 2, mid_b = b->lo + (b->hi - b->lo) / 2;
	rate->seconds = secs;
	rate->edges = RATE_EDGES;
	rate->ticks = mid_b - mid_a;
	rate->hz = (rate->ticks + secs / 2) / secs;
	rate->uncertainty_ticks = (a->hi - a->lo + 1) / 2 + (b->hi - b->lo + 1) / 2;
	rate->uncertainty_ppm = best_ppm;
	rate->gettime_ps = timed_calls ? a64_ticks_to_ps(timed_ticks * 1000u / timed_calls, r->cntfrq) : 0;
	rate->measured = true;
}
