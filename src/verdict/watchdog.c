/* Steps four and five of Linux's boot order: whether the TSC is marked
 * unstable at boot (unsynchronized_tsc(), the TSC sync check), and whether
 * the clocksource watchdog keeps checking it and is expected to demote it. */
#include "verdict_model.h"

/* ---- instability at boot ----------------------------------------------------- */

/* unsynchronized_tsc(): CONSTANT_TSC or tsc=reliable/TSC_RELIABLE say
 * synchronized; Intel is trusted; everyone else with more than one
 * possible CPU (before 6.12) or package (6.12+) is not. */
static bool unsync_base(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->constant_tsc &&
	       !m->tsc_reliable && !f->intel;
}

static bool r_unsync_cpus_applies(const struct facts *f, const struct model *m)
{
	return unsync_base(f, m) && f->possible > 1;
}

static bool r_unsync_packages_applies(const struct facts *f, const struct model *m)
{
	return unsync_base(f, m) && f->packages > 1;
}

static void r_tsc_unstable(const struct facts *f, struct model *m)
{
	m->tsc_unstable = true;
	m->reg[VERDICT_SRC_TSC] = false;
}

static bool r_warp_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->tsc_reliable &&
	       f->in->xcpu_warps > 0 && !yes(f->in->tsc_adjust);
}

/* check_tsc_sync_target(): with TSC_ADJUST, a CPU that shares its package
 * with one already up only has its TSC_ADJUST made equal to that CPU's
 * (tsc_store_and_check_tsc_adjust() returns true) and the warp test is
 * skipped.  With one package the warps the probe saw survive: the TSC is
 * kept and time can go backwards between CPUs. */
static bool r_warp_adjust_one_package_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->tsc_reliable &&
	       f->in->xcpu_warps > 0 && yes(f->in->tsc_adjust) && f->packages <= 1;
}

static void r_tsc_sync_skipped(const struct facts *f, struct model *m)
{
	m->tsc_sync_skipped = true;
}

/* Across packages the first CPU of each package runs the warp test, and
 * with TSC_ADJUST check_tsc_sync_source() allows 3 runs, writing the
 * measured warp into TSC_ADJUST between them: a constant offset is
 * compensated; warps that move are not, and the TSC is turned off. */
static bool r_warp_adjust_packages_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->tsc_reliable &&
	       f->in->xcpu_warps > 0 && yes(f->in->tsc_adjust) && f->packages > 1;
}

static void r_tsc_compensated(const struct facts *f, struct model *m)
{
	cap_confidence(m, VERDICT_CONFIDENCE_LOW);
}

/* Before the guest could enable invariant TSC (dce7cd62754b, 5.5) the TSC was
 * always marked unstable on Hyper-V; since, only without the privilege. */
static bool r_hyperv_unstable_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_HYPERV && tsc_present(f) && !m->tsc_unstable &&
	       (m->kver < KV(5, 5) || !yes(f->in->hv_tsc_invariant_control));
}

