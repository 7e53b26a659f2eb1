/* What the files of the verdict module share, and nothing they do not.
 *
 * The module replays Linux's clocksource selection on measured facts:
 * facts.c digests the input once, rules.c and watchdog.c hold the rules as
 * tables (one per step of Linux's boot order), predict.c runs them for one
 * kernel version and picks the winner (kver.c answers which release
 * carries a change, for it and for watchdog.c alike), decide.c fills struct verdict for
 * the main kernel and every era (kernels.c lists the releases judged and
 * reads the kernel= set), warnings.c names the problems with one fix table
 * in fixes.c, text.c and json.c write it out with format.c's numbers.
 * Calls run one way: kernels.c, fixes.c and format.c call no other file
 * of the module.  The public API is
 * include/verdict.h; the rules and their citations: docs/verdict-rules.md. */
#ifndef CP_VERDICT_MODEL_H
#define CP_VERDICT_MODEL_H
#include "verdict.h"
#include "strbuf.h"

#define KV(major, minor) ((major) * 100u + (minor))
#define KV_OPEN 0u
/* A rule kept for a change not in any release yet: no kernel has it. */
#define KV_NOT_MERGED KV(99, 0)
/* The rewritten watchdog, 763aacf86f1b "clocksource: Rewrite watchdog code
 * completely" with 1432f9d4e8aa "clocksource: Don't use non-continuous
 * clocksources as watchdog", first released in 7.1.  The evidence for 7.1
 * and its date are docs/verdict-rules.md, "Kernel eras", row 7.1; the
 * sources read (7.2.13 has it, 6.12.118 the old watchdog) are its
 * "Sources read".  A later finding changes that row and this line together. */
#define KV_WATCHDOG_REWRITE KV(7, 1)

/* Clocksource ratings as Linux registers them.  Only their order decides
 * the outcome, but the reasoning quotes them, so they are the kernel's. */
#define RATING_TSC 300			/* arch/x86/kernel/tsc.c clocksource_tsc */
#define RATING_KVMCLOCK 400		/* arch/x86/kernel/kvmclock.c kvm_clock */
#define RATING_KVMCLOCK_INVARIANT 299	/* kvmclock.c kvmclock_init(), 5.1+ */
#define RATING_XEN 400			/* arch/x86/xen/time.c xen_clocksource */
#define RATING_HPET 250			/* arch/x86/kernel/hpet.c clocksource_hpet */
#define RATING_ACPI_PM 200		/* drivers/clocksource/acpi_pm.c */
#define RATING_XEN_SAFE_TSC 299	/* xen/time.c xen_tsc_safe_clocksource(), 6.3+ */
/* drivers/clocksource/hyperv_timer.c: 400 before 5.6, 250 for both in
 * 5.6-5.12 (9e0333ae38ee; 5.10.262 source), 500/500 lowered to 250/250
 * with TSC invariant control in 5.13-6.4 ("Set clocksource rating based
 * on Hyper-V feature", Hyper-V pull for 5.13; 6.1.176), 500/495 and
 * 250/245 since (e5313f1c5404, 6.5; 6.12.118, 7.2.13). */
#define RATING_HV_OLD 400
#define RATING_HV_5_6 250
#define RATING_HV_TSC_PAGE 500
#define RATING_HV_MSR_5_12 500
#define RATING_HV_MSR 495
#define RATING_HV_TSC_PAGE_INVARIANT 250
#define RATING_HV_MSR_INVARIANT_5_12 250
#define RATING_HV_MSR_INVARIANT 245
/* arch/x86/include/asm/xen/cpuid.h: the TSC is never emulated. */
#define XEN_TSC_MODE_NEVER_EMULATE 2

/* 2^24 / 3579545 Hz: a 24-bit PM timer wraps every 4.687 s, so a watchdog
 * on acpi_pm misreads any gap longer than that. */
#define ACPI_PM_WRAP_NS 4686000000ull

enum platform {
	PLAT_UNKNOWN = 0,
	PLAT_NONE,	/* bare metal */
	PLAT_KVM,
	PLAT_HYPERV,
	PLAT_VMWARE,
	PLAT_XEN,
	PLAT_TCG,	/* QEMU TCG: no paravirt clock at all */
	PLAT_HIDDEN,	/* hypervisor bit set, no signature (e.g. kvm=off) */
	PLAT_OTHER,	/* bhyve, ACRN, ...: no paravirt clocksource in Linux */
};

/* Facts digested once, independent of the kernel version. */
struct facts {
	const struct verdict_input *in;
	enum platform plat;
	bool intel;
	bool has[VERDICT_SRC_COUNT];	/* present == YES */
	bool kvmclock_advertised;
	bool acrn;
	uint32_t possible, packages;	/* best known, see digest_counts() */
	bool possible_guessed, packages_guessed;
};

/* Where Linux took tsc_khz from (the tsc_khz rules in rules.c): the rate
 * its TSC clocksource runs at, which the watchdog compares with its own. */
