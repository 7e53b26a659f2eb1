/* The verdict in words for people: the "why" evidence and the summary's
 * one/two-liner (the number formats and enum names are in format.c). */
#include "verdict_model.h"

/* Why the TSC and the paravirt clocks are out of the race, in a few words. */
void evidence_why_not_better(struct strbuf *sb, const struct facts *f, const struct model *m)
{
	const struct verdict_input *in = f->in;

	sb_str(sb, yes(in->invariant_tsc) ? "invariant TSC" : "no invariant TSC");
	if (m->tsc_unstable && tsc_present(f)) {
		sb_str(sb, " (");
		sb_str(sb, m->note);
		if (!f->intel && !m->constant_tsc && m->tsc_khz_known && !in->xcpu_warps) {
			sb_str(sb, "; ");
			sb_u64(sb, f->possible);
			sb_str(sb, " possible CPUs in ");
			sb_u64(sb, f->packages);
			sb_str(sb, " package(s)");
		}
		sb_char(sb, ')');
	}
	if (m->tsc_demoted) {
		sb_str(sb, " (watchdog expected to reject tsc");
		/* Only with an uncertainty: older reports stay byte for byte. */
		const struct verdict_drift *d = m->demoting_drift;
		if (d && d->uncertainty_ppm && m->watchdog >= 0) {
			sb_str(sb, ": ");
			sb_ppm(sb, d->ppm, d->uncertainty_ppm);
			sb_str(sb, " against ");
			sb_str(sb, verdict_source_name(m->watchdog));
		}
		sb_char(sb, ')');
	}
	sb_str(sb, "; ");
	if (f->plat == PLAT_KVM)
		sb_str(sb, f->kvmclock_advertised ? "kvm-clock advertised" :
						    "KVM signature but kvm-clock not advertised");
	else if (f->plat == PLAT_HIDDEN)
		sb_str(sb, "hypervisor bit set but no signature (paravirt hidden)");
	else if (f->plat == PLAT_TCG)
		sb_str(sb, "QEMU TCG: no paravirt clock");
	else
		sb_str(sb, "kvm-clock not advertised");
	sb_str(sb, "; ");
	sb_str(sb, f->has[VERDICT_SRC_HPET] ? "HPET present" : "no HPET");
}

/* "6.12" -> KV(6, 12); era names only, so no error handling needed. */
static unsigned parse_kv(const char *s)
{
	unsigned major = 0, minor = 0, *part = &major;

	for (int i = 0; s[i] && i < 8; i++) {
		if (s[i] == '.')
			part = &minor;
		else
			*part = *part * 10 + (unsigned)(s[i] - '0');
	}
	return KV(major, minor);
}

/* The summary's "Why": what pushed Linux off the TSC, or the decisive
 * rule; plus what older kernels do when they choose a slow source. */
void fill_why_text(const struct facts *f, const struct model *m, struct verdict *v)
{
	struct strbuf sb;

	sb_init(&sb, v->why_text, sizeof(v->why_text));
	if (m->chosen != VERDICT_SRC_TSC && !m->vdso && tsc_present(f))
		evidence_why_not_better(&sb, f, m);
	else
		sb_str(&sb, m->note);
	const struct verdict_warning *w = verdict_find_warning(v, "KERNEL_DEPENDENT");
	if (!w || w->severity != VERDICT_WARNING)
		return;
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (!slow_source(r->linux_clocksource))
			continue;
		sb_str(&sb, "; kernels ");
		sb_str(&sb, r->from);
		sb_char(&sb, '-');
		sb_str(&sb, r->to ? r->to : "newest");
		if (parse_kv(r->from) <= KV(6, 1) && (!r->to || parse_kv(r->to) >= KV(6, 1)))
			sb_str(&sb, ", Debian 12's 6.1 among them,");
		sb_str(&sb, " use ");
		sb_str(&sb, r->linux_clocksource);
		break;
	}
}

/* ---- the headline over the kernel set ---------------------------------- */

