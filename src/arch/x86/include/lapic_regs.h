/* Local APIC registers (Intel SDM vol. 3, 11.4 and 11.5.4; xAPIC MMIO
 * offsets, x2APIC MSR MSR_X2APIC_BASE + (offset >> 4)), and the
 * IA32_APIC_BASE bits. */
#ifndef CP_LAPIC_REGS_H
#define CP_LAPIC_REGS_H

#define APIC_BASE_BSP (1ull << 8)
#define APIC_BASE_X2APIC (1ull << 10)      /* x2APIC mode: MSR access, no MMIO */
#define APIC_BASE_ENABLE (1ull << 11)      /* the APIC is globally enabled */
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull
#define APIC_MMIO_BYTES 4096u

#define LAPIC_ID 0x020                     /* xAPIC: the ID in bits 31:24; x2APIC: all 32 */
#define LAPIC_TPR 0x080                    /* task priority */
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0                    /* spurious vector; bit 8 software enable */
#define LAPIC_ICR_LOW 0x300                /* interrupt command (x2APIC: one 64-bit MSR) */
#define LAPIC_ICR_HIGH 0x310               /* xAPIC: the destination in bits 31:24 */
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_TIMER_INITIAL 0x380
#define LAPIC_TIMER_CURRENT 0x390          /* read-only, counts down */
#define LAPIC_TIMER_DIVIDE 0x3e0

#define LAPIC_SVR_ENABLE 0x100u
#define LAPIC_LVT_MASKED (1u << 16)
#define LAPIC_LVT_MODE_ONESHOT (0u << 17)
#define LAPIC_LVT_MODE_DEADLINE (2u << 17)
#define LAPIC_DIVIDE_BY_1 0xbu

#define LAPIC_ICR_INIT 0x500u
#define LAPIC_ICR_STARTUP 0x600u
#define LAPIC_ICR_DELIVERY_PENDING (1u << 12)
#define LAPIC_ICR_ASSERT (1u << 14)
#define LAPIC_ICR_LEVEL (1u << 15)
#define LAPIC_ICR_ALL_BUT_SELF (3u << 18)

#endif
