/* The cost of one busy-wait spin, timed once at run start: the same
 * rdtsc + pause every bounded wait of the probe makes per iteration.
 * The count grows until the timing is long enough to mean something
 * (spincap.h), then the fewest ticks of a few timings is kept. */
#include "facts.h"
#include "arch_api.h"

static uint64_t __attribute__((noinline)) time_spins(uint32_t n)
{
	uint64_t seen = 0;
	uint64_t t0 = tb_now();
	for (uint32_t i = 0; i < n; i++) {
		seen ^= tb_now();
		cpu_relax();
	}
	uint64_t t1 = tb_now();
	__asm__ volatile("" ::"r"(seen));
	return t1 - t0;
}

void facts_measure_spin_cycles(struct probe_facts *f)
{
	uint32_t n = SPIN_MEASURE_FIRST, next;
	uint64_t ticks = time_spins(n);
	while ((next = spin_measure_next(n, ticks)))
		ticks = time_spins(n = next);
	for (uint32_t i = 1; ticks && i < SPIN_MEASURE_REPEATS; i++)
		ticks = MIN(ticks, time_spins(n));
	f->spin_cycles = spin_cycles_per_iteration(ticks, n);
	f->spin_cycles_basis = f->spin_cycles
				       ? "rdtsc + pause loop on the BSP at run start: fewest TSC ticks of 4 timings "
					 "over the spin count, rounded up"
				       : "unknown: the TSC did not advance over the timed spins (caps assume 1 tick "
					 "a spin)";
}
