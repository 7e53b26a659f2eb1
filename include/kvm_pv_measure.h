/* KVM clock pairing and steal time as the run measures them (hardware:
 * src/measure/kvm_pv.c; the arithmetic is include/kvm_pv.h's). */
#ifndef CP_KVM_PV_MEASURE_H
#define CP_KVM_PV_MEASURE_H
#include "kvm_pv.h"
#include "measure.h"

#define KVM_PAIRING_SAMPLES 16

struct kvm_pairing_result {
	bool attempted;           /* CPUID showed KVM: the hypercall was made */
	const char *reason;       /* why not, or why no figures; NULL when measured */
	const char *instruction;  /* "vmcall" | "vmmcall" */
	int fault;                /* vector the first hypercall raised, 0 when none */
	uint64_t first_ret;       /* its RAX */
	struct op_cost cost;      /* one hypercall, measured through the engine */
	uint64_t tsc_hz;          /* the rate the offsets are computed at */
	struct kvm_pairing_sample samples[KVM_PAIRING_SAMPLES];
	struct kvm_pairing_summary summary;
};

/* After the frequency stage: needs the measured TSC rate. */
void kvm_pairing_run(struct kvm_pairing_result *out, const struct probe_facts *f, const struct measure_plan *plan,
		     uint64_t tsc_hz);
/* Around the gap scan: registers the steal-time area (when CPUID allows
 * it) and reads it before the window; steal_end reads it after, hands the
 * area back and explains the scan's gaps with it. */
void kvm_steal_begin(const struct probe_facts *f);
void kvm_steal_end(struct kvm_steal_window *out, uint64_t gap_total_ns, uint64_t window_ns);
#endif
