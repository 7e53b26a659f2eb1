/* x86's side of include/arch_api.h: each interface function is the
 * wrapper of include/x86.h it always was, inline, so a measured window
 * runs the instructions it ran before the seam (under -icount the figures
 * are instruction counts). */
#ifndef CP_ARCH_IMPL_H
#define CP_ARCH_IMPL_H
#include "x86.h"
#include "fault.h"
#include "fault_x86.h"
#include "ioports.h"
#include "arch_console.h"
#include "msr.h"

/* The wall clock the watch mode compares with (a report value). */
#define RTC_NAME "cmos_rtc"
#define HARNESS_EXIT_COMPLETE DEBUG_EXIT_REPORT_COMPLETE
#define HARNESS_EXIT_FAILED DEBUG_EXIT_PROBE_FAILED
/* The device access the kernel answers: the report names the port. */
#define YARDSTICK_KERNEL_PORT ELCR_PORT
/* cpu_ref_loop's instructions a turn: add, sub, jnz. */
#define CPU_REF_LOOP_INSNS 3

static inline uint64_t tb_now(void) { return rdtsc(); }
static inline __attribute__((always_inline)) uint64_t tb_ordered(enum tsc_read how) { return rdtsc_ordered_as(how); }

static inline __attribute__((always_inline)) uint64_t tb_stamp_begin(enum stamp_fence fence)
{
	return fence == STAMP_FENCE_MFENCE ? tsc_stamp_begin_mfence() : tsc_stamp_begin();
}

static inline __attribute__((always_inline)) uint64_t tb_stamp_end(bool waits, enum stamp_fence fence)
{
	bool mfence = fence == STAMP_FENCE_MFENCE;
	if (waits)
		return mfence ? tsc_stamp_end_rdtscp_mfence() : tsc_stamp_end_rdtscp();
	return mfence ? tsc_stamp_begin_mfence() : tsc_stamp_end_lfence();
}

static inline const char *tb_stamp_method(enum stamp_fence fence, bool waits)
{
	static const char *const methods[2][2] = {
		[STAMP_FENCE_LFENCE] = {
			"lfence;rdtsc;lfence | read | lfence;rdtsc;lfence (no RDTSCP on this CPU), "
			"minus the median of the interleaved empty-call window",
			"lfence;rdtsc;lfence | read | rdtscp;lfence (RDTSCP waits for the read to complete), "
			"minus the median of the interleaved empty-call window",
		},
		[STAMP_FENCE_MFENCE] = {
			"mfence;rdtsc;mfence | read | mfence;rdtsc;mfence (LFENCE not known to serialize, no RDTSCP), "
			"minus the median of the interleaved empty-call window",
			"mfence;rdtsc;mfence | read | rdtscp;mfence (LFENCE not known to serialize), "
			"minus the median of the interleaved empty-call window",
		},
	};
	return methods[fence][waits];
}

/* HV_X64_MSR_TSC_FREQUENCY, only with the privilege and feature bits
 * Linux requires (0x40000003 EAX[11] and EDX[8]); guarded anyway. */
static inline bool tb_hz_hypervisor_register(bool offered, uint64_t *hz)
{
	return offered && rdmsr_safe(HV_X64_MSR_TSC_FREQUENCY, hz) == FAULT_NONE;
}

static inline void __attribute__((noreturn)) cpu_halt_forever(void) { halt_forever(); __builtin_unreachable(); }

/* Only where CPUID says present (1.ECX[30], 7.0.EBX[18]). */
static inline bool cpu_random64(bool seed, uint64_t *v) { return seed ? rdseed64(v) : rdrand64(v); }

/* Three instructions an iteration (add, sub, jnz), none of which any
 * hypervisor intercepts: a hardware core runs one in about a cycle.
 * Static and never inlined, as it was beside its one caller: the caller
 * times one call of it, the same instructions on every build. */
static __attribute__((noinline, unused)) uint64_t cpu_ref_loop(uint32_t n)
{
	uint64_t acc = 1;
	__asm__ volatile("1:\n\taddq %[acc], %[acc]\n\tsubl $1, %[n]\n\tjnz 1b" : [acc] "+r"(acc), [n] "+r"(n));
	return acc;
}

/* Intel's MSR_SMI_COUNT: read-only, faults where the CPU has none. */
static inline int cpu_smi_count(uint64_t *count) { return rdmsr_safe(MSR_SMI_COUNT, count); }
static inline void cpu_hv_leaf(uint32_t leaf, uint32_t r[4]) { cpuid_raw(leaf, 0, r); }

/* An AP runs with the guard's IDT and leaves the one it found. */
struct fault_cpu_saved {
	struct descriptor_table_ptr idt;
};
static inline void fault_guard_enter_ap(struct fault_cpu_saved *s)
{
	sidt(&s->idt);
	fault_guard_load_on_this_cpu();
}
static inline void fault_guard_leave_ap(const struct fault_cpu_saved *s) { lidt(&s->idt); }

/* Read from memory into DX, as the kernel port (above 255) must be: both
 * port yardsticks run the same instructions around their IN. */
static const volatile uint16_t yardstick_unassigned_port = UNASSIGNED_PORT;
static inline uint64_t yardstick_trap(void)
{
	uint32_t r[4];
	cpuid_raw(0, 0, r);
	return r[0];
}
static inline uint64_t yardstick_device_unassigned(void) { return inb(yardstick_unassigned_port); }
static inline uint64_t yardstick_device_kernel(void) { return inb(YARDSTICK_KERNEL_PORT); }

/* isa-debug-exit answers 0x00 at its port; without it the bus floats to
 * 0xff.  Only asked inside a VM: on bare metal the port may be decoded by
 * something else, so the probe neither reads nor writes it there. */
static inline bool harness_listening(bool in_vm) { return in_vm && inb(DEBUG_EXIT_PORT) == 0x00; }
static inline void harness_exit(uint8_t code) { outb(DEBUG_EXIT_PORT, code); }
#endif
