/* arm64's side of include/arch_api.h: each interface function is a wrapper
 * of ../a64.h (the arm64 probe's raw instruction wrappers), inline, so a
 * measured window runs exactly the instructions named here.
 *
 * The timebase is CNTVCT_EL0, the virtual count, at CNTFRQ_EL0's rate.
 * What x86 has and arm64 has not (SMI counts, CPUID leaves, I/O ports, the
 * isa-debug-exit harness) answers "not on this arch" per function below:
 * a fault vector, zeros or false, never a figure.
 *
 * Functions of arch_api.h not defined for arm64 yet, so a caller fails to
 * link rather than getting a made-up answer: tb_rough_rate (the arm64
 * probe takes CNTFRQ_EL0 and measures the rate against UEFI GetTime,
 * measure.c), rtc_read_now and rtc_wait_edge (GetTime is its wall clock),
 * arch_discover_cpu/late and arch_capture_raw (efi_main.c reads MIDR,
 * MPIDR and the ID registers itself). */
#ifndef CP_ARCH_IMPL_H
#define CP_ARCH_IMPL_H
#include "../a64.h"
#include "fault_names.h"
#include "tsc_order.h"

/* No test harness device on arm64 (x86's isa-debug-exit): the values are
 * x86's, for a caller that names them; nothing is ever written. */
#define HARNESS_EXIT_COMPLETE 0x10
#define HARNESS_EXIT_FAILED 0x11
/* No I/O ports: the yardsticks name port 0 (see below). */
#define YARDSTICK_KERNEL_PORT 0
/* cpu_ref_loop's instructions a turn: add, subs, b.ne. */
#define CPU_REF_LOOP_INSNS 3
/* Whether the exit yardsticks measure anything here: they do not. */
#define ARCH_HAS_YARDSTICKS 0

/* ---- timebase ---- */

/* Unordered: a deadline or a loop bound. */
static inline uint64_t tb_now(void) { return a64_cntvct_raw(); }

/* ISB; MRS CNTVCT_EL0, or MRS CNTVCTSS_EL0 (self-synchronised: FEAT_ECV
 * only; tsc_order.h). */
static inline __attribute__((always_inline)) uint64_t tb_ordered(enum tsc_read how)
{
	return how == TSC_READ_SS ? a64_cntvctss() : a64_cntvct_ordered();
}

/* ISB; MRS CNTVCT_EL0; ISB (STAMP_FENCE_DSB: DSB SY first): the ISB
 * before keeps the read from being taken ahead of the instructions before
 * it, the ISB after keeps what follows from starting before it (Arm ARM
 * D12.1.2), so nothing crosses the stamp either way. */
static inline __attribute__((always_inline)) uint64_t tb_stamp_begin(enum stamp_fence fence)
{
	return fence == STAMP_FENCE_DSB ? a64_stamp_dsb() : a64_stamp();
}

/* The same stamp: its leading ISB already waits for every earlier
 * instruction, so there is no separate self-waiting read (x86's RDTSCP)
 * and `waits` changes nothing. */
static inline __attribute__((always_inline)) uint64_t tb_stamp_end(bool waits, enum stamp_fence fence)
{
	(void)waits;
	return fence == STAMP_FENCE_DSB ? a64_stamp_dsb() : a64_stamp();
}

static inline const char *tb_stamp_method(enum stamp_fence fence, bool waits)
{
	(void)waits;
	return fence == STAMP_FENCE_DSB
		       ? "dsb sy;isb;mrs cntvct_el0;isb | read | dsb sy;isb;mrs cntvct_el0;isb, "
			 "minus the median of the interleaved empty-call window"
		       : "isb;mrs cntvct_el0;isb | read | isb;mrs cntvct_el0;isb, "
			 "minus the median of the interleaved empty-call window";
}

/* arm64 has no hypervisor frequency register: the counter's rate is
 * architectural, CNTFRQ_EL0, which firmware programs (under KVM the host's
 * value, which the guest cannot change).  Asked for one (offered), it
 * gives that register, and false where it reads 0 (firmware left it
 * unset). */
