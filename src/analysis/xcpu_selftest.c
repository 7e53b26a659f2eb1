/* The cross-CPU self-test's "honoured": from a bracket by a clock the
 * write cannot move, not from the TSC's one-sided jump.  A vCPU preempted
 * across the write for longer than the offset (1e8 ticks, ~38 ms at
 * 2.6 GHz) made the old test (after - before >= offset) read "honoured";
 * here the reference clock ran on through the preemption too, and the
 * difference leaves only what the write did (issue 40). */
#include "xcpu_selftest.h"
#include "util.h"

static uint64_t u64_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return mul_div_u64(a, b, c); /* no libgcc in the probe: no __udivti3 */
}

enum xcpu_moved xcpu_selftest_decide(const struct xcpu_bracket *before, const struct xcpu_bracket *after,
				     const struct xcpu_ref_clock *ref, uint64_t offset, int64_t *lo, int64_t *hi)
{
	if (lo)
		*lo = 0;
	if (hi)
		*hi = 0;
	if (!before || !after || !ref || !ref->hz || !ref->tsc_hz || !offset || ref->width_bits < 8 ||
	    ref->width_bits > 32 || before->tsc_hi < before->tsc_lo || after->tsc_hi < after->tsc_lo)
		return XCPU_MOVED_UNDETERMINED;
	uint64_t mask = ref->width_bits == 32 ? 0xffffffffull : (1ull << ref->width_bits) - 1;
	uint64_t ref_ticks = (after->ref - before->ref) & mask;
	/* The reference's advance, in TSC ticks, with its error: one tick of
	 * quantization each end and the rate's ppm. */
	uint64_t elapsed = u64_mul_div(ref_ticks, ref->tsc_hz, ref->hz);
	uint64_t tick = u64_mul_div(1, ref->tsc_hz, ref->hz) + 1;
	uint64_t slack = 2 * tick + u64_mul_div(elapsed, ref->tsc_ppm, 1000000) + 1;
	/* A wrap hides whole periods: the TSC (moved or not) must say the time
	 * between the reads was under half of one, offset allowed for. */
	uint64_t period = u64_mul_div(mask + 1, ref->tsc_hz, ref->hz);
	uint64_t span_max = after->tsc_hi - before->tsc_lo; /* wraps if the TSC went back */
	if (after->tsc_hi < before->tsc_lo) /* moved back: the offset was not this one */
		span_max = 0;
	if (span_max > offset + period / 2)
		return XCPU_MOVED_UNDETERMINED;
	/* The TSC's advance between the two reference reads lies within
	 * [after.lo - before.hi, after.hi - before.lo]. */
	int64_t adv_lo = (int64_t)(after->tsc_lo - before->tsc_hi);
	int64_t adv_hi = (int64_t)(after->tsc_hi - before->tsc_lo);
	int64_t j_lo = adv_lo - (int64_t)(elapsed + slack);
	int64_t j_hi = adv_hi - (int64_t)(elapsed > slack ? elapsed - slack : 0);
	if (lo)
		*lo = j_lo;
	if (hi)
		*hi = j_hi;
	int64_t off = (int64_t)offset, q = (int64_t)(offset / 4);
	if (j_lo > off - q && j_hi < off + q)
		return XCPU_MOVED_YES;
	if (j_lo > -q && j_hi < q)
		return XCPU_MOVED_NO;
	return XCPU_MOVED_UNDETERMINED;
}

const char *xcpu_moved_name(enum xcpu_moved m)
{
	switch (m) {
	case XCPU_MOVED_YES: return "honoured";
	case XCPU_MOVED_NO: return "not_honoured";
	default: return "undetermined";
	}
}
