#include "gapscan.h"
#include "arch.h"
#include "rate.h"

/* Even at one TSC read per cycle a 60 s window stays below this; it only
 * ends the loop if the TSC stops. */
#define GAPSCAN_MAX_READS 100000000000ull

void gapscan_run(struct gaps_report *out, uint64_t tsc_hz, uint64_t rdtsc_p50, uint32_t window_ms)
{
	memset(out, 0, sizeof *out);
	out->tsc_hz = tsc_hz;
	out->window_ms = window_ms;
	uint64_t window = rate_ns_to_cycles((uint64_t)window_ms * 1000000, tsc_hz);
	bool was_on = irq_save();
	uint64_t start = rdtsc();
	uint64_t prev = start;
	gaps_init(&out->g, gaps_threshold(tsc_hz, rdtsc_p50), start);
	for (uint64_t i = 0; i < GAPSCAN_MAX_READS; i++) {
		uint64_t now = rdtsc();
		gaps_feed(&out->g, prev, now);
		prev = now;
		if (now - start >= window)
			break;
	}
	out->interrupts_leaked = irq_enabled();
	irq_restore(was_on);
	gaps_finish(&out->g, prev);
	out->measured = true;
}
