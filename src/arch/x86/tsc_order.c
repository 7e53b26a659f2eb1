/* The ordered TSC read each CPU proves (src/arch/x86/include/tsc_order.h).  Pure: the
 * CPUID decode and DE_CFG's value come in, the decision goes out. */
#include "tsc_order.h"
#include "cpuid.h"
#include "msr.h"

bool serialization_needs_de_cfg(const struct cpu_info *cpu)
{
	return (cpu->is_amd || cpu->is_hygon) && !cpu->lfence_always_serializing;
}

const char *tsc_read_name(enum tsc_read r)
{
	switch (r) {
	case TSC_READ_RDTSCP:
		return "rdtscp";
	case TSC_READ_MFENCE:
		return "mfence; rdtsc";
	case TSC_READ_LFENCE:
		break;
	}
	return "lfence; rdtsc";
}

/* Intel documents LFENCE as enough.  AMD's LFENCE only waits when it is
 * dispatch-serializing: always on CPUs that say so in CPUID 0x80000021
 * EAX[2], otherwise only once something set DE_CFG[1].  Without either
 * proof the stamps use MFENCE, which AMD documents as ordering RDTSC. */
static void choose_fence(struct serialization *out, const struct cpu_info *cpu, bool de_cfg_read, int de_cfg_fault,
			 uint64_t de_cfg)
{
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
	out->de_cfg_read = de_cfg_read;
	out->de_cfg_fault = de_cfg_fault;
	out->de_cfg = de_cfg;
	if (de_cfg_read && !de_cfg_fault && (de_cfg & MSR_AMD64_DE_CFG_LFENCE_SERIALIZE)) {
		out->lfence_serializing = true;
		out->evidence = "DE_CFG (MSR 0xC0011029) bit 1 set: LFENCE dispatch-serializing";
		return;
	}
	out->fence = STAMP_FENCE_MFENCE;
	out->evidence = !de_cfg_read   ? "AMD: DE_CFG not read and CPUID 0x80000021 EAX[2] clear: using MFENCE"
			: de_cfg_fault ? "AMD: DE_CFG read faulted and CPUID 0x80000021 EAX[2] clear: using MFENCE"
				       : "AMD: DE_CFG bit 1 clear and CPUID 0x80000021 EAX[2] clear: using MFENCE";
}

void serialization_decide(struct serialization *out, const struct cpu_info *cpu, bool de_cfg_read,
			  int de_cfg_fault, uint64_t de_cfg)
{
	memset(out, 0, sizeof *out);
	choose_fence(out, cpu, de_cfg_read, de_cfg_fault, de_cfg);
	if (cpu->rdtscp) {
		out->read = TSC_READ_RDTSCP;
		out->read_why = "RDTSCP (CPUID 0x80000001 EDX[27]): waits for every earlier instruction; "
				"Linux's rdtsc_ordered() prefers it wherever it exists";
	} else if (out->fence == STAMP_FENCE_LFENCE) {
		out->read = TSC_READ_LFENCE;
		out->read_why = "no RDTSCP; LFENCE is dispatch-serializing here (Linux's X86_FEATURE_LFENCE_RDTSC)";
	} else {
		out->read = TSC_READ_MFENCE;
		out->read_why = "no RDTSCP, LFENCE not proven serializing: MFENCE orders RDTSC on AMD (where Linux "
				"would first make LFENCE serializing through DE_CFG, which the probe never writes)";
	}
}
