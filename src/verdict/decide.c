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
 * estimate (50-300 ns in practice), not something the probe measures. */
#define SYSCALL_OVERHEAD_NS_ESTIMATE 150u

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
}

/* ---- by_kernel ---------------------------------------------------------- */

/* Every mainline release from Debian 10's 4.19 to the newest (7.2 on
 * 2026-11-30): each is judged, and neighbours with the same outcome merge
 * into one range.  A long-term line stands for its newest stable release,
 * with the backports it carries (rule.backported). */
static const char *const releases[] = {
	"4.19", "4.20", "5.0",	"5.1",	"5.2",	"5.3",	"5.4",	"5.5",	"5.6",	"5.7",	"5.8",
	"5.9",	"5.10", "5.11", "5.12", "5.13", "5.14", "5.15", "5.16", "5.17", "5.18", "5.19",
	"6.0",	"6.1",	"6.2",	"6.3",	"6.4",	"6.5",	"6.6",	"6.7",	"6.8",	"6.9",	"6.10",
	"6.11", "6.12", "6.13", "6.14", "6.15", "6.16", "6.17", "6.18", "6.19", "7.0",	"7.1",
	"7.2",
};

static bool parse_kv(const char *t, size_t n, unsigned *kv)
{
	unsigned major = 0, minor = 0;
	size_t i = 0, digits = 0;

	for (; i < n && t[i] >= '0' && t[i] <= '9' && digits < 3; i++, digits++)
		major = major * 10 + (unsigned)(t[i] - '0');
	if (!digits || i >= n || t[i++] != '.')
		return false;
	for (digits = 0; i < n && t[i] >= '0' && t[i] <= '9' && digits < 3; i++, digits++)
		minor = minor * 10 + (unsigned)(t[i] - '0');
	if (!digits || i != n)
		return false;
	*kv = KV(major, minor);
	return true;
}

static const char *release_name(unsigned kv)
{
	for (size_t i = 0; i < ARRAY_SIZE(releases); i++) {
		unsigned r;
		if (parse_kv(releases[i], str_len(releases[i]), &r) && r == kv)
			return releases[i];
	}
	return NULL;
}

size_t release_count(void)
{
	return ARRAY_SIZE(releases);
}

const char *release_at(size_t i, unsigned *kv)
{
	if (i >= ARRAY_SIZE(releases))
		return NULL;
	parse_kv(releases[i], str_len(releases[i]), kv);
	return releases[i];
}

bool verdict_kernel_parse(const char *text, size_t len, unsigned *kv)
{
	unsigned v;

	if (!text || !parse_kv(text, len, &v) || !release_name(v))
		return false;
	*kv = v;
	return true;
}

static void fill_available(const struct model *m, char *out, size_t cap);

static void fill_risk(const struct model *m, struct verdict_risk *r)
{
	memset(r, 0, sizeof(*r));
	if (!m->risk_reason)
		return;
	struct model lost = *m;
	lost.tsc_demoted = true;
	r->reason = m->risk_reason;
	r->note = m->risk_why;
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

static void fill_by_kernel(const struct facts *f, struct verdict *v)
{
	struct verdict_kernel_range *last = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(releases); i++) {
		struct model m;
		char available[VERDICT_AVAILABLE_LEN];
		struct verdict_risk risk;
		unsigned kv = 0;
		parse_kv(releases[i], str_len(releases[i]), &kv);
		predict(f, kv, NULL, &m);
		fill_available(&m, available, sizeof available);
		fill_risk(&m, &risk);
		const char *name = chosen_name(&m);
		if (last && str_equal(last->linux_clocksource, name) && last->vdso == m.vdso &&
		    str_equal(last->available_clocksource, available) && same_risk(&last->risk, &risk)) {
			last->to = i + 1 < ARRAY_SIZE(releases) ? releases[i] : NULL;
			continue;
		}
		if (v->by_kernel_count >= VERDICT_MAX_RANGES)
			break;
		last = &v->by_kernel[v->by_kernel_count++];
		last->from = releases[i];
		last->to = i + 1 < ARRAY_SIZE(releases) ? releases[i] : NULL;
		last->linux_clocksource = name;
		last->vdso = m.vdso;
		last->note = m.note;
		str_copy(last->available_clocksource, sizeof last->available_clocksource, available);
		last->risk = risk;
	}
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
	v->tsc_read_ns_milli = in->sources[VERDICT_SRC_TSC].read_ns_milli;
	v->read_cost_measured = cost != 0;
	if (!cost)
		return;
	v->predicted_read_ns_milli = cost;
	if (!m->vdso)
		v->predicted_read_ns_milli += SYSCALL_OVERHEAD_NS_ESTIMATE * 1000ull;
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
	predicted_cost(in, &m, out);
	fill_available(&m, out->available_clocksource, sizeof out->available_clocksource);
	fill_risk(&m, &out->risk);
	fill_by_kernel(&f, out);
	add_warnings(&f, &m, out);
	fill_why_text(&f, &m, out);
	decide_windows(in, &out->windows);
}
