/* The arm64 probe's only contact with the CPU: one tiny inline wrapper per
 * instruction, so that what each measurement executes can be read off this
 * file (docs/architecture.md, "src/arch/arm64").  Every register named here
 * exists at every Armv8.0 exception level the probe runs at (EL1 under
 * AAVMF, EL2 under a VHE-less firmware that stayed there) except
 * CNTVCTSS_EL0, which only FEAT_ECV has: its wrapper is called only after
 * ID_AA64MMFR0_EL1.ECV said so (an absent register is an undefined
 * instruction, and UEFI's handler for it halts the machine). */
#ifndef CP_ARM64_A64_H
#define CP_ARM64_A64_H
#include <stdbool.h>
#include <stdint.h>

/* System registers by their S3_op1_Cn_Cm_op2 names, so that the assembler
 * needs no knowledge of the newer ones (Arm ARM D19 / D17 encodings). */
#define A64_CNTFRQ_EL0 "S3_3_C14_C0_0"
#define A64_CNTPCT_EL0 "S3_3_C14_C0_1"
#define A64_CNTVCT_EL0 "S3_3_C14_C0_2"
#define A64_CNTPCTSS_EL0 "S3_3_C14_C0_5"
#define A64_CNTVCTSS_EL0 "S3_3_C14_C0_6"

/* ISB before the read: a counter read may otherwise be taken early, ahead
 * of the instructions before it (Arm ARM D12.1.2 "Reads of the counter
 * may occur speculatively and out of order"); ISB after: nothing that
 * follows starts before it.  The stamp that brackets a measurement. */
static inline uint64_t a64_stamp(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, " A64_CNTVCT_EL0 "\n\tisb" : "=r"(v) : : "memory");
	return v;
}

/* The same stamp after a full barrier: every earlier memory access has
 * completed (DSB SY) before the ISB and the read, as x86's MFENCE stamp
 * waits for earlier stores.  Not the arm64 probe's stamp (an ISB orders a
 * counter read against instructions, which is what a stamp needs); kept
 * so the seam's STAMP_FENCE_MFENCE has an arm64 meaning. */
static inline uint64_t a64_stamp_dsb(void)
{
	uint64_t v;
	__asm__ volatile("dsb sy\n\tisb\n\tmrs %0, " A64_CNTVCT_EL0 "\n\tisb" : "=r"(v) : : "memory");
	return v;
}

/* The counter with nothing ordering it: a deadline or a loop bound, where
 * a read taken a little early or late changes nothing. */
static inline uint64_t a64_cntvct_raw(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTVCT_EL0 : "=r"(v) : : "memory");
	return v;
}

/* The reads measured: ISB then MRS, as Linux's arch_timer_read_cntvct_el0()
 * and the vDSO's __arch_get_hw_counter() order them. */
static inline uint64_t a64_cntvct_ordered(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, " A64_CNTVCT_EL0 : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t a64_cntpct_ordered(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, " A64_CNTPCT_EL0 : "=r"(v) : : "memory");
	return v;
}

/* Self-synchronising: no ISB is the point of it.  FEAT_ECV only. */
static inline uint64_t a64_cntvctss(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTVCTSS_EL0 : "=r"(v) : : "memory");
	return v;
}

/* The EL1 virtual timer (Arm ARM D12.8 "The Generic Timer in AArch64
 * state"): CNTV_CTL_EL0 (bit 0 ENABLE, bit 1 IMASK, bit 2 ISTATUS read
 * only), CNTV_CVAL_EL0 (fires when CNTVCT - CVAL >= 0), CNTV_TVAL_EL0
 * (CVAL - CNTVCT as a signed 32-bit view; a write sets CVAL from it).
 * A direct write is not guaranteed to reach the timer (an indirect read)
 * before a context synchronization event: the CTL write, the one that
 * arms or disarms, carries the ISB, which also publishes a CVAL or TVAL
 * written just before it (Linux's arch_timer_reg_write_cp15 orders them
 * so).  The reads are plain MRS: a poll orders them with a stamp. */
#define A64_CNTV_CTL_EL0 "S3_3_C14_C3_1"
#define A64_CNTV_CVAL_EL0 "S3_3_C14_C3_2"
#define A64_CNTV_TVAL_EL0 "S3_3_C14_C3_0"
#define A64_CNTV_ENABLE 1u
#define A64_CNTV_IMASK 2u
#define A64_CNTV_ISTATUS 4u

static inline uint64_t a64_cntv_ctl(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTV_CTL_EL0 : "=r"(v) : : "memory");
	return v;
}

static inline void a64_cntv_ctl_set(uint64_t v)
{
	__asm__ volatile("msr " A64_CNTV_CTL_EL0 ", %0\n\tisb" : : "r"(v) : "memory");
}

static inline uint64_t a64_cntv_cval(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTV_CVAL_EL0 : "=r"(v) : : "memory");
	return v;
}

