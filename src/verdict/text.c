/* The verdict in words for people: number formats, the "why" evidence, the
 * summary's one/two-liner, and the names of the enums (the only place
 * severities and confidences become strings). */
#include "verdict_model.h"

const char *verdict_severity_name(enum verdict_severity s)
{
	static const char *const names[] = {
		[VERDICT_INFO] = "info",
		[VERDICT_WARNING] = "warning",
		[VERDICT_CRITICAL] = "critical",
	};
	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "?";
}

const char *verdict_confidence_name(enum verdict_confidence c)
{
	static const char *const names[] = {
		[VERDICT_CONFIDENCE_HIGH] = "high",
		[VERDICT_CONFIDENCE_MEDIUM] = "medium",
		[VERDICT_CONFIDENCE_LOW] = "low",
	};
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

void sb_ns(struct strbuf *sb, uint64_t ns_milli)
{
	/* one decimal below 10 ns, whole ns below 10 us, then us and ms */
	if (ns_milli < 10000) {
		sb_fixed(sb, (int64_t)(ns_milli / 100), 1);
		sb_str(sb, " ns");
	} else if (ns_milli < 10000000) {
		sb_u64(sb, (ns_milli + 500) / 1000);
		sb_str(sb, " ns");
	} else if (ns_milli < 10000000000ull) {
		sb_fixed(sb, (int64_t)((ns_milli + 50000) / 100000), 1);
		sb_str(sb, " us");
	} else {
		sb_fixed(sb, (int64_t)((ns_milli + 50000000) / 100000000), 1);
		sb_str(sb, " ms");
	}
}

/* "= 140x a TSC read" when both costs are known. */
void sb_ratio(struct strbuf *sb, uint64_t num_milli, uint64_t den_milli)
{
	if (!num_milli || !den_milli)
		return;
	uint64_t tenths = mul_div_u64(num_milli, 10, den_milli);
	if (tenths >= 100)
		sb_u64(sb, (tenths + 5) / 10);
	else
		sb_fixed(sb, (int64_t)tenths, 1);
	sb_str(sb, "x a TSC read");
}

/* "612 ppm", or "612 +/- 155 ppm" when the uncertainty is known (ASCII:
 * the JSON writer escapes anything else). */
void sb_ppm(struct strbuf *sb, int64_t ppm, uint64_t uncertainty_ppm)
{
	sb_i64(sb, ppm);
	if (uncertainty_ppm) {
		sb_str(sb, " +/- ");
		sb_u64(sb, uncertainty_ppm);
	}
	sb_str(sb, " ppm");
}

/* 26000 -> "26,000": the summary is read by people. */
static void sb_u64_grouped(struct strbuf *sb, uint64_t v)
{
	char digits[20];
	size_t n = u64_to_decimal(v, digits);

	for (size_t i = 0; i < n; i++) {
		sb_char(sb, digits[i]);
		if (i + 1 < n && (n - i - 1) % 3 == 0)
			sb_char(sb, ',');
	}
}

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

/* The first critical warning, else the first warning; info never leads. */
static const struct verdict_warning *headline_warning(const struct verdict *v)
{
	static const enum verdict_severity order[] = { VERDICT_CRITICAL, VERDICT_WARNING };

	for (size_t o = 0; o < ARRAY_SIZE(order); o++)
		for (uint32_t i = 0; i < v->warning_count; i++)
			if (v->warnings[i].severity == order[o])
				return &v->warnings[i];
	return NULL;
}

void verdict_summary_line(const struct verdict *v, char *buf, size_t cap)
{
	struct strbuf sb;
	const struct verdict_warning *w = headline_warning(v);

	sb_init(&sb, buf, cap);
	sb_str(&sb, "A Linux ");
	sb_str(&sb, v->linux_kernel);
	sb_str(&sb, " guest here will use ");
	sb_str(&sb, v->linux_clocksource);
	sb_str(&sb, v->vdso ? " (vDSO)" : " (no vDSO)");
	if (v->read_cost_measured) {
		uint64_t ns = (v->predicted_read_ns_milli + 500) / 1000;
		sb_str(&sb, ": ~");
		if (ns)
			sb_u64_grouped(&sb, ns);
		else
			sb_fixed(&sb, (int64_t)(v->predicted_read_ns_milli / 100), 1);
		sb_str(&sb, " ns per clock read");
		if (!v->vdso) {
			sb_str(&sb, " (incl. ~");
			sb_u64(&sb, v->syscall_overhead_ns_estimate);
			sb_str(&sb, " ns estimated syscall)");
		}
		if (v->tsc_read_ns_milli && !str_equal(v->linux_clocksource, verdict_source_name(VERDICT_SRC_TSC))) {
			sb_str(&sb, ", ~");
			sb_ratio(&sb, v->predicted_read_ns_milli, v->tsc_read_ns_milli);
		}
	} else {
		sb_str(&sb, ": read cost not measured");
	}
	sb_str(&sb, ". Why: ");
	sb_str(&sb, v->why_text[0] ? v->why_text : v->why);
	if (w && w->fix_brief) {
		sb_str(&sb, ". Fix: ");
		sb_str(&sb, w->fix_brief);
	}
	sb_char(&sb, '.');
}
