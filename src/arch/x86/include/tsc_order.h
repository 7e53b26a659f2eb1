/* How this CPU orders a read of the TSC, decided once per CPU from what
 * the CPU proves (src/arch/x86/tsc_order.c, pure), and used by every
 * single time stamp the probe takes: the tsc source (what a Linux vDSO
 * executes), the warp test and the skew exchanges, the frequency
 * brackets, the step detector, the pvclock and Hyper-V TSC-page reads.
 *
 * The rule is Linux's rdtsc_ordered() (arch/x86/include/asm/msr.h, now
 * asm/tsc.h): ALTERNATIVE_2("rdtsc", "lfence; rdtsc",
 * X86_FEATURE_LFENCE_RDTSC, "rdtscp", X86_FEATURE_RDTSCP): RDTSCP where
 * the CPU has it ("aiming for RDTSCP as the default": it waits for every
 * earlier instruction), else LFENCE;RDTSC where LFENCE is dispatch-
 * serializing (Intel always; AMD when CPUID 0x80000021 EAX[2] says so or
 * DE_CFG bit 1 is set — Linux sets that bit at boot, before any OS
 * nothing has), else MFENCE;RDTSC, the fence AMD documents for ordering
 * RDTSC (Linux's former X86_FEATURE_MFENCE_RDTSC): where Linux would
 * have made LFENCE serializing first, the probe cannot, and an unordered
 * RDTSC is what it must avoid. */
#ifndef CP_TSC_ORDER_H
#define CP_TSC_ORDER_H
#include "util.h"

enum tsc_read { TSC_READ_LFENCE, TSC_READ_MFENCE, TSC_READ_RDTSCP };

/* Which fence orders RDTSC in a stamp pair (the engine's harness). */
enum stamp_fence { STAMP_FENCE_LFENCE, STAMP_FENCE_MFENCE };

struct cpu_info;

/* The decision and its evidence, per CPU. */
struct serialization {
	enum stamp_fence fence;
	bool lfence_serializing;
	const char *evidence;     /* why that fence */
	bool de_cfg_read;         /* AMD DE_CFG (MSR 0xC0011029) was read */
	int de_cfg_fault;         /* its read faulted: the vector */
	uint64_t de_cfg;
	enum tsc_read read;       /* the one ordered read */
	const char *read_why;
};

/* DE_CFG is only worth reading (through the fault guard) on AMD/Hygon
 * without the CPUID bit: nothing else depends on it. */
bool serialization_needs_de_cfg(const struct cpu_info *cpu);
/* From the CPU's CPUID and, where needed, DE_CFG as read (de_cfg_read
 * false: not read; fault: its vector, 0 = read fine). */
void serialization_decide(struct serialization *out, const struct cpu_info *cpu, bool de_cfg_read,
			  int de_cfg_fault, uint64_t de_cfg);
/* "rdtscp", "lfence; rdtsc", "mfence; rdtsc": the instructions as run. */
const char *tsc_read_name(enum tsc_read r);
#endif
