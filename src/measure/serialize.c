/* Which fence makes RDTSC wait for earlier instructions on this CPU.
 * Intel documents LFENCE as enough.  AMD's LFENCE only waits when it is
 * dispatch-serializing: always on CPUs that say so in CPUID 0x80000021
 * EAX[2], otherwise only once something set DE_CFG[1] — Linux does it at
 * boot, firmware may not have, and before any OS nothing guarantees it.
 * Without either proof the stamps use MFENCE, which AMD documents as
 * ordering RDTSC.  The MSR is only read (through the fault guard: a
 * hypervisor may not emulate it), never written. */
#include "fault.h"
#include "measure.h"
#include "cpuid.h"
#include "msr.h"

void serialization_choose(struct serialization *out, const struct cpu_info *cpu)
{
	memset(out, 0, sizeof *out);
	out->fence = STAMP_FENCE_LFENCE;
	if (!cpu->is_amd && !cpu->is_hygon) {
		out->lfence_serializing = true;
		out->evidence = cpu->is_intel ? "Intel: LFENCE waits for all earlier instructions (SDM vol. 2, LFENCE)"
					      : "not AMD/Hygon: LFENCE taken as serializing";
		return;
	}
	if (cpu->lfence_always_serializing) {
		out->lfence_serializing = true;
		out->evidence = "CPUID 0x80000021 EAX[2]: LFENCE always serializing";
		return;
	}
	out->de_cfg_read = true;
	out->de_cfg_fault = rdmsr_safe(MSR_AMD64_DE_CFG, &out->de_cfg);
	if (!out->de_cfg_fault && (out->de_cfg & MSR_AMD64_DE_CFG_LFENCE_SERIALIZE)) {
		out->lfence_serializing = true;
		out->evidence = "DE_CFG (MSR 0xC0011029) bit 1 set: LFENCE dispatch-serializing";
		return;
	}
	out->fence = STAMP_FENCE_MFENCE;
	out->evidence = out->de_cfg_fault ? "AMD: DE_CFG read faulted and CPUID 0x80000021 EAX[2] clear: using MFENCE"
					  : "AMD: DE_CFG bit 1 clear and CPUID 0x80000021 EAX[2] clear: using MFENCE";
}
