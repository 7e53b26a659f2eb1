/* verdict_decide(): the main kernel's prediction with its reasoning, the
 * per-era predictions for by_kernel[], what a user would see in sysfs, the
 * predicted read cost, then the warnings and the summary's "why". */
#include "verdict_model.h"

/* The main prediction is for the newest long-term release, 6.18 on
 * 2026-11-30 (designated in December 2025; 7.3, the candidate for 2026,
 * was at -rc7); the kernel= setting picks another. */
#define MAIN_KERNEL KV(6, 18)

/* Typical cost of entering and leaving the kernel for clock_gettime() on a
 * current x86-64 kernel with the usual speculation mitigations: an
 * estimate, not something the probe measures (it runs with no kernel to
 * call).  50-300 ns is the span seen in practice (mitigations off to
 * on); the headline states that span beside the measured read instead of
 * adding the one figure (docs/verdict-rules.md, "vDSO per source"). */
#define SYSCALL_OVERHEAD_NS_ESTIMATE 150u
#define SYSCALL_OVERHEAD_NS_LOW 50u
#define SYSCALL_OVERHEAD_NS_HIGH 300u

/* ---- facts that lower confidence ---------------------------------------- */

static void note_unknowns(const struct facts *f, struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (in->vendor == VERDICT_VENDOR_UNKNOWN || f->plat == PLAT_UNKNOWN) {
		m->conf = VERDICT_CONFIDENCE_LOW;
		add_reason(v, "CPU vendor or hypervisor unknown: the prediction is a guess", NULL);
	}
	if (in->invariant_tsc == VERDICT_UNKNOWN) {
		m->conf = VERDICT_CONFIDENCE_LOW;
		add_reason(v, "invariant TSC bit unknown: assumed absent", NULL);
	}
	if (!f->intel && !m->constant_tsc && !m->tsc_reliable) {
		if (f->possible_guessed) {
			cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
			add_reason(v, "possible CPUs (MADT) unknown: running CPUs used instead", NULL);
		}
		if (f->packages_guessed) {
			cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
			add_reason(v, "package count unknown: assumed 1 (QEMU >= 6.2 puts -smp N in one socket)",
				   NULL);
		}
	}
	if (!in->numa_nodes && m->constant_tsc && m->nonstop_tsc && yes(in->tsc_adjust) &&
	    m->kver >= KV(5, 16) && m->kver < KV(6, 12) && !m->tsc_reliable)
		add_reason(v, "NUMA nodes unknown (no SRAT read): taken as 1 for the TSC_ADJUST watchdog exemption",
			   NULL);
	if (in->sources[VERDICT_SRC_HPET].present == VERDICT_UNKNOWN)
		add_reason(v, "HPET presence unknown: counted as absent", NULL);
	else if (no(in->sources[VERDICT_SRC_HPET].present))
		add_reason(v, "no HPET: nothing between the TSC and acpi_pm", NULL);
	if (f->plat == PLAT_HYPERV && yes(in->hv_root)) {
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
		add_reason(v, "Hyper-V root partition's view (0x40000003 EBX[0] CreatePartitions): a guest of "
			      "this host gets its own privilege mask; predicted for a guest offered the same", NULL);
	}
	if (f->plat == PLAT_HIDDEN)
		add_reason(v, "hypervisor bit set but no signature: Linux sees no KVM, so no kvm-clock", NULL);
	if (f->plat == PLAT_KVM && !f->kvmclock_advertised)
		add_reason(v, "KVM signature without kvm-clock feature bits: no kvm-clock", NULL);
	if (no(in->invariant_tsc) && !m->tsc_reliable)
		add_reason(v, "no invariant TSC (CPUID 0x80000007 EDX[8] = 0)", NULL);
	if (in->xcpu_not_coscheduled && !in->xcpu_warps) {
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
		add_reason(v, "the vCPUs did not run together in the cross-CPU test: no warp seen proves less, "
			      "confidence at most medium", NULL);
	}
	if (in->xcpu_tested < 2 && f->possible > 1)
		add_reason(v, "cross-CPU TSC test did not cover 2+ CPUs: no warp evidence either way",
			   NULL);
}