static const struct rule boot_unstable_rules[] = {
	{ "unsync-cpus", "arch/x86/kernel/tsc.c unsynchronized_tsc(), before 6.12",
	  KV_OPEN, KV(6, 11), r_unsync_cpus_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one possible CPU: TSC marked unstable at boot", { 0 } },
	{ "unsync-packages", "arch/x86/kernel/tsc.c unsynchronized_tsc(), 6.12+ (e7ff4ebffe3b)",
	  KV(6, 12), KV_OPEN, r_unsync_packages_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one package: TSC marked unstable at boot", { 0 } },
	{ "hyperv-unstable", "arch/x86/kernel/cpu/mshyperv.c ms_hyperv_init_platform(): mark_tsc_unstable(\"running on Hyper-V\")",
	  KV_OPEN, KV_OPEN, r_hyperv_unstable_applies, r_tsc_unstable,
	  "Hyper-V without TSC invariant control: the TSC is marked unstable and never registered", { 0 } },
	{ "tsc-warp", "arch/x86/kernel/tsc_sync.c check_tsc_sync_source()",
	  KV_OPEN, KV_OPEN, r_warp_applies, r_tsc_unstable,
	  "the probe saw TSC warps between CPUs and there is no TSC_ADJUST: Linux's boot sync check turns the TSC off", { 0 } },
	{ "tsc-warp-adjust", "arch/x86/kernel/tsc_sync.c check_tsc_sync_target(), tsc_store_and_check_tsc_adjust()",
	  KV_OPEN, KV_OPEN, r_warp_adjust_one_package_applies, r_tsc_sync_skipped,
	  "TSC_ADJUST on one package: the boot sync test is skipped, the TSC stays although it warps (time can go backwards)", { 0 } },
	{ "tsc-warp-compensate", "arch/x86/kernel/tsc_sync.c check_tsc_sync_source(): 3 runs with TSC_ADJUST",
	  KV_OPEN, KV_OPEN, r_warp_adjust_packages_applies, r_tsc_compensated,
	  "TSC_ADJUST across packages: Linux writes the warp into TSC_ADJUST up to 3 times; kept if the offset is constant", { 0 } },
};

const struct rule_step step_boot_unstable = {
	boot_unstable_rules, ARRAY_SIZE(boot_unstable_rules), NULL
};

/* ---- the clocksource watchdog ------------------------------------------------ */

/* The long-term lines whose newest stable release carries a mainline
 * change (docs/verdict-rules.md names the stable releases). */
static const unsigned lts_margins[] = { KV(5, 10), 0 };
static const unsigned lts_readback[] = { KV(5, 10), 0 };
/* c86ff8c55b8a (5.17) put WATCHDOG_MAX_SKEW back to 100 us and added the
 * wd-wd skip.  The stable-rc pushes of 2022-01-24 carry it into
 * linux-5.16.y (7bbfb15b9540) and linux-5.15.y (e420d259aa32) alone, and
 * into 5.10.y with the margins (2e27e793e280): the newest 5.16.y has it. */
static const unsigned lts_skew_100us[] = { KV(5, 10), KV(5, 15), KV(5, 16), 0 };
static const unsigned lts_interval_skip[] = { KV(5, 10), KV(5, 15), KV(6, 1), KV(6, 6), KV(6, 7), 0 };

/* What one era's clocksource_watchdog() tolerates, from its source:
 * 4.19 compares |cs - wd| per 0.5 s interval with WATCHDOG_THRESHOLD
 * (NSEC_PER_SEC >> 4 = 62.5 ms); from the uncertainty margins
 * (2e27e793e280, 5.14: git describe v5.13-rc4-26) with the sum of both
 * sources' margins, each at least 2 * WATCHDOG_MAX_SKEW: 50 us in 5.14
 * (2e27e793e280 cut it from 100 us; Waiman Long, LKML 2021-11-10) -> 4 *
 * 50 us = 200 us per 0.5 s (400 ppm); 100 us again from c86ff8c55b8a
 * (5.17, and the stable lines 5.10.y, 5.15.y, 5.16.y): 4 * 100 us = 400 us per
 * 0.5 s (800 ppm, 5.10.262 and 6.1.176 sources),
 * from 6.3 4 * 125 us (CONFIG_CLOCKSOURCE_WATCHDOG_MAX_SKEW_US=125,
 * Debian's 6.12 config: 1000 ppm); 7.1 (the rewrite) with delta >> 11 (488 ppm) when
 * both clocks are CLOCK_SOURCE_CALIBRATED, else delta >> 8 (3906 ppm). */
#define WATCHDOG_INTERVAL_NS 500000000ull
#define THRESHOLD_NS (1000000000ull >> 4)
#define MARGINS_50US_NS (4 * 50000ull)
#define MARGINS_NS (4 * 100000ull)
#define MARGINS_125US_NS (4 * 125000ull)
#define FREQ_SHIFT_CALIBRATED 11
#define FREQ_SHIFT_UNCALIBRATED 8
/* 6.8 WATCHDOG_INTERVAL_MAX_NS; 7.1+ resets on a longer round too. */
#define LONG_INTERVAL_NS (2 * WATCHDOG_INTERVAL_NS)
/* 7.1+: a read-out slower than this in 3 tries waits for the next round. */
#define READOUT_RETRY_NS 50000u
/* WD_READ_SKIP: clocksource_watchdog() suspends itself for HZ * 300. */
#define READBACK_SUSPEND_NS 300000000000ull

/* cs_watchdog_read() (db3a34e17433, 5.14: git describe v5.13-rc4-23;
 * 5.10.y): a wd-cs-wd read-back longer than the bound is retried; every
 * retry over the bound marks the TSC unstable.  The bound is
 * WATCHDOG_MAX_SKEW: 50 us with no skip in 5.14; 100 us with a skip
 * when one wd-wd read-back exceeds half of it from c86ff8c55b8a (5.17,
 * 5.16.y, 5.15.y, 5.10.y); 125 us with skip at 62.5 us from 6.3
 * (c37e85c135ce raised WATCHDOG_MAX_SKEW); from 6.12 (4ac1dd3245b9, git
 * describe v6.11-rc1-5) 2 x the watchdog's margin + the TSC's (750 us)
 * with skip at 2 x the watchdog's (500 us); c06343be0b4e "clocksource:
 * Reduce watchdog readout delay limit to prevent false positives" (tip
 * timers/urgent 2026-01-21, mainline 6.19; 6.12-stable and 6.18-stable
 * review queues) cut md to the watchdog's margin: 500 us with skip at
 * 250 us (6.12.118 cs_watchdog_read()).  So 6.13-6.17 have 750/500 us,
 * the newest 6.12.y and 6.18.y and 6.19-7.0 500/250 us. */
#define READBACK_BOUND_50US_NS 50000u
#define READBACK_BOUND_NS 100000u
#define READBACK_SKIP_NS 50000u
#define READBACK_BOUND_125US_NS 125000u
#define READBACK_SKIP_125US_NS 62500u
#define READBACK_BOUND_MARGINS_NS 500000u
#define READBACK_SKIP_MARGINS_NS 250000u
#define READBACK_BOUND_2WD_NS 750000u
#define READBACK_SKIP_2WD_NS 500000u
static const unsigned lts_readback_cut[] = { KV(6, 12), KV(6, 18), 0 };

static bool long_interval_skipped(const struct model *m);
static bool readback_era(const struct model *m, uint64_t *bound, uint64_t *skip);

/* The era's figures for the model's kernel and watchdog: the one place
 * they are set, for the rules below and for verdict_watchdog_eras(). */
void watchdog_figures(const struct model *m, struct verdict_wd_era *e)
{
	e->interval_ns = WATCHDOG_INTERVAL_NS;
	if (m->kver >= KV_WATCHDOG_REWRITE) {
		/* hpet.c and acpi_pm.c register CLOCK_SOURCE_CALIBRATED; the
		 * TSC earns it only from the refined calibration, which a
		 * known frequency skips (tsc.c tsc_refine_calibration_work()). */
		bool wd_calibrated = m->watchdog == VERDICT_SRC_HPET || m->watchdog == VERDICT_SRC_ACPI_PM;
		bool tsc_calibrated = !m->tsc_known_freq &&
				      (m->reg[VERDICT_SRC_HPET] || m->reg[VERDICT_SRC_ACPI_PM]);
		e->check = VERDICT_WD_FREQ;
		e->freq_shift = wd_calibrated && tsc_calibrated ? FREQ_SHIFT_CALIBRATED : FREQ_SHIFT_UNCALIBRATED;
		e->skew_ppm = (uint32_t)(1000000u >> e->freq_shift);
		e->readout_retry_ns = READOUT_RETRY_NS;
		e->cite = "kernel/time/clocksource.c watchdog_check_freq(), 7.1 (763aacf86f1b)";
	} else {
		e->check = VERDICT_WD_MARGIN;
		if (m->kver >= KV(6, 3)) {
			e->margin_ns = MARGINS_125US_NS;
			e->cite = "kernel/time/clocksource.c uncertainty margins, MAX_SKEW 125 us, 6.3";
		} else if (kernel_has(m->kver, KV(5, 17), lts_skew_100us)) {
			e->margin_ns = MARGINS_NS;
			e->cite = "kernel/time/clocksource.c uncertainty margins, MAX_SKEW 100 us, 5.17 (c86ff8c55b8a)";
		} else if (kernel_has(m->kver, KV(5, 14), lts_margins)) {
			e->margin_ns = MARGINS_50US_NS;
			e->cite = "kernel/time/clocksource.c uncertainty margins, MAX_SKEW 50 us, 5.14 (2e27e793e280)";
		} else {
			e->margin_ns = THRESHOLD_NS;
			e->cite = "kernel/time/clocksource.c WATCHDOG_THRESHOLD (NSEC_PER_SEC >> 4)";
		}
		e->skew_ppm = (uint32_t)(e->margin_ns * 1000000u / WATCHDOG_INTERVAL_NS);
	}
	e->readback_check = readback_era(m, &e->readback_bound_ns, &e->readback_skip_ns);
	if (e->readback_check)
		e->readback_suspend_ns = READBACK_SUSPEND_NS;
	e->skip_long_interval = long_interval_skipped(m);
	if (e->skip_long_interval)
		e->long_interval_ns = LONG_INTERVAL_NS;
}

static uint64_t skew_ppm(const struct model *m)
{
	struct verdict_wd_era e = { 0 };

	watchdog_figures(m, &e);
	return e.skew_ppm;
}

static bool long_interval_skipped(const struct model *m)
{
	return m->kver >= KV_WATCHDOG_REWRITE || kernel_has(m->kver, KV(6, 8), lts_interval_skip);
}

/* The watchdog is the best-rated registered source that needs no
 * verification itself: everything but the TSC; on a tie the one
 * registered first.  Registration is over by now, so it is picked once
 * for the whole step. */
static void pick_watchdog(const struct facts *f, struct model *m)
{
	int best = -1;

	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		if (s == VERDICT_SRC_TSC || !m->reg[s])
			continue;
		if (best < 0 || rates_above(m, s, best))
			best = s;
	}
	m->watchdog = best;
}

/* The first measured drift between sources a and b, either way round. */
static const struct verdict_drift *drift_between(const struct facts *f, int a, int b)
{
	const struct verdict_input *in = f->in;
	const char *na = verdict_source_name(a), *nb = verdict_source_name(b);

	for (uint32_t i = 0; i < in->drift_count && i < VERDICT_MAX_DRIFT; i++) {
		const struct verdict_drift *d = &in->drift[i];
		if (!d->a || !d->b)
			continue;
		if ((str_equal(d->a, na) && str_equal(d->b, nb)) || (str_equal(d->b, na) && str_equal(d->a, nb)))
			return d;
	}
	return NULL;
}

/* tsc.c tsc_refine_calibration_work(): without TSC_KNOWN_FREQ the rate is
 * measured again over a second against the HPET when is_hpet_enabled(),
 * else the PM timer (tsc_read_refs()); none (ref_start == ref_stop) keeps
 * the early rate.  -1: no refinement. */
static int refine_reference(const struct model *m)
{
	if (m->tsc_known_freq)
		return -1;
	if (m->reg[VERDICT_SRC_HPET])
		return VERDICT_SRC_HPET;
	return m->reg[VERDICT_SRC_ACPI_PM] ? VERDICT_SRC_ACPI_PM : -1;
}

/* The probe's drift of the TSC against another clock is taken at the rate
 * it believed (the first advertised one: pvclock, Hyper-V MSR, GETHZ,
 * 0x40000010, CPUID 0x15; freq.c tsc_basis()).  It shows what Linux's
 * watchdog sees only when Linux took its rate from the same place. */
static bool probe_basis_is_linux_rate(const struct facts *f, const struct model *m)
{
	enum verdict_freq_by by = f->in->freq_by;

	switch (m->khz_by) {
	case KHZ_KVMCLOCK:
	case KHZ_XEN: return by == VERDICT_FREQ_PVCLOCK;
	case KHZ_HYPERV: return by == VERDICT_FREQ_HYPERV_MSR;
	case KHZ_VMWARE: return by == VERDICT_FREQ_VMWARE_GETHZ;
	case KHZ_ACRN: return by == VERDICT_FREQ_HYPERVISOR_LEAF;
	case KHZ_CPUID: return by == VERDICT_FREQ_CPUID_15 || by == VERDICT_FREQ_CPUID_16;
	default: return false;
	}
}

/* The refinement keeps its own result only within 1 % of the early rate
 * ("Make sure we're within 1%"); an advertised rate that far from what the
 * reference measures is kept instead. */
#define REFINE_WINDOW_PPM 10000

static bool refinement_adopted(const struct facts *f, const struct model *m)
{
	const struct verdict_input *in = f->in;

	if (m->khz_by == KHZ_CALIBRATED || !probe_basis_is_linux_rate(f, m) || !in->freq_disagreement_known)
		return true;
	return !beyond(in->freq_disagreement_ppm, REFINE_WINDOW_PPM, in->freq_disagreement_uncertainty_ppm);
}

/* The drift the watchdog sees between the TSC at the rate Linux ends up
 * using and itself, as the probe measured it; NULL when it sees none or
 * the probe's figures cannot tell (m->drift_unjudged then).
 *  - kvm-clock watching a TSC rated by kvm_get_tsc_khz(): both run off the
 *    same pvclock scale, so no rate error between them;
 *  - a refined TSC watched by its refinement reference: Linux measured the
 *    rate against that very clock, so none either (a refinement against
 *    one clock watched by another sees the drift between those two);
 *  - an advertised rate Linux keeps (TSC_KNOWN_FREQ, or the refinement
 *    rejected): the probe's TSC drift against the watchdog, when the probe
 *    took the TSC at that same advertised rate. */
static const struct verdict_drift *linux_rate_drift(const struct facts *f, const struct model *m, bool *unjudged)
{
	*unjudged = false;
	if (m->watchdog == VERDICT_SRC_KVMCLOCK && m->khz_by == KHZ_KVMCLOCK)
		return NULL;
	int ref = refine_reference(m);
	if (ref >= 0 && refinement_adopted(f, m))
		return ref == m->watchdog ? NULL : drift_between(f, ref, m->watchdog);
	if (m->khz_by == KHZ_CALIBRATED)
		return NULL; /* the early calibration kept: the tsc_calibration race */
	if (probe_basis_is_linux_rate(f, m))
		return drift_between(f, VERDICT_SRC_TSC, m->watchdog);
	*unjudged = drift_between(f, VERDICT_SRC_TSC, m->watchdog) != NULL;
	return NULL;
}

/* The drift that makes the watchdog reject the TSC, if any: beyond the
 * era's margin by more than the measurement's own uncertainty. */
static const struct verdict_drift *demoting_drift(const struct facts *f, const struct model *m)
{
	bool unjudged;
	const struct verdict_drift *d = linux_rate_drift(f, m, &unjudged);

	return d && beyond(d->ppm, skew_ppm(m), d->uncertainty_ppm) ? d : NULL;
}

/* A drift of the TSC against the watchdog, beyond the era's margin, that
 * Linux's watchdog does not see (same scale, or refined against it). */
static bool invisible_drift(const struct facts *f, const struct model *m)
{
	bool unjudged;
	const struct verdict_drift *raw = drift_between(f, VERDICT_SRC_TSC, m->watchdog);

	return raw && beyond(raw->ppm, skew_ppm(m), raw->uncertainty_ppm) && !linux_rate_drift(f, m, &unjudged) &&
	       !unjudged;
}

static bool unjudged_drift(const struct facts *f, const struct model *m)
{
	bool unjudged;

	linux_rate_drift(f, m, &unjudged);
	if (!unjudged)
		return false;
	const struct verdict_drift *raw = drift_between(f, VERDICT_SRC_TSC, m->watchdog);
	return raw && beyond(raw->ppm, skew_ppm(m), raw->uncertainty_ppm);
}

static bool tsc_watched(const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_must_verify && m->watchdog >= 0;
}

static bool r_watchdog_reliable_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_reliable;
}

