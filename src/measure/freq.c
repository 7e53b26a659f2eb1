/* One window, all references at once: the TSC, the HPET, the PM timer and
 * (when present) kvm-clock are stamped at the start and the end, each
 * stamp bracketed by two TSC reads so its moment is known to within half
 * the bracket.  Narrow counters are followed through the window often
 * enough to count their wraps. */
#include "msr.h"
#include "freq.h"
#include "measure.h"
#include "arch.h"
#include "counter.h"
#include "fault.h"
#include "rate.h"
#include "results.h"

#define STAMP_TRIES 16
#define FOLLOW_EVERY_CYCLES_MS 5 /* far below the PIT's 55 ms and PM's 4.7 s wraps */


const enum freq_key freq_claims[] = {
	FREQ_PVCLOCK, FREQ_HYPERV_MSR, FREQ_VMWARE_GETHZ, FREQ_HYPERVISOR_LEAF, FREQ_CPUID_15,
};
const unsigned freq_claim_count = ARRAY_SIZE(freq_claims);

struct reference {
	const struct source_result *src;
	struct counter_ext ext;
	uint64_t tsc_start, tsc_end; /* bracket midpoints */
	uint64_t bracket_start, bracket_end;
	uint64_t ticks;              /* extended, start to end */
};

static uint64_t stamp(const struct measure_ctx *ctx, const struct source_desc *d, uint64_t *tsc_mid, uint64_t *bracket)
{
	return measure_stamp(ctx, d, STAMP_TRIES, tsc_mid, bracket);
}

static void advertised(struct freq_result *out, const struct run_results *r)
{
	const struct probe_facts *f = &r->facts;
	/* 0x15 is only a TSC rate when the crystal is enumerated; Linux reads
	 * it on Intel only but the leaf means the same wherever it exists. */
	if (f->cpu.leaf15.valid)
		out->hz[FREQ_CPUID_15] = f->cpu.leaf15.tsc_hz;
	if (f->cpu.leaf16.valid)
		out->hz[FREQ_CPUID_16] = (uint64_t)f->cpu.leaf16.base_mhz * 1000000;
	if (f->hv.timing.valid)
		out->hz[FREQ_HYPERVISOR_LEAF] = (uint64_t)f->hv.timing.tsc_khz * 1000;
	out->hz[FREQ_PVCLOCK] = results_facts(r, SOURCE_ID_KVMCLOCK)->kvmclock.tsc_hz;
	if (r->vmware.gethz_valid)
		out->hz[FREQ_VMWARE_GETHZ] = r->vmware.tsc_hz;
	/* HV_X64_MSR_TSC_FREQUENCY, only with the privilege and feature bits
	 * Linux requires (0x40000003 EAX[11] and EDX[8]); guarded anyway. */
	uint64_t hv_hz;
	if (f->hv.hyperv.frequency_msrs && rdmsr_safe(HV_X64_MSR_TSC_FREQUENCY, &hv_hz) == FAULT_NONE)
		out->hz[FREQ_HYPERV_MSR] = hv_hz;
}

static void add_drift(struct freq_result *out, enum source_id a, uint64_t a_ns, enum source_id b, uint64_t b_ns,
		      const char *basis, uint64_t uncertainty_mppm)
{
	if (out->drift_count >= FREQ_MAX_DRIFT || !b_ns)
		return;
	struct freq_drift *d = &out->drift[out->drift_count];
	/* a's elapsed time against b's, both at their nominal rates. */
	if (!rate_ppm_diff_milli(a_ns, b_ns, &d->ppm_milli))
		return;
	d->a = a;
	d->b = b;
	d->basis = basis;
	d->uncertainty_mppm = uncertainty_mppm;
	d->window_ms = out->window_ms;
	out->drift_count++;
}

static uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) { return mul_div_u64(ticks, 1000000000ull, hz); }

static uint64_t abs_i64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* Which measured references may be chosen: none that stepped backwards,
 * and of two that disagree beyond their combined uncertainty, only the one
 * a third opinion (the advertised rate) backs; with no third opinion the
 * HPET is kept, and the disagreement is reported either way. */
