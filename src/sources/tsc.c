/* tsc: the time stamp counter read with plain RDTSC, as Linux's
 * clocksource does on the vDSO fast path. */
#include "source.h"
#include "arch.h"

static uint64_t tsc_read(void) { return rdtsc(); }

static enum source_status tsc_prepare(struct source_desc *d, const struct probe_facts *f)
{
	if (!f->cpu.tsc) {
		str_copy(d->reason, sizeof d->reason, "CPUID.1:EDX[4] (TSC) is clear");
		return SOURCE_ABSENT;
	}
	d->read = tsc_read;
	d->width_bits = 64;
	d->is_tsc = true;
	d->reads_tsc = true;
	d->freq_hz = f->tsc_hz_rough;
	d->freq_origin = f->tsc_hz_rough_source;
	return SOURCE_OK;
}

const struct clock_source source_tsc = {
	.name = "tsc",
	.prepare = tsc_prepare,
};
