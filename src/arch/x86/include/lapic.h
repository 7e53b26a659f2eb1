/* The local APIC's registers read and written the way its mode says:
 * xAPIC through MMIO at its base, x2APIC through the MSR at
 * MSR_X2APIC_BASE + (offset >> 4) (rdmsr_safe/wrmsr_safe either way).
 * lapic_read/lapic_write put the MMIO access through the fault guard and
 * return its fault (FAULT_NONE = 0): the timer measurement reads registers
 * the firmware left.  lapic_read_plain/lapic_write_plain use the plain MMIO
 * instruction: the direct-boot SMP start runs before the run installs the
 * guard, and its instruction count is part of what a -icount run measures
 * afterwards, so it keeps the instructions it always ran. */
#ifndef CP_LAPIC_H
#define CP_LAPIC_H
#include <stdbool.h>
#include <stdint.h>
#include "fault.h"
#include "fault_x86.h"
#include "lapic_regs.h"
#include "msr.h"
#include "x86.h"

/* An xAPIC register offset as its x2APIC MSR. */
#define LAPIC_MSR(reg) (MSR_X2APIC_BASE + ((reg) >> 4))

struct lapic {
	bool x2apic;
	uint64_t base;   /* xAPIC: the MMIO base (IA32_APIC_BASE & APIC_BASE_ADDR_MASK) */
};

static inline int lapic_read(const struct lapic *l, uint32_t reg, uint32_t *v)
{
	if (l->x2apic) {
		uint64_t m = 0;
		int f = rdmsr_safe(LAPIC_MSR(reg), &m);
		*v = (uint32_t)m;
		return f;
	}
	return mmio_read32_safe(l->base + reg, v);
}

static inline int lapic_write(const struct lapic *l, uint32_t reg, uint32_t v)
{
	if (l->x2apic)
		return wrmsr_safe(LAPIC_MSR(reg), v);
	return mmio_write32_safe(l->base + reg, v);
}

static inline uint32_t lapic_read_plain(const struct lapic *l, uint32_t reg)
{
	uint64_t v = 0;
	if (!l->x2apic)
		return mmio_read32(l->base + reg);
	rdmsr_safe(LAPIC_MSR(reg), &v);
	return (uint32_t)v;
}

static inline void lapic_write_plain(const struct lapic *l, uint32_t reg, uint32_t v)
{
	if (l->x2apic)
		wrmsr_safe(LAPIC_MSR(reg), v);
	else
		mmio_write32(l->base + reg, v);
}

#endif
