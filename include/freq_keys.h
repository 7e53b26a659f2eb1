/* The TSC rates the probe knows, advertised and measured, as the report
 * names them (platform.tsc.freq_hz.*; src/analysis/freq_keys.c). */
#ifndef CP_FREQ_KEYS_H
#define CP_FREQ_KEYS_H

enum freq_key {
	FREQ_CPUID_15,
	FREQ_CPUID_16,
	FREQ_HYPERVISOR_LEAF,
	FREQ_PVCLOCK,
	FREQ_VMWARE_GETHZ,
	FREQ_HYPERV_MSR,
	FREQ_MEASURED_HPET,
	FREQ_MEASURED_ACPI_PM,
	FREQ_KEY_COUNT,
};

const char *freq_key_name(enum freq_key k);
#endif