static void cross_check(struct freq_result *out, const struct run_results *r, uint64_t first_claim_hz)
{
	static const enum freq_key keys[2] = { FREQ_MEASURED_HPET, FREQ_MEASURED_ACPI_PM };
	const enum source_id ids[2] = { SOURCE_ID_HPET, SOURCE_ID_ACPI_PM };
	for (int i = 0; i < 2; i++) {
		const struct source_result *s = results_source_ok(r, ids[i]);
		if (out->hz[keys[i]] && s && s->behaviour.backward)
			out->excluded_reason[keys[i]] = "the counter stepped backwards in the behaviour test";
	}
	uint64_t h = out->hz[FREQ_MEASURED_HPET], p = out->hz[FREQ_MEASURED_ACPI_PM];
	if (!h || !p || !rate_ppm_diff(h, p, &out->cross_ppm))
		return;
	out->cross_checked = true;
	out->cross_combined_ppm = (out->uncertainty_mppm[FREQ_MEASURED_HPET] +
				   out->uncertainty_mppm[FREQ_MEASURED_ACPI_PM] + 999) / 1000;
	if (abs_i64(out->cross_ppm) <= out->cross_combined_ppm) {
		out->cross_decided_by = "the two references agree within their combined uncertainty";
		return;
	}
	out->references_disagree = true;
	int64_t dh = 0, dp = 0;
	if (first_claim_hz && rate_ppm_diff(h, first_claim_hz, &dh) && rate_ppm_diff(p, first_claim_hz, &dp)) {
		enum freq_key loser = abs_i64(dh) <= abs_i64(dp) ? FREQ_MEASURED_ACPI_PM : FREQ_MEASURED_HPET;
		if (!out->excluded_reason[loser])
			out->excluded_reason[loser] = "disagrees with the other reference, which the advertised rate backs";
		out->cross_decided_by = "references disagree: the one nearer the advertised rate";
		return;
	}
	out->cross_decided_by = "references disagree and nothing else tells them apart: HPET kept (finer)";
}

/* Every advertised rate (GETHZ, 0x40000010, pvclock, the Hyper-V MSR,
 * CPUID 0x15) and measured one is range-checked as the rough rate is: a
 * garbage leaf (1 kHz, a THz) converts every cycle count the report gives
 * into nonsense, so it is kept in freq_hz (it is what a guest would read)
 * but never chosen, and named in freq_implausible. */
static void refuse_implausible(struct freq_result *out)
{
	for (int k = 0; k < FREQ_KEY_COUNT; k++) {
		if (!out->hz[k] || rate_tsc_hz_plausible(out->hz[k]))
			continue;
		out->implausible_mask |= 1u << k;
		out->excluded_reason[k] = "outside 100 MHz..10 GHz, where every x86 TSC runs: not used";
	}
}

