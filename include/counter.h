/* Wrap-safe arithmetic for narrow hardware counters: the 24/32-bit ACPI PM
 * timer, the 32-bit HPET view, the 16-bit PIT (counting down) and the
 * 64-bit TSC.  Widths are 1..64 bits; a width outside that range is
 * treated as 64. */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include "util.h"

/* All-ones mask of the counter's width: 2^width - 1. */
uint64_t counter_mask(unsigned width);

/* Ticks elapsed from prev to now for an up-counter, modulo 2^width:
 * (now - prev) & mask.  Correct whenever fewer than 2^width ticks passed. */
uint64_t counter_delta(uint64_t prev, uint64_t now, unsigned width);
/* Same for a down-counter (PIT, LAPIC current count): (prev - now) & mask.
 * Assumes the counter runs through its whole range; a PIT channel reloaded
 * with a smaller value than 0xFFFF is not a free-running 16-bit counter. */
uint64_t counter_delta_down(uint64_t prev, uint64_t now, unsigned width);

/* Extends a stream of narrow readings into a monotonic 64-bit tick count.
 * Precondition: consecutive readings are less than one full wrap period
 * apart (4.69 s for the 24-bit PM timer, 54.9 ms for the PIT); a longer gap
 * silently loses whole wraps, which no reader can detect from the counter
 * alone.  A reading that went backwards looks like almost a full wrap
 * forward here: check pairs with counter_step_classify when monotonicity
 * itself is being measured. */
struct counter_ext {
	uint64_t mask;
	uint64_t last_raw;
	uint64_t ticks;	/* extended value: ticks since the first reading */
	bool counts_down;
};

void counter_ext_init(struct counter_ext *e, unsigned width, bool counts_down,
		      uint64_t first_raw);
/* Returns the extended tick count after this reading. */
uint64_t counter_ext_feed(struct counter_ext *e, uint64_t raw);

/* What a pair of back-to-back readings of a monotonic counter shows.
 *
 * Rule: let d be the forward distance (counter_delta, or counter_delta_down
 * for down-counters).  d == 0 is SAME; 0 < d < 2^(width-1) is FORWARD, or
 * WRAP when the raw value passed through 0 on the way; d >= 2^(width-1) is
 * BACKWARD by 2^width - d ticks.
 *
 * Why half the range: two back-to-back reads are nanoseconds to
 * microseconds apart, while half a wrap is 2.3 s for a 24-bit PM timer,
 * 27 ms for the PIT and 21 s for a 32-bit HPET at 100 MHz.  A true forward
 * step that large would need the reader to stall for half a wrap period
 * between two adjacent instructions; a counter that steps back (a torn
 * HPET read, a hypervisor restoring an older value) shows exactly such a
 * "huge forward" distance.  Splitting at the midpoint gives each reading
 * the interpretation with the smaller step, which is the likelier one. */
enum counter_step {
	COUNTER_STEP_SAME,
	COUNTER_STEP_FORWARD,
	COUNTER_STEP_WRAP,
	COUNTER_STEP_BACKWARD,
};

/* *distance (may be NULL) receives the step's size in ticks: forward for
 * FORWARD/WRAP, backward for BACKWARD, 0 for SAME. */
enum counter_step counter_step_classify(uint64_t prev, uint64_t now,
					unsigned width, bool counts_down,
					uint64_t *distance);
#endif