static bool range_in_set(const struct verdict *v, const struct verdict_kernel_range *r)
{
	for (size_t i = r->first; i <= r->last; i++)
		if (verdict_kernel_set_has(&v->kernel_set, i))
			return true;
	return false;
}

/* "4.19-6.11", "7.1+" (the open range), "6.1" (one release). */
static void sb_range(struct strbuf *sb, const struct verdict_kernel_range *r)
{
	sb_str(sb, r->from);
	if (!r->to) {
		sb_char(sb, '+');
	} else if (!str_equal(r->to, r->from)) {
		sb_char(sb, '-');
		sb_str(sb, r->to);
	}
}

static bool range_has(const struct verdict_kernel_range *r, unsigned kv)
{
	return parse_kv(r->from) <= kv && (!r->to || parse_kv(r->to) >= kv);
}

/* Worse for a reader: a syscall source, no vDSO, a higher read cost. */
static bool range_worse(const struct verdict_kernel_range *a, const struct verdict_kernel_range *b)
{
	bool sa = slow_source(a->linux_clocksource), sb = slow_source(b->linux_clocksource);

	/* a kernel that cannot start the guest is worse than any clock */
	if (a->boots != b->boots)
		return !a->boots;
	if (sa != sb)
		return sa;
	if (a->vdso != b->vdso)
		return !a->vdso;
	return a->predicted_read_ns_milli > b->predicted_read_ns_milli;
}

/* "hpet 135.0+-5.3 ns + syscall 50-300 ns (not measured)": the measured
 * read with its SE, and the syscall the measurement lacks as its range
 * (the range once a line: *syscall_said).  predicted_read_ns, which adds
 * the 150 ns estimate, is never shown as if it were measured. */
static void sb_choice(struct strbuf *sb, const struct verdict *v, const struct verdict_kernel_range *r,
		      bool *syscall_said)
{
	if (!r->boots) {
		sb_str(sb, "cannot boot the guest (");
		sb_str(sb, r->boots_from ? r->boots_from : "?");
		sb_str(sb, "+ can)");
		return;
	}
	sb_str(sb, r->linux_clocksource);
	if (!r->read_cost_measured)
		return;
	sb_char(sb, ' ');
	sb_ns_se(sb, r->measured_read_ns_milli, r->measured_read_se_ns_milli);
	if (r->syscall_added) {
		sb_unmeasured_term(sb, "syscall", v->syscall_overhead_ns_low, v->syscall_overhead_ns_high,
				   *syscall_said);
		*syscall_said = true;
	}
}

/* The set's newest range and its worst; false when the set touches none
 * (a verdict without by_kernel). */
static bool set_ranges(const struct verdict *v, const struct verdict_kernel_range **newest,
		       const struct verdict_kernel_range **worst)
{
	*newest = *worst = NULL;
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (!range_in_set(v, r))
			continue;
		*newest = r;
		if (!*worst || range_worse(r, *worst))
			*worst = r;
	}
	return *newest != NULL;
}