/* An empty harness that costs more than it should (a trapping RDTSC, say)
 * is subtracted from every read: the costs, and the read paths judged from
 * them, cannot be trusted as much as the rules' inputs need. */
static void note_harness_anomaly(const struct facts *f, struct model *m, struct verdict *v)
{
	char line[VERDICT_REASON_LEN];
	struct strbuf sb;

	if (!f->in->harness_anomaly)
		return;
	cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
	sb_init(&sb, line, sizeof(line));
	sb_str(&sb, "measured read costs are distorted: the empty measurement harness looked wrong (");
	sb_str(&sb, f->in->harness_anomaly_reason ? f->in->harness_anomaly_reason : "no reason given");
	sb_str(&sb, "); confidence at most medium");
	add_reason(v, line, NULL);
	if (!f->in->vcpu_emulated)
		return;
	/* What a guest pays here is the emulation itself. */
	sb_init(&sb, line, sizeof(line));
	sb_str(&sb, "this hypervisor emulates the guest's every instruction (");
	sb_u64(&sb, (f->in->insn_ps + 500) / 1000);
	sb_str(&sb, " ns each, a hardware core under 1 ns): a Linux guest here pays that on every instruction, "
		    "its clock reads included, and the read costs above are dominated by it");
	add_reason(v, line, NULL);
}

/* ---- by_kernel ---------------------------------------------------------- */

static void fill_available(const struct model *m, char *out, size_t cap);

static void fill_risk(const struct model *m, struct verdict_risk *r)
{
	memset(r, 0, sizeof(*r));
	if (!m->risk_code)
		return;
	struct model lost = *m;
	lost.tsc_demoted = true;
	r->reason = m->risk_code;
	r->note = m->risk_note;
	r->linux_clocksource = m->risk_chosen >= 0 ? verdict_source_name(m->risk_chosen) : "jiffies";
	r->vdso = m->risk_vdso;
	fill_available(&lost, r->available_clocksource, sizeof r->available_clocksource);
}

static bool same_risk(const struct verdict_risk *a, const struct verdict_risk *b)
{
	if (!a->reason || !b->reason)
		return !a->reason && !b->reason;
	return str_equal(a->reason, b->reason) && str_equal(a->linux_clocksource, b->linux_clocksource) &&
	       str_equal(a->available_clocksource, b->available_clocksource);
}

/* The ranges of clocksource, vDSO, what sysfs lists and risk alone:
 * what KERNEL_DEPENDENT reads, and the by_kernel of every judged release's
 * warnings, so that each is judged exactly as the main kernel is. */
static void fill_base_ranges(const struct facts *f, struct verdict *v)
{
	struct verdict_kernel_range *last = NULL;

	v->by_kernel_count = 0;
	for (size_t i = 0; i < release_count(); i++) {
		struct model m;
		char available[VERDICT_AVAILABLE_LEN];
		struct verdict_risk risk;
		predict(f, release_kv(i), NULL, &m);
		fill_available(&m, available, sizeof available);
		fill_risk(&m, &risk);
		const char *name = chosen_name(&m);
		if (last && str_equal(last->linux_clocksource, name) && last->vdso == m.vdso &&
		    str_equal(last->available_clocksource, available) && same_risk(&last->risk, &risk) &&
		    last->boots == !m.no_boot && str_equal(last->boot_reason ? last->boot_reason : "",
							     m.boot_reason ? m.boot_reason : "")) {
			last->to = i + 1 < release_count() ? verdict_release_name(i) : NULL;
			last->last = (uint8_t)i;
			continue;
		}
		if (v->by_kernel_count >= VERDICT_MAX_RANGES)
			break;
		last = &v->by_kernel[v->by_kernel_count++];
		memset(last, 0, sizeof *last);
		last->from = verdict_release_name(i);
		last->to = i + 1 < release_count() ? verdict_release_name(i) : NULL;
		last->first = last->last = (uint8_t)i;
		last->linux_clocksource = name;
		last->vdso = m.vdso;
		last->note = m.note;
		str_copy(last->available_clocksource, sizeof last->available_clocksource, available);
		last->risk = risk;
		last->boots = !m.no_boot;
		last->boot_reason = m.boot_reason;
		last->boots_from = m.boots_from;
	}
}

