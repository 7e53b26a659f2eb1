/* kvm-clock (src/arch/x86/sources/kvmclock.c, the hardware; kvmclock_facts.c, what
 * it learned as JSON and as the verdict's input, pure): its facts, and the
 * pvclock area the cross-CPU test registers on every CPU. */
#ifndef CP_KVMCLOCK_H
#define CP_KVMCLOCK_H
#include "measure.h"
#include "pvclock.h"

struct kvmclock_facts {
	bool registered;
	uint32_t msr;
	/* Re-registering the page: a WRMSR exit after which KVM updates the
	 * clock (KVM_REQ_CLOCK_UPDATE; under the master clock, every vCPU's):
	 * its whole cost, not an MSR-exit yardstick. */
	struct op_cost msr_write;
	/* The read with Linux's global last_value cmpxchg, measured when the
	 * stable bit is clear (what a guest then pays on every read). */
	bool unstable_measured;
	struct op_cost unstable_read;
	struct op_cost msr_read;
	struct pvclock_time_info snapshot; /* fields after registration */
	bool stable;              /* flag set and CPUID bit 24 allows honouring it */
	uint64_t tsc_hz;          /* implied by mul/shift */
	uint32_t retries;         /* version changes seen while reading */
};

/* Registers a pvclock area for the calling CPU (used on APs for the
 * cross-CPU monotonicity test) and reads it; cpu_area points at 32 bytes
 * inside one page.  Returns false if the MSR write faulted. */
bool kvmclock_register_area(struct pvclock_time_info *cpu_area);
/* ... with the calling CPU's ordered TSC read (tsc_order.h). */
uint64_t kvmclock_read_area_as(const volatile struct pvclock_time_info *area, enum tsc_read how);
void kvmclock_unregister_this_cpu(void);

struct json;
union source_facts;
struct source_result;
struct verdict_input;
/* kvmclock_facts.c: the source's own members in its sources[] entry, the
 * report's "kvmclock" section (in every report, null figures when it was
 * never registered), and the pvclock stable flag for the verdict. */
void kvmclock_report_extra(struct json *j, const union source_facts *f);
void kvmclock_report_section(struct json *j, const union source_facts *f, uint64_t tsc_hz);
void kvmclock_verdict_facts(struct verdict_input *in, const struct source_result *s);
#endif
