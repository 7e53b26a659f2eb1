/* The only place the probe touches the CPU directly: one tiny inline
 * wrapper per instruction, in the spirit of kvm-unit-tests' lib/x86.
 * Everything that can fault (MSRs, MMIO at table-given addresses) has a
 * *_safe twin in fault.h that reports the fault instead of killing the VM. */
#ifndef CP_ARCH_H
#define CP_ARCH_H
#include "idt.h"
#include <stdint.h>
#include <stdbool.h>
#include "tsc_order.h"

#define RFLAGS_IF (1u << 9)

struct descriptor_table_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

/* struct idt_gate: src/arch/x86/include/idt.h (pure, so the guard's table is host-tested). */

#ifdef CP_ARCH_HOOKS
/* Host unit tests of the timing code (tests/unit/arch_hooks.h): every
 * wrapper below replaced by a call that counts which instruction
 * sequence it stands for. */
#include "arch_hooks.h"
#else

static inline void cpuid_raw(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(subleaf));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The one ordered TSC read (src/arch/x86/include/tsc_order.h says which and why).
 * LFENCE/MFENCE before RDTSC keeps earlier instructions from finishing
 * after the time stamp is taken; RDTSCP waits for them itself, and is
 * only chosen where CPUID says it exists (qemu64 has none: #UD, which
 * OVMF turns into a hang).  always_inline with a constant argument it is
 * one instruction sequence, as Linux patches it in; with a variable one a
 * predictable branch in front. */
static inline __attribute__((always_inline)) uint64_t rdtsc_ordered_as(enum tsc_read how)
{
	uint32_t lo, hi, aux;
	switch (how) {
	case TSC_READ_RDTSCP:
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
		(void)aux;
		break;
	case TSC_READ_MFENCE:
		__asm__ volatile("mfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
		break;
	default:
		__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
		break;
	}
	return ((uint64_t)hi << 32) | lo;
}

/* Only when CPUID says RDTSCP exists: qemu64 has none and an
 * unconditional RDTSCP raises #UD, which OVMF turns into a hang. */
static inline uint64_t rdtscp_raw(uint32_t *aux)
{
	uint32_t lo, hi, c;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
	*aux = c;
	return ((uint64_t)hi << 32) | lo;
}

/* Time stamps for a measured interval: the begin stamp may not start
 * before earlier work ends, nor let the measured work start before it; the
 * end stamp waits for the measured work (RDTSCP, or a fence first) and keeps
 * later work out.  LFENCE orders RDTSC on Intel, and on AMD only when it is
 * dispatch-serializing (DE_CFG[1] or CPUID 0x80000021 EAX[2]); elsewhere
 * MFENCE is the fence AMD documents for RDTSC (Linux's old MFENCE_RDTSC).
 * Which pair is used is the engine's choice per CPU. */
static inline __attribute__((always_inline)) uint64_t tsc_stamp_begin(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline __attribute__((always_inline)) uint64_t tsc_stamp_begin_mfence(void)
{
	uint32_t lo, hi;
	__asm__ volatile("mfence; rdtsc; mfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline __attribute__((always_inline)) uint64_t tsc_stamp_end_rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

static inline __attribute__((always_inline)) uint64_t tsc_stamp_end_rdtscp_mfence(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp; mfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

static inline __attribute__((always_inline)) uint64_t tsc_stamp_end_lfence(void)
{
	return tsc_stamp_begin();
}

/* VMware backdoor: IN from port 0x5658 with the magic in EAX and the
 * command in ECX; the hypervisor answers in all four registers.  regs[] is
 * eax, ebx, ecx, edx in and out. */
static inline void vmware_backdoor_in(uint32_t regs[4])
{
	__asm__ volatile("inl (%%dx), %%eax"
			 : "+a"(regs[0]), "+b"(regs[1]), "+c"(regs[2]), "+d"(regs[3]));
}

/* Only where CPUID says present (1.ECX[30], 7.0.EBX[18]).  Carry clear
 * means the generator had nothing ready: the caller retries, bounded. */
static inline bool rdrand64(uint64_t *v)
{
	bool ok;
	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok)::"cc");
	return ok;
}
static inline bool rdseed64(uint64_t *v)
{
	bool ok;
	__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok)::"cc");
	return ok;
}

static inline void lfence(void) { __asm__ volatile("lfence" ::: "memory"); }
static inline void compiler_barrier(void) { __asm__ volatile("" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}
static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

static inline uint32_t mmio_read32(uint64_t addr)
{
	return *(volatile uint32_t *)(uintptr_t)addr;
}
static inline void mmio_write32(uint64_t addr, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)addr = v;
}

/* Plain MSR access for the measured paths, once the *_safe twin (fault.h)
 * has proved the MSR exists: the guard's call and result store would
 * otherwise sit inside the timed region. */
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f)::"memory");
	return f;
}

/* Masks interrupts and returns whether they were on, for irq_restore. */
static inline bool irq_save(void)
{
	bool was_on = read_rflags() & RFLAGS_IF;
	__asm__ volatile("cli" ::: "memory");
	return was_on;
}
static inline void irq_restore(bool was_on)
{
	if (was_on)
		__asm__ volatile("sti" ::: "memory");
}
static inline bool irq_enabled(void) { return read_rflags() & RFLAGS_IF; }

static inline void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static inline void sidt(struct descriptor_table_ptr *p) { __asm__ volatile("sidt %0" : "=m"(*p)); }
static inline void lidt(const struct descriptor_table_ptr *p) { __asm__ volatile("lidt %0" ::"m"(*p)); }
static inline uint16_t read_cs(void)
{
	uint16_t cs;
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return cs;
}

/* A present, DPL 0, 64-bit interrupt gate to handler in the current CS. */
static inline void idt_set_gate(struct idt_gate *g, const void *handler)
{
	uint64_t a = (uint64_t)(uintptr_t)handler;
	g->offset_low = (uint16_t)a;
	g->selector = read_cs();
	g->ist = 0;
	g->type_attr = 0x8E;
	g->offset_mid = (uint16_t)(a >> 16);
	g->offset_high = (uint32_t)(a >> 32);
	g->reserved = 0;
}
#endif /* CP_ARCH_HOOKS */

/* The real CPUID instruction as a cpuid_fn (include/cpuid.h) for the pure
 * decoders (src/arch/x86/cpuid_hw.c). */
void cpuid_hw(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
#endif