static void r_no_watchdog(const struct facts *f, struct model *m)
{
	m->tsc_must_verify = false;
}

static bool r_kvm_constant_nonstop_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_KVM && m->reg[VERDICT_SRC_TSC] && m->tsc_must_verify && m->constant_tsc &&
	       m->nonstop_tsc;
}

/* check_system_tsc_reliable(): CONSTANT_TSC, NONSTOP_TSC, TSC_ADJUST and
 * few nodes (nr_online_nodes, 1 without an SRAT) or, from 6.12, packages. */
static bool adjust_base(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_must_verify && m->constant_tsc &&
	       m->nonstop_tsc && yes(f->in->tsc_adjust);
}

static uint32_t online_nodes(const struct facts *f)
{
	return f->in->numa_nodes ? f->in->numa_nodes : 1;
}

static bool r_watchdog_adjust_nodes2_applies(const struct facts *f, const struct model *m)
{
	return adjust_base(f, m) && online_nodes(f) <= 2;
}

static bool r_watchdog_adjust_nodes4_applies(const struct facts *f, const struct model *m)
{
	return adjust_base(f, m) && online_nodes(f) <= 4;
}

static bool r_watchdog_adjust_packages_applies(const struct facts *f, const struct model *m)
{
	return adjust_base(f, m) && f->packages <= 4;
}

