/* The TSC's step as the guest sees it: the probe's method and rules
 * (baselines.tsc_step, README "Costs below the TSC's step";
 * src/analysis/tsc_step.c), on reads taken by src/guest/measure.c.  Pure. */
#include "gparse.h"
#include "tsc_step.h"

void guest_step_find(struct guest_step *out, uint64_t *intervals, uint32_t ni, uint64_t *b2b, uint32_t nb)
{
	struct tsc_step t = { 0 };
	memset(out, 0, sizeof *out);
	uint64_t clustered = ni ? tsc_step_clusters(intervals, ni, &out->clusters) : 0;
	uint32_t nz = 0;
	t.pairs = nb;
	for (uint32_t i = 0; i < nb; i++) {
		if (!b2b[i])
			t.stalls++;
		else
			b2b[nz++] = b2b[i]; /* the non-zero ones, compacted in place */
	}
	tsc_step_decide(&t, clustered, b2b, nz);
	out->ticks = t.ticks;
	out->method = nb || clustered ? t.method : "no TSC reads (RDTSC not usable here)";
	out->pairs = t.pairs;
	out->stalls = t.stalls;
	out->min_nonzero = t.min_nonzero;
	out->max_nonzero = t.max_nonzero;
	out->bound_ticks = t.bound_ticks;
}