enum khz_origin {
	KHZ_NONE = 0,
	KHZ_KVMCLOCK,	/* kvm_get_tsc_khz(): the pvclock scale */
	KHZ_HYPERV,	/* HV_X64_MSR_TSC_FREQUENCY */
	KHZ_VMWARE,	/* GETHZ */
	KHZ_XEN,	/* vcpu_time_info */
	KHZ_ACRN,	/* 0x40000010 */
	KHZ_CPUID,	/* CPUID 0x15/0x16, Intel only */
	KHZ_SECURE_TSC,	/* SEV-SNP Secure TSC: GUEST_TSC_FREQ / TSC_INFO */
	KHZ_CALIBRATED,	/* Linux's own loops against the PIT, HPET or PM timer */
};

/* Linux's state for one kernel version, built up by the rules. */
struct model {
	unsigned kver;
	/* boots.c: this kernel cannot start the guest, and why */
	bool no_boot;
	const char *boot_id, *boot_feature, *boot_cite, *boot_reason, *boots_from;
	bool constant_tsc, nonstop_tsc, tsc_reliable;
	bool tsc_khz_known;
	bool reg[VERDICT_SRC_COUNT];
	unsigned rating[VERDICT_SRC_COUNT];
	bool tsc_unstable;	/* at boot: never registered */
	bool tsc_must_verify;
	bool tsc_demoted;	/* later, by the watchdog */
	bool tsc_known_freq;	/* X86_FEATURE_TSC_KNOWN_FREQ: no refined calibration */
	bool tsc_sync_skipped;	/* TSC_ADJUST: warps seen but the sync test skipped */
	bool tsc_calibrated;	/* Linux measured tsc_khz itself (no advertised rate) */
	enum khz_origin khz_by;
	/* The watched TSC drifts against the watchdog in the probe's figures,
	 * but at a rate Linux does not use and cannot be judged (watchdog.c
	 * linux_rate_drift()). */
	bool drift_unjudged;
	const char *demote_reason;	/* which watchdog check demotes it, for the note */
	/* the drift that demoted it (NULL: a gap did), for the evidence */
	const struct verdict_drift *demoting_drift;
	int watchdog;		/* source index or -1 */
	bool pv_vdso;		/* kvm-clock / xen: PVCLOCK vDSO mode */
	bool hv_page_vdso;
	bool hv_page_withheld;	/* ms_hyperv_init_platform() cleared the TSC page feature */
	int chosen;		/* source index, -1 = jiffies */
	bool vdso;
	/* A race the TSC can lose on an unsteady vCPU (watchdog.c
	 * tsc_race()): its code, the text that says why, and what Linux
	 * picks if it loses. */
	const char *risk_code, *risk_note;
	int risk_chosen;	/* source index, -1 = jiffies */
	bool risk_vdso;
	enum verdict_confidence conf;
	const char *note;
	struct verdict *explain;	/* reasoning goes here when set */
};

/* The long-term lines whose newest stable release carries a later
 * mainline change; 0 ends the list. */
#define MAX_BACKPORT_LINES 5

struct rule {
	const char *id;
	const char *cite;	/* kernel file: function */
	unsigned since, until;	/* inclusive, KV_OPEN = unbounded */
	bool (*applies)(const struct facts *f, const struct model *m);
	void (*apply)(const struct facts *f, struct model *m);
	const char *why;
	unsigned backported[MAX_BACKPORT_LINES];	/* lines before `since` that have it */
};

/* kver.c: kver holds a change made in mainline `since` and backported to
 * the long-term lines listed (0-terminated): a stable line is modelled by
 * its newest release, the one its users run. */
bool kernel_has(unsigned kver, unsigned since, const unsigned *backported);

/* One step of Linux's boot order: its rules in table order, after `enter`
 * has set up what they all read (NULL: nothing). */
struct rule_step {
	const struct rule *rules;
	size_t count;
	void (*enter)(const struct facts *f, struct model *m);
};

/* rules.c */
extern const struct rule_step step_cpu_flags, step_tsc_khz, step_register;
/* watchdog.c */
extern const struct rule_step step_boot_unstable, step_watchdog;

static inline bool yes(enum verdict_tri t)
{
	return t == VERDICT_YES;
}

static inline bool no(enum verdict_tri t)
{
	return t == VERDICT_NO;
}

static inline uint64_t abs64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* A measured |value| counts as beyond a threshold only when it stays
 * beyond at the near end of its uncertainty; 0 (unknown) leaves the bare
 * threshold.  An uncertainty too large to add is never beyond. */
static inline bool beyond(int64_t value, uint64_t threshold, uint64_t uncertainty)
{
	uint64_t limit = threshold + uncertainty;

	return limit >= threshold && abs64(value) > limit;
}

/* Registration order, for ties of rating: clocksource_enqueue() puts a
 * source after those already listed at its rating, and clocksource_select()
 * and the watchdog pick take the first.  Paravirt clocks register in
 * platform setup, hpet and acpi_pm at fs_initcall, the TSC last. */
