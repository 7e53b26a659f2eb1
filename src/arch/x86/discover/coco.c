/* Confidential-VM discovery, the hardware half of include/coco.h: CPUID
 * through the real instruction, then the SEV status MSR only where CPUID
 * says SEV exists (an AMD or Hygon CPU, 0x8000001F EAX[1]), and the guest
 * TSC frequency MSR only where that status says Secure TSC is on.  Both
 * reads go through the fault guard: the SEV status MSR cannot be
 * intercepted by a hypervisor (AMD APM 15.34.10), but a CPU or emulator
 * that lies in CPUID may still lack it. */
#include "discover.h"
#include "x86.h"
#include "coco.h"
#include "fault.h"
#include "fault_x86.h"

void discover_confidential(struct probe_facts *f)
{
	struct coco_raw raw;
	coco_read_cpuid(&raw, &f->cpu, cpuid_hw, NULL);
	if (coco_may_read_sev_status(&raw)) {
		raw.sev_status_read = true;
		raw.sev_status_fault = rdmsr_safe(MSR_AMD64_SEV_STATUS, &raw.sev_status);
		if (!raw.sev_status_fault && (raw.sev_status & (1ull << COCO_SNP_ENABLED_BIT)) &&
		    (raw.sev_status & (1ull << COCO_SNP_SECURE_TSC_BIT))) {
			raw.guest_tsc_freq_read = true;
			raw.guest_tsc_freq_fault = rdmsr_safe(MSR_AMD64_GUEST_TSC_FREQ, &raw.guest_tsc_freq);
		}
	}
	coco_decode(&f->coco, &raw);
}