static void predicted_cost(const struct verdict_input *in, const struct model *m,
			   struct verdict *v);

/* One release judged as the main kernel is: the same rules, doubts and
 * warnings, into a scratch verdict (static: it is large, and the probe's
 * stack is not).  Fills one range's outcome. */
static struct verdict scratch;

static void judge_release(const struct facts *f, size_t i, const struct verdict *base,
			  struct verdict_kernel_range *r)
{
	struct verdict *s = &scratch;
	struct model m;

	memset(s, 0, sizeof *s);
	s->inputs = *f->in;
	s->linux_kernel = verdict_release_name(i);
	predict(f, release_kv(i), s, &m);
	note_unknowns(f, &m, s);
	note_harness_anomaly(f, &m, s);
	note_tsc_race(f, &m, s);
	s->linux_clocksource = chosen_name(&m);
	s->vdso = m.vdso;
	predicted_cost(f->in, &m, s);
	memcpy(s->by_kernel, base->by_kernel, sizeof s->by_kernel);
	s->by_kernel_count = base->by_kernel_count;
	add_warnings(f, &m, s);

	memset(r, 0, sizeof *r);
	r->from = verdict_release_name(i);
	r->to = i + 1 < release_count() ? verdict_release_name(i) : NULL;
	r->first = r->last = (uint8_t)i;
	r->linux_clocksource = s->linux_clocksource;
	r->vdso = m.vdso;
	r->note = m.note;
	fill_available(&m, r->available_clocksource, sizeof r->available_clocksource);
	fill_risk(&m, &r->risk);
	r->confidence = (uint8_t)m.conf;
	r->boots = !m.no_boot;
	r->boot_reason = m.boot_reason;
	r->boots_from = m.boots_from;
	r->read_cost_measured = s->read_cost_measured;
	r->predicted_read_ns_milli = s->predicted_read_ns_milli;
	r->measured_read_ns_milli = s->measured_read_ns_milli;
	r->measured_read_se_ns_milli = s->measured_read_se_ns_milli;
	r->syscall_added = s->syscall_added;
	for (uint32_t w = 0; w < s->warning_count && w < VERDICT_MAX_WARNINGS; w++) {
		r->warning_codes[w] = s->warnings[w].code;
		r->warning_severity[w] = (uint8_t)s->warnings[w].severity;
		r->warning_fix_brief[w] = s->warnings[w].fix_brief;
	}
	r->warning_count = s->warning_count < VERDICT_MAX_WARNINGS ? s->warning_count : VERDICT_MAX_WARNINGS;
}

static bool same_outcome(const struct verdict_kernel_range *a, const struct verdict_kernel_range *b)
{
	if (!str_equal(a->linux_clocksource, b->linux_clocksource) || a->vdso != b->vdso ||
	    !str_equal(a->available_clocksource, b->available_clocksource) || !same_risk(&a->risk, &b->risk) ||
	    a->confidence != b->confidence || a->read_cost_measured != b->read_cost_measured ||
	    a->predicted_read_ns_milli != b->predicted_read_ns_milli || a->syscall_added != b->syscall_added ||
	    a->measured_read_se_ns_milli != b->measured_read_se_ns_milli || a->warning_count != b->warning_count ||
	    a->boots != b->boots || !str_equal(a->boot_reason ? a->boot_reason : "", b->boot_reason ? b->boot_reason : ""))
		return false;
	for (uint32_t w = 0; w < a->warning_count; w++)
		if (!str_equal(a->warning_codes[w], b->warning_codes[w]) ||
		    a->warning_severity[w] != b->warning_severity[w])
			return false;
	return true;
}