void verdict_summary_line(const struct verdict *v, char *buf, size_t cap)
{
	const struct verdict_kernel_range *newest, *worst;
	struct strbuf sb;
	bool syscall_said = false;

	sb_init(&sb, buf, cap);
	if (!set_ranges(v, &newest, &worst)) {
		sb_str(&sb, "Linux ");
		sb_str(&sb, v->linux_kernel);
		sb_str(&sb, ": ");
		sb_str(&sb, v->linux_clocksource);
		sb_str(&sb, " - confidence ");
		sb_str(&sb, verdict_confidence_name(v->confidence));
		return;
	}
	sb_str(&sb, "Linux ");
	sb_range(&sb, newest);
	sb_str(&sb, ": ");
	sb_choice(&sb, v, newest, &syscall_said);
	if (!worst->boots && newest->boots) {
		/* the releases of the set that cannot boot it, as one span */
		size_t lo = SIZE_MAX, hi = 0;
		for (uint32_t i = 0; i < v->by_kernel_count; i++) {
			const struct verdict_kernel_range *r = &v->by_kernel[i];
			if (r->boots || !range_in_set(v, r))
				continue;
			lo = MIN(lo, (size_t)r->first);
			hi = MAX(hi, (size_t)r->last);
		}
		sb_str(&sb, newest->read_cost_measured ? " per read" : " (read cost not measured)");
		sb_str(&sb, "; ");
		sb_str(&sb, verdict_release_name(lo));
		if (hi != lo) {
			sb_char(&sb, '-');
			sb_str(&sb, verdict_release_name(hi));
		}
		sb_str(&sb, ": ");
		sb_choice(&sb, v, worst, &syscall_said);
		sb_str(&sb, " - confidence ");
		sb_str(&sb, verdict_confidence_name((enum verdict_confidence)newest->confidence));
		return;
	}
	if (worst != newest && (!str_equal(worst->linux_clocksource, newest->linux_clocksource) ||
				worst->vdso != newest->vdso || worst->boots != newest->boots)) {
		sb_str(&sb, "; ");
		sb_range(&sb, worst);
		if (range_has(worst, KV(6, 1)))
			sb_str(&sb, " (Debian 12's 6.1)");
		sb_str(&sb, ": ");
		sb_choice(&sb, v, worst, &syscall_said);
	}
	sb_str(&sb, newest->read_cost_measured || worst->read_cost_measured ? " per read" : " (read cost not measured)");
	sb_str(&sb, " - confidence ");
	sb_str(&sb, verdict_confidence_name((enum verdict_confidence)newest->confidence));
}

bool verdict_summary_risk(const struct verdict *v, char *buf, size_t cap)
{
	const struct verdict_kernel_range *newest, *worst;
	struct strbuf sb;

	sb_init(&sb, buf, cap);
	if (!set_ranges(v, &newest, &worst) || !newest->risk.reason)
		return false;
	sb_str(&sb, "Risk (");
	sb_range(&sb, newest);
	sb_str(&sb, "): ");
	sb_str(&sb, newest->risk.note);
	sb_str(&sb, "; then ");
	sb_str(&sb, newest->risk.linux_clocksource);
	sb_str(&sb, newest->risk.vdso ? " (vDSO)" : " (no vDSO)");
	/* other ranges of the set that can lose a race of another kind */
	bool first = true;
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (r == newest || !r->risk.reason || !range_in_set(v, r) ||
		    str_equal(r->risk.reason, newest->risk.reason))
			continue;
		sb_str(&sb, first ? "; also " : ", ");
		first = false;
		sb_range(&sb, r);
		sb_str(&sb, ": ");
		sb_str(&sb, r->risk.reason);
	}
	return true;
}

/* The fix of a range's heaviest warning that has one (critical first). */
static const char *range_fix(const struct verdict_kernel_range *r, bool critical_only)
{
	for (int sev = VERDICT_CRITICAL; sev >= (critical_only ? VERDICT_CRITICAL : VERDICT_WARNING); sev--)
		for (uint32_t w = 0; w < r->warning_count; w++)
			if (r->warning_severity[w] == sev && r->warning_fix_brief[w])
				return r->warning_fix_brief[w];
	return NULL;
}

bool verdict_summary_fix(const struct verdict *v, char *buf, size_t cap)
{
	const struct verdict_kernel_range *newest, *worst;
	const char *fix = NULL;
	struct strbuf sb;

	sb_init(&sb, buf, cap);
	if (!set_ranges(v, &newest, &worst))
		return false;
	/* Something to fix: a kernel of the set on a syscall source, or a
	 * critical warning anywhere in the set. */
	const struct verdict_kernel_range *at = worst;
	if (slow_source(worst->linux_clocksource))
		fix = range_fix(worst, false);
	for (uint32_t i = 0; !fix && i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (range_in_set(v, r) && (fix = range_fix(r, true)) != NULL)
			at = r;
	}
	if (!fix)
		return false;
	sb_str(&sb, "Fix (");
	sb_range(&sb, at);
	sb_str(&sb, "): ");
	sb_str(&sb, fix);
	return true;
}

/* ---- the result line ------------------------------------------------------ */