static bool r_watchdog_drift_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && demoting_drift(f, m);
}

static bool r_watchdog_same_scale_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && m->watchdog == VERDICT_SRC_KVMCLOCK && invisible_drift(f, m);
}

static bool r_watchdog_refined_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && m->watchdog != VERDICT_SRC_KVMCLOCK && invisible_drift(f, m);
}

static void r_nothing(const struct facts *f, struct model *m)
{
}

static bool r_watchdog_unjudged_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && unjudged_drift(f, m);
}

static void r_watchdog_unjudged(const struct facts *f, struct model *m)
{
	m->drift_unjudged = true;
	cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
}

static void r_watchdog_drift(const struct facts *f, struct model *m)
{
	m->tsc_demoted = true;
	m->demoting_drift = demoting_drift(f, m);
	m->demote_reason = "the TSC drifts against the watchdog clock beyond the era's margin: marked unstable";
}

/* Before the long-interval skip a gap longer than the 24-bit PM timer's
 * wrap makes acpi_pm read short by 4.687 s, far beyond any margin. */
static bool r_watchdog_wrap_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && !long_interval_skipped(m) &&
	       m->watchdog == VERDICT_SRC_ACPI_PM && f->in->gaps_measured &&
	       f->in->gap_max_ns >= ACPI_PM_WRAP_NS;
}