static inline unsigned registration_order(int s)
{
	static const unsigned order[VERDICT_SRC_COUNT] = {
		[VERDICT_SRC_HV_TSC_PAGE] = 0, [VERDICT_SRC_HV_MSR] = 1, [VERDICT_SRC_KVMCLOCK] = 2,
		[VERDICT_SRC_XEN] = 3,	       [VERDICT_SRC_HPET] = 4,	 [VERDICT_SRC_ACPI_PM] = 5,
		[VERDICT_SRC_PIT] = 6,	       [VERDICT_SRC_TSC] = 7,
	};
	return order[s];
}

/* s ranks before t in clocksource_list. */
static inline bool rank_before(unsigned rating_s, int s, unsigned rating_t, int t)
{
	return rating_s > rating_t || (rating_s == rating_t && registration_order(s) < registration_order(t));
}

/* Confidence never rises: a later doubt only lowers it. */
static inline void cap_confidence(struct model *m, enum verdict_confidence at_most)
{
	if (m->conf < at_most)
		m->conf = at_most;
}

static inline bool rates_above(const struct model *m, int s, int t)
{
	return rank_before(m->rating[s], s, m->rating[t], t);
}

/* facts.c */
void digest(struct facts *f, const struct verdict_input *in);
bool tsc_present(const struct facts *f);
void add_reason(struct verdict *v, const char *text, const char *cite);

/* rules.c: pit_hpet_ptimer_calibrate_cpu() can get no rate here (no
 * advertised one considered); why, when given, says what each way lacks. */
bool calibration_fails(const struct facts *f, struct strbuf *why);

/* windows.c: verdict.windows from the same inputs, and its JSON */
void decide_windows(const struct verdict_input *in, struct verdict_windows *w);
struct json;
void windows_to_json(struct json *j, const struct verdict_windows *w);

/* boots.c: whether the kernel can start the guest at all */
void judge_boot(const struct facts *f, struct model *m);

/* predict.c */
void predict(const struct facts *f, unsigned kver, struct verdict *explain, struct model *m);
const char *chosen_name(const struct model *m);

/* kernels.c: the releases judged, oldest first (by_kernel's list). */
size_t release_count(void);
const char *release_at(size_t i, unsigned *kv);
unsigned release_kv(size_t i);
const char *release_name(unsigned kv);	/* NULL when kv is not judged */

/* watchdog.c */
void watchdog_figures(const struct model *m, struct verdict_wd_era *e);
void tsc_race(const struct facts *f, struct model *m);
void note_tsc_race(const struct facts *f, struct model *m, struct verdict *v);

/* warnings.c, with the code -> fix table in fixes.c */
enum warn_code {
	WARN_ACPI_PM_FALLBACK,
	WARN_HPET_FALLBACK,
	WARN_JIFFIES_FALLBACK,
	WARN_TSC_UNSYNCED,
	WARN_KVMCLOCK_WARP,
	WARN_KERNEL_DEPENDENT,
	WARN_KVMCLOCK_NOT_STABLE,
	WARN_KVMCLOCK_HIDDEN,
	WARN_TSC_NOT_INVARIANT,
	WARN_HYPERV_MSR_CLOCKSOURCE,
	WARN_TSC_FREQ_MISMATCH,
	WARN_NO_CALIBRATION_REFERENCE,
	WARN_LARGE_GAPS,
	WARN_SOURCE_DRIFT,
	WARN_FREQ_REFERENCES_DISAGREE,
	WARN_CLOCK_READ_CONTENDED,
	WARN_GUEST_CANNOT_BOOT,
	WARN_CODE_COUNT,
};

struct warning_kind {
	const char *code;	/* warnings[].code in the report: never renamed */
	const char *fix;	/* warnings[].fix */
	const char *brief;	/* the same fix in a few words, for the summary */
};

/* fixes.c: the table, and a new warning begun from it */
extern const struct warning_kind warning_kinds[WARN_CODE_COUNT];
struct verdict_warning *verdict_add_warning(struct verdict *v, enum warn_code code, enum verdict_severity severity);

/* warnings.c */
void add_warnings(const struct facts *f, const struct model *m, struct verdict *v);

/* query.c (with verdict_find_warning in verdict.h) */
bool slow_source(const char *name);

/* contention.c: verdict.large_guest and CLOCK_READ_CONTENDED */
void decide_large_guest(const struct verdict_input *in, const struct model *m, struct verdict *v);
void warn_contended(const struct verdict_input *in, const struct model *m, struct verdict *v);
void large_guest_to_json(struct json *j, const struct verdict_large_guest *g);

/* format.c */
void sb_ns_se(struct strbuf *sb, uint64_t ns_milli, uint64_t se_milli);
void sb_unmeasured_term(struct strbuf *sb, const char *what, uint64_t low_ns, uint64_t high_ns, bool brief);
void sb_ratio(struct strbuf *sb, uint64_t num_milli, uint64_t den_milli);
void sb_ppm(struct strbuf *sb, int64_t ppm, uint64_t uncertainty_ppm);

/* text.c */
void evidence_why_not_better(struct strbuf *sb, const struct facts *f, const struct model *m);
void fill_why_text(const struct facts *f, const struct model *m, struct verdict *v);
#endif