static void choose(struct freq_result *out, const struct run_results *r)
{
	uint64_t first_claim = 0;
	refuse_implausible(out);
	for (unsigned i = 0; i < freq_claim_count && !first_claim; i++)
		if (!(out->implausible_mask & (1u << freq_claims[i])))
			first_claim = out->hz[freq_claims[i]];
	cross_check(out, r, first_claim);
	/* Measured beats claimed: the probe converts what it measured on this
	 * machine; the HPET's 10+ MHz beats the PM timer's 3.58 MHz. */
	static const enum freq_key order[] = {
		FREQ_MEASURED_HPET, FREQ_MEASURED_ACPI_PM, FREQ_HYPERVISOR_LEAF, FREQ_PVCLOCK,
		FREQ_HYPERV_MSR, FREQ_VMWARE_GETHZ, FREQ_CPUID_15,
	};
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (out->hz[order[i]] && !out->excluded_reason[order[i]]) {
			out->chosen_name = freq_key_name(order[i]);
			out->chosen_hz = out->hz[order[i]];
			break;
		}
	}
	if (!out->chosen_hz) {
		out->chosen_name = r->facts.tsc_hz_rough_source;
		out->chosen_hz = r->facts.tsc_hz_rough;
	}
	out->believed_key = -1;
	for (unsigned i = 0; i < freq_claim_count; i++) {
		if (out->hz[freq_claims[i]]) {
			out->believed_key = (int)freq_claims[i];
			out->believed_hz = out->hz[freq_claims[i]];
			break;
		}
	}
	/* Disagreement: the rate a guest kernel would believe against the
	 * best measurement. */
	enum freq_key mk = out->hz[FREQ_MEASURED_HPET] && !out->excluded_reason[FREQ_MEASURED_HPET] ? FREQ_MEASURED_HPET
											   : FREQ_MEASURED_ACPI_PM;
	uint64_t measured = out->excluded_reason[mk] ? 0 : out->hz[mk];
	if (out->believed_hz && measured) {
		out->disagreement_known = rate_ppm_diff(out->believed_hz, measured, &out->disagreement_ppm);
		out->disagreement_uncertainty_ppm = (out->uncertainty_mppm[mk] + 999) / 1000;
		out->disagreement_between = freq_key_name(out->believed_key);
	}
}

/* The TSC rate to compare the TSC with reference `against` at: the rate a
 * guest would believe when one is advertised (what Linux's watchdog then
 * checks); else the rate measured against the *other* reference, never
 * against `against` itself (that drift would be 0 by construction). */
static uint64_t tsc_basis(const struct freq_result *out, enum freq_key against, const char **basis)
{
	if (out->believed_hz) {
		*basis = freq_key_name(out->believed_key);
		return out->believed_hz;
	}
	enum freq_key other = against == FREQ_MEASURED_HPET ? FREQ_MEASURED_ACPI_PM : FREQ_MEASURED_HPET;
	*basis = freq_key_name(other);
	return out->hz[other];
}

