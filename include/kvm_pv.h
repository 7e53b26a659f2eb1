/* KVM's clock pairing hypercall and steal-time area, the pure half:
 * layouts, result codes, and the arithmetic over recorded values.  The
 * hardware half (src/arch/x86/measure/kvm_pv.c) runs them only where CPUID shows
 * KVM and the features; neither exists under TCG.
 *
 * Sources: Linux Documentation/virt/kvm/x86/hypercalls.rst
 * (KVM_HC_CLOCK_PAIRING), arch/x86/include/uapi/asm/kvm_para.h
 * (struct kvm_clock_pairing, struct kvm_steal_time, MSR_KVM_STEAL_TIME,
 * KVM_FEATURE_STEAL_TIME), include/uapi/linux/kvm_para.h (KVM_E* codes),
 * arch/x86/kvm/x86.c kvm_pv_clock_pairing() and record_steal_time(). */
#ifndef CP_KVM_PV_H
#define CP_KVM_PV_H
#include "util.h"

#define KVM_HC_CLOCK_PAIRING 9
#define KVM_CLOCK_PAIRING_WALLCLOCK 0
#define MSR_KVM_STEAL_TIME 0x4b564d03u
#define KVM_MSR_ENABLED 1ull

/* include/uapi/linux/kvm_para.h: the hypercall returns -code in RAX. */
#define KVM_ENOSYS 1000
#define KVM_EFAULT 14
#define KVM_EINVAL 22
#define KVM_E2BIG 7
#define KVM_EPERM 1
#define KVM_EOPNOTSUPP 95

struct kvm_clock_pairing {
	int64_t sec;
	int64_t nsec;
	uint64_t tsc;
	uint32_t flags;
	uint32_t pad[9];
} __attribute__((packed));

struct kvm_steal_time {
	uint64_t steal;      /* ns the vCPU was runnable but not running */
	uint32_t version;    /* odd while the host updates */
	uint32_t flags;
	uint8_t preempted;
	uint8_t u8_pad[3];
	uint32_t pad[11];
} __attribute__((packed));

/* "ok", "enosys" (no such hypercall), "eopnotsupp" (host clocksource not
 * TSC-based, or an unknown clock type), "efault" (bad address), "eperm"
 * (not from CPL 0), "einval", "e2big", else "unknown". */
const char *kvm_hc_result_name(uint64_t rax);

/* One pairing: the hypercall's result, the host's CLOCK_REALTIME and the
 * guest TSC at the same instant. */
struct kvm_pairing_sample {
	uint64_t ret;
	int64_t sec, nsec;
	uint64_t tsc;
};

/* The host-guest relation over a run of pairings, at the guest TSC rate
 * this run measured: offset = host realtime ns - TSC ns (TSC / rate). */
struct kvm_pairing_summary {
	uint32_t samples, ok;
	uint64_t last_error;        /* the last non-zero result, 0 when none */
	int64_t first_offset_ns;    /* host realtime minus TSC time, first ok pairing */
	int64_t offset_min_ns, offset_max_ns;
	uint64_t span_ns;           /* host time from first to last ok pairing */
	bool drift_valid;           /* two ok pairings at least 1 ms apart */
	int64_t drift_ppb;          /* (offset change) / span: the host clock against the TSC at the measured rate */
};

void kvm_pairing_summarize(struct kvm_pairing_summary *out, const struct kvm_pairing_sample *s, uint32_t n,
			   uint64_t tsc_hz);

/* A consistent read of the steal counter (version even and unchanged),
 * at most max_tries attempts; false when it never settled. */
bool kvm_steal_read(const volatile struct kvm_steal_time *st, uint64_t *steal, uint32_t max_tries);

/* What steal time says about a gap window. */
struct kvm_steal_window {
	bool attempted;             /* CPUID allowed it and the area was registered */
	const char *reason;         /* why not, or what failed (NULL when measured) */
	bool measured;
	uint64_t steal_ns;          /* steal over the window */
	uint64_t gap_total_ns;      /* the gap scan's total over the same window */
	uint64_t explained_ppm;     /* steal / gap total (may exceed 10^6: steal the scan saw as no gap) */
	uint64_t window_share_ppm;  /* steal / window */
	uint32_t version_start, version_end;
	uint8_t preempted_end;
};

/* Fills the figures from the two steal readings and the scan's totals. */
void kvm_steal_explain(struct kvm_steal_window *w, uint64_t steal_before, uint64_t steal_after,
		       uint64_t gap_total_ns, uint64_t window_ns);
#endif
