/* Steps four and five of Linux's boot order: whether the TSC is marked
 * unstable at boot (unsynchronized_tsc(), the TSC sync check), and whether
 * the clocksource watchdog keeps checking it and is expected to demote it. */
#include "verdict_model.h"

/* The watchdog's margins are of the order of 500 ppm per 0.5 s interval
 * (kernel/time/clocksource.c); this project's estimate, not a kernel
 * constant. */
#define WATCHDOG_SKEW_PPM 500

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
	       f->in->xcpu_warps > 0;
}

static const struct rule boot_unstable_rules[] = {
	{ "unsync-cpus", "arch/x86/kernel/tsc.c unsynchronized_tsc(), before 6.12",
	  KV_OPEN, KV(6, 11), r_unsync_cpus_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one possible CPU: TSC marked unstable at boot" },
	{ "unsync-packages", "arch/x86/kernel/tsc.c unsynchronized_tsc(), 6.12+ (e7ff4ebffe3b)",
	  KV(6, 12), KV_OPEN, r_unsync_packages_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one package: TSC marked unstable at boot" },
	{ "tsc-warp", "arch/x86/kernel/tsc_sync.c check_tsc_sync_source()",
	  KV_OPEN, KV_OPEN, r_warp_applies, r_tsc_unstable,
	  "the probe saw TSC warps between CPUs: Linux's boot sync check turns the TSC off" },
};

const struct rule_step step_boot_unstable = {
	boot_unstable_rules, ARRAY_SIZE(boot_unstable_rules), NULL
};

/* ---- the clocksource watchdog ------------------------------------------------ */

/* The watchdog is the best-rated registered source that needs no
 * verification itself: everything but the TSC.  Registration is over by
 * now, so it is picked once for the whole step. */
static void pick_watchdog(const struct facts *f, struct model *m)
{
	int best = -1;

	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		if (s == VERDICT_SRC_TSC || !m->reg[s])
			continue;
		if (best < 0 || m->rating[s] > m->rating[best])
			best = s;
	}
	m->watchdog = best;
}

/* The first measured drift between the TSC and `name`, either way round. */
static const struct verdict_drift *drift_against(const struct facts *f, const char *name)
{
	const struct verdict_input *in = f->in;

	for (uint32_t i = 0; i < in->drift_count && i < VERDICT_MAX_DRIFT; i++) {
		const struct verdict_drift *d = &in->drift[i];
		if (!d->a || !d->b)
			continue;
		const char *tsc = verdict_source_name(VERDICT_SRC_TSC);
		if ((str_equal(d->a, tsc) && str_equal(d->b, name)) ||
		    (str_equal(d->b, tsc) && str_equal(d->a, name)))
			return d;
	}
	return NULL;
}

/* The drift that makes the watchdog reject the TSC, if any: beyond the
 * margin by more than the measurement's own uncertainty. */
static const struct verdict_drift *demoting_drift(const struct facts *f, const struct model *m)
{
	const struct verdict_drift *d = drift_against(f, verdict_source_name(m->watchdog));

	return d && beyond(d->ppm, WATCHDOG_SKEW_PPM, d->uncertainty_ppm) ? d : NULL;
}

static bool r_watchdog_reliable_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_reliable;
}

static void r_no_watchdog(const struct facts *f, struct model *m)
{
	m->tsc_must_verify = false;
}

static bool r_watchdog_adjust_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_must_verify && m->constant_tsc &&
	       m->nonstop_tsc && yes(f->in->tsc_adjust) && f->packages <= 4;
}

static bool r_watchdog_demote_applies(const struct facts *f, const struct model *m)
{
	if (!m->reg[VERDICT_SRC_TSC] || !m->tsc_must_verify || m->watchdog < 0)
		return false;
	if (demoting_drift(f, m))
		return true;
	return m->watchdog == VERDICT_SRC_ACPI_PM && f->in->gaps_measured &&
	       f->in->gap_max_ns >= ACPI_PM_WRAP_NS;
}

static void r_watchdog_demote(const struct facts *f, struct model *m)
{
	m->tsc_demoted = true;
	m->demoting_drift = demoting_drift(f, m);
}

static const struct rule watchdog_rules[] = {
	{ "watchdog-reliable", "arch/x86/kernel/tsc.c tsc_init(): tsc_clocksource_reliable",
	  KV_OPEN, KV_OPEN, r_watchdog_reliable_applies, r_no_watchdog,
	  "TSC reliable: no clocksource watchdog" },
	{ "watchdog-adjust", "arch/x86/kernel/tsc.c check_system_tsc_reliable(), 5.17+",
	  KV(5, 17), KV_OPEN, r_watchdog_adjust_applies, r_no_watchdog,
	  "CONSTANT+NONSTOP+TSC_ADJUST on <= 4 packages: no clocksource watchdog" },
	{ "watchdog-demote", "kernel/time/clocksource.c clocksource_watchdog()",
	  KV_OPEN, KV_OPEN, r_watchdog_demote_applies, r_watchdog_demote,
	  "the measured TSC skew against the watchdog clock is beyond its margin: expect the watchdog to mark tsc unstable" },
};

const struct rule_step step_watchdog = { watchdog_rules, ARRAY_SIZE(watchdog_rules), pick_watchdog };

/* With no HPET, the TSC under the watchdog is first checked against
 * refined-jiffies until acpi_pm registers (kernel/time/clocksource.c picks
 * the best non-MUST_VERIFY source as watchdog).  Jiffies lose ticks on a
 * vCPU that does not run steadily (TCG, heavy steal), so the TSC can look
 * 20% fast and be demoted to acpi_pm before acpi_pm takes the watchdog
 * over.  Seen with Debian's 6.1 and 6.12 on QEMU TCG q35,hpet=off -smp 1:
 * 3 of 6 boots each way ("skewed 80233346 ns over watchdog
 * 'refined-jiffies'", tests/linux/README.md).  A race, not a rule: the
 * prediction stays, its confidence drops and the reason says why. */
void note_jiffies_watchdog_race(const struct facts *f, struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	bool unsteady = f->plat == PLAT_TCG ||
			(in->gaps_measured && in->gap_window_ms &&
			 in->gap_total_ns * 100 >= (uint64_t)in->gap_window_ms * 1000000);
	if (m->chosen != VERDICT_SRC_TSC || !m->tsc_must_verify || !unsteady ||
	    in->sources[VERDICT_SRC_HPET].present == VERDICT_YES)
		return;
	m->conf = VERDICT_CONFIDENCE_LOW;
	add_reason(v, "no HPET: until acpi_pm registers, the TSC is checked against refined-jiffies, "
		      "which loses ticks on an unsteady vCPU; the TSC may be demoted to acpi_pm at boot",
		   "kernel/time/clocksource.c clocksource_watchdog(); seen on QEMU TCG hpet=off");
}
