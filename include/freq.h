/* TSC frequency: every advertised value next to values measured against
 * the HPET and the PM timer over one window, the one chosen for cycles->ns,
 * and drift between every pair of sources over that same window. */
#ifndef CP_FREQ_H
#define CP_FREQ_H
#include "freq_keys.h"
#include "measure.h"
#include "source.h"

#define FREQ_MAX_DRIFT 6

struct freq_drift {
	enum source_id a, b;
	const char *basis;   /* the TSC rate used when a or b is the TSC */
	int64_t ppm_milli;   /* (rate of a measured in b's time - 1) * 1e6 * 1000 */
	uint64_t uncertainty_mppm; /* the windows' own uncertainty (not the references' tolerance) */
	uint64_t window_ms;
};

struct freq_result {
	uint64_t hz[FREQ_KEY_COUNT];              /* 0 = not available */
	uint64_t uncertainty_mppm[FREQ_KEY_COUNT]; /* measured keys only */
	const char *chosen_name;
	uint64_t chosen_hz;
	/* The advertised rate a guest kernel would take (freq_claims order). */
	int believed_key;            /* enum freq_key, -1 when nothing is advertised */
	uint64_t believed_hz;
	bool disagreement_known;
	int64_t disagreement_ppm;   /* best advertised vs chosen measurement */
	const char *disagreement_between;
	uint64_t disagreement_uncertainty_ppm; /* of the measurement it used */
	uint64_t window_ms;
	bool measured;
	struct freq_drift drift[FREQ_MAX_DRIFT];
	unsigned drift_count;
	/* The references' own stated tolerance, included in uncertainty_mppm. */
	uint64_t tolerance_ppm[FREQ_KEY_COUNT];
	/* HPET against PM timer before either is chosen. */
	bool cross_checked;
	int64_t cross_ppm;              /* rate vs HPET over rate vs PM timer, - 1 */
	uint64_t cross_combined_ppm;    /* the two uncertainties added */
	bool references_disagree;
	const char *cross_decided_by;   /* how the choice was made */
	const char *excluded_reason[FREQ_KEY_COUNT]; /* a measured key not chosen, why */
	/* Keys whose rate is outside rate_tsc_hz_plausible (100 MHz..10 GHz):
	 * never chosen, never the advertised rate the cross-check trusts. */
	uint32_t implausible_mask;
};

/* Stated tolerances of the references (IA-PC HPET specification 1.0a,
 * section 2.2: the period is accurate to +/-0.05 % over any interval of
 * 1 ms or more; the ACPI specification states no tolerance for the PM
 * timer, whose 3.579545 MHz divides the PC's 14.31818 MHz crystal: the
 * 100 ppm used here is a common crystal rating, this project's choice). */
#define FREQ_HPET_TOLERANCE_PPM 500
#define FREQ_ACPI_PM_TOLERANCE_PPM 100

/* Advertised TSC rates in the order Linux's platform code takes them:
 * kvmclock's pvclock, Hyper-V's frequency MSR, VMware's GETHZ (each via
 * x86_platform.calibrate_tsc), the 0x40000010 leaf (ACRN), then CPUID
 * 0x15 (native_calibrate_tsc, Intel).  0x16 is a nominal core rate, not a
 * TSC rate, and never counts as a claim. */
extern const enum freq_key freq_claims[];
extern const unsigned freq_claim_count;

struct run_results;
/* Fills advertised values and, with window_ms > 0, measures against
 * whichever of hpet/acpi_pm measured ok (their sources are prepared),
 * stamping them through the engine's context. */
void freq_measure(struct freq_result *out, struct run_results *r, const struct measure_ctx *ctx, uint32_t window_ms);
#endif
