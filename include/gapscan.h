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
	struct gaps g;
};

void gapscan_run(struct gaps_report *out, uint64_t tsc_hz, uint64_t rdtsc_p50, uint32_t window_ms);

#define GAPSCAN_MAX_CPUS 64

struct gaps_per_cpu {
	bool requested;
	char note[96];
	uint32_t cpus;              /* entries in cpu[] */
	struct gaps_report cpu[GAPSCAN_MAX_CPUS];
	bool ran[GAPSCAN_MAX_CPUS];
};

struct run_results;
/* The same scan on every CPU at once (the BSP and each AP over the same
 * window): a host that preempts vCPUs unevenly shows it per CPU. */
void gapscan_all_cpus(struct gaps_per_cpu *out, struct run_results *r, uint64_t rdtsc_p50);
#endif
