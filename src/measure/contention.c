/* Clock reads from several CPUs at once (include/contention.h).
 *
 * Levels 1, 2, 4, ... N.  A CPU joins at the first level that needs it and
 * stays, so no CPU ever spins idle beside the readers (a spinning vCPU
 * takes host time from them, and would be a reader of nothing): level k's
 * new CPUs are started together through the platform (aps_start_together)
 * into a worker loop, which then takes part in every round of that level
 * and the levels above.  A round is one source (or the presence scan) on
 * the first k CPUs: the BSP publishes it, waits until every worker is at
 * the round's barrier, lets them go with one store and measures its own
 * share; each CPU measures with its own engine context and scratch (the
 * engine keeps no state of its own), and its sorted samples stay in that
 * scratch until the level's figures are taken from them.
 *
 * Every wait on either side is bounded by a TSC deadline and a spin
 * count; a CPU that does not answer ends the stage with its name, and
 * what was measured until then stands. */
#include "contention.h"
#include "arch_api.h"
#include "cpu_plan.h"
#include "fault.h"
#include "gaps.h"
#include "measure.h"
#include "rate.h"
#include "results.h"
#include "strbuf.h"

#define ARRIVE_MS 500
/* Every ok source, then the presence scan. */
#define MAX_ITEMS (SOURCE_ID_COUNT + 1)

/* One CPU's share of the stage, by position (0 = the BSP). */
struct worker {
	struct measure_ctx ctx;   /* the BSP's, with this CPU's scratch */
	uint64_t *samples[MAX_ITEMS]; /* each source's sorted samples, kept to the level's end */
	struct op_cost cost[MAX_ITEMS];
	uint64_t start[MAX_ITEMS], end[MAX_ITEMS]; /* TSC around each measure_op */
	uint64_t window, lost;    /* presence: cycles scanned, cycles not run */
	uint32_t level_done;      /* the last level this CPU finished */
};

/* What the BSP and the workers share: set before a level's number moves,
 * read by the workers only after they saw it move. */
struct job {
	uint32_t level;           /* the level published (0 = none yet) */
	uint32_t quit;
	uint32_t k;               /* CPUs in the level: positions < k */
	uint32_t reads;           /* items that are source reads; then the presence scan */
	uint64_t (*op[SOURCE_ID_COUNT])(void);
	uint32_t measured[MAX_ITEMS]; /* CPUs that have item i's figures */
	uint32_t started;         /* CPUs past the level's start */
	uint64_t presence_cycles, gap_threshold;
	uint64_t wait_cycles;     /* longest any one wait may take */
	uint64_t stage_deadline;  /* no worker waits past it */
	/* Iteration caps (spincap.h): a wait's wait_cycles in spins, the
	 * whole stage's in spins, a presence window's in scan rounds. */
	uint64_t wait_spin_cap, stage_spin_cap, presence_read_cap;
	struct worker *w;
};

struct worker_arg {
	struct job *job;
	uint32_t pos;
	uint32_t first_level;     /* levels up to this one were before it joined */
};