/* by_kernel: every release judged in full, neighbours with the same
 * outcome merged.  base holds the clocksource ranges on entry. */
static void fill_by_kernel(const struct facts *f, struct verdict *v)
{
	static struct verdict_kernel_range judged[VERDICT_MAX_RANGES];
	static struct verdict base;
	struct verdict_kernel_range r;
	uint32_t n = 0;

	memcpy(base.by_kernel, v->by_kernel, sizeof base.by_kernel);
	base.by_kernel_count = v->by_kernel_count;
	for (size_t i = 0; i < release_count(); i++) {
		judge_release(f, i, &base, &r);
		if (n && same_outcome(&judged[n - 1], &r)) {
			judged[n - 1].to = r.to;
			judged[n - 1].last = r.last;
			continue;
		}
		if (n >= VERDICT_MAX_RANGES)
			break;	/* cannot happen: one range per release at most */
		judged[n++] = r;
	}
	memcpy(v->by_kernel, judged, sizeof v->by_kernel);
	v->by_kernel_count = n;
}

/* ---- what a user would see ------------------------------------------------ */

/* clocksource_enqueue() keeps the list sorted by rating; a source the
 * watchdog demoted stays listed with rating 0, one unstable at boot was
 * never registered. */
static unsigned listed_rating(const struct model *m, int s)
{
	return (s == VERDICT_SRC_TSC && m->tsc_demoted) ? 0 : m->rating[s];
}

static void fill_available(const struct model *m, char *out, size_t cap)
{
	struct strbuf sb;
	bool listed[VERDICT_SRC_COUNT] = { false };

	sb_init(&sb, out, cap);
	if (m->no_boot) {
		sb_str(&sb, "none");
		return;
	}
	for (int round = 0; round < VERDICT_SRC_COUNT; round++) {
		int best = -1;
		for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
			/* A TSC the watchdog marked unstable leaves the list
			 * too: every real demotion seen (6.1, 6.12, 7.2, 7.3
			 * under QEMU) listed it no more. */
			if (!m->reg[s] || listed[s] || (s == VERDICT_SRC_TSC && m->tsc_demoted))
				continue;
			if (best < 0 || rank_before(listed_rating(m, s), s, listed_rating(m, best), best))
				best = s;
		}
		if (best < 0)
			break;
		listed[best] = true;
		if (sb.len)
			sb_char(&sb, ' ');
		sb_str(&sb, verdict_source_name(best));
	}
	if (!sb.len)
		sb_str(&sb, "jiffies");
}

/* ---- the verdict ---------------------------------------------------------- */

static void conclusion(const struct model *m, struct verdict *v)
{
	char line[VERDICT_REASON_LEN];
	struct strbuf sb;

	sb_init(&sb, line, sizeof(line));
	sb_str(&sb, "Linux ");
	sb_str(&sb, v->linux_kernel);
	sb_str(&sb, " selects ");
	sb_str(&sb, chosen_name(m));
	if (m->chosen >= 0) {
		sb_str(&sb, " (rating ");
		sb_u64(&sb, m->rating[m->chosen]);
		sb_char(&sb, ')');
	}
	sb_str(&sb, m->vdso ? ", vDSO fast path: " : ", no vDSO (syscall): ");
	sb_str(&sb, m->note);
	if (v->reasoning_count >= VERDICT_MAX_REASONS)
		v->reasoning_count = VERDICT_MAX_REASONS - 1;
	/* the conclusion leads; the rules that led there follow */
	for (uint32_t i = v->reasoning_count; i > 0; i--)
		memcpy(v->reasoning[i], v->reasoning[i - 1], VERDICT_REASON_LEN);
	str_copy(v->reasoning[0], VERDICT_REASON_LEN, line);
	v->reasoning_count++;
}

static void predicted_cost(const struct verdict_input *in, const struct model *m,
			   struct verdict *v)
{
	uint64_t cost = m->chosen >= 0 ? in->sources[m->chosen].read_ns_milli : 0;

