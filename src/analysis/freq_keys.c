/* The report's names for each TSC-rate key (platform.tsc.freq_hz.*). */
#include "freq_keys.h"

static const char *const key_names[FREQ_KEY_COUNT] = {
	[FREQ_CPUID_15] = "cpuid_15",
	[FREQ_CPUID_16] = "cpuid_16",
	[FREQ_HYPERVISOR_LEAF] = "hypervisor_leaf",
	[FREQ_PVCLOCK] = "pvclock",
	[FREQ_VMWARE_GETHZ] = "vmware_gethz",
	[FREQ_HYPERV_MSR] = "hyperv_msr",
	[FREQ_MEASURED_HPET] = "measured_vs_hpet",
	[FREQ_MEASURED_ACPI_PM] = "measured_vs_acpi_pm",
};

const char *freq_key_name(enum freq_key k) { return key_names[k]; }
