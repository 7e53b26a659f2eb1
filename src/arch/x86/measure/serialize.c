/* Which ordered TSC read and which stamp fence this CPU proves: the
 * hardware half of src/arch/x86/tsc_order.c.  DE_CFG is only read, and
 * through the fault guard (a hypervisor may not emulate it), never
 * written. */
#include "fault.h"
#include "fault_x86.h"
#include "measure.h"
#include "cpuid.h"
#include "msr.h"
#include "x86.h"

static void decide(struct serialization *out, const struct cpu_info *cpu)
{
	uint64_t de_cfg = 0;
	bool read = serialization_needs_de_cfg(cpu);
	int fault = read ? rdmsr_safe(MSR_AMD64_DE_CFG, &de_cfg) : 0;
	serialization_decide(out, cpu, read, fault, de_cfg);
}

void serialization_choose(struct serialization *out, const struct cpu_info *cpu)
{
	decide(out, cpu);
}

static void cpuid_here(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	cpuid_raw(leaf, subleaf, regs);
}

/* On whichever CPU runs it (an AP in the cross-CPU test): its own CPUID
 * and its own DE_CFG, which firmware may have set on one core only. */
void serialization_choose_here(struct serialization *out)
{
	struct cpu_info cpu;
	cpuid_decode(&cpu, cpuid_here, NULL);
	decide(out, &cpu);
}