	v->syscall_overhead_ns_estimate = SYSCALL_OVERHEAD_NS_ESTIMATE;
	v->syscall_overhead_ns_low = SYSCALL_OVERHEAD_NS_LOW;
	v->syscall_overhead_ns_high = SYSCALL_OVERHEAD_NS_HIGH;
	v->tsc_read_ns_milli = in->sources[VERDICT_SRC_TSC].read_ns_milli;
	v->read_cost_measured = cost != 0;
	if (!cost)
		return;
	/* predicted_read_ns keeps its meaning (the contract: the estimate
	 * added off the vDSO); the measured part and the flag say which of
	 * it was measured, so no reader shows the sum as a measurement. */
	v->measured_read_ns_milli = cost;
	v->measured_read_se_ns_milli = in->sources[m->chosen].read_se_ns_milli;
	v->syscall_added = !m->vdso;
	v->predicted_read_ns_milli = cost;
	if (!m->vdso)
		v->predicted_read_ns_milli += SYSCALL_OVERHEAD_NS_ESTIMATE * 1000ull;
}

/* A text that fills its buffer to the last byte was cut (sb_str stops
 * there): counted, so a cut is an error the report names, never silent. */
static uint32_t full(const char *text, size_t cap)
{
	return str_len(text) + 1 >= cap;
}

static uint32_t count_cut_texts(const struct verdict *v)
{
	uint32_t n = full(v->why_text, sizeof v->why_text) +
		     full(v->available_clocksource, sizeof v->available_clocksource) +
		     full(v->risk.available_clocksource, sizeof v->risk.available_clocksource);

	for (uint32_t i = 0; i < v->reasoning_count && i < VERDICT_MAX_REASONS; i++)
		n += full(v->reasoning[i], VERDICT_REASON_LEN);
	for (uint32_t i = 0; i < v->warning_count && i < VERDICT_MAX_WARNINGS; i++)
		n += full(v->warnings[i].message, VERDICT_MSG_LEN) +
		     full(v->warnings[i].evidence, VERDICT_EVIDENCE_LEN);
	for (uint32_t i = 0; i < v->by_kernel_count && i < VERDICT_MAX_RANGES; i++)
		n += full(v->by_kernel[i].available_clocksource, VERDICT_AVAILABLE_LEN);
	for (uint32_t i = 0; i < v->windows.reasoning_count && i < VERDICT_WIN_MAX_REASONS; i++)
		n += full(v->windows.reasoning[i], VERDICT_REASON_LEN);
	return n;
}

void verdict_decide(struct verdict *out, const struct verdict_input *in)
{
	struct facts f;
	struct model m;

	unsigned kernel = in->kernel && release_name(in->kernel) ? in->kernel : MAIN_KERNEL;

	memset(out, 0, sizeof(*out));
	out->inputs = *in;
	digest(&f, in);
	out->linux_kernel = release_name(kernel);
	predict(&f, kernel, out, &m);
	note_unknowns(&f, &m, out);
	note_harness_anomaly(&f, &m, out);
	note_tsc_race(&f, &m, out);
	conclusion(&m, out);

	out->linux_clocksource = chosen_name(&m);
	out->current_clocksource = out->linux_clocksource;
	out->vdso = m.vdso;
	out->why = m.note;
	out->confidence = m.conf;
	out->boots = !m.no_boot;
	out->boot_reason = m.boot_reason;
	out->boot_feature = m.boot_feature;
	out->boots_from = m.boots_from;
	predicted_cost(in, &m, out);
	decide_large_guest(in, &m, out);
	fill_available(&m, out->available_clocksource, sizeof out->available_clocksource);
	fill_risk(&m, &out->risk);
	out->kernel_set = in->kernels;
	/* KERNEL_DEPENDENT and the "why" read the clocksource ranges; every
	 * release is then judged as this one was, for by_kernel. */
	fill_base_ranges(&f, out);
	add_warnings(&f, &m, out);
	fill_why_text(&f, &m, out);
	fill_by_kernel(&f, out);
	decide_windows(in, &out->windows);
	out->text_cut = count_cut_texts(out);
}
