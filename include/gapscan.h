/* The gap scan: a back-to-back TSC loop with interrupts masked; every
 * delta above the threshold is time this CPU did not run our code. */
#ifndef CP_GAPSCAN_H
#define CP_GAPSCAN_H
#include "gaps.h"

struct gaps_report {
	bool measured;
	bool interrupts_leaked; /* IF found set at the end: firmware re-enabled */
	uint64_t tsc_hz;        /* rate used for the ns figures */
	uint32_t window_ms;
	uint64_t loop_cycles;   /* median delta of the scan loop itself, warm */
	uint64_t step_ticks;    /* the TSC's step, from the engine */
	uint64_t warmup_max_cycles; /* the largest warm-up delta: dropped, not a gap */
	/* Intel MSR_SMI_COUNT before and after the window (through the fault
	 * guard): SMIs are gaps no hypervisor caused. */
	bool smi_read;
	int smi_fault;
	uint64_t smi_before, smi_after;
	struct gaps g;
};

struct measure_ctx;
/* read_smi: the CPU is Intel (MSR_SMI_COUNT exists from Nehalem on); the
 * threshold is never under the TSC's step (ctx->step_ticks). */
void gapscan_run(struct gaps_report *out, const struct measure_ctx *ctx, uint64_t tsc_hz, uint32_t window_ms,
		 bool read_smi);

#define GAPSCAN_MAX_CPUS 64

struct gaps_per_cpu {
	bool requested;
	const char *reason;     /* why not every CPU scanned, NULL when all did */
	uint32_t cpus;              /* entries in cpu[] */
	struct gaps_report cpu[GAPSCAN_MAX_CPUS];
	bool ran[GAPSCAN_MAX_CPUS];
	/* Enabled CPUs past the stage's 64 entries (issue 41), named: "not
	 * tested: CPUs 64-299 (236), the stage holds 64"; "" none. */
	char not_tested[REASON_LEN];
	uint32_t not_tested_count;
};

struct run_results;
/* The same scan on every CPU at once (the BSP and each AP over the same
 * window): a host that preempts vCPUs unevenly shows it per CPU. */
void gapscan_all_cpus(struct gaps_per_cpu *out, struct run_results *r, const struct measure_ctx *ctx);
#endif
