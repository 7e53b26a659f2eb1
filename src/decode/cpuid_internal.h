/* What the files of the CPUID module share, and nothing they do not.
 *
 * cpuid.c decodes identity and feature bits (and Linux's synthesized TSC
 * flags); cpuid_topology.c finds the package shift and the x2APIC id the
 * way Linux's topology parsers do; cpuid_record.c walks every meaningful
 * leaf of a live CPU into records; cpuid_replay.c answers leaves from
 * records as that CPU would; cpuid_text.c writes and reads the records'
 * text form.  The public API is include/cpuid.h. */
#ifndef CP_CPUID_INTERNAL_H
#define CP_CPUID_INTERNAL_H
#include "cpuid.h"

/* Bound on the subleaves of any topology-style leaf, read or recorded. */
#define TOPO_MAX_SUBLEAVES 16

static inline bool bit(uint32_t value, unsigned n)
{
	return (value >> n) & 1;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Fills x2apic_id from subleaf 0 of leaf 0x1F, else 0xB (cpuid_topology.c). */
void cpuid_decode_x2apic_id(struct cpu_info *c, cpuid_fn fn, void *ctx);
#endif
