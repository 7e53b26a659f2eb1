/* The frequency stage's decisions (src/analysis/freq_decide.c) on window
 * figures of the shape a q35 TCG boot recorded (platform.tsc.freq_windows
 * of a boot on 2026-12-01: HPET bound 4.6-4.8 ppm, PM timer 13.9-14.3,
 * PIT 39.3-39.4, rates near 2095.99 MHz). */
#include "check.h"
#include "freq.h"

static const bool no_backward[FREQ_REF_COUNT];

static void set_windows(struct freq_result *f, enum freq_ref i, const uint64_t *hz, const uint64_t *bound)
{
	for (int w = 0; w < FREQ_WINDOWS; w++) {
		f->refs[i].w[w].hz = hz[w];
		f->refs[i].w[w].bound_mppm = bound[w];
		f->refs[i].windows += hz[w] != 0;
	}
}

static void recorded_q35(struct freq_result *f)
{
	memset(f, 0, sizeof *f);
	static const uint64_t hpet[] = { 2095992000, 2095993000, 2095992700, 2095993000 };
	static const uint64_t hpet_b[] = { 4778, 4792, 4592, 4792 };
	static const uint64_t pm[] = { 2096000000, 2095995000, 2095997000, 2095994000 };
	static const uint64_t pm_b[] = { 14300, 14346, 13948, 14346 };
	static const uint64_t pit[] = { 2095988000, 2095996000, 2095992000, 2095996000 };
	static const uint64_t pit_b[] = { 39315, 39443, 39444, 39441 };
	set_windows(f, FREQ_REF_HPET, hpet, hpet_b);
	set_windows(f, FREQ_REF_ACPI_PM, pm, pm_b);
	set_windows(f, FREQ_REF_PIT, pit, pit_b);
	f->windows = FREQ_WINDOWS;
	/* As on bare metal (the crystals' tolerances apply); the hypervisor
	 * case, where the references are emulated, sets it. */
	f->shared_host_clock = false;
}

/* The PM timer's 100 ppm beats the HPET's 500 although the HPET's window
 * bound is three times smaller: the choice is by total uncertainty. */
TEST(freq_chosen_by_total_uncertainty)
{
	struct freq_result f;
	recorded_q35(&f);
	freq_decide(&f, no_backward, 2096000000, "rough");
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_ACPI_PM);
	CHECK_STR(f.chosen_name, "measured_vs_acpi_pm");
	/* best window 2 (13.948 ppm); spread (2096000000-2095994000)/2095994000
	 * = 2.863 ppm, half of it under the bound */
	CHECK_EQ_U64(f.refs[FREQ_REF_ACPI_PM].best, 2);
	CHECK_EQ_U64(f.measured_uncertainty_mppm[FREQ_MEASURED_ACPI_PM], 13948);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_ACPI_PM], 113948);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_HPET], 504592);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_PIT], 139315);
	/* 2095997000 +/- 13.948 ppm = 29234 Hz: to 1000 Hz */
	CHECK_EQ_U64(f.chosen_hz, 2095997000);
	CHECK_EQ_U64(f.hz[FREQ_MEASURED_PIT], 2095988000);
}

/* Under a hypervisor the pairs' combined uncertainty is the measured one
 * only (one host clock drives them), and agreement is said to be that. */
TEST(freq_shared_clock_pairs)
{
	struct freq_result f;
	recorded_q35(&f);
	f.shared_host_clock = true;
	freq_decide(&f, no_backward, 0, "rough");
	CHECK_EQ_U64(f.pair_count, 3);
	CHECK(!f.references_disagree);
	/* hpet vs acpi_pm: 4.592 + 13.948 = 18.54 -> 19 ppm, not 614 */
	CHECK_EQ_U64(f.pairs[0].combined_ppm, 19);
	CHECK(strstr(f.cross_decided_by, "one host clock") != NULL);
	recorded_q35(&f);
	f.shared_host_clock = false;
	freq_decide(&f, no_backward, 0, "rough");
	CHECK_EQ_U64(f.pairs[0].combined_ppm, 619); /* 504.592 + 113.948, up */
}

/* With nothing advertised, the TSC's rate is what the references measure:
 * only the references against the chosen one are independent figures. */
TEST(freq_drift_only_independent)
{
	struct freq_result f;
	recorded_q35(&f);
	freq_decide(&f, no_backward, 0, "rough");
	CHECK_EQ_U64(f.drift_count, 2);
	for (unsigned i = 0; i < f.drift_count; i++) {
		CHECK(f.drift[i].a != SOURCE_ID_TSC);
		CHECK(f.drift[i].b == SOURCE_ID_ACPI_PM);
	}
	/* An advertised rate adds the TSC at that rate against each. */
	recorded_q35(&f);
	f.hz[FREQ_PVCLOCK] = 2096000000;
	freq_decide(&f, no_backward, 0, "rough");
	CHECK_EQ_U64(f.drift_count, 5);
	CHECK_EQ_I64(f.drift[0].a, SOURCE_ID_TSC);
}

/* An advertised rate 700 ppm off: the disagreement's uncertainty is the
 * measurement's (14 ppm), the reference's 100 ppm beside it, so the
 * 500 ppm gate (|700| > 500 + 14) can fire. */