/* No ISB: the CTL write that follows carries it. */
static inline void a64_cntv_cval_set(uint64_t v)
{
	__asm__ volatile("msr " A64_CNTV_CVAL_EL0 ", %0" : : "r"(v) : "memory");
}

static inline int32_t a64_cntv_tval(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTV_TVAL_EL0 : "=r"(v) : : "memory");
	return (int32_t)(uint32_t)v;
}

/* No ISB: the CTL write that follows carries it. */
static inline void a64_cntv_tval_set(int32_t v)
{
	__asm__ volatile("msr " A64_CNTV_TVAL_EL0 ", %0" : : "r"((uint64_t)(uint32_t)v) : "memory");
}

static inline uint64_t a64_cntfrq(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_CNTFRQ_EL0 : "=r"(v));
	return v;
}

static inline uint64_t a64_midr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, midr_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_mpidr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_id_aa64mmfr0(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_id_aa64pfr0(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, id_aa64pfr0_el1" : "=r"(v));
	return v;
}

/* The EL1 translation regime, as UEFI set it up: read to walk its tables
 * (src/decode/arm64_pt.c) and to give the other CPUs the same one
 * (cpus.c).  Valid at EL1, where AAVMF runs applications. */
static inline uint64_t a64_tcr_el1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, tcr_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_ttbr0_el1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, ttbr0_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_mair_el1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, mair_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_sctlr_el1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(v));
	return v;
}

static inline uint64_t a64_vbar_el1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, vbar_el1" : "=r"(v));
	return v;
}

/* CTR_EL0.DminLine [19:16]: log2 of the smallest data cache line in words. */
static inline uint64_t a64_ctr_el0(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(v));
	return v;
}

/* Clean one data cache line to the point of coherency: what another CPU
 * reading with its MMU (so its caches) off sees is then memory's copy. */
static inline void a64_dc_cvac(uintptr_t addr)
{
	__asm__ volatile("dc cvac, %0" : : "r"(addr) : "memory");
}

static inline void a64_dsb_sy(void)
{
	__asm__ volatile("dsb sy" : : : "memory");
}

/* Wait for an event (or a stray interrupt): a spin's pause. */
static inline void a64_yield(void)
{
	__asm__ volatile("yield" : : : "memory");
}

/* DAIF as a whole, and IRQ alone masked or unmasked (DAIFSet/DAIFClr
 * #2 is the I bit): the seam's irq_* keep IRQ, the interrupt UEFI's
 * timer and the GIC's deliver at EL1, under their control; FIQ is left as
 * found (on GICv3 it is the secure world's, never taken at non-secure
 * EL1). */
#define A64_DAIF_I (1u << 7)
static inline uint64_t a64_daif(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, daif" : "=r"(v) : : "memory");
	return v;
}

static inline void a64_irq_mask(void)
{
	__asm__ volatile("msr daifset, #2" : : : "memory");
}

/* The unmask has its ISB so that a pending interrupt is taken here, not
 * some instructions later (a GIC shot's window depends on it). */
static inline void a64_irq_unmask(void)
{
	__asm__ volatile("msr daifclr, #2\n\tisb" : : : "memory");
}

/* Every exception masked (D, A, I, F), then WFI for ever: a wake-up with
 * everything masked falls through WFI and waits again. */
static inline void __attribute__((noreturn)) a64_halt_forever(void)
{
	__asm__ volatile("msr daifset, #0xf" : : : "memory");
	for (;;)
		__asm__ volatile("wfi" : : : "memory");
}

/* ID_AA64ISAR0_EL1.RNDR [63:60] = 1: FEAT_RNG, RNDR and RNDRRS exist
 * (an absent one is an undefined instruction). */
static inline uint64_t a64_id_aa64isar0(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, id_aa64isar0_el1" : "=r"(v));
	return v;
}

/* RNDR (S3_3_C2_C4_0) and RNDRRS (S3_3_C2_C4_1, reseeded first): PSTATE.Z
 * is set, and the value 0, when no random number came back in time. */
#define A64_RNDR "S3_3_C2_C4_0"
#define A64_RNDRRS "S3_3_C2_C4_1"
static inline bool a64_rndr(uint64_t *v)
{
	uint64_t ok;
	__asm__ volatile("mrs %0, " A64_RNDR "\n\tcset %1, ne" : "=r"(*v), "=r"(ok) : : "cc");
	return ok != 0;
}

static inline bool a64_rndrrs(uint64_t *v)
{
	uint64_t ok;
	__asm__ volatile("mrs %0, " A64_RNDRRS "\n\tcset %1, ne" : "=r"(*v), "=r"(ok) : : "cc");
	return ok != 0;
}

/* CurrentEL[3:2]: the exception level the probe runs at. */
static inline unsigned a64_current_el(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, CurrentEL" : "=r"(v));
	return (unsigned)((v >> 2) & 3);
}

