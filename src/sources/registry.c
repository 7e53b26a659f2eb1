/* Every clock source the probe knows, in report order. */
#include "source.h"

extern const struct clock_source source_tsc, source_rdtscp, source_hpet, source_acpi_pm,
	source_pit, source_kvmclock, source_hyperv_tsc_page, source_hyperv_msr;

/* tsc first: the engine takes its cost as the native yardstick. */
const struct clock_source *const clock_sources[] = {
	&source_tsc, &source_rdtscp, &source_kvmclock, &source_hyperv_tsc_page, &source_hyperv_msr,
	&source_hpet, &source_acpi_pm, &source_pit,
};
const unsigned clock_source_count = ARRAY_SIZE(clock_sources);
