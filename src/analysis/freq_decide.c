/* The frequency stage's decisions, from what its windows measured (pure:
 * src/measure/freq.c measures, this decides; host-tested).  Each
 * reference keeps its best window (the smallest bound, as Linux keeps the
 * best of its calibration tries), its measured uncertainty is that bound
 * or half the spread between its windows if larger, and the reference
 * used for cycles -> ns is the one with the lowest total uncertainty
 * (measured plus the stated tolerance): the PM timer's 100 ppm beats the
 * HPET's 500 ppm, not the HPET's finer tick. */
#include "freq.h"
#include "rate.h"

static const enum freq_key ref_keys[FREQ_REF_COUNT] = {
	FREQ_MEASURED_HPET, FREQ_MEASURED_ACPI_PM, FREQ_MEASURED_PIT,
};
static const uint64_t ref_tolerance_ppm[FREQ_REF_COUNT] = {
	FREQ_HPET_TOLERANCE_PPM, FREQ_ACPI_PM_TOLERANCE_PPM, FREQ_PIT_TOLERANCE_PPM,
};
static const enum source_id ref_sources[FREQ_REF_COUNT] = {
	SOURCE_ID_HPET, SOURCE_ID_ACPI_PM, SOURCE_ID_PIT,
};

enum freq_key freq_ref_key(enum freq_ref i) { return ref_keys[i]; }

const enum freq_key freq_claims[] = {
	FREQ_PVCLOCK, FREQ_HYPERV_MSR, FREQ_VMWARE_GETHZ, FREQ_HYPERVISOR_LEAF, FREQ_CPUID_15,
};
const unsigned freq_claim_count = ARRAY_SIZE(freq_claims);

static uint64_t abs_i64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }
static uint64_t ppm_up(uint64_t mppm) { return (mppm + 999) / 1000; }

/* Best window, spread, measured uncertainty, the rounded rate. */
static void settle_ref(struct freq_result *out, enum freq_ref i)
{
	struct freq_ref_result *f = &out->refs[i];
	enum freq_key k = ref_keys[i];
	uint64_t lo = UINT64_MAX, hi = 0;
	bool any = false;
	for (uint32_t w = 0; w < FREQ_WINDOWS; w++) {
		if (!f->w[w].hz)
			continue;
		if (!any || f->w[w].bound_mppm < f->w[f->best].bound_mppm)
			f->best = w;
		any = true;
		lo = MIN(lo, f->w[w].hz);
		hi = MAX(hi, f->w[w].hz);
	}
	if (!any)
		return;
	uint64_t best_hz = f->w[f->best].hz;
	int64_t spread = 0;
	rate_ppm_diff_milli(hi, lo, &spread);
	f->spread_mppm = (uint64_t)spread;
	uint64_t measured = MAX(f->w[f->best].bound_mppm, f->spread_mppm / 2);
	out->measured_uncertainty_mppm[k] = measured;
	/* A crystal's tolerance is a fact about hardware.  Under a hypervisor
	 * the device is emulated and counts the host's clock (NTP-slewed, of
	 * unknown error): the rate carries the measured uncertainty alone, and
	 * the host clock's error is said to be unknown, not a crystal figure. */
	out->tolerance_ppm[k] = out->shared_host_clock ? 0 : ref_tolerance_ppm[i];
	out->uncertainty_mppm[k] = measured + out->tolerance_ppm[k] * 1000;
	out->hz[k] = rate_round_to_uncertainty(best_hz, measured);
	out->measured = true;
}

static uint64_t total_mppm(const struct freq_result *out, enum freq_key k) { return out->uncertainty_mppm[k]; }

/* Every measured pair compared; one that disagrees with both others while
 * those agree, or (two only, or no majority) the one farther from the
 * advertised rate, is excluded; otherwise all are kept and said to
 * disagree. */
