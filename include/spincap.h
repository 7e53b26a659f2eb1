/* Iteration caps for busy-wait loops, from what one spin costs.
 *
 * Every busy wait is bounded by a TSC deadline and by an iteration cap;
 * the cap is the backstop for a TSC that stopped or a deadline that
 * never comes.  A fixed count is no backstop where one spin is slow (a
 * nested, emulating hypervisor: 3-8 us a spin makes 4e9 spins hours), so
 * each cap is the loop's own deadline budget over the measured cost of
 * one spin, times a margin.  Pure arithmetic: the measurement itself is
 * src/measure/spincost.c.  Inline: the compiler sees the floor at each
 * loop (a cap never under 1000, or 2 reads). */
#ifndef CP_SPINCAP_H
#define CP_SPINCAP_H
#include "util.h"

/* Spins allowed = budget / cost x SPIN_CAP_MARGIN: a loop whose body
 * costs more than the timed rdtsc + pause (any real wait: it loads,
 * compares, calls) reaches its deadline long before its cap, and one
 * the host ran up to 4x faster than at the timing still does. */
#define SPIN_CAP_MARGIN 4
/* Never fewer: a tiny or zero budget still gets a few real looks. */
#define SPIN_CAP_FLOOR 1000

/* The timing: SPIN_MEASURE_FIRST spins, doubled while the ticks stay
 * under SPIN_MEASURE_TARGET_TICKS (20 us at the assumed 4 GHz) and the
 * count under SPIN_MEASURE_MAX; then SPIN_MEASURE_REPEATS timings at that
 * count, the fewest ticks kept (a preempted timing only ever costs more,
 * and the cheapest spin gives the most generous caps). */
#define SPIN_MEASURE_FIRST 256u
#define SPIN_MEASURE_MAX 65536u
#define SPIN_MEASURE_TARGET_TICKS 80000u
#define SPIN_MEASURE_REPEATS 4u

/* TSC ticks per spin, rounded up (at least 1); 0 = unknown (no ticks
 * passed, or no spins). */
uint64_t spin_cycles_per_iteration(uint64_t ticks, uint64_t iterations);
/* The next count to time after `iterations` spins took `ticks`, or 0 when
 * this timing is long enough (or the count at its bound). */
uint32_t spin_measure_next(uint32_t iterations, uint64_t ticks);
/* Spins a wait of budget_cycles TSC ticks may take at spin_cycles ticks a
 * spin: budget / spin_cycles x SPIN_CAP_MARGIN, at least SPIN_CAP_FLOOR,
 * saturating at UINT64_MAX.  spin_cycles 0 (unknown) counts as 1 tick a
 * spin: the cap is then 4x the budget in ticks, the scale of the fixed
 * caps it replaces, so an unknown cost never makes a cap end a wait that
 * a real deadline would have ended. */
static inline uint64_t spin_cap(uint64_t budget_cycles, uint64_t spin_cycles)
{
	uint64_t spins = budget_cycles / (spin_cycles ? spin_cycles : 1);
	if (spins > UINT64_MAX / SPIN_CAP_MARGIN)
		return UINT64_MAX;
	spins *= SPIN_CAP_MARGIN;
	return spins < SPIN_CAP_FLOOR ? SPIN_CAP_FLOOR : spins;
}

/* A TSC read takes at least this many ticks: budget / 4 reads is what
 * the back-to-back read loops (gap scans) were always bounded by. */
#define SPIN_READ_MIN_CYCLES 4
/* The cap of a back-to-back TSC read loop (no pause: the timed spin is
 * no measure of it, a pause alone can cost several reads) whose own
 * round costs loop_cycles (measured on that loop; 0 = unknown): spin_cap
 * at that cost, never above budget / SPIN_READ_MIN_CYCLES + 2. */
static inline uint64_t spin_cap_reads(uint64_t budget_cycles, uint64_t loop_cycles)
{
	uint64_t reads = budget_cycles / SPIN_READ_MIN_CYCLES + 2;
	uint64_t cap = spin_cap(budget_cycles, loop_cycles);
	return cap < reads ? cap : reads;
}
#endif
