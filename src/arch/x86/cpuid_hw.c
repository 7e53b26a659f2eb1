/* The CPUID instruction behind the decoders' cpuid_fn: discovery, the
 * confidential-computing check and the direct-boot entry all pass it, so
 * it lives with the instructions rather than with any one of them. */
#include "x86.h"

void cpuid_hw(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	(void)ctx;
	cpuid_raw(leaf, subleaf, regs);
}
