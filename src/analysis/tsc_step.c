/* The TSC's step from back-to-back reads (include/tsc_step.h).
 *
 * A counter that moves in steps either repeats when read faster than it
 * steps (stalls: the median non-zero difference is the step) or, timed
 * over growing intervals, lands in clusters one step apart.  Without
 * either, the common divisor of the differences only bounds the step:
 * under QEMU -icount the TSC counts instructions, the differences are the
 * read's own instruction counts (all 12 or 14 in one boot), and their
 * divisor 2 is arithmetic, not a step.  So a divisor above 1 is reported
 * as a bound with the step null; a divisor of 1 is the step (the counter
 * moved by single ticks). */
#include "tsc_step.h"
#include "stats.h"

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void tsc_step_decide(struct tsc_step *out, uint64_t clustered, uint64_t *diffs, uint32_t nz)
{
	uint64_t g = 0;
	out->ticks = 0;
	out->min_nonzero = out->max_nonzero = 0;
	for (uint32_t i = 0; i < nz; i++) {
		g = gcd_u64(diffs[i], g);
		if (!out->min_nonzero || diffs[i] < out->min_nonzero)
			out->min_nonzero = diffs[i];
		if (diffs[i] > out->max_nonzero)
			out->max_nonzero = diffs[i];
	}
	out->bound_ticks = g;
	if (clustered) {
		out->ticks = clustered;
		out->method = "intervals of growing length cluster one step apart (median distance)";
	} else if (!nz) {
		out->method = "the TSC did not move";
	} else if (out->stalls >= TSC_STEP_MIN_STALLS) {
		stats_sort_u64(diffs, nz);
		out->ticks = stats_percentile_sorted(diffs, nz, STATS_P50);
		out->method = "median non-zero difference of back-to-back reads (reads repeat)";
	} else if (out->min_nonzero == out->max_nonzero) {
		out->method = "back-to-back differences all equal (deterministic clock): step not observable";
	} else if (g == 1) {
		out->ticks = 1;
		out->method = "back-to-back differences with common divisor 1: the TSC moves by single ticks";
	} else {
		out->method = "back-to-back differences all multiples of bound_ticks, no repeats, no clusters (a "
			      "deterministic clock such as QEMU -icount gives this): bound_ticks bounds the step, "
			      "step not observable";
	}
}
