/* The registry: every clock source the probe knows, in report order.
 * Adding a source is a line in CLOCK_SOURCES (src/arch/x86/sources/registry.c
 * builds clock_sources[] from it) and its own files: src/arch/x86/sources/<name>.c
 * for the hardware, and, for a source that learns more than its read cost,
 * include/<name>.h with its facts type (a member of union source_facts
 * below) and src/arch/x86/sources/<name>_facts.c with their JSON and verdict input. */
#ifndef CP_SOURCE_REGISTRY_H
#define CP_SOURCE_REGISTRY_H
#include "acpi_pm.h"
#include "hpet.h"
#include "hyperv_tsc_page.h"
#include "kvmclock.h"
#include "vmclock.h"

/* X(ID, name): SOURCE_ID_<ID> in enum source_id; struct clock_source
 * source_<name> in src/arch/x86/sources/<name>.c. */
#define CLOCK_SOURCES(X)                 \
	X(TSC, tsc)                      \
	X(RDTSCP, rdtscp)                \
	X(KVMCLOCK, kvmclock)            \
	X(HV_TSC_PAGE, hyperv_tsc_page)  \
	X(HV_MSR, hyperv_msr)            \
	X(HPET, hpet)                    \
	X(ACPI_PM, acpi_pm)              \
	X(PIT, pit)                      \
	X(VMCLOCK, vmclock)

/* The run's results and the registry are indexed by it. */
enum source_id {
#define SOURCE_ID_ENTRY(id, name) SOURCE_ID_##id,
	CLOCK_SOURCES(SOURCE_ID_ENTRY)
#undef SOURCE_ID_ENTRY
	SOURCE_ID_COUNT,
};

/* What a source learned beyond its read cost: its own member, filled by
 * its collect hook, read by its own _facts.c (and by the stages that need
 * it: the frequency window takes kvm-clock's pvclock rate). */
union source_facts {
	struct kvmclock_facts kvmclock;
	struct hv_tsc_page_facts hv_tsc_page;
	struct hpet_facts hpet;
	struct acpi_pm_facts acpi_pm;
	struct vmclock_facts vmclock;
};

struct clock_source;
extern const struct clock_source *const clock_sources[SOURCE_ID_COUNT];
extern const unsigned clock_source_count;
#endif
