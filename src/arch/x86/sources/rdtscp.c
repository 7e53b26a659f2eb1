/* rdtscp: the same counter through RDTSCP, which also returns TSC_AUX (the
 * CPU number Linux's vgetcpu uses).  Gated on CPUID: qemu64 lacks it and an
 * unconditional RDTSCP raises #UD, which OVMF turns into a hang. */
#include "source.h"
#include "x86.h"

static uint64_t rdtscp_read(void)
{
	uint32_t aux;
	return rdtscp_raw(&aux);
}

static enum source_status rdtscp_prepare(struct source_desc *d, const struct probe_facts *f)
{
	if (!f->cpu.rdtscp) {
		str_copy(d->reason, sizeof d->reason,
			 "CPUID.80000001h:EDX[27] (RDTSCP) is clear for this CPU model");
		return SOURCE_ABSENT;
	}
	d->read = rdtscp_read;
	d->instructions = "rdtscp";
	source_desc_tsc_counter(d, f);
	return SOURCE_OK;
}

const struct clock_source source_rdtscp = {
	.name = "rdtscp",
	.prepare = rdtscp_prepare,
};