void freq_measure(struct freq_result *out, struct run_results *r, const struct measure_ctx *ctx, uint32_t window_ms)
{
	memset(out, 0, sizeof *out);
	advertised(out, r);
	struct reference refs[2] = { { .src = results_source_ok(r, SOURCE_ID_HPET) }, { .src = results_source_ok(r, SOURCE_ID_ACPI_PM) } };
	const struct source_result *kvmclock = results_source_ok(r, SOURCE_ID_KVMCLOCK);
	const struct probe_facts *f = &r->facts;
	out->window_ms = window_ms;

	uint64_t kvm_start = 0, kvm_start_tsc = 0, bracket;
	for (int i = 0; i < 2; i++) {
		if (!refs[i].src)
			continue;
		const struct source_desc *d = &refs[i].src->desc;
		uint64_t raw = stamp(ctx, d, &refs[i].tsc_start, &refs[i].bracket_start);
		counter_ext_init(&refs[i].ext, d->width_bits, d->counts_down, raw);
	}
	if (kvmclock)
		kvm_start = stamp(ctx, &kvmclock->desc, &kvm_start_tsc, &bracket);
	uint64_t start = rdtsc();
	uint64_t window = facts_ms_to_cycles(f, window_ms);
	uint64_t follow = facts_ms_to_cycles(f, FOLLOW_EVERY_CYCLES_MS);
	uint64_t next = start + follow;
	/* Bounded by the deadline and by an iteration cap (a frozen TSC ends
	 * it through the cap). */
	for (uint64_t spins = 0; spins < 4000000000ull; spins++) {
		uint64_t now = rdtsc();
		if (now - start >= window)
			break;
		if (now >= next) {
			for (int i = 0; i < 2; i++)
				if (refs[i].src)
					counter_ext_feed(&refs[i].ext, refs[i].src->desc.read());
			next = now + follow;
		}
		cpu_relax();
	}
	for (int i = 0; i < 2; i++) {
		if (!refs[i].src)
			continue;
		uint64_t raw = stamp(ctx, &refs[i].src->desc, &refs[i].tsc_end, &refs[i].bracket_end);
		refs[i].ticks = counter_ext_feed(&refs[i].ext, raw);
		uint64_t tsc_delta = refs[i].tsc_end - refs[i].tsc_start;
		uint64_t hz = refs[i].ticks ? rate_from_window(tsc_delta, refs[i].src->desc.freq_hz, refs[i].ticks) : 0;
		enum freq_key k = i == 0 ? FREQ_MEASURED_HPET : FREQ_MEASURED_ACPI_PM;
		out->hz[k] = hz;
		if (hz) {
			out->measured = true;
			uint64_t read_ns = rate_cycles_to_ns((refs[i].bracket_start + refs[i].bracket_end) / 2, hz);
			out->tolerance_ppm[k] = k == FREQ_MEASURED_HPET ? FREQ_HPET_TOLERANCE_PPM : FREQ_ACPI_PM_TOLERANCE_PPM;
			out->uncertainty_mppm[k] = rate_window_uncertainty_mppm(
				refs[i].src->desc.freq_hz, read_ns, rate_cycles_to_ns(tsc_delta, hz)) +
						   out->tolerance_ppm[k] * 1000;
		}
	}
	uint64_t kvm_end = 0, kvm_end_tsc = 0;
	if (kvmclock)
		kvm_end = stamp(ctx, &kvmclock->desc, &kvm_end_tsc, &bracket);
	choose(out, r);

	/* Drift: elapsed time by each source at its nominal rate, pairwise,
	 * over the window; the TSC's rate per tsc_basis(). */
	static const enum source_id ref_ids[2] = { SOURCE_ID_HPET, SOURCE_ID_ACPI_PM };
	const char *basis;
	uint64_t window_unc[2];
	for (int i = 0; i < 2; i++) {
		enum freq_key k = i == 0 ? FREQ_MEASURED_HPET : FREQ_MEASURED_ACPI_PM;
		uint64_t tol = out->tolerance_ppm[k] * 1000;
		window_unc[i] = out->uncertainty_mppm[k] > tol ? out->uncertainty_mppm[k] - tol : 0;
	}
	for (int i = 0; i < 2; i++) {
		if (!refs[i].src)
			continue;
		uint64_t hz = tsc_basis(out, i == 0 ? FREQ_MEASURED_HPET : FREQ_MEASURED_ACPI_PM, &basis);
		/* A TSC rate measured against the other reference brings that
		 * window's uncertainty along. */
		uint64_t unc = window_unc[i] + (out->believed_hz ? 0 : window_unc[1 - i]);
		if (hz)
			add_drift(out, SOURCE_ID_TSC, ticks_to_ns(refs[i].tsc_end - refs[i].tsc_start, hz), ref_ids[i],
				  ticks_to_ns(refs[i].ticks, refs[i].src->desc.freq_hz), basis, unc);
	}
	if (refs[0].src && refs[1].src) {
		/* Both windows differ slightly in their end points: compare the
		 * rates each implies for the TSC rather than raw elapsed times. */
		add_drift(out, SOURCE_ID_HPET, out->hz[FREQ_MEASURED_ACPI_PM], SOURCE_ID_ACPI_PM, out->hz[FREQ_MEASURED_HPET], NULL,
			  window_unc[0] + window_unc[1]);
	}
	/* kvm-clock against real time: the TSC at its measured rate. */
	uint64_t measured = out->hz[FREQ_MEASURED_HPET] ? out->hz[FREQ_MEASURED_HPET] : out->hz[FREQ_MEASURED_ACPI_PM];
	if (kvmclock && measured)
		add_drift(out, SOURCE_ID_KVMCLOCK, kvm_end - kvm_start, SOURCE_ID_TSC, ticks_to_ns(kvm_end_tsc - kvm_start_tsc, measured),
			  out->hz[FREQ_MEASURED_HPET] ? freq_key_name(FREQ_MEASURED_HPET) : freq_key_name(FREQ_MEASURED_ACPI_PM),
			  out->hz[FREQ_MEASURED_HPET] ? window_unc[0] : window_unc[1]);
}