static void r_watchdog_wrap(const struct facts *f, struct model *m)
{
	m->tsc_demoted = true;
	m->demote_reason = "a vCPU gap longer than the PM timer's wrap (4.687 s) misreads acpi_pm: TSC marked unstable";
}

/* The read-back check on the probe's own figures: the watchdog's typical
 * read (p50) plus one TSC read is the wd-cs-wd window, one watchdog read
 * the wd-wd window.  Every retry fails alike when the first is over the
 * bound and the second is not over the skip limit. */
static uint64_t read_ns(const struct facts *f, int s, bool p99)
{
	const struct verdict_source_fact *sf = &f->in->sources[s];

	if (p99 && sf->read_p99_ns)
		return sf->read_p99_ns;
	return (sf->read_ns_milli + 999) / 1000;
}

static bool readback_era(const struct model *m, uint64_t *bound, uint64_t *skip)
{
	if (m->kver >= KV_WATCHDOG_REWRITE || !kernel_has(m->kver, KV(5, 14), lts_readback))
		return false;
	if (kernel_has(m->kver, KV(6, 19), lts_readback_cut)) {
		*bound = READBACK_BOUND_MARGINS_NS;
		*skip = READBACK_SKIP_MARGINS_NS;
	} else if (m->kver >= KV(6, 12)) {
		*bound = READBACK_BOUND_2WD_NS;
		*skip = READBACK_SKIP_2WD_NS;
	} else if (m->kver >= KV(6, 3)) {
		*bound = READBACK_BOUND_125US_NS;
		*skip = READBACK_SKIP_125US_NS;
	} else if (kernel_has(m->kver, KV(5, 17), lts_skew_100us)) {
		*bound = READBACK_BOUND_NS;
		*skip = READBACK_SKIP_NS;
	} else {
		/* no wd-wd skip yet: any watchdog read passes it */
		*bound = READBACK_BOUND_50US_NS;
		*skip = UINT64_MAX;
	}
	return true;
}

static bool readback_fails(const struct facts *f, const struct model *m, bool p99)
{
	uint64_t bound, skip;

	if (!tsc_watched(m) || m->tsc_demoted || !readback_era(m, &bound, &skip))
		return false;
	uint64_t wd = read_ns(f, m->watchdog, p99), wd50 = read_ns(f, m->watchdog, false);
	uint64_t tsc = read_ns(f, VERDICT_SRC_TSC, false);
	return wd50 && wd + tsc > bound && wd50 <= skip;
}

static bool r_watchdog_readback_applies(const struct facts *f, const struct model *m)
{
	return readback_fails(f, m, false);
}

static void r_watchdog_readback(const struct facts *f, struct model *m)
{
	m->tsc_demoted = true;
	m->demote_reason = "reading the watchdog around a TSC read takes longer than cs_watchdog_read() allows: TSC marked unstable";
}

static bool r_watchdog_readback_risk_applies(const struct facts *f, const struct model *m)
{
	return !readback_fails(f, m, false) && readback_fails(f, m, true);
}

static void r_watchdog_readback_risk(const struct facts *f, struct model *m)
{
	cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
}

/* The rewrite (7.1) also compares the TSC between two CPUs on every watchdog round
 * (watchdog_check_skew()): a step backwards marks it unstable. */
static bool r_watchdog_cpu_skew_applies(const struct facts *f, const struct model *m)
{
	return tsc_watched(m) && !m->tsc_demoted && f->in->xcpu_warps > 0 && f->in->xcpu_tested >= 2;
}

static void r_watchdog_cpu_skew(const struct facts *f, struct model *m)
{
	m->tsc_demoted = true;
	m->demote_reason = "the TSC warps between CPUs and the watchdog's inter-CPU check sees it: marked unstable";
}

/* A vCPU that does not run steadily: QEMU TCG, or measured gaps of 1 %
 * of the window or more. */
static bool vcpu_unsteady(const struct facts *f)
{
	const struct verdict_input *in = f->in;

	return f->plat == PLAT_TCG || (in->gaps_measured && in->gap_window_ms &&
				       in->gap_total_ns * 100 >= (uint64_t)in->gap_window_ms * 1000000);
}

