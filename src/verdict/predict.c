/* One kernel version's outcome: the rule steps run in Linux's boot order,
 * then the highest-rated usable clocksource wins. */
#include "verdict_model.h"

/* Linux's order: capability flags, tsc_khz, registration, instability at
 * boot, the watchdog.  Selection follows in select_source(). */
static const struct rule_step *const steps[] = {
	&step_cpu_flags, &step_tsc_khz, &step_register, &step_boot_unstable, &step_watchdog,
};

static bool rule_in_range(const struct rule *r, unsigned kver)
{
	if (!kernel_has(kver, r->since, r->backported))
		return false;
	if (r->until != KV_OPEN && kver > r->until)
		return false;
	return true;
}

static void run_rules(const struct facts *f, struct model *m)
{
	for (size_t s = 0; s < ARRAY_SIZE(steps); s++) {
		const struct rule_step *step = steps[s];
		if (step->enter)
			step->enter(f, m);
		for (size_t i = 0; i < step->count; i++) {
			const struct rule *r = &step->rules[i];
			if (!rule_in_range(r, m->kver) || !r->applies(f, m))
				continue;
			r->apply(f, m);
			add_reason(m->explain, r->why, r->cite);
		}
	}
}

static bool source_usable(const struct model *m, int s)
{
	if (!m->reg[s])
		return false;
	return !(s == VERDICT_SRC_TSC && (m->tsc_unstable || m->tsc_demoted));
}

static bool source_has_vdso(const struct model *m, int s)
{
	switch (s) {
	case VERDICT_SRC_TSC:
		return true;
	case VERDICT_SRC_KVMCLOCK:
	case VERDICT_SRC_XEN:
		return m->pv_vdso;
	case VERDICT_SRC_HV_TSC_PAGE:
		return m->hv_page_vdso;
	default:
		return false;
	}
}

static const char *select_note(const struct facts *f, const struct model *m)
{
	if (m->chosen == VERDICT_SRC_TSC) {
		if (m->reg[VERDICT_SRC_KVMCLOCK] &&
		    m->rating[VERDICT_SRC_KVMCLOCK] == RATING_KVMCLOCK_INVARIANT)
			return "kvm-clock lowered to 299 (invariant TSC, 5.1+): tsc wins";
		if (m->reg[VERDICT_SRC_HV_TSC_PAGE] &&
		    m->rating[VERDICT_SRC_HV_TSC_PAGE] == RATING_HV_TSC_PAGE_INVARIANT)
			return "Hyper-V TSC page lowered to 250 (TSC invariant control, 5.6+): tsc wins";
		if (m->tsc_sync_skipped)
			return "tsc (300) wins: TSC_ADJUST skips the boot sync test, but the TSC warps between CPUs (time can go backwards)";
		if (m->reg[VERDICT_SRC_XEN] && m->rating[VERDICT_SRC_XEN] == RATING_XEN_SAFE_TSC)
			return "xen lowered to 299 (stable TSC, never emulated, 6.3+): tsc wins";
		if (m->tsc_must_verify)
			return "tsc (300) wins; the clocksource watchdog keeps checking it";
		return "tsc (300) wins";
	}
	if (m->tsc_demoted)
		return m->demote_reason ? m->demote_reason : "the watchdog is expected to mark tsc unstable";
	if (m->tsc_unstable && tsc_present(f)) {
		if (!m->tsc_khz_known)
			return "TSC frequency unknown: TSC not registered";
		if (f->plat == PLAT_HYPERV && (m->kver < KV(5, 5) || !yes(f->in->hv_tsc_invariant_control)))
			return "Hyper-V without TSC invariant control: TSC marked unstable (\"running on Hyper-V\")";
		if (f->in->xcpu_warps && !m->tsc_reliable)
			return "TSC warps between CPUs: boot sync check turns it off";
		return m->kver >= KV(6, 12) ?
			       "TSC unsynchronized: non-Intel, no CONSTANT_TSC, >1 package" :
			       "TSC unsynchronized: non-Intel, no CONSTANT_TSC, >1 possible CPU";
	}
	if (m->chosen == VERDICT_SRC_KVMCLOCK)
		return m->rating[VERDICT_SRC_KVMCLOCK] == RATING_KVMCLOCK ?
			       "kvm-clock (400) beats tsc (300)" :
			       "kvm-clock is the best stable source";
	if ((m->chosen == VERDICT_SRC_HV_TSC_PAGE || m->chosen == VERDICT_SRC_HV_MSR) &&
	    yes(f->in->hv_tsc_invariant_control) && m->kver < KV(5, 13))
		/* 5.5-5.12: Linux enables invariant TSC (dce7cd62754b) but
		 * lowers the Hyper-V ratings only from 5.13 */
		return "Hyper-V clocksource rated above tsc: TSC invariant control is used (5.5+), "
		       "but the Hyper-V ratings are lowered only from 5.13";
	if (m->chosen == VERDICT_SRC_HV_TSC_PAGE || m->chosen == VERDICT_SRC_HV_MSR)
		return "Hyper-V clocksource rated above tsc (no TSC invariant control)";
	if (m->chosen == VERDICT_SRC_XEN)
		return "xen (400) beats tsc (300)";
	if (m->chosen == VERDICT_SRC_HV_TSC_PAGE && m->rating[VERDICT_SRC_HV_TSC_PAGE] == RATING_HV_5_6)
		return "Hyper-V clocksource at 250 (5.6-5.12) is the best stable source";
	return "best remaining source";
}

/* clocksource_select(): the highest rating among usable sources. */
static void select_source(const struct facts *f, struct model *m)
{
	m->chosen = -1;
	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		if (!source_usable(m, s))
			continue;
		if (m->chosen < 0 || rates_above(m, s, m->chosen))
			m->chosen = s;
	}
	m->vdso = m->chosen >= 0 && source_has_vdso(m, m->chosen);
	if (m->chosen == VERDICT_SRC_TSC && m->tsc_must_verify)
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
	m->note = select_note(f, m);
}

void predict(const struct facts *f, unsigned kver, struct verdict *explain, struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->kver = kver;
	m->watchdog = -1;
	m->explain = explain;
	m->risk_chosen = -1;
	judge_boot(f, m);
	if (m->no_boot) {
		/* Linux never gets to pick a clocksource here. */
		m->chosen = -1;
		m->note = m->boot_reason;
		add_reason(explain, m->boot_reason, m->boot_cite);
		return;
	}
	run_rules(f, m);
	select_source(f, m);
	tsc_race(f, m);
	m->risk_chosen = -1;
	if (m->risk_code) {
		/* what clocksource_select() takes once the TSC is unstable */
		struct model lost = *m;
		lost.tsc_demoted = true;
		select_source(f, &lost);
		m->risk_chosen = lost.chosen;
		m->risk_vdso = lost.vdso;
	}
}

const char *chosen_name(const struct model *m)
{
	if (m->no_boot)
		return "none";
	return m->chosen >= 0 ? verdict_source_name(m->chosen) : "jiffies";
}

/* The longest reasoning line a rule can write: its text, " [", the
 * citation and "]" (add_reason()), with the terminating NUL. */
size_t verdict_longest_rule_text(void)
{
	size_t longest = 0;

	for (size_t s = 0; s < ARRAY_SIZE(steps); s++)
		for (size_t i = 0; i < steps[s]->count; i++) {
			const struct rule *r = &steps[s]->rules[i];
			size_t n = str_len(r->why) + 1 + (r->cite ? str_len(r->cite) + 3 : 0);
			longest = MAX(longest, n);
		}
	return longest;
}