static void cross_check(struct freq_result *out, uint64_t claim_hz)
{
	out->pair_count = 0;
	for (int a = 0; a < FREQ_REF_COUNT; a++)
		for (int b = a + 1; b < FREQ_REF_COUNT; b++) {
			enum freq_key ka = ref_keys[a], kb = ref_keys[b];
			int64_t ppm;
			if (!out->hz[ka] || !out->hz[kb] || !rate_ppm_diff(out->hz[ka], out->hz[kb], &ppm))
				continue;
			struct freq_pair *p = &out->pairs[out->pair_count++];
			p->a = ka;
			p->b = kb;
			p->ppm = ppm;
			/* One host clock drives both under a hypervisor: no crystal
			 * tolerance between them, only the measurement's. */
			p->combined_ppm = out->shared_host_clock
						  ? ppm_up(out->measured_uncertainty_mppm[ka] + out->measured_uncertainty_mppm[kb])
						  : ppm_up(total_mppm(out, ka) + total_mppm(out, kb));
			p->agree = abs_i64(ppm) <= p->combined_ppm;
			if (ka == FREQ_MEASURED_HPET && kb == FREQ_MEASURED_ACPI_PM) {
				out->cross_ppm = ppm;
				out->cross_combined_ppm = p->combined_ppm;
			}
			if (!p->agree)
				out->references_disagree = true;
		}
	out->cross_checked = out->pair_count > 0;
	if (!out->cross_checked)
		return;
	if (!out->references_disagree) {
		out->cross_decided_by = out->shared_host_clock
						? "the references agree within their measured uncertainty (one host clock drives them all)"
						: "the references agree within their combined uncertainty";
		return;
	}
	bool excluded_any = false;
	for (int x = 0; x < FREQ_REF_COUNT; x++) {
		enum freq_key kx = ref_keys[x];
		unsigned with_x = 0, against_x = 0, others_agree = 0;
		for (unsigned i = 0; i < out->pair_count; i++) {
			const struct freq_pair *p = &out->pairs[i];
			bool has_x = p->a == kx || p->b == kx;
			if (has_x) {
				with_x++;
				against_x += !p->agree;
			} else {
				others_agree += p->agree;
			}
		}
		if (with_x == 2 && against_x == 2 && others_agree == 1 && !out->excluded_reason[kx]) {
			out->excluded_reason[kx] = "disagrees with both other references, which agree with each other";
			excluded_any = true;
		}
	}
	if (excluded_any) {
		out->cross_decided_by = "references disagree: the one the two others outvote is excluded";
		return;
	}
	if (claim_hz) {
		for (unsigned i = 0; i < out->pair_count; i++) {
			const struct freq_pair *p = &out->pairs[i];
			int64_t da, db;
			if (p->agree || !rate_ppm_diff(out->hz[p->a], claim_hz, &da) || !rate_ppm_diff(out->hz[p->b], claim_hz, &db))
				continue;
			enum freq_key loser = abs_i64(da) <= abs_i64(db) ? p->b : p->a;
			if (!out->excluded_reason[loser])
				out->excluded_reason[loser] = "disagrees with another reference, which the advertised rate backs";
		}
		out->cross_decided_by = "references disagree: the one nearer the advertised rate";
		return;
	}
	out->cross_decided_by = "references disagree and nothing else tells them apart: the lowest total uncertainty kept";
}

static void add_drift(struct freq_result *out, enum source_id a, enum source_id b, int64_t ppm_milli,
		      const char *basis, uint64_t uncertainty_mppm)
{
	if (out->drift_count >= FREQ_MAX_DRIFT)
		return;
	struct freq_drift *d = &out->drift[out->drift_count++];
	d->a = a;
	d->b = b;
	d->ppm_milli = ppm_milli;
	d->basis = basis;
	d->uncertainty_mppm = uncertainty_mppm;
	d->window_ms = out->window_each_ms;
}

/* Only independent figures: each reference against the TSC at the rate a
 * guest would believe (when one is advertised), and each other reference
 * against the chosen one.  With no advertised rate the TSC's rate is what
 * the references measure, so a "TSC vs reference" drift would restate a
 * reference-vs-reference ratio (the same number three times). */
static void drifts(struct freq_result *out)
{
	out->drift_count = 0;
	for (int i = 0; i < FREQ_REF_COUNT && out->believed_hz; i++) {
		enum freq_key k = ref_keys[i];
		int64_t ppm;
		if (out->hz[k] && rate_ppm_diff_milli(out->hz[k], out->believed_hz, &ppm))
			add_drift(out, SOURCE_ID_TSC, ref_sources[i], ppm, freq_key_name(out->believed_key),
				  out->measured_uncertainty_mppm[k]);
	}
	if (out->chosen_key < 0)
		return;
	enum freq_key c = (enum freq_key)out->chosen_key;
	enum source_id cs = SOURCE_ID_HPET;
	for (int i = 0; i < FREQ_REF_COUNT; i++)
		if (ref_keys[i] == c)
			cs = ref_sources[i];
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		enum freq_key k = ref_keys[i];
		int64_t ppm;
		/* a's elapsed time over b's, over one TSC interval: hz_vs_b / hz_vs_a */
		if (k != c && out->hz[k] && rate_ppm_diff_milli(out->hz[c], out->hz[k], &ppm))
			add_drift(out, ref_sources[i], cs, ppm, NULL,
				  out->measured_uncertainty_mppm[k] + out->measured_uncertainty_mppm[c]);
	}
}