static const struct rule watchdog_rules[] = {
	{ "watchdog-reliable", "arch/x86/kernel/tsc.c tsc_init(): tsc_clocksource_reliable",
	  KV_OPEN, KV_OPEN, r_watchdog_reliable_applies, r_no_watchdog,
	  "TSC reliable: no clocksource watchdog", { 0 } },
	/* Kept for when it lands: Sean Christopherson's "x86/kvm: Mark TSC as
	 * reliable when it's constant and nonstop" (v5, 2026-07) was not merged
	 * as of 7.3-rc.  Then a KVM guest with CONSTANT+NONSTOP TSC loses the
	 * watchdog: set `since` to its first release and the row applies. */
	{ "kvm-constant-nonstop-reliable", "arch/x86/kernel/kvm.c (proposed; not merged as of 7.3-rc)",
	  KV_NOT_MERGED, KV_OPEN, r_kvm_constant_nonstop_applies, r_no_watchdog,
	  "KVM with CONSTANT+NONSTOP TSC: TSC marked reliable, no clocksource watchdog (proposed patch)", { 0 } },
	{ "watchdog-adjust", "arch/x86/kernel/tsc.c check_system_tsc_reliable(), 5.16 (b50db7095fe0), nr_online_nodes <= 2",
	  KV(5, 16), KV(6, 5), r_watchdog_adjust_nodes2_applies, r_no_watchdog,
	  "CONSTANT+NONSTOP+TSC_ADJUST on <= 2 NUMA nodes: no clocksource watchdog",
	  { KV(5, 4), KV(5, 10), KV(5, 15), 0 } },
	{ "watchdog-adjust-nodes4", "arch/x86/kernel/tsc.c check_system_tsc_reliable(), 6.6 (233756a640be), nr_online_nodes <= 4",
	  KV(6, 6), KV(6, 11), r_watchdog_adjust_nodes4_applies, r_no_watchdog,
	  "CONSTANT+NONSTOP+TSC_ADJUST on <= 4 NUMA nodes: no clocksource watchdog", { 0 } },
	{ "watchdog-adjust-packages", "arch/x86/kernel/tsc.c check_system_tsc_reliable(), 6.12 (b4bac279319d), topology_max_packages() <= 4",
	  KV(6, 12), KV_OPEN, r_watchdog_adjust_packages_applies, r_no_watchdog,
	  "CONSTANT+NONSTOP+TSC_ADJUST on <= 4 packages: no clocksource watchdog", { 0 } },
	{ "watchdog-readback", "kernel/time/clocksource.c cs_watchdog_read(), 5.14 to 7.0 (5.10.y)",
	  KV_OPEN, KV_OPEN, r_watchdog_readback_applies, r_watchdog_readback,
	  "the measured watchdog read plus a TSC read exceed cs_watchdog_read()'s bound on every retry: TSC marked unstable", { 0 } },
	{ "watchdog-readback-risk", "kernel/time/clocksource.c cs_watchdog_read(), 5.14 to 7.0 (5.10.y)",
	  KV_OPEN, KV_OPEN, r_watchdog_readback_risk_applies, r_watchdog_readback_risk,
	  "the watchdog's slow reads (p99) exceed cs_watchdog_read()'s bound: a run of them marks the TSC unstable", { 0 } },
	{ "watchdog-wrap", "kernel/time/clocksource.c clocksource_watchdog(), before the > 1 s skip (644649553508, 6.8)",
	  KV_OPEN, KV_OPEN, r_watchdog_wrap_applies, r_watchdog_wrap,
	  "a measured gap longer than the PM timer's wrap while acpi_pm watches: TSC marked unstable", { 0 } },
	{ "watchdog-same-scale", "arch/x86/kernel/kvmclock.c kvm_get_tsc_khz(): tsc_khz from the pvclock scale",
	  KV_OPEN, KV_OPEN, r_watchdog_same_scale_applies, r_nothing,
	  "the TSC drifts against real time, but Linux rates it by kvm-clock's own scale: the kvm-clock watchdog sees no drift", { 0 } },
	{ "watchdog-refined", "arch/x86/kernel/tsc.c tsc_refine_calibration_work(): refined against the HPET, else the PM timer",
	  KV_OPEN, KV_OPEN, r_watchdog_refined_applies, r_nothing,
	  "the TSC drifts at the probe's rate, but Linux refines its rate against the watchdog clock itself: the watchdog sees no drift", { 0 } },
	{ "watchdog-rate-unjudged", "kernel/time/clocksource.c clocksource_watchdog(); the probe's drift basis (freq.c tsc_basis())",
	  KV_OPEN, KV_OPEN, r_watchdog_unjudged_applies, r_watchdog_unjudged,
	  "the probe measured the TSC's drift at another rate than the one Linux takes: whether the watchdog rejects it is not judged", { 0 } },
	{ "watchdog-demote", "kernel/time/clocksource.c clocksource_watchdog(): |cs - wd| over the margins, at Linux's TSC rate",
	  KV_OPEN, KV_OPEN, r_watchdog_drift_applies, r_watchdog_drift,
	  "the TSC, at the rate Linux uses, drifts against the watchdog clock beyond the era's margin: the watchdog marks tsc unstable", { 0 } },
	{ "watchdog-cpu-skew", "kernel/time/clocksource.c watchdog_check_skew(), 7.1+ (763aacf86f1b)",
	  KV_WATCHDOG_REWRITE, KV_OPEN, r_watchdog_cpu_skew_applies, r_watchdog_cpu_skew,
	  "the TSC warps between CPUs: the rewritten watchdog's inter-CPU check marks it unstable", { 0 } },
};

const struct rule_step step_watchdog = { watchdog_rules, ARRAY_SIZE(watchdog_rules), pick_watchdog };