static uint32_t load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Spins until *p == want (or, with differ, != want); false past the
 * deadline or the spin count (cap: the deadline's budget in spins), or
 * once quit is set. */
static bool wait_value(const struct job *job, const uint32_t *p, uint32_t want, bool differ, uint64_t deadline,
		       uint64_t cap)
{
	for (uint64_t spins = 0;; spins++) {
		uint32_t v = load(p);
		if (differ ? v != want : v == want)
			return true;
		if (load(&job->quit) || tb_now() > deadline || spins > cap)
			return false;
		cpu_relax();
	}
}

/* A back-to-back TSC loop with interrupts masked: what this CPU did not
 * run of the window is the sum of its gaps. */
static void presence_scan(struct worker *w, uint64_t window, uint64_t threshold, uint64_t max_reads)
{
	struct gaps g;
	bool was_on = irq_save();
	/* Warm: the loop's first deltas are its own translation and cold
	 * caches, not time it did not run. */
	uint64_t prev = tb_now();
	for (int i = 0; i < 256; i++)
		prev = tb_now();
	gaps_init(&g, threshold, prev);
	uint64_t start = prev;
	/* max_reads (the job's presence_read_cap) bounds the loop should the counter stop. */
	for (uint64_t i = 0; i < max_reads; i++) {
		uint64_t now = tb_now();
		gaps_feed(&g, prev, now);
		prev = now;
		if (now - start >= window)
			break;
	}
	irq_restore(was_on);
	gaps_finish(&g, prev);
	w->window = prev - start;
	w->lost = g.total;
}

/* Spins until `counter` reaches k (or the deadline, or quit); with op,
 * reading the source all the while.  False when it gave up. */
static bool until_all(const struct job *job, const uint32_t *counter, uint32_t k, uint64_t (*op)(void),
		      uint64_t deadline)
{
	uint64_t acc = 0;
	bool ok = true;
	/* Every caller's deadline is wait_cycles away: that wait in spins. */
	for (uint64_t spins = 0; load(counter) < k; spins++) {
		if (load(&job->quit) || tb_now() > deadline || spins > job->wait_spin_cap) {
			ok = false;
			break;
		}
		if (op)
			acc ^= op();
		else
			cpu_relax();
	}
	__asm__ volatile("" ::"r"(acc));
	return ok;
}

/* One CPU's part of a level: after a check-in that waits for all (a vCPU
 * released while descheduled starts late: the others must not measure
 * before it runs), each source in turn: measure it, then keep reading it
 * until every CPU of the level has its samples, so no CPU's window sees
 * fewer readers than the level asks for; that wait is also the next
 * source's start.  Then the presence scan, all at once again. */
static bool do_level(struct job *job, struct worker *w)
{
	uint32_t k = job->k;
	uint64_t deadline = tb_now() + job->wait_cycles;
	__atomic_add_fetch(&job->started, 1, __ATOMIC_ACQ_REL);
	if (!until_all(job, &job->started, k, NULL, deadline))
		return false;
	for (uint32_t i = 0; i < job->reads; i++) {
		w->ctx.plan.scratch = w->samples[i];
		w->start[i] = tb_now();
		measure_op(&w->ctx, &w->cost[i], job->op[i]);
		w->end[i] = tb_now();
		__atomic_add_fetch(&job->measured[i], 1, __ATOMIC_ACQ_REL);
		if (!until_all(job, &job->measured[i], k, job->op[i], tb_now() + job->wait_cycles))
			return false;
	}
	presence_scan(w, job->presence_cycles, job->gap_threshold, job->presence_read_cap);
	__atomic_add_fetch(&job->measured[job->reads], 1, __ATOMIC_ACQ_REL);
	return true;
}

/* On each AP: levels until the BSP says quit (or stops answering). */
static void worker_main(void *arg)
{
	struct worker_arg *a = arg;
	struct job *job = a->job;
	struct worker *w = &job->w[a->pos];
	struct fault_cpu_saved firmware;
	fault_guard_enter_ap(&firmware);
	uint32_t seen = a->first_level;
	for (;;) {
		if (!wait_value(job, &job->level, seen, true, job->stage_deadline, job->stage_spin_cap))
			break;
		seen = load(&job->level);
		if (a->pos >= job->k)
			continue;
		if (!do_level(job, w))
			break;
		store(&w->level_done, seen);
	}
	fault_guard_leave_ap(&firmware);
}

static void name_cpu(struct contention_result *out, const struct run_results *r, uint32_t pos, const char *what)
{
	struct strbuf sb;
	if (out->stopped_reason[0])
		return;
	sb_init(&sb, out->stopped_reason, sizeof out->stopped_reason);
	sb_str(&sb, "CPU ");
	sb_u64(&sb, out->order[pos]);
	sb_str(&sb, " (APIC id ");
	sb_u64(&sb, r->cpus[out->order[pos]].apic_id);
	sb_str(&sb, ") ");
	sb_str(&sb, what);
	sb_str(&sb, "; the levels above are not measured");
}

/* One level on the first k CPUs; false when one did not answer (named). */
static bool run_level(struct contention_result *out, const struct run_results *r, struct job *job, uint32_t k)
{
	job->k = k;
	store(&job->started, 0);
	for (uint32_t i = 0; i < MAX_ITEMS; i++)
		store(&job->measured[i], 0);
	uint32_t level = job->level + 1;
	store(&job->level, level);
	bool ok = do_level(job, &job->w[0]);
	uint64_t deadline = tb_now() + job->wait_cycles;
	for (uint32_t p = 1; p < k; p++)
		if (!wait_value(job, &job->w[p].level_done, level, false, deadline, job->wait_spin_cap)) {
			name_cpu(out, r, p, ok ? "did not finish its level in time" : "did not keep up with a level");
			return false;
		}
	if (!ok)
		name_cpu(out, r, 0, "gave up waiting for the others");
	return ok;
}

/* A source's level from the k CPUs' costs and their sorted samples. */
static void take_level(struct contention_level *l, const struct job *job, uint32_t k, uint32_t item,
		       const struct contention_result *out)
{
	const uint64_t *sorted[CONTENTION_MAX_CPUS];
	uint32_t lens[CONTENTION_MAX_CPUS];
	memset(l, 0, sizeof *l);
	l->cpus = k;
	for (uint32_t p = 0; p < k; p++) {
		const struct worker *w = &job->w[p];
		const struct op_cost *cost = &w->cost[item];
		struct contention_cpu *c = &l->cpu[p];
		c->cpu = out->order[p];
		c->measured = cost->cycles.n > 0;
		c->estimate_milli = cost->estimate_milli;
		c->se_milli = cost->estimate_se_milli;
		c->se_known = cost->estimate_se_known || cost->estimate_milli == 0;
		c->p50 = cost->cycles.p50;
		c->p99 = cost->cycles.p99;
		c->samples = cost->cycles.n;
		c->start = w->start[item];
		c->end = w->end[item];
		sorted[p] = w->samples[item];
		lens[p] = cost->cycles.n;
	}
	contention_level_finish(l, sorted, lens);
}

static void take_presence(struct contention_presence *pr, const struct job *job, uint32_t k, uint64_t window_ms)
{
	pr->cpus = k;
	pr->window_ms = window_ms;
	pr->measured = true;
	for (uint32_t p = 0; p < k; p++)
		pr->share_ppm[p] = contention_share_ppm(job->w[p].window, job->w[p].lost);
	contention_presence_finish(pr);
}

/* Estimate windows per CPU and source: enough for a between-window SE. */
#define CONTENTION_ESTIMATE_WINDOWS 4

/* mode=: samples per CPU and round, the engine's budget per round, the
 * presence window. */
static void plan_for_mode(enum run_mode m, uint32_t *samples, uint32_t *budget_ms, uint32_t *presence_ms,
			  uint32_t *stage_ms)
{
	switch (m) {
	case MODE_QUICK: *samples = 128; *budget_ms = 1; *presence_ms = 4; *stage_ms = 250; break;
	case MODE_THOROUGH: *samples = 2048; *budget_ms = 10; *presence_ms = 40; *stage_ms = 5000; break;
	default: *samples = 256; *budget_ms = 2; *presence_ms = 8; *stage_ms = 400; break;
	}
}

static uint64_t tsc_now(void) { return tb_now(); }
static void tsc_relax(void) { cpu_relax(); }

void contention_run(struct contention_result *out, struct run_results *r, const struct measure_ctx *ctx)
{
	struct platform *p = r->facts.plat;
	uint64_t t0 = tb_now();
	uint64_t hz = results_tsc_hz(r);
	memset(out, 0, sizeof *out);
	out->requested = true;
	out->cpus_enabled = r->cpus_enabled;
	uint32_t presence_ms;
	plan_for_mode(r->facts.settings.mode, &out->samples, &out->budget_ms, &presence_ms, &out->stage_budget_ms);
	uint64_t cycles_per_ms = MAX(facts_ms_to_cycles(&r->facts, 1), 1);

	/* Positions: the BSP first, then every enabled AP in cpu_list order. */
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->cpu_count && n < CONTENTION_MAX_CPUS; i++)
		if (r->cpus[i].bsp)
			out->order[n++] = i;
	if (!n) {
		out->reason = "the BSP is not in the CPU list";
		return;
	}
	bool can_start = p->aps_start_together && p->aps_finish_together;
	for (uint32_t i = 0; can_start && i < r->cpu_count && n < CONTENTION_MAX_CPUS; i++)
		if (!r->cpus[i].bsp && r->cpus[i].enabled)
			out->order[n++] = i;
	if (r->cpus_enabled > 1 && !can_start)
		str_copy(out->stopped_reason, sizeof out->stopped_reason,
			 "this boot path cannot run code on several CPUs at once: one CPU only");
	else if (r->cpus_enabled > CONTENTION_MAX_CPUS)
		str_copy(out->stopped_reason, sizeof out->stopped_reason,
			 "more CPUs than the stage measures: the first 64 only");
	if (can_start && r->cpus_enabled > n) {
		/* The enabled CPUs past the stage's positions, named. */
		bool left[PLATFORM_MAX_CPUS];
		uint32_t listed = MIN(r->cpu_count, (unsigned)PLATFORM_MAX_CPUS);
		for (uint32_t i = 0; i < listed; i++)
			left[i] = r->cpus[i].enabled || r->cpus[i].bsp;
		for (uint32_t k = 0; k < n; k++)
			left[out->order[k]] = false;
		out->not_tested_count = cpu_plan_past_table(out->not_tested, sizeof out->not_tested, left, listed,
							    CONTENTION_MAX_CPUS);
		if (out->not_tested_count)
			results_error(r, "CPUS_NOT_TESTED", out->not_tested);
	}

	uint32_t measured_src[SOURCE_ID_COUNT];
	uint32_t src_count = 0;
	for (unsigned i = 0; i < r->source_count && src_count < SOURCE_ID_COUNT; i++)
		if (r->sources[i].status == SOURCE_OK && r->sources[i].desc.read)
			measured_src[src_count++] = i;

	/* Per CPU: the worker, each source's samples (kept until the level's
	 * figures are taken), one harness scratch and one batch log. */
	size_t samples_bytes = (size_t)out->samples * sizeof(uint64_t);
	size_t worker_bytes = (sizeof(struct worker) + 63) / 64 * 64;
	size_t per_cpu = worker_bytes + samples_bytes * (src_count + 1) + sizeof(struct batch_log);
	/* Pages that live until exit: a worker that did not answer may still
	 * write into its share later. */
	size_t groups_bytes = n > 1 ? sizeof(struct ap_group) * CONTENTION_MAX_LEVELS : 0;
	size_t head_bytes = (sizeof(struct job) + sizeof(struct worker_arg) * CONTENTION_MAX_CPUS + 63) / 64 * 64;
	uint8_t *mem = p->alloc_pages ? p->alloc_pages(groups_bytes + head_bytes + per_cpu * n) : NULL;
	if (!mem) {
		out->reason = "no memory for the per-CPU sample buffers";
		return;
	}
	struct ap_group *groups = (struct ap_group *)mem;
	struct job *job = (struct job *)(mem + groups_bytes);
	struct worker_arg *args = (struct worker_arg *)(job + 1);
	uint8_t *cpu_mem = mem + groups_bytes + head_bytes;
	job->w = (struct worker *)cpu_mem; /* the workers first, contiguous */
	cpu_mem += worker_bytes * n;
	for (uint32_t i = 0; i < n; i++) {
		struct worker *w = &job->w[i];
		struct measure_plan plan = ctx->plan;
		plan.samples = out->samples;
		/* Four estimate windows out of the few samples (the engine's
		 * 128-sample window left one or two, and no SE). */
		plan.window_samples = out->samples / CONTENTION_ESTIMATE_WINDOWS;
		plan.budget_cycles = facts_ms_to_cycles(&r->facts, out->budget_ms);
		for (uint32_t s = 0; s < src_count; s++, cpu_mem += samples_bytes)
			w->samples[s] = (uint64_t *)cpu_mem;
		plan.scratch = w->samples[0];
		plan.harness_scratch = (uint64_t *)cpu_mem;
		cpu_mem += samples_bytes;
		plan.batches = (struct batch_log *)cpu_mem;
		cpu_mem += sizeof(struct batch_log);
		w->ctx = *ctx;
		w->ctx.plan = plan;
		w->ctx.totals = NULL; /* the run's harness tally is for CPUs alone */
	}
	job->reads = src_count;
	for (uint32_t s = 0; s < src_count; s++)
		job->op[s] = r->sources[measured_src[s]].desc.read;
	/* A source's share of a level takes the engine's budget several times
	 * over (paired windows, batch pairs); a wait allows eight, plus the
	 * slack a preempted vCPU needs. */
	job->wait_cycles = facts_ms_to_cycles(&r->facts, 8 * out->budget_ms + presence_ms + 200);
	job->presence_cycles = rate_ns_to_cycles((uint64_t)presence_ms * 1000000, hz);
	job->gap_threshold = gaps_threshold_for_loop(hz, MAX(r->gaps.loop_cycles, ctx->step_ticks));

	out->level_count = contention_levels(n, out->levels, CONTENTION_MAX_LEVELS);
	/* Every wait of every level at its limit, twice over: no worker is
	 * left spinning past this. */
	uint64_t waits = (uint64_t)out->level_count * (src_count + 3);
	uint64_t stage_cycles = waits * 2 * job->wait_cycles + facts_ms_to_cycles(&r->facts, 2 * ARRIVE_MS);
	job->stage_deadline = tb_now() + stage_cycles;
	job->wait_spin_cap = facts_spin_cap(&r->facts, job->wait_cycles);
	job->stage_spin_cap = facts_spin_cap(&r->facts, stage_cycles);
	/* The presence scan's round is the gap scan's (the same loop), not a spin. */
	job->presence_read_cap = spin_cap_reads(job->presence_cycles, r->gaps.loop_cycles);
	for (uint32_t s = 0; s < src_count; s++) {
		out->src[s].id = (enum source_id)measured_src[s];
		out->src[s].measured = true;
	}
	out->source_count = src_count;
	out->ran = true;

	uint32_t joined = 1, groups_used = 0, measured_levels = 0;
	uint64_t last_level_cycles = 0;
	uint64_t budget_cycles = rate_ns_to_cycles((uint64_t)out->stage_budget_ms * 1000000, hz);
	for (uint32_t li = 0; li < out->level_count; li++) {
		uint32_t k = out->levels[li];
		/* A level takes about as long as the last (CPUs that really run
		 * together) and up to k / k_last times as long (CPUs the host
		 * runs in turn): the latter decides whether it fits. */
		uint64_t spent = tb_now() - t0;
		uint64_t predicted = li ? mul_div_u64(last_level_cycles, k, out->levels[li - 1]) : 0;
		if (li && spent + predicted > budget_cycles) {
			struct strbuf sb;
			if (out->stopped_reason[0])
				break;
			sb_init(&sb, out->stopped_reason, sizeof out->stopped_reason);
			sb_str(&sb, "the stage's ");
			sb_u64(&sb, out->stage_budget_ms);
			sb_str(&sb, " ms budget (mode=");
			sb_str(&sb, settings_mode_name(r->facts.settings.mode));
			sb_str(&sb, ") would run out at ");
			sb_u64(&sb, k);
			sb_str(&sb, " CPUs (the level of ");
			sb_u64(&sb, out->levels[li - 1]);
			sb_str(&sb, " took ");
			sb_u64(&sb, rate_cycles_to_ns(last_level_cycles, hz) / 1000000);
			sb_str(&sb, " ms): levels from there on not measured");
			break;
		}
		uint64_t l0 = tb_now();
		if (k > joined) {
			struct ap_group *g = &groups[groups_used++];
			ap_group_init(g, worker_main, tsc_now, tsc_relax, cycles_per_ms, r->facts.spin_cycles);
			for (uint32_t pos = joined; pos < k; pos++) {
				args[pos] = (struct worker_arg){ job, pos, job->level };
				job->w[pos].level_done = job->level;
				ap_group_add(g, out->order[pos], r->cpus[out->order[pos]].apic_id, &args[pos]);
			}
			uint64_t g0 = tb_now();
			uint64_t work_ms = job->stage_deadline > g0 ? (job->stage_deadline - g0) / cycles_per_ms : 0;
			uint32_t arrived = p->aps_start_together(g, ARRIVE_MS, work_ms);
			uint32_t gather_ms = (uint32_t)((tb_now() - g0) / cycles_per_ms);
			out->gather_ms_max = MAX(out->gather_ms_max, gather_ms);
			if (arrived != k - joined) {
				str_copy(out->stopped_reason, sizeof out->stopped_reason,
					 g->reason[0] ? g->reason : "not every CPU of the level started");
				break;
			}
			joined = k;
		}
		if (!run_level(out, r, job, k))
			break;
		for (uint32_t s = 0; s < src_count; s++) {
			take_level(&out->src[s].level[li], job, k, s, out);
			out->src[s].level_count = li + 1;
		}
		take_presence(&out->presence[li], job, k, presence_ms);
		measured_levels = li + 1;
		last_level_cycles = tb_now() - l0;
	}
	out->level_count = measured_levels;
	store(&job->quit, 1);
	for (uint32_t gi = 0; gi < groups_used; gi++)
		if (!p->aps_finish_together(&groups[gi], 2 * ARRIVE_MS) && !out->stopped_reason[0])
			str_copy(out->stopped_reason, sizeof out->stopped_reason, groups[gi].reason);
	for (uint32_t s = 0; s < src_count; s++)
		contention_source_finish(&out->src[s]);
	out->cpus = measured_levels ? out->levels[measured_levels - 1] : 0;
	out->elapsed_ms = rate_cycles_to_ns(tb_now() - t0, hz) / 1000000;
}
