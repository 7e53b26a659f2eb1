/* The cross-CPU self-test's decision (src/analysis/xcpu_selftest.c): did
 * a write move this CPU's TSC by the offset?  Pure: decided from reads
 * taken around the write, never from the TSC's own jump alone. */
#ifndef CP_XCPU_SELFTEST_H
#define CP_XCPU_SELFTEST_H
#include <stdbool.h>
#include <stdint.h>

enum xcpu_moved {
	XCPU_MOVED_UNDETERMINED = 0, /* the bounds straddle both answers, or no bracket */
	XCPU_MOVED_NO,               /* the TSC moved by nothing like the offset */
	XCPU_MOVED_YES,              /* the TSC moved by the offset, within the bounds */
};

/* One bracketed read of a reference clock the write cannot move (the ACPI
 * PM timer): TSC, then the reference, then the TSC again, so the reference
 * was read at a TSC value between tsc_lo and tsc_hi. */
struct xcpu_bracket {
	uint64_t tsc_lo, tsc_hi;
	uint64_t ref;
};

struct xcpu_ref_clock {
	uint64_t hz;        /* the reference's rate */
	uint32_t width_bits; /* its counter's width (24 or 32): it wraps */
	uint64_t tsc_hz;    /* the run's TSC rate */
	uint32_t tsc_ppm;   /* how far tsc_hz may be off the reference's own rate */
};

/* Before and after the write: the jump the write made is the TSC's advance
 * between the two reference reads less the reference's advance in TSC
 * ticks.  A preemption between the brackets advances both alike and
 * cancels; one inside a bracket widens it (and the decision with it).
 * The jump's bounds [*lo, *hi] are stored where non-NULL.
 * YES: every value within the bounds is within offset/4 of the offset;
 * NO: every value is under offset/4 away from 0 (or the bounds lie
 *     wholly outside 3/4..5/4 of the offset, yet not near it);
 * UNDETERMINED: the bounds reach both, the reference may have wrapped
 *     (the elapsed time is over half its period), or no rate is known. */
enum xcpu_moved xcpu_selftest_decide(const struct xcpu_bracket *before, const struct xcpu_bracket *after,
				     const struct xcpu_ref_clock *ref, uint64_t offset, int64_t *lo, int64_t *hi);

/* Its name in the report ("honoured", "not_honoured", "undetermined"). */
const char *xcpu_moved_name(enum xcpu_moved m);

#endif
