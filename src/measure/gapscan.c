#include "gapscan.h"
#include "cpu_plan.h"
#include "measure.h"
#include "arch_api.h"
#include "fault.h"
#include "rate.h"
#include "results.h"
#include "strbuf.h"

/* The scan's cap only matters if the TSC stopped: the window's rounds at
 * the loop's own measured round (loop_cycles), never above W / 4 reads
 * (a TSC read costs at least a few cycles): spin_cap_reads. */
/* Warm-up: the first deltas of a cold loop (code not yet translated under
 * TCG, the first recorded gap's bookkeeping) looked like gaps at offset 0
 * in every report.  The same loop runs first on a throwaway record that
 * counts every delta as a gap, so every path is warm; its deltas are
 * dropped, and their median is the loop's own step. */
#define GAPSCAN_WARMUP 256

/* The scan itself; the first delta (from the call into the loop) is
 * dropped.  deltas, when given, receives the first n deltas fed. */
static uint64_t scan(struct gaps *g, uint64_t window, uint64_t max_reads, uint64_t *deltas, uint32_t n)
{
	uint64_t start = tb_now();
	uint64_t prev = start;
	g->window_start = start;
	for (uint64_t i = 0; i < max_reads; i++) {
		uint64_t now = tb_now();
		if (i) {
			gaps_feed(g, prev, now);
			if (i <= n)
				deltas[i - 1] = now >= prev ? now - prev : 0;
		}
		prev = now;
		if (now - start >= window)
			break;
	}
	return prev;
}

void gapscan_run(struct gaps_report *out, const struct measure_ctx *ctx, uint64_t tsc_hz, uint32_t window_ms,
		 bool read_smi)
{
	uint64_t step_ticks = ctx->step_ticks;
	memset(out, 0, sizeof *out);
	out->tsc_hz = tsc_hz;
	out->window_ms = window_ms;
	out->step_ticks = step_ticks;
	uint64_t window = rate_ns_to_cycles((uint64_t)window_ms * 1000000, tsc_hz);
	if (read_smi) {
		out->smi_read = true;
		out->smi_fault = cpu_smi_count(&out->smi_before);
	}
	uint64_t d[GAPSCAN_WARMUP];
	struct gaps warm;
	bool was_on = irq_save();
	/* Both branches of the bookkeeping: every delta a gap, then none. */
	gaps_init(&warm, 0, 0);
	scan(&warm, UINT64_MAX, GAPSCAN_WARMUP + 1, d, GAPSCAN_WARMUP);
	gaps_init(&warm, UINT64_MAX, 0);
	scan(&warm, UINT64_MAX, GAPSCAN_WARMUP + 1, d, GAPSCAN_WARMUP);
	stats_sort_u64(d, GAPSCAN_WARMUP);
	out->loop_cycles = stats_percentile_sorted(d, GAPSCAN_WARMUP, STATS_P50);
	out->warmup_max_cycles = d[GAPSCAN_WARMUP - 1];
	/* A delta of one loop round or one TSC step is the scan running; 8x
	 * the larger (and never under 10 us) is time it did not run. */
	uint64_t threshold = gaps_threshold_for_loop(tsc_hz, MAX(out->loop_cycles, step_ticks));
	/* The real scan's own paths, over a short window, thrown away. */
	gaps_init(&warm, threshold, 0);
	scan(&warm, window / 64, spin_cap_reads(window / 64, out->loop_cycles), NULL, 0);
	gaps_init(&out->g, threshold, 0);
	uint64_t last = scan(&out->g, window, spin_cap_reads(window, out->loop_cycles), NULL, 0);
	out->interrupts_leaked = irq_enabled();
	irq_restore(was_on);
	gaps_finish(&out->g, last);
	if (read_smi && !out->smi_fault)
		out->smi_fault = cpu_smi_count(&out->smi_after);
	out->measured = true;
}

/* What every CPU's scan shares, and one CPU's own report: each AP gets
 * its own through ap_start's argument and copies the values on entry. */
struct gap_job {
	const struct measure_ctx *ctx;
	uint64_t tsc_hz;
	uint32_t window_ms;
	bool read_smi;
};

struct gap_ap_arg {
	const struct gap_job *job;
	struct gaps_report *out;
};

static void gap_ap_main(void *arg)
{
	const struct gap_ap_arg *a = arg;
	gapscan_run(a->out, a->job->ctx, a->job->tsc_hz, a->job->window_ms, a->job->read_smi);
}

void gapscan_all_cpus(struct gaps_per_cpu *out, struct run_results *r, const struct measure_ctx *ctx)
{
	struct platform *p = r->facts.plat;
	out->requested = true;
	if (!p->ap_start || !p->aps_wait) {
		out->reason = "this boot path cannot run code on other CPUs";
		return;
	}
	const struct gap_job job = {
		.ctx = ctx,
		.tsc_hz = results_tsc_hz(r),
		.window_ms = r->facts.settings.gaps_window_ms,
		.read_smi = r->facts.cpu.is_intel,
	};
	struct gap_ap_arg args[GAPSCAN_MAX_CPUS];
	out->cpus = MIN(r->cpu_count, (unsigned)GAPSCAN_MAX_CPUS);
	/* Starting the APs is staggered by the platform's own latency (a few
	 * ms under UEFI); the windows overlap for all but their edges. */
	uint32_t bsp = 0;
	for (uint32_t i = 0; i < out->cpus; i++)
		if (r->cpus[i].bsp)
			bsp = i;
	for (uint32_t i = 0; i < out->cpus; i++)
		if (i != bsp && r->cpus[i].enabled) {
			args[i] = (struct gap_ap_arg){ .job = &job, .out = &out->cpu[i] };
			if (p->ap_start(i, gap_ap_main, &args[i], (uint64_t)job.window_ms * 2000 + 1000000) == 0)
				out->ran[i] = true;
		}
	gapscan_run(&out->cpu[bsp], job.ctx, job.tsc_hz, job.window_ms, job.read_smi);
	out->ran[bsp] = true;
	/* The enabled CPUs past the entries the stage holds, named. */
	if (r->cpu_count > out->cpus) {
		bool left[PLATFORM_MAX_CPUS];
		uint32_t listed = MIN(r->cpu_count, (unsigned)PLATFORM_MAX_CPUS);
		for (uint32_t i = 0; i < listed; i++)
			left[i] = i >= out->cpus && (r->cpus[i].enabled || r->cpus[i].bsp);
		out->not_tested_count = cpu_plan_past_table(out->not_tested, sizeof out->not_tested, left, listed,
							    GAPSCAN_MAX_CPUS);
		if (out->not_tested_count)
			results_error(r, "CPUS_NOT_TESTED", out->not_tested);
	}
	if (!p->aps_wait((uint64_t)job.window_ms * 2000 + 2000000))
		out->reason = "not every AP finished its scan in time";
}