TEST(freq_disagreement_without_tolerance)
{
	struct freq_result f;
	recorded_q35(&f);
	f.hz[FREQ_PVCLOCK] = 2097464198; /* 2095997000 * 1.0007 */
	freq_decide(&f, no_backward, 0, "rough");
	CHECK(f.disagreement_known);
	CHECK_EQ_I64(f.disagreement_ppm, 700);
	CHECK_EQ_U64(f.disagreement_uncertainty_ppm, 14);
	CHECK_EQ_U64(f.disagreement_tolerance_ppm, 100);
	CHECK_STR(f.disagreement_between, "pvclock");
}

/* The PIT 1000 ppm off while HPET and PM timer agree: outvoted and
 * excluded; a reference that stepped backwards is never chosen. */
TEST(freq_outvoted_and_backward_excluded)
{
	struct freq_result f;
	recorded_q35(&f);
	for (int w = 0; w < FREQ_WINDOWS; w++)
		f.refs[FREQ_REF_PIT].w[w].hz += 2096000;
	freq_decide(&f, no_backward, 0, "rough");
	CHECK(f.references_disagree);
	CHECK(f.excluded_reason[FREQ_MEASURED_PIT] != NULL);
	CHECK(f.excluded_reason[FREQ_MEASURED_HPET] == NULL);
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_ACPI_PM);
	recorded_q35(&f);
	bool back[FREQ_REF_COUNT] = { [FREQ_REF_ACPI_PM] = true };
	freq_decide(&f, back, 0, "rough");
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_PIT);
}

/* Windows that scatter more than their bounds: half the spread is the
 * measured uncertainty; nothing measured falls back to the rough rate. */
TEST(freq_spread_and_fallback)
{
	struct freq_result f;
	memset(&f, 0, sizeof f);
	static const uint64_t hz[] = { 2000000000, 2000200000, 2000100000, 0 };
	static const uint64_t b[] = { 5000, 5000, 4000, 0 };
	set_windows(&f, FREQ_REF_PIT, hz, b);
	freq_decide(&f, no_backward, 0, "rough");
	/* spread 200000 / 2000000000 = 100 ppm; half 50 > 4 */
	CHECK_EQ_U64(f.refs[FREQ_REF_PIT].spread_mppm, 100000);
	CHECK_EQ_U64(f.measured_uncertainty_mppm[FREQ_MEASURED_PIT], 50000);
	CHECK_EQ_U64(f.refs[FREQ_REF_PIT].best, 2);
	memset(&f, 0, sizeof f);
	freq_decide(&f, no_backward, 2100000000, "10 ms against the PIT");
	CHECK_EQ_I64(f.chosen_key, -1);
	CHECK_EQ_U64(f.chosen_hz, 2100000000);
	CHECK_STR(f.chosen_name, "10 ms against the PIT");
}

/* A garbage advertised rate (a hypervisor leaf saying 1 kHz) stays what a
 * guest would believe but is never chosen nor trusted to settle a
 * disagreement; with nothing measured, the next plausible claim is used. */
TEST(freq_implausible_claim_never_chosen)
{
	struct freq_result f;
	recorded_q35(&f);
	f.hz[FREQ_HYPERVISOR_LEAF] = 1000;
	freq_decide(&f, no_backward, 0, "rough");
	CHECK(f.implausible_mask & (1u << FREQ_HYPERVISOR_LEAF));
	CHECK(f.excluded_reason[FREQ_HYPERVISOR_LEAF] != NULL);
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_ACPI_PM);
	CHECK_EQ_U64(f.believed_hz, 1000);
	memset(&f, 0, sizeof f);
	f.hz[FREQ_HYPERVISOR_LEAF] = 1000;
	f.hz[FREQ_CPUID_15] = 2100000000;
	freq_decide(&f, no_backward, 2000000000, "rough");
	CHECK_STR(f.chosen_name, freq_key_name(FREQ_CPUID_15));
	CHECK_EQ_U64(f.chosen_hz, 2100000000);
	memset(&f, 0, sizeof f);
	f.hz[FREQ_HYPERVISOR_LEAF] = 20000000000ull;
	freq_decide(&f, no_backward, 2000000000, "rough");
	CHECK_STR(f.chosen_name, "rough");
}

/* Under a hypervisor the references are emulated and count the host's
 * clock: no crystal tolerance is added (the host clock's error is
 * unknown), so the rate rests on the measured uncertainty alone and the
 * finest window (the HPET's, 4.592 ppm) is chosen. */
TEST(freq_emulated_references_carry_no_crystal_tolerance)
{
	struct freq_result f;
	recorded_q35(&f);
	f.shared_host_clock = true;
	freq_decide(&f, no_backward, 2096000000, "rough");
	CHECK_EQ_U64(f.tolerance_ppm[FREQ_MEASURED_HPET], 0);
	CHECK_EQ_U64(f.tolerance_ppm[FREQ_MEASURED_ACPI_PM], 0);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_ACPI_PM], 13948);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_HPET], 4592);
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_HPET);
	/* Bare metal keeps the crystal figures. */
	recorded_q35(&f);
	freq_decide(&f, no_backward, 2096000000, "rough");
	CHECK_EQ_U64(f.tolerance_ppm[FREQ_MEASURED_HPET], 500);
	CHECK_EQ_U64(f.uncertainty_mppm[FREQ_MEASURED_HPET], 504592);
	CHECK_EQ_I64(f.chosen_key, FREQ_MEASURED_ACPI_PM);
}
