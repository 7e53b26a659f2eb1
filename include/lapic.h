/* The local APIC's registers read and written the way its mode says:
 * xAPIC through MMIO at its base, x2APIC through the MSR at
 * MSR_X2APIC_BASE + (offset >> 4).  Each access goes through the fault
 * guard's instruction and returns its fault (FAULT_NONE = 0): where no
 * guard is installed it is the plain instruction.  Used by the direct-boot
 * SMP start (IPIs) and the LAPIC timer measurement alike. */
#ifndef CP_LAPIC_H
#define CP_LAPIC_H
#include <stdbool.h>
#include <stdint.h>
#include "fault.h"
#include "lapic_regs.h"
#include "msr.h"

struct lapic {
	bool x2apic;
	uint64_t base;   /* xAPIC: the MMIO base (IA32_APIC_BASE & APIC_BASE_ADDR_MASK) */
};

static inline int lapic_read(const struct lapic *l, uint32_t reg, uint32_t *v)
{
	if (l->x2apic) {
		uint64_t m = 0;
		int f = rdmsr_safe(MSR_X2APIC_BASE + (reg >> 4), &m);
		*v = (uint32_t)m;
		return f;
	}
	return mmio_read32_safe(l->base + reg, v);
}

static inline int lapic_write(const struct lapic *l, uint32_t reg, uint32_t v)
{
	if (l->x2apic)
		return wrmsr_safe(MSR_X2APIC_BASE + (reg >> 4), v);
	return mmio_write32_safe(l->base + reg, v);
}

#endif
