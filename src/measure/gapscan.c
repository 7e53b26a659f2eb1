#include "gapscan.h"
#include "arch.h"
#include "rate.h"
#include "results.h"
#include "strbuf.h"

/* A TSC read costs at least a few cycles, so a window of W cycles never
 * needs more than W / 4 reads; the cap only matters if the TSC stopped. */
#define GAPSCAN_MIN_CYCLES_PER_READ 4

void gapscan_run(struct gaps_report *out, uint64_t tsc_hz, uint64_t rdtsc_p50, uint32_t window_ms)
{
	memset(out, 0, sizeof *out);
	out->tsc_hz = tsc_hz;
	out->window_ms = window_ms;
	uint64_t window = rate_ns_to_cycles((uint64_t)window_ms * 1000000, tsc_hz);
	bool was_on = irq_save();
	uint64_t start = rdtsc();
	uint64_t prev = start;
	gaps_init(&out->g, gaps_threshold(tsc_hz, rdtsc_p50), start);
	uint64_t max_reads = window / GAPSCAN_MIN_CYCLES_PER_READ + 1;
	for (uint64_t i = 0; i < max_reads; i++) {
		uint64_t now = rdtsc();
		gaps_feed(&out->g, prev, now);
		prev = now;
		if (now - start >= window)
			break;
	}
	out->interrupts_leaked = irq_enabled();
	irq_restore(was_on);
	gaps_finish(&out->g, prev);
	out->measured = true;
}

static struct {
	uint64_t tsc_hz, rdtsc_p50;
	uint32_t window_ms;
} job;

static void gap_ap_main(void *arg)
{
	gapscan_run(arg, job.tsc_hz, job.rdtsc_p50, job.window_ms);
}

void gapscan_all_cpus(struct gaps_per_cpu *out, struct run_results *r, uint64_t rdtsc_p50)
{
	struct platform *p = r->facts.plat;
	out->requested = true;
	if (!p->ap_start || !p->aps_wait) {
		str_copy(out->note, sizeof out->note, "this boot path cannot run code on other CPUs");
		return;
	}
	job.tsc_hz = results_tsc_hz(r);
	job.rdtsc_p50 = rdtsc_p50;
	job.window_ms = r->facts.settings.gaps_window_ms;
	out->cpus = MIN(r->cpu_count, (unsigned)GAPSCAN_MAX_CPUS);
	/* Starting the APs is staggered by the platform's own latency (a few
	 * ms under UEFI); the windows overlap for all but their edges. */
	uint32_t bsp = 0;
	for (uint32_t i = 0; i < out->cpus; i++)
		if (r->cpus[i].bsp)
			bsp = i;
	for (uint32_t i = 0; i < out->cpus; i++)
		if (i != bsp && r->cpus[i].enabled &&
		    p->ap_start(i, gap_ap_main, &out->cpu[i], (uint64_t)job.window_ms * 2000 + 1000000) == 0)
			out->ran[i] = true;
	gapscan_run(&out->cpu[bsp], job.tsc_hz, job.rdtsc_p50, job.window_ms);
	out->ran[bsp] = true;
	if (!p->aps_wait((uint64_t)job.window_ms * 2000 + 2000000))
		str_copy(out->note, sizeof out->note, "not every AP finished its scan in time");
}
