/* Every clock source the probe knows, in report order. */
#include "source.h"

extern const struct clock_source source_tsc, source_rdtscp, source_hpet, source_acpi_pm,
	source_pit, source_kvmclock, source_hyperv_tsc_page, source_hyperv_msr, source_vmclock;

const struct clock_source *const clock_sources[SOURCE_ID_COUNT] = {
	[SOURCE_ID_TSC] = &source_tsc,
	[SOURCE_ID_RDTSCP] = &source_rdtscp,
	[SOURCE_ID_KVMCLOCK] = &source_kvmclock,
	[SOURCE_ID_HV_TSC_PAGE] = &source_hyperv_tsc_page,
	[SOURCE_ID_HV_MSR] = &source_hyperv_msr,
	[SOURCE_ID_HPET] = &source_hpet,
	[SOURCE_ID_ACPI_PM] = &source_acpi_pm,
	[SOURCE_ID_PIT] = &source_pit,
	[SOURCE_ID_VMCLOCK] = &source_vmclock,
};
const unsigned clock_source_count = ARRAY_SIZE(clock_sources);
