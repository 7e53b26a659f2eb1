/* TSC frequency: every advertised value next to values measured against
 * the HPET, the PM timer and the PIT, each over several windows; the one
 * with the lowest total uncertainty converts cycles to ns; drift between
 * the sources over those windows. */
#ifndef CP_FREQ_H
#define CP_FREQ_H
#include "freq_keys.h"
#include "measure.h"
#include "source.h"

#define FREQ_MAX_DRIFT 6
/* The stage's window is cut into this many: the best one is kept, as
 * Linux keeps the best of its calibration tries (tsc.c
 * pit_hpet_ptimer_calibrate_cpu()), and their spread is reported. */
#define FREQ_WINDOWS 4
#define FREQ_WINDOW_MIN_MS 5

/* The references, in the order the report lists them. */
enum freq_ref { FREQ_REF_HPET, FREQ_REF_ACPI_PM, FREQ_REF_PIT, FREQ_REF_COUNT };

struct freq_drift {
	enum source_id a, b;
	const char *basis;   /* the TSC rate used when a or b is the TSC */
	int64_t ppm_milli;   /* (rate of a measured in b's time - 1) * 1e6 * 1000 */
	uint64_t uncertainty_mppm; /* the windows' own uncertainty (not the references' tolerance) */
	uint64_t window_ms;
};

/* One reference over the stage's windows. */
struct freq_window {
	uint64_t hz;          /* the TSC rate this window measured, 0 = none */
	uint64_t bound_mppm;  /* its worst-case bound: two reference ticks and two reads over the window */
	/* Not used: two reads of the reference this far apart (us), more than
	 * 3/4 of its wrap_us, so a wrap between them may be uncounted (a vCPU
	 * descheduled past the PIT's 55 ms); 0 = every gap was short. */
	uint64_t unseen_gap_us, wrap_us;
};
struct freq_ref_result {
	uint32_t windows;     /* windows that measured */
	struct freq_window w[FREQ_WINDOWS];
	uint32_t best;        /* the window with the smallest bound */
	uint64_t spread_mppm; /* highest minus lowest window rate, relative */
};

/* Two references compared (every measured pair). */
struct freq_pair {
	enum freq_key a, b;
	int64_t ppm;              /* rate vs a over rate vs b, - 1 */
	uint64_t combined_ppm;    /* the two uncertainties added (measured only when the clock is shared) */
	bool agree;
};

struct freq_result {
	uint64_t hz[FREQ_KEY_COUNT];              /* 0 = not available */
	/* Measured keys: the measured uncertainty plus the reference's stated
	 * tolerance (the report's freq_uncertainty_ppm) and without it. */
	uint64_t uncertainty_mppm[FREQ_KEY_COUNT];
	uint64_t measured_uncertainty_mppm[FREQ_KEY_COUNT];
	const char *chosen_name;
	uint64_t chosen_hz;
	int chosen_key;              /* enum freq_key of a measured choice, -1 otherwise */
	/* The advertised rate a guest kernel would take (freq_claims order). */
	int believed_key;            /* enum freq_key, -1 when nothing is advertised */
	uint64_t believed_hz;
	bool disagreement_known;
	int64_t disagreement_ppm;   /* best advertised vs chosen measurement */
	const char *disagreement_between;
	uint64_t disagreement_uncertainty_ppm; /* of the measurement it used, its tolerance not included */
	uint64_t disagreement_tolerance_ppm;   /* that reference's stated tolerance, reported beside */
	uint64_t window_ms;          /* the whole stage's window */
	uint64_t window_each_ms;     /* each of its windows */
	uint32_t windows;
	bool measured;
	struct freq_ref_result refs[FREQ_REF_COUNT];
	struct freq_drift drift[FREQ_MAX_DRIFT];
	unsigned drift_count;
	/* The references' own stated tolerance, included in uncertainty_mppm. */
	uint64_t tolerance_ppm[FREQ_KEY_COUNT];
	/* Under a hypervisor every emulated timer is driven by one host clock:
	 * their agreement is by construction, not a cross-check. */
	bool shared_host_clock;
	/* The references against each other before one is chosen. */
	bool cross_checked;
	int64_t cross_ppm;              /* HPET vs PM timer, when both measured */
	uint64_t cross_combined_ppm;
	bool references_disagree;
	const char *cross_decided_by;   /* how the choice was made */
	struct freq_pair pairs[3];
	unsigned pair_count;
	const char *excluded_reason[FREQ_KEY_COUNT]; /* a measured key not chosen, why */
	uint32_t stamp_tries;           /* bracketed reference reads taken */
	/* Keys whose rate is outside rate_tsc_hz_plausible (100 MHz..10 GHz):
	 * never chosen, never the advertised rate the cross-check trusts. */
	uint32_t implausible_mask;
};

/* Stated tolerances of the references (IA-PC HPET specification 1.0a,
 * section 2.2: the period is accurate to +/-0.05 % over any interval of
 * 1 ms or more; the ACPI specification states no tolerance for the PM
 * timer, whose 3.579545 MHz divides the PC's 14.31818 MHz crystal by 4,
 * nor does the 8254's datasheet for the PIT's 1.193182 MHz (the same
 * crystal by 12): the 100 ppm used for both is a common crystal rating,
 * this project's choice).  Reported beside the measured uncertainty and
 * in the choice of a reference, never added into a warning's gate. */
#define FREQ_HPET_TOLERANCE_PPM 500
#define FREQ_ACPI_PM_TOLERANCE_PPM 100
#define FREQ_PIT_TOLERANCE_PPM 100

/* Advertised TSC rates in the order Linux's platform code takes them:
 * kvmclock's pvclock, Hyper-V's frequency MSR, VMware's GETHZ (each via
 * x86_platform.calibrate_tsc), the 0x40000010 leaf (ACRN), then CPUID
 * 0x15 (native_calibrate_tsc, Intel).  0x16 is a nominal core rate, not a
 * TSC rate, and never counts as a claim. */
extern const enum freq_key freq_claims[];
extern const unsigned freq_claim_count;

struct run_results;
/* Fills advertised values and, with window_ms > 0, measures against
 * whichever of hpet/acpi_pm/pit measured ok (their sources are prepared),
 * stamping them through the engine's context. */
void freq_measure(struct freq_result *out, struct run_results *r, const struct measure_ctx *ctx, uint32_t window_ms);
/* Pure (src/analysis/freq_decide.c): from the windows in out->refs,
 * the advertised out->hz[], out->shared_host_clock: each reference's rate
 * and uncertainty, the cross-check, the choice, the disagreement and the
 * drift figures.  backward[i]: reference i stepped backwards. */
void freq_decide(struct freq_result *out, const bool backward[FREQ_REF_COUNT], uint64_t rough_hz,
		 const char *rough_source);
/* The report's key for a reference. */
enum freq_key freq_ref_key(enum freq_ref i);
#endif
