/* Paravirtual clock arithmetic: KVM/Xen pvclock (Linux
 * Documentation/virt/kvm/x86/msr.rst, struct pvclock_vcpu_time_info) and
 * the Hyper-V reference TSC page (Hyper-V TLFS, "Reference TSC page").  Only the math
 * and the layouts live here; reading the shared pages (volatile loads,
 * version retries, ordered RDTSC) is the engine's job. */
#ifndef CP_PVCLOCK_H
#define CP_PVCLOCK_H
#include "util.h"

/* Linux's pvclock_vcpu_time_info / Xen's vcpu_time_info: 32 bytes, no
 * padding in the natural layout, so no packed attribute is needed. */
struct pvclock_time_info {
	uint32_t version;	/* odd: the hypervisor is mid-update */
	uint32_t pad0;
	uint64_t tsc_timestamp;	/* guest TSC at the last update */
	uint64_t system_time;	/* ns at tsc_timestamp */
	uint32_t tsc_to_system_mul; /* 32.32 fixed point, ns per shifted tick */
	int8_t tsc_shift;	/* applied to the TSC delta before the multiply */
	uint8_t flags;
	uint8_t pad[2];
};

_Static_assert(sizeof(struct pvclock_time_info) == 32, "pvclock ABI size");
_Static_assert(offsetof(struct pvclock_time_info, version) == 0, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_time_info, tsc_timestamp) == 8, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_time_info, system_time) == 16, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_time_info, tsc_to_system_mul) == 24, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_time_info, tsc_shift) == 28, "pvclock ABI");
_Static_assert(offsetof(struct pvclock_time_info, flags) == 29, "pvclock ABI");

#define PVCLOCK_TSC_STABLE_BIT   (1u << 0)
#define PVCLOCK_GUEST_STOPPED    (1u << 1)
#define PVCLOCK_COUNTS_FROM_ZERO (1u << 2)

/* A snapshot taken between two version reads is usable only when both
 * reads agree and neither caught an update in progress (odd). */
bool pvclock_version_consistent(uint32_t v1, uint32_t v2);

/* Linux pvclock_scale_delta: shift first (right for negative shift), then
 * keep bits 32..95 of the 64x32-bit product, computed in 128 bits so a
 * product beyond 2^64 is exact.  A left shift drops the bits it pushes out,
 * as in Linux; a shift of 64 or more in either direction yields 0 (the
 * hypervisor never sends one; this keeps C's shift rules out of UB). */
uint64_t pvclock_scale_delta(uint64_t delta, uint32_t mul, int8_t shift);

/* system_time + scaled (tsc - tsc_timestamp), all modulo 2^64 exactly as a
 * guest computes it.  A tsc older than tsc_timestamp (a read from another
 * vCPU's struct) wraps to a huge delta, as it does in Linux. */
uint64_t pvclock_ns_at(const struct pvclock_time_info *info, uint64_t tsc);

/* TSC rate implied by mul/shift, in Hz: Linux's pvclock_tsc_khz formula
 * with 10^9 in place of 10^6 and in the same order: (10^9 << 32) / mul,
 * truncated, then shifted left by -shift or right by shift.  The shift is
 * done in 128 bits and saturates at UINT64_MAX.  0 when mul is 0. */
uint64_t pvclock_tsc_hz(uint32_t mul, int8_t shift);
/* Linux's own pvclock_tsc_khz, bit for bit: the value a kvmclock guest
 * installs as tsc_khz (truncated, so slightly below the Hz figure / 1000). */
uint64_t pvclock_tsc_khz_linux(uint32_t mul, int8_t shift);

/* Linux's unstable path (arch/x86/kernel/pvclock.c __pvclock_clocksource_read):
 * when the stable bit is clear, every read goes through one global
 * last_value: a reading at or below it returns it, else a compare-and-swap
 * publishes the new one (retried while another CPU moved it).  Returns
 * what the guest's clock read returns.  Atomic, so it is the real cost. */
uint64_t pvclock_monotonic(uint64_t *last_value, uint64_t ns);

/* Hyper-V reference TSC page (first 24 bytes of the 4 KiB page). */
struct hv_ref_tsc_page {
	uint32_t tsc_sequence;	/* 0: page invalid, use MSR 0x40000020 */
	uint32_t reserved;
	uint64_t tsc_scale;
	int64_t tsc_offset;
};

_Static_assert(offsetof(struct hv_ref_tsc_page, tsc_scale) == 8, "TLFS layout");
_Static_assert(offsetof(struct hv_ref_tsc_page, tsc_offset) == 16, "TLFS layout");

/* Reference time in 100 ns units: high 64 bits of the 128-bit product
 * tsc * scale, plus the signed offset (modulo 2^64). */
uint64_t hv_ref_time(uint64_t tsc, uint64_t scale, int64_t offset);

/* The TSC rate the page encodes: reference time runs at 10^7 per second,
 * so tsc_hz = 10^7 * 2^64 / scale, rounded to nearest.  0 when scale is 0. */
uint64_t hv_tsc_hz_from_scale(uint64_t scale);
/* Hyper-V's reference time counts 100 ns units (TLFS). */
#define HV_REFERENCE_HZ 10000000
#endif
