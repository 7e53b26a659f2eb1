/* Model-specific register numbers, with the names Linux gives them
 * (arch/x86/include/asm/msr-index.h). */
#ifndef CP_MSR_H
#define CP_MSR_H

/* Intel: SMIs taken since reset (Nehalem and later); read-only. */
#define MSR_SMI_COUNT 0x00000034u
/* AMD family 10h+: bit 1 makes LFENCE dispatch-serializing. */
#define MSR_AMD64_DE_CFG 0xc0011029u
#define MSR_AMD64_DE_CFG_LFENCE_SERIALIZE (1ull << 1)

#endif
