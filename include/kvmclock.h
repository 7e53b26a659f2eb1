#ifndef CP_KVMCLOCK_H
#define CP_KVMCLOCK_H
#include "measure.h"
#include "pvclock.h"

#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01u
#define MSR_KVM_SYSTEM_TIME 0x12u

/* What the kvm-clock source learned beyond its read cost, for the report's
 * top-level kvmclock object. */
struct kvmclock_facts {
	bool registered;
	uint32_t msr;
	struct op_cost msr_write; /* registering the page: a VM exit */
	struct op_cost msr_read;
	struct pvclock_time_info snapshot; /* fields after registration */
	bool stable;              /* flag set and CPUID bit 24 allows honouring it */
	uint64_t tsc_hz;          /* implied by mul/shift */
	uint32_t retries;         /* version changes seen while reading */
};

const struct kvmclock_facts *kvmclock_get_facts(void);
/* Registers a pvclock area for the calling CPU (used on APs for the
 * cross-CPU monotonicity test) and reads it; cpu_area points at 32 bytes
 * inside one page.  Returns false if the MSR write faulted. */
bool kvmclock_register_area(struct pvclock_time_info *cpu_area);
uint64_t kvmclock_read_area(const volatile struct pvclock_time_info *area);
void kvmclock_unregister_this_cpu(void);
/* MSR write/read costs, once the harness is known. */
void kvmclock_measure_msrs(const struct measure_plan *plan);
#endif