/* Two races the TSC can lose when the vCPU does not run steadily (TCG, or
 * measured gaps of 1 % of the window or more).  Neither is a rule: whether
 * the guest loses depends on the host's load while it boots, which the
 * probe, run at another time, cannot see.  The prediction stays; the
 * verdict names the race and what Linux picks if the TSC loses it
 * (verdict.risk, by_kernel[].risk), so a guest that ended there is
 * explained, not contradicted.
 *
 * jiffies_watchdog: with no HPET the best watchdog is acpi_pm, which
 * registers late (fs_initcall); until then clocksource_select_watchdog()
 * takes refined-jiffies, and jiffies lose ticks on a preempted vCPU, so
 * tsc-early looks up to twice as fast ("skewed 500785720 ns over watchdog
 * 'refined-jiffies' interval of 480030000 ns", Debian 6.12.95 on QEMU TCG
 * q35,hpet=off -smp 2) and is marked unstable.  Seen on 6.1, 6.12 and
 * 6.12.118, in 4 of 5 boots of the two hpet=off configurations.  The
 * rewritten watchdog (1432f9d4e8aa, 7.1) skips non-continuous sources as watchdogs.
 *
 * tsc_calibration: without an advertised rate Linux calibrates the TSC
 * with loops against the PIT and HPET/PM timer; when the two disagree by
 * more than 10 % pit_hpet_ptimer_calibrate_cpu() trusts the PIT ("PIT
 * calibration deviates from HPET: 838262 2445306", "Using PIT calibration
 * value", Debian 6.12.95 on TCG Skylake-Server under heavy host load), the
 * refined calibration gives up more than 1 % away, and the watchdog then
 * marks the mis-rated TSC unstable.
 *
 * watchdog_short_round: the rewrite's (7.1) watchdog_check_freq() allows
 * (interval >> 11) + the read-out window for two calibrated clocks, and a
 * late timer is re-armed at expires + 0.5 s, so the round after a late
 * one can be microseconds long: then a microsecond of difference in when
 * the PM timer read lands is "frequency skew" ("Marking clocksource tsc
 * unstable due to frequency skew", acpi_pm interval 36 us .. 22 ms).
 * Seen in all 4 boots of 7.2.13 and 7.3-rc7 without HPET in one run and
 * in none of 4 in the next; with HPET watching they kept tsc every time. */
/* long_watchdog_round: before the rewrite the margins are fixed
 * nanoseconds (md = cs->uncertainty_margin + watchdog->uncertainty_margin,
 * 4.19's WATCHDOG_THRESHOLD alike), compared with |cs_nsec - wd_nsec| over
 * however long the round took.  A vCPU stall stretches a round, and a
 * constant rate error's skew grows with it: a round of 0.5 s + the stall.
 * From 644649553508 (6.8; 5.15.149, 6.1.78, 6.6.15, 6.7.3, and 5.10.y) a
 * round longer than WATCHDOG_INTERVAL_MAX_NS (1 s) is skipped, so a round
 * is stretched to 1 s at most.  Whether a stall lands in a round depends
 * on when it comes: a risk, not the prediction. */
static bool long_round_loses(const struct facts *f, const struct model *m)
{
	const struct verdict_input *in = f->in;
	struct verdict_wd_era e = { 0 };
	bool unjudged;

	if (!in->gaps_measured || !in->gap_max_ns)
		return false;
	watchdog_figures(m, &e);
	const struct verdict_drift *d = linux_rate_drift(f, m, &unjudged);
	if (e.check != VERDICT_WD_MARGIN || !d)
		return false;
	uint64_t stall = in->gap_max_ns;
	if (e.skip_long_interval && stall > e.long_interval_ns - e.interval_ns)
		stall = e.long_interval_ns - e.interval_ns;
	uint64_t round_ns = e.interval_ns + stall;
	uint64_t err = abs64(d->ppm);
	uint64_t unc = d->uncertainty_ppm;
	if (unc >= err)
		return false;
	/* the skew at the near end of the measurement's uncertainty */
	uint64_t skew_ns = mul_div_u64(err - unc, round_ns, 1000000u);
	return skew_ns > e.margin_ns;
}

static void long_round(const struct facts *f, struct model *m)
{
	if (m->watchdog >= 0 && long_round_loses(f, m)) {
		m->risk_code = "long_watchdog_round";
		m->risk_note = "a measured vCPU stall stretches a watchdog round, and the TSC's measured rate "
			      "error against the watchdog grows past the era's fixed margin over it; the TSC "
			      "may be marked unstable";
	}
}

/* watchdog_pause: the rewrite (763aacf86f1b, 7.1) no longer skips a
 * round longer than WATCHDOG_INTERVAL_MAX_NS (644649553508's 1 s, 6.8):
 * only one longer than max_idle_ns resets, every shorter one is compared.
 * A VM stopped and continued under KVM (virsh suspend/resume, a migration's
 * stop) keeps its TSC running with the host while kvm-clock, the HPET and
 * the PM timer stand still (QEMU stops its virtual clock and restores
 * kvm-clock on cont): the next round sees the TSC ahead of the watchdog by
 * the whole pause, far beyond (delta >> shift) + the read-out window, and
 * marks it unstable, unless the pause outlasts the watchdog's max_idle_ns
 * (then the round resets).  max_idle_ns as Linux prints it at boot for
 * QEMU/KVM's clocks ("clocksource: ...: mask: ... max_idle_ns: ..."):
 * acpi_pm 2085701024, hpet (100 MHz, 32 bits) 19112604467, kvm-clock
 * 881590591483.  Which clock's max_idle_ns the rewrite takes, and the
 * outcome itself, are unconfirmed: no reproduction here. */
#define MAX_IDLE_ACPI_PM_NS 2085701024ull
#define MAX_IDLE_HPET_NS 19112604467ull
#define MAX_IDLE_KVMCLOCK_NS 881590591483ull

static uint64_t watchdog_max_idle_ns(int wd)
{
	switch (wd) {
	case VERDICT_SRC_ACPI_PM: return MAX_IDLE_ACPI_PM_NS;
	case VERDICT_SRC_HPET: return MAX_IDLE_HPET_NS;
	case VERDICT_SRC_KVMCLOCK: return MAX_IDLE_KVMCLOCK_NS;
	default: return 0; /* not known: taken as compared */
	}
}

enum pause_round { PAUSE_NONE, PAUSE_COMPARED, PAUSE_RESET };