static inline bool tb_hz_hypervisor_register(bool offered, uint64_t *hz)
{
	if (!offered)
		return false;
	*hz = a64_cntfrq();
	return *hz != 0;
}

/* ---- the CPU ---- */

/* YIELD: a hint that this is a spin (an SMT sibling or a hypervisor may
 * run something else), as Linux's cpu_relax() on arm64. */
static inline void cpu_relax(void) { a64_yield(); }

/* DAIF.I, the IRQ mask (a64.h says why FIQ is left alone). */
static inline bool irq_enabled(void) { return !(a64_daif() & A64_DAIF_I); }
static inline bool irq_save(void)
{
	bool was_on = irq_enabled();
	a64_irq_mask();
	return was_on;
}
static inline void irq_restore(bool was_on)
{
	if (was_on)
		a64_irq_unmask();
}

/* DAIF all set, then WFI for ever. */
static inline void __attribute__((noreturn)) cpu_halt_forever(void) { a64_halt_forever(); }

/* RNDRRS (seed: reseeded from the entropy source first) or RNDR, only where
 * ID_AA64ISAR0_EL1.RNDR says FEAT_RNG; false without it, or when the
 * instruction returned no number (PSTATE.Z). */
static inline bool cpu_random64(bool seed, uint64_t *v)
{
	if (((a64_id_aa64isar0() >> 60) & 0xf) != 1)
		return false;
	return seed ? a64_rndrrs(v) : a64_rndr(v);
}

/* Three instructions an iteration (add, subs, b.ne), none of which any
 * hypervisor traps.  Static and never inlined: its caller times one call. */
static __attribute__((noinline, unused)) uint64_t cpu_ref_loop(uint32_t n)
{
	uint64_t acc = 1;
	__asm__ volatile("1:\n\tadd %[acc], %[acc], %[acc]\n\tsubs %w[n], %w[n], #1\n\tb.ne 1b"
			 : [acc] "+r"(acc), [n] "+r"(n)
			 :
			 : "cc");
	return acc;
}

/* arm64 has no SMIs (EL3 firmware is entered by SMC or a secure
 * interrupt, and nothing counts those for EL1): the vector of an
 * instruction that does not exist, as x86 answers where the MSR is
 * missing, and *count left alone. */
static inline int cpu_smi_count(uint64_t *count)
{
	(void)count;
	return FAULT_UD;
}

/* No CPUID: the hypervisor's identity is in SMCCC's vendor UID (smccc.c).
 * All four words 0, what x86 reads for an absent leaf. */
static inline void cpu_hv_leaf(uint32_t leaf, uint32_t r[4])
{
	(void)leaf;
	r[0] = r[1] = r[2] = r[3] = 0;
}

/* ---- the fault guard ---- */
/* arm64 has no fault guard yet: a started CPU runs on the boot CPU's VBAR
 * (UEFI's vectors), which cpus.c gives it.  Nothing to load, nothing to
 * put back. */
struct fault_cpu_saved {
	uint8_t unused;
};
static inline void fault_guard_enter_ap(struct fault_cpu_saved *s) { (void)s; }
static inline void fault_guard_leave_ap(const struct fault_cpu_saved *s) { (void)s; }

/* ---- exit yardsticks ---- */
/* Not on this arch (ARCH_HAS_YARDSTICKS 0): an HVC that always exits
 * exists only behind a conduit the FADT names (smccc.c), and there are no
 * ports.  Each returns 0 without touching anything; the arm64 probe runs
 * no baselines stage, so no figure is made of them. */
static const volatile uint16_t yardstick_unassigned_port = 0;
static inline uint64_t yardstick_trap(void) { return 0; }
static inline uint64_t yardstick_device_unassigned(void) { return 0; }
static inline uint64_t yardstick_device_kernel(void) { return 0; }

/* ---- the test harness ---- */
/* No exit device: never listening, and nothing to write. */
static inline bool harness_listening(bool in_vm)
{
	(void)in_vm;
	return false;
}
static inline void harness_exit(uint8_t code) { (void)code; }
#endif