const char *verdict_result_name(enum verdict_result r)
{
	static const char *const names[] = {
		[VERDICT_RESULT_PASSED] = "PASSED",
		[VERDICT_RESULT_WARNING] = "WARNING",
		[VERDICT_RESULT_FAILED] = "FAILED",
		[VERDICT_RESULT_UNJUDGED] = "UNJUDGED",
	};
	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "?";
}

/* The rule of clockprobe compare --fail-on SEVERITY with the report's own
 * kernel set (scripts/cptools/judgment.py Judgment.hits over the by_kernel
 * ranges the set touches, policy.py FailOn.matches): a range's warning
 * hits a severity when it is that severity or heavier.  FAILED: --fail-on
 * critical would exit 3; WARNING: only --fail-on warning would; PASSED:
 * neither.  The first hit in by_kernel order (oldest range first, a
 * range's warnings heaviest first) is named, the rest counted.  The word
 * leads the line so a script can take it with one match:
 * "RESULT: FAILED (ACPI_PM_FALLBACK critical for Linux 4.19-6.11, and 2
 * more over kernels lts)". */
/* "lts", "all", or the releases of a list ("6.1,6.18"), as kernels= and
 * --kernels take them. */
static void sb_kernel_set(struct strbuf *sb, const struct verdict *v)
{
	const char *name = verdict_kernel_set_name(&v->kernel_set);
	if (!str_equal(name, "list")) {
		sb_str(sb, name);
		return;
	}
	bool first = true;
	for (size_t i = 0; i < verdict_release_count(); i++)
		if (verdict_kernel_set_has(&v->kernel_set, i)) {
			if (!first)
				sb_char(sb, ',');
			first = false;
			sb_str(sb, verdict_release_name(i));
		}
}

enum verdict_result verdict_result_line(const struct verdict *v, char *buf, size_t cap)
{
	struct strbuf sb;
	int worst = -1;
	bool any = false;

	sb_init(&sb, buf, cap);
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (!range_in_set(v, r))
			continue;
		any = true;
		for (uint32_t w = 0; w < r->warning_count; w++)
			worst = MAX(worst, (int)r->warning_severity[w]);
	}
	sb_str(&sb, "RESULT: ");
	if (!any) {
		sb_str(&sb, verdict_result_name(VERDICT_RESULT_UNJUDGED));
		sb_str(&sb, " (the verdict judged none of kernels ");
		sb_kernel_set(&sb, v);
		sb_char(&sb, ')');
		return VERDICT_RESULT_UNJUDGED;
	}
	if (worst < VERDICT_WARNING) {
		sb_str(&sb, verdict_result_name(VERDICT_RESULT_PASSED));
		sb_str(&sb, " (no warning or critical over kernels ");
		sb_kernel_set(&sb, v);
		sb_char(&sb, ')');
		return VERDICT_RESULT_PASSED;
	}
	enum verdict_result res = worst >= VERDICT_CRITICAL ? VERDICT_RESULT_FAILED : VERDICT_RESULT_WARNING;
	const struct verdict_kernel_range *first_r = NULL;
	uint32_t first_w = 0, hits = 0;
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (!range_in_set(v, r))
			continue;
		for (uint32_t w = 0; w < r->warning_count; w++) {
			if (r->warning_severity[w] < worst)
				continue;
			if (!hits++) {
				first_r = r;
				first_w = w;
			}
		}
	}
	sb_str(&sb, verdict_result_name(res));
	sb_str(&sb, " (");
	sb_str(&sb, first_r->warning_codes[first_w] ? first_r->warning_codes[first_w] : "?");
	sb_char(&sb, ' ');
	sb_str(&sb, verdict_severity_name((enum verdict_severity)first_r->warning_severity[first_w]));
	sb_str(&sb, " for Linux ");
	sb_range(&sb, first_r);
	if (hits > 1) {
		sb_str(&sb, ", and ");
		sb_u64(&sb, hits - 1);
		sb_str(&sb, " more");
	}
	sb_str(&sb, " over kernels ");
	sb_kernel_set(&sb, v);
	sb_char(&sb, ')');
	return res;
}
