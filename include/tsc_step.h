/* What back-to-back TSC reads say about the TSC's step (pure,
 * src/analysis/tsc_step.c; the reads are taken in src/measure/engine.c). */
#ifndef CP_TSC_STEP_H
#define CP_TSC_STEP_H
#include <stdbool.h>
#include <stdint.h>

/* How the TSC's step was established (baselines.tsc_step). */
struct tsc_step {
	uint64_t ticks;           /* 0 = not observable */
	uint32_t pairs, stalls;   /* back-to-back pairs read, pairs with equal values */
	uint64_t min_nonzero, max_nonzero;
	/* The common divisor of the non-zero differences: the step is at most
	 * this; 0 when there were none. */
	uint64_t bound_ticks;
	const char *method;
};

#define TSC_STEP_MIN_STALLS 8
#define TSC_STEP_MIN_CLUSTERS 4
#define TSC_STEP_MAX_CLUSTERS 64
#define TSC_STEP_CLUSTER_GAP 8 /* ticks: wider than any jitter of one step */

/* The median distance between adjacent cluster centres of intervals of
 * growing length (v, sorted here), or 0 when they do not cluster
 * regularly (at least 3/4 of the distances within 15 % of the median);
 * *clusters_out (when not NULL) the clusters seen. */
uint64_t tsc_step_clusters(uint64_t *v, uint32_t n, uint32_t *clusters_out);

/* From the clustering result (0 = no regular clusters), the non-zero
 * back-to-back differences (sorted here) and out->stalls: out->ticks,
 * min/max, bound_ticks and method. */
void tsc_step_decide(struct tsc_step *out, uint64_t clustered, uint64_t *diffs, uint32_t nz);
#endif
