/* TSC frequency: every advertised value next to values measured against
 * the HPET and the PM timer over one window, the one chosen for cycles->ns,
 * and drift between every pair of sources over that same window. */
#ifndef CP_FREQ_H
#define CP_FREQ_H
#include "measure.h"

#define FREQ_MAX_DRIFT 6

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

struct freq_drift {
	const char *a, *b;
	int64_t ppm_milli;   /* (rate of a measured in b's time - 1) * 1e6 * 1000 */
	uint64_t window_ms;
};

struct freq_result {
	uint64_t hz[FREQ_KEY_COUNT];              /* 0 = not available */
	uint64_t uncertainty_mppm[FREQ_KEY_COUNT]; /* measured keys only */
	const char *chosen_name;
	uint64_t chosen_hz;
	bool disagreement_known;
	int64_t disagreement_ppm;   /* best advertised vs chosen measurement */
	const char *disagreement_between;
	uint64_t window_ms;
	bool measured;
	struct freq_drift drift[FREQ_MAX_DRIFT];
	unsigned drift_count;
};

const char *freq_key_name(enum freq_key k);

struct run_results;
/* Fills advertised values and, with window_ms > 0, measures against
 * whichever of hpet/acpi_pm measured ok (their sources are prepared). */
void freq_measure(struct freq_result *out, struct run_results *r, uint32_t window_ms);
#endif