/* The GICv3 CPU interface's system registers (Arm IHI 0069 12.2), by
 * encoding.  Each exists only where ID_AA64PFR0_EL1.GIC is non-zero (the
 * system register interface is implemented): elsewhere an access is an
 * undefined instruction, and gic.c calls none before checking it.  A
 * write that changes what the CPU interface signals (PMR, IGRPEN1, SRE)
 * takes effect at the next context synchronization event: each write
 * carries its ISB.  The acknowledge is followed by DSB SY, as Linux's
 * gic_read_iar() does, so that nothing after it is seen before it. */
#define A64_ICC_PMR_EL1 "S3_0_C4_C6_0"
#define A64_ICC_IAR1_EL1 "S3_0_C12_C12_0"
#define A64_ICC_EOIR1_EL1 "S3_0_C12_C12_1"
#define A64_ICC_DIR_EL1 "S3_0_C12_C11_1"
#define A64_ICC_CTLR_EL1 "S3_0_C12_C12_4"
#define A64_ICC_SRE_EL1 "S3_0_C12_C12_5"
#define A64_ICC_IGRPEN1_EL1 "S3_0_C12_C12_7"

#define A64_SYSREG_RW(fn, reg)                                                  \
	static inline uint64_t a64_##fn(void)                                   \
	{                                                                       \
		uint64_t v;                                                     \
		__asm__ volatile("mrs %0, " reg : "=r"(v) : : "memory");        \
		return v;                                                       \
	}                                                                       \
	static inline void a64_##fn##_set(uint64_t v)                           \
	{                                                                       \
		__asm__ volatile("msr " reg ", %0\n\tisb" : : "r"(v) : "memory"); \
	}
A64_SYSREG_RW(icc_pmr, A64_ICC_PMR_EL1)
A64_SYSREG_RW(icc_ctlr, A64_ICC_CTLR_EL1)
A64_SYSREG_RW(icc_sre, A64_ICC_SRE_EL1)
A64_SYSREG_RW(icc_igrpen1, A64_ICC_IGRPEN1_EL1)

static inline uint64_t a64_icc_iar1(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, " A64_ICC_IAR1_EL1 "\n\tdsb sy" : "=r"(v) : : "memory");
	return v;
}

static inline void a64_icc_eoir1(uint64_t v)
{
	__asm__ volatile("msr " A64_ICC_EOIR1_EL1 ", %0\n\tisb" : : "r"(v) : "memory");
}

static inline void a64_icc_dir(uint64_t v)
{
	__asm__ volatile("msr " A64_ICC_DIR_EL1 ", %0\n\tisb" : : "r"(v) : "memory");
}

/* The exception vector base: the probe's own table replaces the
 * firmware's only around the interrupt measurement (gic.c); ISB so the
 * next exception already uses it. */
static inline void a64_vbar_el1_set(uint64_t v)
{
	__asm__ volatile("msr vbar_el1, %0\n\tisb" : : "r"(v) : "memory");
}

/* SPSel: 1 when the CPU runs on SP_EL1 (EL1h), the mode the vector
 * table's unwinding returns to. */
static inline uint64_t a64_spsel(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, spsel" : "=r"(v));
	return v;
}

/* Masks IRQ and FIQ for a measurement window and gives back the DAIF bits
 * to restore: UEFI's timer tick lands in a window otherwise. */
static inline uint64_t a64_irq_save(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #3" : "=r"(v) : : "memory");
	return v;
}

static inline void a64_irq_restore(uint64_t daif)
{
	__asm__ volatile("msr daif, %0" : : "r"(daif) : "memory");
}

/* An SMCCC call through HVC or SMC (DEN0028 2.x: function id in w0,
 * arguments in x1..x3, results in x0..x3; x4..x17 may be clobbered by a
 * 1.0 implementation).  Made only after the conduit was named by the FADT
 * and the function was found by the discovery chain (src/arch/arm64/smccc.c). */
struct a64_smccc_res {
	uint64_t a0, a1, a2, a3;
};

#define A64_SMCCC_CLOBBERS "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", \
	"x14", "x15", "x16", "x17", "memory"

static inline struct a64_smccc_res a64_hvc(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a1, x2 __asm__("x2") = a2,
				     x3 __asm__("x3") = a3;
	__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : A64_SMCCC_CLOBBERS);
	return (struct a64_smccc_res){x0, x1, x2, x3};
}

static inline struct a64_smccc_res a64_smc(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn, x1 __asm__("x1") = a1, x2 __asm__("x2") = a2,
				     x3 __asm__("x3") = a3;
	__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : : A64_SMCCC_CLOBBERS);
	return (struct a64_smccc_res){x0, x1, x2, x3};
}

/* PL011 and GIC registers are 32-bit device memory: one access of exactly that
 * width each (a compiler may otherwise merge or split plain accesses). */
static inline uint32_t a64_mmio_read32(uintptr_t addr)
{
	uint32_t v;
	__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline void a64_mmio_write32(uintptr_t addr, uint32_t v)
{
	__asm__ volatile("str %w0, [%1]" : : "r"(v), "r"(addr) : "memory");
}
#endif
