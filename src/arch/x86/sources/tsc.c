/* tsc: the time stamp counter read as a Linux guest's vDSO reads it,
 * with rdtsc_ordered() (src/arch/x86/include/tsc_order.h): RDTSCP where the CPU has
 * it, else LFENCE;RDTSC where LFENCE is serializing, else MFENCE;RDTSC.
 * The plain, unordered RDTSC is baselines.rdtsc_raw. */
#include "source.h"
#include "x86.h"

/* One function per ordered read, so the measured call holds exactly the
 * instructions the vDSO runs, as Linux's alternatives patch them in. */
static uint64_t tsc_read_lfence(void) { return rdtsc_ordered_as(TSC_READ_LFENCE); }
static uint64_t tsc_read_mfence(void) { return rdtsc_ordered_as(TSC_READ_MFENCE); }
static uint64_t tsc_read_rdtscp(void) { return rdtsc_ordered_as(TSC_READ_RDTSCP); }

static enum source_status tsc_prepare(struct source_desc *d, const struct probe_facts *f)
{
	if (!f->cpu.tsc) {
		str_copy(d->reason, sizeof d->reason, "CPUID.1:EDX[4] (TSC) is clear");
		return SOURCE_ABSENT;
	}
	d->read = f->tsc_read == TSC_READ_RDTSCP   ? tsc_read_rdtscp
		  : f->tsc_read == TSC_READ_MFENCE ? tsc_read_mfence
						   : tsc_read_lfence;
	d->instructions = tsc_read_name(f->tsc_read);
	source_desc_tsc_counter(d, f);
	return SOURCE_OK;
}

const struct clock_source source_tsc = {
	.name = "tsc",
	.prepare = tsc_prepare,
};
