/* hyperv_clocksource_msr: Hyper-V's partition reference counter, MSR
 * 0x40000020, 100 ns units.  Every read is an RDMSR exit, which is why
 * Linux prefers the TSC page.  Gated on the AccessPartitionReferenceCounter
 * privilege (0x40000003 EAX[1]): QEMU TCG accepts the MSR silently whatever
 * CPUID says, so a read that does not fault proves nothing. */
#include "msr.h"
#include "source.h"
#include "x86.h"
#include "fault.h"
#include "fault_x86.h"
#include "pvclock.h"
#include "strbuf.h"


/* Measured only after prepare's guarded read proved the MSR. */
static uint64_t hv_msr_read(void) { return rdmsr(HV_X64_MSR_TIME_REF_COUNT); }

static enum source_status hv_msr_prepare(struct source_desc *d, const struct probe_facts *f)
{
	if (!f->hv.hyperv.found) {
		str_copy(d->reason, sizeof d->reason, "no Hyper-V interface in the CPUID hypervisor leaves");
		return SOURCE_ABSENT;
	}
	if (!f->hv.hyperv.ref_counter) {
		str_copy(d->reason, sizeof d->reason,
			 "Hyper-V does not grant AccessPartitionReferenceCounter (0x40000003 EAX[1])");
		return SOURCE_ABSENT;
	}
	uint64_t v;
	int fault = rdmsr_safe(HV_X64_MSR_TIME_REF_COUNT, &v);
	if (fault) {
		struct strbuf sb;
		sb_init(&sb, d->reason, sizeof d->reason);
		sb_str(&sb, "reading HV_X64_MSR_TIME_REF_COUNT raised ");
		sb_str(&sb, fault_name(fault));
		return SOURCE_ERROR;
	}
	d->read = hv_msr_read;
	d->width_bits = 64;
	d->freq_hz = HV_REFERENCE_HZ;
	d->freq_origin = "Hyper-V TLFS (100 ns units)";
	return SOURCE_OK;
}

const struct clock_source source_hyperv_msr = {
	.name = "hyperv_clocksource_msr",
	.prepare = hv_msr_prepare,
};
