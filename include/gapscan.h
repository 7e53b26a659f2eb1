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
#endif