/* Every advertised rate (GETHZ, 0x40000010, pvclock, the Hyper-V MSR,
 * CPUID 0x15) and measured one is range-checked as the rough rate is: a
 * garbage leaf (1 kHz, a THz) would turn every cycle count of the report
 * into nonsense, so it stays in freq_hz (it is what a guest would read)
 * but is never chosen, and is named in freq_implausible. */
static void refuse_implausible(struct freq_result *out)
{
	for (int k = 0; k < FREQ_KEY_COUNT; k++) {
		if (!out->hz[k] || rate_tsc_hz_plausible(out->hz[k]))
			continue;
		out->implausible_mask |= 1u << k;
		out->excluded_reason[k] = "outside 100 MHz..10 GHz, where every x86 TSC runs: not used";
	}
}

void freq_decide(struct freq_result *out, const bool backward[FREQ_REF_COUNT], uint64_t rough_hz,
		 const char *rough_source)
{
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		settle_ref(out, (enum freq_ref)i);
		if (out->hz[ref_keys[i]] && backward[i])
			out->excluded_reason[ref_keys[i]] = "the counter stepped backwards in the behaviour test";
	}
	refuse_implausible(out);
	/* What a guest would believe is the first claim, plausible or not;
	 * only a plausible one may settle a disagreement between references. */
	uint64_t first_plausible = 0;
	out->believed_key = -1;
	for (unsigned i = 0; i < freq_claim_count; i++) {
		enum freq_key k = freq_claims[i];
		if (!out->hz[k])
			continue;
		if (out->believed_key < 0) {
			out->believed_key = (int)k;
			out->believed_hz = out->hz[k];
		}
		if (!first_plausible && !(out->implausible_mask & (1u << k)))
			first_plausible = out->hz[k];
	}
	cross_check(out, first_plausible);
	/* Measured beats claimed: the probe converts what it measured on this
	 * machine, with the reference whose total uncertainty is lowest. */
	out->chosen_key = -1;
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		enum freq_key k = ref_keys[i];
		if (!out->hz[k] || out->excluded_reason[k])
			continue;
		if (out->chosen_key < 0 || total_mppm(out, k) < total_mppm(out, (enum freq_key)out->chosen_key))
			out->chosen_key = (int)k;
	}
	static const enum freq_key advertised_order[] = {
		FREQ_HYPERVISOR_LEAF, FREQ_PVCLOCK, FREQ_HYPERV_MSR, FREQ_VMWARE_GETHZ, FREQ_CPUID_15,
	};
	if (out->chosen_key >= 0) {
		out->chosen_name = freq_key_name((enum freq_key)out->chosen_key);
		out->chosen_hz = out->hz[out->chosen_key];
	} else {
		for (size_t i = 0; i < ARRAY_SIZE(advertised_order) && !out->chosen_hz; i++)
			if (out->hz[advertised_order[i]] && !out->excluded_reason[advertised_order[i]]) {
				out->chosen_name = freq_key_name(advertised_order[i]);
				out->chosen_hz = out->hz[advertised_order[i]];
			}
	}
	if (!out->chosen_hz) {
		out->chosen_name = rough_source;
		out->chosen_hz = rough_hz;
	}
	/* The rate a guest kernel would believe against the best measurement,
	 * with the measurement's own uncertainty; the reference's tolerance
	 * beside it. */
	if (out->believed_hz && out->chosen_key >= 0) {
		enum freq_key mk = (enum freq_key)out->chosen_key;
		out->disagreement_known = rate_ppm_diff(out->believed_hz, out->hz[mk], &out->disagreement_ppm);
		out->disagreement_uncertainty_ppm = ppm_up(out->measured_uncertainty_mppm[mk]);
		out->disagreement_tolerance_ppm = out->tolerance_ppm[mk];
		out->disagreement_between = freq_key_name((enum freq_key)out->believed_key);
	}
	drifts(out);
}
