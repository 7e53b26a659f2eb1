/* Iteration caps for busy-wait loops (include/spincap.h). */
#include "spincap.h"

uint64_t spin_cycles_per_iteration(uint64_t ticks, uint64_t iterations)
{
	if (!ticks || !iterations)
		return 0;
	/* Rounded up without ticks + iterations - 1 overflowing. */
	return ticks / iterations + (ticks % iterations != 0);
}

uint32_t spin_measure_next(uint32_t iterations, uint64_t ticks)
{
	if (ticks >= SPIN_MEASURE_TARGET_TICKS || iterations >= SPIN_MEASURE_MAX)
		return 0;
	if (!iterations)
		return SPIN_MEASURE_FIRST;
	return iterations > SPIN_MEASURE_MAX / 2 ? SPIN_MEASURE_MAX : iterations * 2;
}