static enum pause_round pause_round(const struct facts *f, const struct model *m)
{
	const struct verdict_input *in = f->in;

	if (m->kver < KV_WATCHDOG_REWRITE || !in->pause_count || !in->pause_max_ns || m->watchdog < 0 ||
	    m->chosen != VERDICT_SRC_TSC || !m->tsc_must_verify || m->tsc_demoted)
		return PAUSE_NONE;
	uint64_t idle = watchdog_max_idle_ns(m->watchdog);
	uint64_t round = WATCHDOG_INTERVAL_NS + in->pause_max_ns;
	return idle && round > idle ? PAUSE_RESET : PAUSE_COMPARED;
}

void tsc_race(const struct facts *f, struct model *m)
{
	m->risk_code = NULL;
	m->risk_note = NULL;
	if (m->chosen != VERDICT_SRC_TSC || !m->tsc_must_verify || m->tsc_demoted)
		return;
	if (pause_round(f, m) == PAUSE_COMPARED) {
		m->risk_code = "watchdog_pause";
		m->risk_note = "watch mode measured a pause in which the TSC ran on while the watchdog clock stood "
			      "still (VM stopped and continued): the rewritten watchdog compares such a round "
			      "unless it outlasts the watchdog's max_idle_ns, and the TSC, ahead by the whole "
			      "pause, may be marked unstable (unconfirmed: no reproduction)";
		return;
	}
	if (!vcpu_unsteady(f)) {
		long_round(f, m);
		return;
	}
	if (m->watchdog == VERDICT_SRC_ACPI_PM && m->kver < KV_WATCHDOG_REWRITE) {
		m->risk_code = "jiffies_watchdog";
		m->risk_note = "no HPET: until acpi_pm registers, refined-jiffies watches the TSC and loses "
			      "ticks on an unsteady vCPU; the TSC may be marked unstable at boot";
	} else if (m->watchdog < 0 && m->kver < KV_WATCHDOG_REWRITE) {
		/* Nothing registered but the TSC: clocksource_select_watchdog()
		 * keeps refined-jiffies (rating 2, not MUST_VERIFY) for good. */
		m->risk_code = "jiffies_watchdog";
		m->risk_note = "no HPET, PM timer or paravirtual clock: refined-jiffies watches the TSC for good "
			      "and loses ticks on an unsteady vCPU; the TSC may be marked unstable, leaving jiffies";
	} else if (m->watchdog == VERDICT_SRC_ACPI_PM) {
		m->risk_code = "watchdog_short_round";
		m->risk_note = "no HPET: on an unsteady vCPU a short round of the rewritten watchdog against "
			      "acpi_pm reads as frequency skew; the TSC may be marked unstable";
	} else if (m->tsc_calibrated && m->watchdog >= 0) {
		/* 7.1+ with nothing to watch the TSC: a mis-rated TSC stays */
		m->risk_code = "tsc_calibration";
		m->risk_note = "the guest calibrates the TSC on an unsteady vCPU: a preempted PIT loop gives a "
			      "wrong rate that Linux trusts, and the watchdog then marks the TSC unstable";
	} else {
		long_round(f, m);
	}
}

/* The main kernel's reasoning line for the race, and its confidence: the
 * jiffies race was lost in most boots seen, so the prediction is a guess. */
void note_tsc_race(const struct facts *f, struct model *m, struct verdict *v)
{
	if (f->in->pauses_tsc_stood && !f->in->pause_count && m->kver >= KV_WATCHDOG_REWRITE &&
	    m->chosen == VERDICT_SRC_TSC && m->tsc_must_verify && !m->tsc_demoted && m->watchdog >= 0)
		add_reason(v, "watch mode measured a pause, but the TSC stood still through it with the other "
			      "counters (only wall time went on, as under QEMU TCG): the watchdog sees no jump, so "
			      "the 7.1+ pause risk does not apply",
			   "kernel/time/clocksource.c, 7.1 (763aacf86f1b): a round compares the TSC's and the "
			   "watchdog's deltas");
	if (pause_round(f, m) == PAUSE_RESET)
		add_reason(v, "the measured pause is longer than the watchdog's max_idle_ns: the rewritten "
			      "watchdog resets that round instead of comparing it, so the pause does not "
			      "judge the TSC (unconfirmed: no reproduction)",
			   "kernel/time/clocksource.c, 7.1 (763aacf86f1b): rounds over max_idle_ns reset");
	if (!m->risk_code)
		return;
	if (str_equal(m->risk_code, "watchdog_pause")) {
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
		add_reason(v, m->risk_note,
			   "kernel/time/clocksource.c, 7.1 (763aacf86f1b): only rounds over max_idle_ns reset");
		return;
	}
	bool calibration = str_equal(m->risk_code, "tsc_calibration");
	bool long_round = str_equal(m->risk_code, "long_watchdog_round");
	cap_confidence(m, calibration || long_round ? VERDICT_CONFIDENCE_MEDIUM : VERDICT_CONFIDENCE_LOW);
	add_reason(v, m->risk_note,
		   long_round ? "kernel/time/clocksource.c clocksource_watchdog(): md over the round; 644649553508 skips rounds over 1 s" :
		   calibration ? "arch/x86/kernel/tsc.c pit_hpet_ptimer_calibrate_cpu(); seen on QEMU TCG" :
		   str_equal(m->risk_code, "jiffies_watchdog") ?
				 "kernel/time/clocksource.c clocksource_select_watchdog(); seen on QEMU TCG hpet=off" :
				 "kernel/time/clocksource.c watchdog_check_freq(), 7.1+; seen on QEMU TCG hpet=off");
}
