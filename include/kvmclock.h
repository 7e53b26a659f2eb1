#ifndef CP_KVMCLOCK_H
#define CP_KVMCLOCK_H
#include "measure.h"
#include "pvclock.h"

#include "msr.h"

/* Registers a pvclock area for the calling CPU (used on APs for the
 * cross-CPU monotonicity test) and reads it; cpu_area points at 32 bytes
 * inside one page.  Returns false if the MSR write faulted. */
bool kvmclock_register_area(struct pvclock_time_info *cpu_area);
uint64_t kvmclock_read_area(const volatile struct pvclock_time_info *area);
void kvmclock_unregister_this_cpu(void);
/* MSR write/read costs, once the harness is known. */
void kvmclock_measure_msrs(const struct measure_ctx *ctx);
#endif
