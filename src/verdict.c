/* The verdict: Linux's clocksource selection, replayed on measured facts.
 *
 * Linux decides in a fixed order: platform detection sets CPU capability
 * flags, calibration finds (or fails to find) tsc_khz, each clocksource
 * driver registers with a rating, the TSC may be marked unstable at boot
 * (unsynchronized_tsc(), the TSC sync check) or later (the watchdog), and
 * the highest-rated stable source wins.  The rules below replay that order
 * as a table; each rule names the kernel file and the versions it holds for
 * (docs/verdict-rules.md has the citations in full).  The same table runs
 * once per kernel era to fill by_kernel[]; the era of verdict.linux_kernel
 * also writes the reasoning. */
#include "verdict.h"
#include "json.h"
#include "strbuf.h"

#define KV(major, minor) ((major) * 100u + (minor))
#define KV_OPEN 0u

/* 6.12 is the newest LTS with distribution reach (Debian 13's kernel) and
 * carries the 6.12 change of unsynchronized_tsc() to count packages. */
#define MAIN_KERNEL KV(6, 12)
#define MAIN_KERNEL_NAME "6.12"

/* Typical cost of entering and leaving the kernel for clock_gettime() on a
 * current x86-64 kernel with the usual speculation mitigations: an
 * estimate (50-300 ns in practice), not something the probe measures. */
#define SYSCALL_OVERHEAD_NS_ESTIMATE 150u

/* tsc.c: tsc=recalibrate warns above 500 ppm; the watchdog's margins are
 * of the same order per 0.5 s interval. */
#define FREQ_MISMATCH_PPM 500
#define WATCHDOG_SKEW_PPM 500
#define DRIFT_WARN_PPM 100
/* 2^24 / 3579545 Hz: a 24-bit PM timer wraps every 4.687 s, so a watchdog
 * on acpi_pm misreads any gap longer than that. */
#define ACPI_PM_WRAP_NS 4686000000ull
#define GAP_WARN_MAX_NS 5000000ull	/* 5 ms */
#define GAP_WARN_SHARE_PPM 10000	/* 1 % of the window */

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

enum confidence { CONF_HIGH = 0, CONF_MEDIUM, CONF_LOW };

/* Rules share one signature; most look at only half of it. */
#define __maybe_unused __attribute__((unused))

static const char *const source_names[VERDICT_SRC_COUNT] = {
	[VERDICT_SRC_TSC] = "tsc",
	[VERDICT_SRC_KVMCLOCK] = "kvm-clock",
	[VERDICT_SRC_HPET] = "hpet",
	[VERDICT_SRC_ACPI_PM] = "acpi_pm",
	[VERDICT_SRC_PIT] = "pit",
	[VERDICT_SRC_HV_MSR] = "hyperv_clocksource_msr",
	[VERDICT_SRC_HV_TSC_PAGE] = "hyperv_clocksource_tsc_page",
	[VERDICT_SRC_XEN] = "xen",
};

const char *verdict_source_name(enum verdict_source s)
{
	return (unsigned)s < VERDICT_SRC_COUNT ? source_names[s] : "?";
}

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

/* Linux's state for one kernel version, built up by the rules. */
struct model {
	unsigned kver;
	bool constant_tsc, nonstop_tsc, tsc_reliable;
	bool tsc_khz_known;
	bool reg[VERDICT_SRC_COUNT];
	unsigned rating[VERDICT_SRC_COUNT];
	bool tsc_unstable;	/* at boot: never registered */
	bool tsc_must_verify;
	bool tsc_demoted;	/* later, by the watchdog */
	int watchdog;		/* source index or -1 */
	bool pv_vdso;		/* kvm-clock / xen: PVCLOCK vDSO mode */
	bool hv_page_vdso;
	int chosen;		/* source index, -1 = jiffies */
	bool vdso;
	enum confidence conf;
	const char *note;
	struct verdict *explain;	/* reasoning goes here when set */
};

struct rule {
	const char *id;
	const char *cite;	/* kernel file: function */
	unsigned since, until;	/* inclusive, KV_OPEN = unbounded */
	bool (*applies)(const struct facts *f, const struct model *m);
	void (*apply)(const struct facts *f, struct model *m);
	const char *why;
};

static bool yes(enum verdict_tri t)
{
	return t == VERDICT_YES;
}

static bool no(enum verdict_tri t)
{
	return t == VERDICT_NO;
}

static uint64_t abs64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static void add_reason(struct verdict *v, const char *text, const char *cite)
{
	if (!v || v->reasoning_count >= VERDICT_MAX_REASONS)
		return;
	struct strbuf sb;
	sb_init(&sb, v->reasoning[v->reasoning_count++], VERDICT_REASON_LEN);
	sb_str(&sb, text);
	if (cite) {
		sb_str(&sb, " [");
		sb_str(&sb, cite);
		sb_char(&sb, ']');
	}
}

/* ---- digesting the input ---------------------------------------------- */

static bool has_signature(const struct verdict_input *in, const char *name)
{
	if (in->hypervisor && str_equal(in->hypervisor, name))
		return true;
	for (uint32_t i = 0; i < in->signature_count && i < VERDICT_MAX_SIGNATURES; i++)
		if (in->signatures[i] && str_equal(in->signatures[i], name))
			return true;
	return false;
}

/* detect_hypervisor_vendor() keeps the detector with the highest return
 * value, and the KVM and Xen detectors return their CPUID base: when a
 * hypervisor also emulates Hyper-V (base 0x40000000), its own interface at
 * 0x40000100 wins.  So a native signature beats "hyperv". */
static enum platform digest_platform(const struct verdict_input *in)
{
	bool named = in->hypervisor && in->hypervisor[0] &&
		     !str_equal(in->hypervisor, "none");

	if (has_signature(in, "kvm"))
		return PLAT_KVM;
	if (has_signature(in, "xen"))
		return PLAT_XEN;
	if (has_signature(in, "vmware"))
		return PLAT_VMWARE;
	if (has_signature(in, "hyperv"))
		return PLAT_HYPERV;
	if (has_signature(in, "tcg"))
		return PLAT_TCG;
	if (named || in->signature_count)
		return PLAT_OTHER;
	if (yes(in->hypervisor_bit))
		return PLAT_HIDDEN;
	if (no(in->hypervisor_bit))
		return PLAT_NONE;
	return PLAT_UNKNOWN;
}

/* Linux counts possible CPUs from the MADT (disabled entries included);
 * without that count the running CPUs are a lower bound. */
static void digest_counts(struct facts *f)
{
	const struct verdict_input *in = f->in;

	f->possible = in->possible_cpus;
	if (!f->possible && in->logical_cpus) {
		f->possible = in->logical_cpus;
		f->possible_guessed = true;
	}
	f->packages = in->packages;
	if (!f->packages && f->possible == 1)
		f->packages = 1;
	if (!f->packages) {
		/* QEMU >= 6.2 machine types put -smp N into one socket. */
		f->packages = 1;
		f->packages_guessed = true;
	}
}

static void digest(struct facts *f, const struct verdict_input *in)
{
	memset(f, 0, sizeof(*f));
	f->in = in;
	f->plat = digest_platform(in);
	f->intel = in->vendor == VERDICT_VENDOR_INTEL;
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		f->has[s] = yes(in->sources[s].present);
	/* Linux's acpi_pm driver needs the FADT, and a HW-reduced platform
	 * has no PM timer even if a port still ticks. */
	if (no(in->acpi) || yes(in->hw_reduced))
		f->has[VERDICT_SRC_ACPI_PM] = false;
	f->kvmclock_advertised = f->plat == PLAT_KVM &&
				 (yes(in->kvm_clocksource) || yes(in->kvm_clocksource2));
	f->acrn = has_signature(in, "acrn");
	digest_counts(f);
}

static bool tsc_present(const struct facts *f)
{
	/* Every x86-64 CPU has one; unknown is treated as present. */
	return !no(f->in->tsc);
}

/* ---- rules -------------------------------------------------------------- */

static bool r_invariant_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return yes(f->in->invariant_tsc);
}

static void r_invariant(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->constant_tsc = m->nonstop_tsc = true;
}

static bool r_intel_constant_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	uint32_t fam = f->in->family, model = f->in->model;

	return f->intel && !m->constant_tsc &&
	       ((fam == 0x6 && model >= 0x0e) || (fam == 0xf && model >= 0x03));
}

static void r_constant_only(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->constant_tsc = true;
}

static bool r_hv_invariant_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_invariant_control);
}

static void r_reliable_invariant(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->constant_tsc = m->nonstop_tsc = m->tsc_reliable = true;
}

static bool r_vmware_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_VMWARE;
}

static void r_reliable_constant(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->constant_tsc = m->tsc_reliable = true;
}

static void r_khz_known(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->tsc_khz_known = true;
}

static bool r_khz_kvmclock_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->kvmclock_advertised;
}

static bool r_khz_hyperv_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->plat == PLAT_HYPERV && yes(f->in->hv_freq_msrs);
}

static bool r_khz_vmware_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->plat == PLAT_VMWARE && yes(f->in->vmware_gethz);
}

static bool r_khz_xen_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->plat == PLAT_XEN;
}

static bool r_khz_acrn_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->acrn &&
	       f->in->freq_by == VERDICT_FREQ_HYPERVISOR_LEAF;
}

static bool r_khz_cpuid_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && f->intel &&
	       (f->in->freq_by == VERDICT_FREQ_CPUID_15 ||
		f->in->freq_by == VERDICT_FREQ_CPUID_16);
}

static bool calibration_reference_possible(const struct facts *f)
{
	const struct verdict_input *in = f->in;

	return !no(in->sources[VERDICT_SRC_PIT].present) ||
	       !no(in->sources[VERDICT_SRC_HPET].present) || f->has[VERDICT_SRC_ACPI_PM] ||
	       (!no(in->sources[VERDICT_SRC_ACPI_PM].present) && !no(in->acpi));
}

static bool r_khz_calibrate_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && calibration_reference_possible(f);
}

static bool r_khz_none_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return !m->tsc_khz_known && tsc_present(f);
}

static void r_tsc_unregistered(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->tsc_unstable = true;
}

static bool r_tsc_register_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->tsc_khz_known && tsc_present(f);
}

static void register_source(struct model *m, enum verdict_source s, unsigned rating)
{
	m->reg[s] = true;
	m->rating[s] = rating;
}

static void r_tsc_register(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_TSC, 300);
	m->tsc_must_verify = true;
}

static bool r_kvmclock_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->kvmclock_advertised;
}

static void r_kvmclock(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_KVMCLOCK, 400);
}

static bool r_kvmclock_299_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->reg[VERDICT_SRC_KVMCLOCK] && m->constant_tsc && m->nonstop_tsc;
}

static void r_kvmclock_299(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->rating[VERDICT_SRC_KVMCLOCK] = 299;
}

static bool r_kvmclock_vdso_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->reg[VERDICT_SRC_KVMCLOCK] && yes(f->in->kvm_stable_bit) &&
	       !no(f->in->pvclock_stable);
}

static void r_pv_vdso(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->pv_vdso = true;
	if (!yes(f->in->pvclock_stable) && m->conf < CONF_MEDIUM)
		m->conf = CONF_MEDIUM;
}

static bool r_hv_page_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_page);
}

static void r_hv_page(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	/* 400 before 5.6, 500 in current kernels: both beat tsc (300). */
	register_source(m, VERDICT_SRC_HV_TSC_PAGE, m->kver >= KV(5, 6) ? 500 : 400);
	m->hv_page_vdso = !no(f->in->hv_tsc_page_valid);
}

static bool r_hv_msr_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_ref_counter) &&
	       !m->reg[VERDICT_SRC_HV_TSC_PAGE];
}

static void r_hv_msr(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_HV_MSR, m->kver >= KV(5, 6) ? 495 : 400);
}

static bool r_hv_lower_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_invariant_control);
}

static void r_hv_lower(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	if (m->reg[VERDICT_SRC_HV_TSC_PAGE])
		m->rating[VERDICT_SRC_HV_TSC_PAGE] = 250;
	if (m->reg[VERDICT_SRC_HV_MSR])
		m->rating[VERDICT_SRC_HV_MSR] = 245;
}

static bool r_xen_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->plat == PLAT_XEN;
}

static void r_xen(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_XEN, 400);
	m->pv_vdso = yes(f->in->pvclock_stable);
	if (f->in->pvclock_stable == VERDICT_UNKNOWN && m->conf < CONF_MEDIUM)
		m->conf = CONF_MEDIUM;
}

static bool r_hpet_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->has[VERDICT_SRC_HPET];
}

static void r_hpet(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_HPET, 250);
}

static bool r_acpi_pm_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return f->has[VERDICT_SRC_ACPI_PM];
}

static void r_acpi_pm(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	register_source(m, VERDICT_SRC_ACPI_PM, 200);
}

/* unsynchronized_tsc(): CONSTANT_TSC or tsc=reliable/TSC_RELIABLE say
 * synchronized; Intel is trusted; everyone else with more than one
 * possible CPU (before 6.12) or package (6.12+) is not. */
static bool unsync_base(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->constant_tsc &&
	       !m->tsc_reliable && !f->intel;
}

static bool r_unsync_cpus_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return unsync_base(f, m) && f->possible > 1;
}

static bool r_unsync_packages_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return unsync_base(f, m) && f->packages > 1;
}

static void r_tsc_unstable(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->tsc_unstable = true;
	m->reg[VERDICT_SRC_TSC] = false;
}

static bool r_warp_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->reg[VERDICT_SRC_TSC] && !m->tsc_unstable && !m->tsc_reliable &&
	       f->in->xcpu_warps > 0;
}

static bool r_watchdog_reliable_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_reliable;
}

static void r_no_watchdog(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->tsc_must_verify = false;
}

static bool r_watchdog_adjust_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	return m->reg[VERDICT_SRC_TSC] && m->tsc_must_verify && m->constant_tsc &&
	       m->nonstop_tsc && yes(f->in->tsc_adjust) && f->packages <= 4;
}

/* The watchdog is the best-rated registered source that needs no
 * verification itself: everything but the TSC. */
static int pick_watchdog(const struct model *m)
{
	int best = -1;

	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		if (s == VERDICT_SRC_TSC || !m->reg[s])
			continue;
		if (best < 0 || m->rating[s] > m->rating[best])
			best = s;
	}
	return best;
}

static int64_t drift_against(const struct facts *f, const char *name, bool *found)
{
	const struct verdict_input *in = f->in;

	*found = false;
	for (uint32_t i = 0; i < in->drift_count && i < VERDICT_MAX_DRIFT; i++) {
		const struct verdict_drift *d = &in->drift[i];
		if (!d->a || !d->b)
			continue;
		if ((str_equal(d->a, "tsc") && str_equal(d->b, name)) ||
		    (str_equal(d->b, "tsc") && str_equal(d->a, name))) {
			*found = true;
			return d->ppm;
		}
	}
	return 0;
}

static bool r_watchdog_demote_applies(const struct facts *f __maybe_unused, const struct model *m __maybe_unused)
{
	if (!m->reg[VERDICT_SRC_TSC] || !m->tsc_must_verify || m->watchdog < 0)
		return false;
	bool found;
	int64_t ppm = drift_against(f, source_names[m->watchdog], &found);
	if (found && abs64(ppm) > WATCHDOG_SKEW_PPM)
		return true;
	return m->watchdog == VERDICT_SRC_ACPI_PM && f->in->gaps_measured &&
	       f->in->gap_max_ns >= ACPI_PM_WRAP_NS;
}

static void r_watchdog_demote(const struct facts *f __maybe_unused, struct model *m __maybe_unused)
{
	m->tsc_demoted = true;
}

static const struct rule rules[] = {
	{ "cpu-invariant", "arch/x86/kernel/cpu/{intel,amd,hygon,centaur,zhaoxin}.c early_init: x86_power bit 8",
	  KV_OPEN, KV_OPEN, r_invariant_applies, r_invariant,
	  "CPUID 0x80000007 EDX[8] (invariant TSC): Linux sets CONSTANT_TSC and NONSTOP_TSC" },
	{ "intel-constant", "arch/x86/kernel/cpu/intel.c early_init_intel()",
	  KV_OPEN, KV_OPEN, r_intel_constant_applies, r_constant_only,
	  "Intel family 6 model >= 0x0e (or 0xf >= 3): CONSTANT_TSC without invariant TSC (not NONSTOP)" },
	{ "hyperv-invariant", "arch/x86/kernel/cpu/mshyperv.c ms_hyperv_init_platform(), 5.6+",
	  KV(5, 6), KV_OPEN, r_hv_invariant_applies, r_reliable_invariant,
	  "Hyper-V offers TSC invariant control: Linux enables it, gets invariant TSC and forces TSC_RELIABLE" },
	{ "vmware-reliable", "arch/x86/kernel/cpu/vmware.c vmware_set_capabilities()",
	  KV_OPEN, KV_OPEN, r_vmware_applies, r_reliable_constant,
	  "VMware platform: Linux forces CONSTANT_TSC and TSC_RELIABLE (no watchdog, no sync check)" },
	{ "khz-kvmclock", "arch/x86/kernel/kvmclock.c kvm_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_kvmclock_applies, r_khz_known,
	  "TSC frequency from kvm-clock (pvclock mul/shift)" },
	{ "khz-hyperv", "arch/x86/kernel/cpu/mshyperv.c hv_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_hyperv_applies, r_khz_known,
	  "TSC frequency from the Hyper-V frequency MSR" },
	{ "khz-vmware", "arch/x86/kernel/cpu/vmware.c vmware_platform_setup() GETHZ",
	  KV_OPEN, KV_OPEN, r_khz_vmware_applies, r_khz_known,
	  "TSC frequency from the VMware backdoor (GETHZ)" },
	{ "khz-xen", "arch/x86/xen/time.c xen_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_xen_applies, r_khz_known,
	  "TSC frequency from Xen's vcpu_time_info" },
	{ "khz-acrn", "arch/x86/kernel/cpu/acrn.c acrn_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_acrn_applies, r_khz_known,
	  "TSC frequency from ACRN's CPUID 0x40000010" },
	{ "khz-cpuid", "arch/x86/kernel/tsc.c native_calibrate_tsc() (Intel only)",
	  KV_OPEN, KV_OPEN, r_khz_cpuid_applies, r_khz_known,
	  "TSC frequency from CPUID 0x15/0x16 (Linux reads them on Intel only)" },
	{ "khz-calibrate", "arch/x86/kernel/tsc.c quick_pit_calibrate()/pit_hpet_ptimer_calibrate_cpu()",
	  KV_OPEN, KV_OPEN, r_khz_calibrate_applies, r_khz_known,
	  "no advertised TSC frequency: Linux calibrates against the PIT, HPET or PM timer" },
	{ "khz-none", "arch/x86/kernel/tsc.c tsc_init(): \"could not calculate TSC khz\"",
	  KV_OPEN, KV_OPEN, r_khz_none_applies, r_tsc_unregistered,
	  "no TSC frequency and no PIT/HPET/PM timer to calibrate against: TSC not registered" },
	{ "tsc-register", "arch/x86/kernel/tsc.c init_tsc_clocksource(): rating 300",
	  KV_OPEN, KV_OPEN, r_tsc_register_applies, r_tsc_register,
	  "tsc registered, rating 300" },
	{ "kvmclock", "arch/x86/kernel/kvmclock.c kvmclock_init(): rating 400",
	  KV_OPEN, KV_OPEN, r_kvmclock_applies, r_kvmclock,
	  "KVM advertises kvm-clock: registered, rating 400" },
	{ "kvmclock-299", "arch/x86/kernel/kvmclock.c kvmclock_init(), 5.1+",
	  KV(5, 1), KV_OPEN, r_kvmclock_299_applies, r_kvmclock_299,
	  "CONSTANT_TSC+NONSTOP_TSC: kvm-clock lowered to 299, so tsc (300) wins" },
	{ "kvmclock-vdso", "arch/x86/kernel/kvmclock.c kvm_setup_vsyscall_timeinfo()",
	  KV_OPEN, KV_OPEN, r_kvmclock_vdso_applies, r_pv_vdso,
	  "kvm-clock stable bit (CPUID 0x40000001 EAX[24] and pvclock flags): vDSO PVCLOCK mode" },
	{ "hyperv-tsc-page", "drivers/clocksource/hyperv_timer.c hv_init_tsc_clocksource(): 400, 500 now",
	  KV_OPEN, KV_OPEN, r_hv_page_applies, r_hv_page,
	  "Hyper-V reference TSC page registered (vDSO HVCLOCK), rating above tsc" },
	{ "hyperv-msr", "drivers/clocksource/hyperv_timer.c hv_init_clocksource(): 400, 495 now",
	  KV_OPEN, KV_OPEN, r_hv_msr_applies, r_hv_msr,
	  "Hyper-V reference counter MSR registered (no vDSO: every read is a syscall and an exit)" },
	{ "hyperv-lower", "drivers/clocksource/hyperv_timer.c, 5.6+",
	  KV(5, 6), KV_OPEN, r_hv_lower_applies, r_hv_lower,
	  "TSC invariant control offered: Hyper-V clocksources lowered to 250/245, so tsc wins" },
	{ "xen", "arch/x86/xen/time.c xen_clocksource: rating 400",
	  KV_OPEN, KV_OPEN, r_xen_applies, r_xen,
	  "Xen clocksource registered, rating 400 (vDSO only with the stable bit)" },
	{ "hpet", "arch/x86/kernel/hpet.c clocksource_hpet: rating 250, no vDSO since 4.7",
	  KV_OPEN, KV_OPEN, r_hpet_applies, r_hpet,
	  "hpet registered, rating 250" },
	{ "acpi_pm", "drivers/clocksource/acpi_pm.c: rating 200",
	  KV_OPEN, KV_OPEN, r_acpi_pm_applies, r_acpi_pm,
	  "acpi_pm registered, rating 200" },
	{ "unsync-cpus", "arch/x86/kernel/tsc.c unsynchronized_tsc(), before 6.12",
	  KV_OPEN, KV(6, 11), r_unsync_cpus_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one possible CPU: TSC marked unstable at boot" },
	{ "unsync-packages", "arch/x86/kernel/tsc.c unsynchronized_tsc(), 6.12+ (e7ff4ebffe3b)",
	  KV(6, 12), KV_OPEN, r_unsync_packages_applies, r_tsc_unstable,
	  "non-Intel CPU without CONSTANT_TSC and more than one package: TSC marked unstable at boot" },
	{ "tsc-warp", "arch/x86/kernel/tsc_sync.c check_tsc_sync_source()",
	  KV_OPEN, KV_OPEN, r_warp_applies, r_tsc_unstable,
	  "the probe saw TSC warps between CPUs: Linux's boot sync check turns the TSC off" },
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

static bool rule_in_range(const struct rule *r, unsigned kver)
{
	if (r->since != KV_OPEN && kver < r->since)
		return false;
	if (r->until != KV_OPEN && kver > r->until)
		return false;
	return true;
}

static void run_rules(const struct facts *f, struct model *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct rule *r = &rules[i];
		if (str_equal(r->id, "watchdog-demote"))
			m->watchdog = pick_watchdog(m);
		if (!rule_in_range(r, m->kver) || !r->applies(f, m))
			continue;
		r->apply(f, m);
		add_reason(m->explain, r->why, r->cite);
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
		if (m->reg[VERDICT_SRC_KVMCLOCK] && m->rating[VERDICT_SRC_KVMCLOCK] == 299)
			return "kvm-clock lowered to 299 (invariant TSC, 5.1+): tsc wins";
		if (m->reg[VERDICT_SRC_HV_TSC_PAGE] && m->rating[VERDICT_SRC_HV_TSC_PAGE] == 250)
			return "Hyper-V TSC page lowered to 250 (TSC invariant control, 5.6+): tsc wins";
		if (m->tsc_must_verify)
			return "tsc (300) wins; the clocksource watchdog keeps checking it";
		return "tsc (300) wins";
	}
	if (m->tsc_demoted)
		return "the watchdog is expected to mark tsc unstable";
	if (m->tsc_unstable && tsc_present(f)) {
		if (!m->tsc_khz_known)
			return "TSC frequency unknown: TSC not registered";
		if (f->in->xcpu_warps && !m->tsc_reliable)
			return "TSC warps between CPUs: boot sync check turns it off";
		return m->kver >= KV(6, 12) ?
			       "TSC unsynchronized: non-Intel, no CONSTANT_TSC, >1 package" :
			       "TSC unsynchronized: non-Intel, no CONSTANT_TSC, >1 possible CPU";
	}
	if (m->chosen == VERDICT_SRC_KVMCLOCK)
		return m->rating[VERDICT_SRC_KVMCLOCK] == 400 ? "kvm-clock (400) beats tsc (300)" :
								 "kvm-clock is the best stable source";
	if (m->chosen == VERDICT_SRC_HV_TSC_PAGE || m->chosen == VERDICT_SRC_HV_MSR)
		return "Hyper-V clocksource rated above tsc (no TSC invariant control)";
	if (m->chosen == VERDICT_SRC_XEN)
		return "xen (400) beats tsc (300)";
	return "best remaining source";
}

static void select_source(const struct facts *f, struct model *m)
{
	m->chosen = -1;
	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		if (!source_usable(m, s))
			continue;
		if (m->chosen < 0 || m->rating[s] > m->rating[m->chosen])
			m->chosen = s;
	}
	m->vdso = m->chosen >= 0 && source_has_vdso(m, m->chosen);
	if (m->chosen == VERDICT_SRC_TSC && m->tsc_must_verify && m->conf < CONF_MEDIUM)
		m->conf = CONF_MEDIUM;
	m->note = select_note(f, m);
}

static void predict(const struct facts *f, unsigned kver, struct verdict *explain,
		    struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->kver = kver;
	m->watchdog = -1;
	m->explain = explain;
	run_rules(f, m);
	select_source(f, m);
}

/* ---- facts that lower confidence ---------------------------------------- */

static void note_unknowns(const struct facts *f, struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (in->vendor == VERDICT_VENDOR_UNKNOWN || f->plat == PLAT_UNKNOWN) {
		m->conf = CONF_LOW;
		add_reason(v, "CPU vendor or hypervisor unknown: the prediction is a guess", NULL);
	}
	if (in->invariant_tsc == VERDICT_UNKNOWN) {
		m->conf = CONF_LOW;
		add_reason(v, "invariant TSC bit unknown: assumed absent", NULL);
	}
	if (!f->intel && !m->constant_tsc && !m->tsc_reliable) {
		if (f->possible_guessed) {
			if (m->conf < CONF_MEDIUM)
				m->conf = CONF_MEDIUM;
			add_reason(v, "possible CPUs (MADT) unknown: running CPUs used instead", NULL);
		}
		if (f->packages_guessed) {
			if (m->conf < CONF_MEDIUM)
				m->conf = CONF_MEDIUM;
			add_reason(v, "package count unknown: assumed 1 (QEMU >= 6.2 puts -smp N in one socket)",
				   NULL);
		}
	}
	if (in->sources[VERDICT_SRC_HPET].present == VERDICT_UNKNOWN)
		add_reason(v, "HPET presence unknown: counted as absent", NULL);
	else if (no(in->sources[VERDICT_SRC_HPET].present))
		add_reason(v, "no HPET: nothing between the TSC and acpi_pm", NULL);
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

/* With no HPET, the TSC under the watchdog is first checked against
 * refined-jiffies until acpi_pm registers (kernel/time/clocksource.c picks
 * the best non-MUST_VERIFY source as watchdog).  Jiffies lose ticks on a
 * vCPU that does not run steadily (TCG, heavy steal), so the TSC can look
 * 20% fast and be demoted to acpi_pm before acpi_pm takes the watchdog
 * over.  Seen with Debian's 6.1 and 6.12 on QEMU TCG q35,hpet=off -smp 1:
 * 3 of 6 boots each way ("skewed 80233346 ns over watchdog
 * 'refined-jiffies'", tests/linux/README.md).  A race, not a rule: the
 * prediction stays, its confidence drops and the reason says why. */
static void note_jiffies_watchdog_race(const struct facts *f, struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	bool unsteady = f->plat == PLAT_TCG ||
			(in->gaps_measured && in->gap_window_ms &&
			 in->gap_total_ns * 100 >= (uint64_t)in->gap_window_ms * 1000000);
	if (m->chosen != VERDICT_SRC_TSC || !m->tsc_must_verify || !unsteady ||
	    in->sources[VERDICT_SRC_HPET].present == VERDICT_YES)
		return;
	m->conf = CONF_LOW;
	add_reason(v, "no HPET: until acpi_pm registers, the TSC is checked against refined-jiffies, "
		      "which loses ticks on an unsteady vCPU; the TSC may be demoted to acpi_pm at boot",
		   "kernel/time/clocksource.c clocksource_watchdog(); seen on QEMU TCG hpet=off");
}

/* ---- by_kernel ---------------------------------------------------------- */

struct era {
	const char *from, *to;
	unsigned kver;
};

/* Boundaries where a rule above changes; the first era reaches back to
 * Debian 10's 4.19. */
static const struct era eras[] = {
	{ "4.19", "5.0", KV(4, 19) }, { "5.1", "5.5", KV(5, 1) },
	{ "5.6", "5.16", KV(5, 6) },  { "5.17", "6.11", KV(5, 17) },
	{ "6.12", NULL, KV(6, 12) },
};

static const char *chosen_name(const struct model *m)
{
	return m->chosen >= 0 ? source_names[m->chosen] : "jiffies";
}

static void fill_by_kernel(const struct facts *f, struct verdict *v)
{
	struct verdict_kernel_range *last = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(eras); i++) {
		struct model m;
		predict(f, eras[i].kver, NULL, &m);
		const char *name = chosen_name(&m);
		if (last && str_equal(last->linux_clocksource, name) && last->vdso == m.vdso) {
			last->to = eras[i].to;
			continue;
		}
		if (v->by_kernel_count >= VERDICT_MAX_RANGES)
			break;
		last = &v->by_kernel[v->by_kernel_count++];
		last->from = eras[i].from;
		last->to = eras[i].to;
		last->linux_clocksource = name;
		last->vdso = m.vdso;
		last->note = m.note;
	}
}

/* ---- what a user would see ------------------------------------------------ */

/* clocksource_enqueue() keeps the list sorted by rating; a source the
 * watchdog demoted stays listed with rating 0, one unstable at boot was
 * never registered. */
static void fill_available(const struct model *m, struct verdict *v)
{
	struct strbuf sb;
	bool listed[VERDICT_SRC_COUNT] = { false };

	sb_init(&sb, v->available_clocksource, sizeof(v->available_clocksource));
	for (int round = 0; round < VERDICT_SRC_COUNT; round++) {
		int best = -1;
		for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
			if (!m->reg[s] || listed[s])
				continue;
			unsigned r = (s == VERDICT_SRC_TSC && m->tsc_demoted) ? 0 : m->rating[s];
			unsigned rb = best < 0 ? 0 :
				      (best == VERDICT_SRC_TSC && m->tsc_demoted) ? 0 : m->rating[best];
			if (best < 0 || r > rb)
				best = s;
		}
		if (best < 0)
			break;
		listed[best] = true;
		if (sb.len)
			sb_char(&sb, ' ');
		sb_str(&sb, source_names[best]);
	}
	if (!sb.len)
		sb_str(&sb, "jiffies");
}

/* ---- warnings ----------------------------------------------------------- */

struct fix {
	const char *brief;	/* for the summary line */
	const char *full;	/* for warnings[].fix */
};

static const struct fix fix_invtsc = {
	"expose invariant TSC (QEMU -cpu <model>,+invtsc; libvirt <feature policy='require' name='invtsc'/>)",
	"Expose invariant TSC to the guest: QEMU/KVM -cpu <model>,+invtsc (TCG cannot emulate it); "
	"libvirt <feature policy='require' name='invtsc'/> in <cpu>; Proxmox cpu flag +invtsc. "
	"invtsc blocks live migration unless the TSC rate is pinned (QEMU tsc-frequency=, same on "
	"every host). Without it, keep kvm-clock visible. Last resort in the guest: tsc=reliable "
	"(turns off the watchdog and the sync check: a TSC that really drifts or warps then makes "
	"time jump or go backwards)."
};

static const struct fix fix_kvm_unhide = {
	"unhide KVM (drop kvm=off; libvirt <kvm><hidden state='off'/></kvm>) so kvm-clock is used",
	"Let the guest see KVM and kvm-clock: remove kvm=off from QEMU -cpu (or libvirt "
	"<kvm><hidden state='off'/></kvm>), keep kvmclock on (-cpu ...,kvmclock=on, "
	"kvmclock-stable-bit=on; libvirt <timer name='kvmclock' present='yes'/>). Better still, "
	"also expose invtsc (-cpu ...,+invtsc) so 5.1+ guests use the TSC directly."
};

static const struct fix fix_hpet = {
	"expose invariant TSC or kvm-clock; HPET reads still exit to the hypervisor",
	"The TSC (or kvm-clock) is the real fix: QEMU/KVM -cpu <model>,+invtsc or libvirt "
	"<feature policy='require' name='invtsc'/>; keep kvm-clock visible (no kvm=off). The HPET "
	"only limits the damage (each read is an MMIO exit)."
};

static const struct fix fix_acpi_pm = {
	"expose invariant TSC (QEMU -cpu <model>,+invtsc; libvirt <feature policy='require' name='invtsc'/>)",
	"Expose invariant TSC: QEMU/KVM -cpu <model>,+invtsc, libvirt <feature policy='require' "
	"name='invtsc'/> (pin tsc-frequency= for live migration); and/or unhide kvm-clock (drop "
	"kvm=off, libvirt <kvm><hidden state='off'/></kvm>). A guest HPET (QEMU -machine hpet=on, "
	"libvirt <timer name='hpet' present='yes'/>) is a smaller step up. Guest-side last resort: "
	"clocksource=tsc tsc=reliable (no watchdog, no sync check: risky if the TSCs really differ)."
};

static const struct fix fix_unsynced = {
	"fix the host TSC sync (check host dmesg for TSC unstable; pin vCPUs)",
	"The TSCs of the vCPUs disagree. Host: check that the host TSC is stable and synchronized "
	"(host dmesg 'TSC unstable', BIOS TSC/C-state settings), keep all vCPUs of a VM on hosts "
	"with one TSC rate, let KVM sync the vCPU TSCs (do not write IA32_TSC per vCPU); VMware/"
	"Hyper-V: use a current virtual hardware version. Never paper over warps with "
	"tsc=reliable: time would go backwards across CPUs."
};

static const struct fix fix_kvm_stable = {
	"make the host run KVM's master clock (host clocksource tsc, synced vCPU TSCs)",
	"kvm-clock has no stable bit, so every clock_gettime is a syscall and reads funnel through "
	"one shared cache line. Host side: KVM sets PVCLOCK_TSC_STABLE_BIT only in master-clock "
	"mode: host clocksource must be tsc (cat /sys/devices/system/clocksource/clocksource0/"
	"current_clocksource on the host), vCPU TSCs written in sync, QEMU -cpu "
	"...,kvmclock-stable-bit=on (libvirt default). Or expose invtsc so 5.1+ guests use tsc."
};

static const struct fix fix_freq = {
	"pin the guest TSC frequency (QEMU tsc-frequency=) or fix the advertised value",
	"The advertised TSC frequency disagrees with the measured one: guests that trust it "
	"(TSC_KNOWN_FREQ, no refinement) keep time at the wrong rate until NTP steers. QEMU/KVM: "
	"set -cpu ...,tsc-frequency=<host TSC Hz> on hosts with TSC scaling, or let kvm-clock "
	"advertise it; guest override: tsc_early_khz=<kHz>. On bare metal, report it to the "
	"firmware/CPU vendor (CPUID 0x15 crystal)."
};

static const struct fix fix_calibration = {
	"give the guest a reference timer (HPET/PIT/PM timer) or an advertised TSC frequency",
	"Linux has no way to learn the TSC frequency: no hypervisor frequency (kvm-clock, Hyper-V "
	"frequency MSRs, VMware GETHZ), no CPUID 0x15 crystal, and no PIT, HPET or PM timer to "
	"calibrate against. Guests may fail to calibrate the TSC and the LAPIC timer or hang at "
	"boot. Add a timer (QEMU -machine hpet=on, keep the PIT, keep ACPI for the PM timer) or "
	"advertise the rate (kvm-clock; QEMU -cpu ...,+invtsc,tsc-frequency=)."
};

static const struct fix fix_gaps = {
	"reduce host overcommit / pin vCPUs",
	"The vCPU was not running for measurable stretches (host preemption, SMIs, steal). Reduce "
	"host CPU overcommit, pin vCPUs (libvirt <vcputune><vcpupin>), isolate host CPUs, check "
	"host SMI counts; in the guest, steal time (kvm steal_time) accounts for it."
};

static const struct fix fix_drift = {
	"find which clock is wrong (compare with TSC_FREQ_MISMATCH), keep NTP in the guest",
	"Two clock sources disagree on the rate of time. If the TSC is the outlier, its advertised "
	"or calibrated frequency is off (see TSC_FREQ_MISMATCH); if HPET/PM timer is, the device "
	"model's clock is. Keep NTP/chrony in the guest; a drift above ~500 ppm makes Linux's "
	"clocksource watchdog distrust the TSC."
};

static const struct fix fix_hv_msr = {
	"offer the Hyper-V reference TSC page (QEMU hv-time) or invariant TSC",
	"The guest reads the Hyper-V reference counter through an MSR: a syscall plus a VM exit "
	"per read. Offer the reference TSC page (QEMU/KVM -cpu ...,hv-time,hv-frequencies; on "
	"Hyper-V it is standard on current hosts) or TSC invariant control so 5.6+ guests use tsc."
};

static const struct fix fix_kernel = {
	"use a 6.12+ guest kernel, or expose invariant TSC",
	"Older guest kernels choose a slower clocksource here (see by_kernel). Either run the "
	"guest on 6.12 or later, or expose invariant TSC (QEMU -cpu <model>,+invtsc; libvirt "
	"<feature policy='require' name='invtsc'/>), which fixes every kernel version."
};

static struct verdict_warning *add_warning(struct verdict *v, const char *code,
					   const char *severity, const struct fix *fix)
{
	if (v->warning_count >= VERDICT_MAX_WARNINGS)
		return NULL;
	struct verdict_warning *w = &v->warnings[v->warning_count++];
	w->code = code;
	w->severity = severity;
	w->fix = fix ? fix->full : "";
	w->message[0] = 0;
	w->evidence[0] = 0;
	return w;
}

static void sb_ns(struct strbuf *sb, uint64_t ns_milli)
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
static void sb_ratio(struct strbuf *sb, uint64_t num_milli, uint64_t den_milli)
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

static void evidence_source_cost(struct strbuf *sb, const struct verdict_input *in, int s)
{
	uint64_t cost = in->sources[s].read_ns_milli;
	uint64_t tsc = in->sources[VERDICT_SRC_TSC].read_ns_milli;

	sb_str(sb, source_names[s]);
	if (!cost) {
		sb_str(sb, " read cost not measured");
		return;
	}
	sb_str(sb, " read costs ");
	sb_ns(sb, cost);
	if (tsc) {
		sb_str(sb, " = ");
		sb_ratio(sb, cost, tsc);
	}
}

/* Why the TSC and the paravirt clocks are out of the race, in a few words. */
static void evidence_why_not_better(struct strbuf *sb, const struct facts *f,
				    const struct model *m)
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
	if (m->tsc_demoted)
		sb_str(sb, " (watchdog expected to reject tsc)");
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

static void warn_fallback(const struct facts *f, const struct model *m, struct verdict *v)
{
	struct verdict_warning *w;
	struct strbuf sb;

	if (m->chosen == VERDICT_SRC_ACPI_PM)
		w = add_warning(v, "ACPI_PM_FALLBACK", "critical", &fix_acpi_pm);
	else if (m->chosen == VERDICT_SRC_HPET)
		w = add_warning(v, "HPET_FALLBACK", "warning", &fix_hpet);
	else if (m->chosen < 0)
		w = add_warning(v, "JIFFIES_FALLBACK", "critical", &fix_calibration);
	else
		return;
	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "A Linux ");
	sb_str(&sb, v->linux_kernel);
	sb_str(&sb, " guest falls back to ");
	sb_str(&sb, chosen_name(m));
	sb_str(&sb, m->chosen < 0 ? ": tick-resolution time, every read a syscall" :
				    ": every clock read is a syscall plus a trapped device read");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	evidence_why_not_better(&sb, f, m);
	if (m->chosen >= 0) {
		sb_str(&sb, "; ");
		evidence_source_cost(&sb, f->in, m->chosen);
	}
}

/* A stable paravirt clock with a vDSO path makes a missing invariant bit
 * harmless for clock reads; otherwise it is what pushed Linux down. */
static bool covered_by_paravirt(const struct model *m)
{
	return m->vdso && m->chosen != VERDICT_SRC_TSC;
}

static void sb_hex_field(struct strbuf *sb, const char *label, uint32_t v)
{
	sb_str(sb, label);
	sb_str(sb, "0x");
	sb_hex(sb, v, 1);
}

static void warn_not_invariant(const struct facts *f, const struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (!tsc_present(f) || !no(in->invariant_tsc) || m->tsc_reliable)
		return;
	bool info = covered_by_paravirt(m);
	struct verdict_warning *w = add_warning(v, "TSC_NOT_INVARIANT", info ? "info" : "warning",
						&fix_invtsc);
	if (!w)
		return;
	struct strbuf sb;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "The TSC is not advertised as invariant: Linux does not fully trust it");
	if (info)
		sb_str(&sb, " (harmless here: a stable paravirt clock is used)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_str(&sb, "CPUID 0x80000007 EDX[8] = 0; family ");
	sb_hex_field(&sb, "", in->family);
	sb_hex_field(&sb, " model ", in->model);
	sb_str(&sb, m->constant_tsc ? "; CONSTANT_TSC from the model table" : "; no CONSTANT_TSC");
	sb_str(&sb, m->tsc_unstable ? "; TSC unstable at boot" :
		    m->tsc_must_verify ? "; TSC under the clocksource watchdog" : "");
}

static void warn_unsynced(const struct facts *f, const struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (!in->xcpu_warps)
		return;
	struct verdict_warning *w = add_warning(v, "TSC_UNSYNCED", "critical", &fix_unsynced);
	if (!w)
		return;
	struct strbuf sb;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, m->tsc_reliable ?
		    "TSCs differ between CPUs, and Linux skips its sync check here (TSC_RELIABLE): "
		    "time can go backwards across CPUs" :
		    "TSCs differ between CPUs: Linux turns the TSC off at boot");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_u64(&sb, in->xcpu_warps);
	sb_str(&sb, " backward steps between CPUs in the warp test over ");
	sb_u64(&sb, in->xcpu_tested);
	sb_str(&sb, " CPUs; max skew ");
	sb_u64(&sb, in->xcpu_max_skew_cycles);
	sb_str(&sb, " cycles");
}

static const struct fix fix_kvmclock_warp = {
	"make the host keep KVM in master-clock mode (stable host TSC)",
	"kvm-clock went backwards between vCPUs although the host publishes it as one clock. "
	"Host: KVM's master-clock mode needs a stable host TSC clocksource (host dmesg 'TSC "
	"unstable', nested virtualization, TSC scaling mismatches break it); check "
	"/sys/kernel/debug/kvm/*/vcpu*/ for TSC offsets, keep the VM on hosts with one TSC rate. "
	"A guest on this host can see time step backwards across CPUs."
};

/* The same warp test as the TSC's, on pvclock readings (kvm-unit-tests'
 * kvmclock_test): with the stable bit Linux trusts kvm-clock across vCPUs
 * and drops its last-value guard, so any warp reaches user space. */
static void warn_kvmclock_warp(const struct facts *f, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	if (!in->xcpu_kvmclock_warps)
		return;
	struct verdict_warning *w = add_warning(v, "KVMCLOCK_WARP", "critical", &fix_kvmclock_warp);
	if (!w)
		return;
	struct strbuf sb;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, in->pvclock_stable == VERDICT_YES ?
		    "kvm-clock went backwards across vCPUs although the host marks it stable" :
		    "kvm-clock went backwards across vCPUs (Linux's last-value guard hides it, at a cost)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_u64(&sb, in->xcpu_kvmclock_warps);
	sb_str(&sb, " backward step(s) of up to ");
	sb_u64(&sb, in->xcpu_kvmclock_max_warp_ns);
	sb_str(&sb, " ns between vCPUs in the pvclock warp test");
}

static void warn_kvmclock(const struct facts *f, const struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	struct verdict_warning *w;
	struct strbuf sb;
	bool pushed_down = m->chosen == VERDICT_SRC_ACPI_PM || m->chosen == VERDICT_SRC_HPET ||
			   m->chosen < 0;

	if (f->kvmclock_advertised && (no(in->kvm_stable_bit) || no(in->pvclock_stable))) {
		bool used = m->chosen == VERDICT_SRC_KVMCLOCK;
		w = add_warning(v, "KVMCLOCK_NOT_STABLE", used ? "warning" : "info", &fix_kvm_stable);
		if (w) {
			sb_init(&sb, w->message, sizeof(w->message));
			sb_str(&sb, used ? "kvm-clock has no stable bit: clock_gettime is a syscall, "
					   "reads serialize on a shared last-value" :
					   "kvm-clock has no stable bit (not the selected clocksource)");
			sb_init(&sb, w->evidence, sizeof(w->evidence));
			sb_str(&sb, "CPUID 0x40000001 EAX[24] ");
			sb_str(&sb, yes(in->kvm_stable_bit) ? "set" : no(in->kvm_stable_bit) ? "clear" : "unknown");
			sb_str(&sb, "; pvclock flags PVCLOCK_TSC_STABLE_BIT ");
			sb_str(&sb, yes(in->pvclock_stable) ? "set" : no(in->pvclock_stable) ? "clear" : "not read");
		}
	}
	bool kvm_bits_masked = f->plat == PLAT_KVM && !f->kvmclock_advertised;
	if (f->plat != PLAT_HIDDEN && !kvm_bits_masked)
		return;
	w = add_warning(v, "KVMCLOCK_HIDDEN", pushed_down ? "critical" : "warning", &fix_kvm_unhide);
	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, kvm_bits_masked ? "KVM masks the kvm-clock feature bits: the guest cannot use kvm-clock" :
				      "A hypervisor is present but hides its signature: no kvm-clock for the guest");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	if (kvm_bits_masked)
		sb_str(&sb, "KVMKVMKVM signature found, CPUID 0x40000001 EAX bits 0 and 3 clear");
	else
		sb_str(&sb, "CPUID.1:ECX[31] set, no signature in 0x40000000-0x4000FF00 "
			    "(QEMU kvm=off / libvirt <kvm><hidden state='on'/>)");
	if (in->sources[VERDICT_SRC_ACPI_PM].read_path == VERDICT_PATH_DEVICE_MODEL ||
	    in->sources[VERDICT_SRC_ACPI_PM].read_path == VERDICT_PATH_EXIT)
		sb_str(&sb, "; PM timer reads exit to the hypervisor");
}

static void sb_hz(struct strbuf *sb, uint64_t hz)
{
	sb_fixed(sb, (int64_t)(hz / 1000), 3);
	sb_str(sb, " MHz");
}

static const char *const freq_by_names[] = {
	[VERDICT_FREQ_NONE] = "nobody",
	[VERDICT_FREQ_CPUID_15] = "CPUID 0x15",
	[VERDICT_FREQ_CPUID_16] = "CPUID 0x16",
	[VERDICT_FREQ_HYPERVISOR_LEAF] = "CPUID 0x40000010",
	[VERDICT_FREQ_PVCLOCK] = "pvclock",
	[VERDICT_FREQ_HYPERV_MSR] = "Hyper-V frequency MSR",
	[VERDICT_FREQ_VMWARE_GETHZ] = "VMware GETHZ",
};

static void warn_freq(const struct facts *f, const struct model *m, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	struct verdict_warning *w;
	struct strbuf sb;

	if (in->freq_disagreement_known && abs64(in->freq_disagreement_ppm) > FREQ_MISMATCH_PPM) {
		w = add_warning(v, "TSC_FREQ_MISMATCH", "warning", &fix_freq);
		if (w) {
			sb_init(&sb, w->message, sizeof(w->message));
			sb_str(&sb, "The advertised TSC frequency is off by more than 500 ppm");
			sb_init(&sb, w->evidence, sizeof(w->evidence));
			sb_str(&sb, "advertised ");
			sb_hz(&sb, in->freq_advertised_hz);
			sb_str(&sb, " by ");
			sb_str(&sb, (unsigned)in->freq_by < ARRAY_SIZE(freq_by_names) ?
					    freq_by_names[in->freq_by] : "?");
			sb_str(&sb, ", measured ");
			sb_hz(&sb, in->freq_measured_hz);
			sb_str(&sb, ": ");
			sb_i64(&sb, in->freq_disagreement_ppm);
			sb_str(&sb, " ppm");
		}
	}
	if (m->tsc_khz_known || !tsc_present(f))
		return;
	w = add_warning(v, "NO_CALIBRATION_REFERENCE", "critical", &fix_calibration);
	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "Linux cannot learn the TSC frequency: no advertised rate and no timer to "
		    "calibrate against (boot may fail or hang)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_str(&sb, "no hypervisor or CPUID 0x15 frequency Linux would use; PIT, HPET and PM timer absent");
}

static void warn_gaps(const struct facts *f, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (!in->gaps_measured || !in->gap_count)
		return;
	uint64_t window_ns = in->gap_window_ms * 1000000ull;
	uint64_t share_ppm = window_ns ? mul_div_u64(in->gap_total_ns, 1000000, window_ns) : 0;
	if (in->gap_max_ns < GAP_WARN_MAX_NS && share_ppm < GAP_WARN_SHARE_PPM)
		return;
	struct verdict_warning *w = add_warning(v, "LARGE_GAPS",
						in->gap_max_ns >= ACPI_PM_WRAP_NS ? "critical" : "warning",
						&fix_gaps);
	if (!w)
		return;
	struct strbuf sb;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "The vCPU stopped running for significant time (preemption, SMIs or steal)");
	if (in->gap_max_ns >= ACPI_PM_WRAP_NS)
		sb_str(&sb, "; longer than an acpi_pm wrap (4.7 s)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_u64(&sb, in->gap_count);
	sb_str(&sb, " gaps in ");
	sb_u64(&sb, in->gap_window_ms);
	sb_str(&sb, " ms, longest ");
	sb_ns(&sb, in->gap_max_ns * 1000);
	sb_str(&sb, ", total ");
	sb_ns(&sb, in->gap_total_ns * 1000);
	sb_str(&sb, " (");
	sb_fixed(&sb, (int64_t)(share_ppm / 100), 2);
	sb_str(&sb, "% of the window)");
}

static void warn_drift(const struct facts *f, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	struct verdict_warning *w = NULL;
	struct strbuf sb;

	for (uint32_t i = 0; i < in->drift_count && i < VERDICT_MAX_DRIFT; i++) {
		const struct verdict_drift *d = &in->drift[i];
		if (abs64(d->ppm) <= DRIFT_WARN_PPM)
			continue;
		if (!w) {
			w = add_warning(v, "SOURCE_DRIFT", "warning", &fix_drift);
			if (!w)
				return;
			sb_init(&sb, w->message, sizeof(w->message));
			sb_str(&sb, "Clock sources disagree on the rate of time by more than 100 ppm");
			sb_init(&sb, w->evidence, sizeof(w->evidence));
		} else {
			sb_str(&sb, "; ");
		}
		sb_str(&sb, d->a ? d->a : "?");
		sb_str(&sb, " vs ");
		sb_str(&sb, d->b ? d->b : "?");
		sb_str(&sb, ": ");
		sb_i64(&sb, d->ppm);
		sb_str(&sb, " ppm over ");
		sb_u64(&sb, d->window_ms);
		sb_str(&sb, " ms");
	}
}

static bool slow_source(const char *name)
{
	return str_equal(name, "acpi_pm") || str_equal(name, "hpet") || str_equal(name, "jiffies") ||
	       str_equal(name, "hyperv_clocksource_msr");
}

static void warn_kernel_dependent(struct verdict *v)
{
	struct strbuf sb;
	bool older_slower = false;

	if (v->by_kernel_count < 2)
		return;
	for (uint32_t i = 0; i < v->by_kernel_count; i++)
		if (!str_equal(v->by_kernel[i].linux_clocksource, v->linux_clocksource) &&
		    slow_source(v->by_kernel[i].linux_clocksource))
			older_slower = true;
	struct verdict_warning *w = add_warning(v, "KERNEL_DEPENDENT",
						older_slower ? "warning" : "info", &fix_kernel);
	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "The choice depends on the guest kernel version (Debian 12 runs 6.1)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		if (i)
			sb_str(&sb, "; ");
		sb_str(&sb, r->from);
		sb_str(&sb, r->to ? "-" : "+");
		if (r->to)
			sb_str(&sb, r->to);
		sb_str(&sb, ": ");
		sb_str(&sb, r->linux_clocksource);
		sb_str(&sb, r->vdso ? " (vDSO)" : " (no vDSO)");
	}
}

static void warn_hv_msr(const struct model *m, struct verdict *v)
{
	if (m->chosen != VERDICT_SRC_HV_MSR)
		return;
	struct verdict_warning *w = add_warning(v, "HYPERV_MSR_CLOCKSOURCE", "warning", &fix_hv_msr);
	if (!w)
		return;
	str_copy(w->message, sizeof(w->message),
		 "Hyper-V without the reference TSC page: every clock read is a syscall and an MSR exit");
	str_copy(w->evidence, sizeof(w->evidence),
		 "CPUID 0x40000003 EAX[9] (AccessPartitionReferenceTsc) clear, EAX[1] set");
}

static void add_warnings(const struct facts *f, const struct model *m, struct verdict *v)
{
	warn_fallback(f, m, v);
	warn_unsynced(f, m, v);
	warn_kvmclock_warp(f, v);
	warn_kernel_dependent(v);
	warn_kvmclock(f, m, v);
	warn_not_invariant(f, m, v);
	warn_hv_msr(m, v);
	warn_freq(f, m, v);
	warn_gaps(f, v);
	warn_drift(f, v);
	for (uint32_t i = 0; i < v->warning_count; i++) {
		static const struct {
			const char *code;
			const struct fix *fix;
		} briefs[] = {
			{ "ACPI_PM_FALLBACK", &fix_acpi_pm },	{ "HPET_FALLBACK", &fix_hpet },
			{ "JIFFIES_FALLBACK", &fix_calibration }, { "TSC_UNSYNCED", &fix_unsynced },
			{ "KVMCLOCK_NOT_STABLE", &fix_kvm_stable }, { "KVMCLOCK_HIDDEN", &fix_kvm_unhide },
			{ "TSC_NOT_INVARIANT", &fix_invtsc },	{ "HYPERV_MSR_CLOCKSOURCE", &fix_hv_msr },
			{ "TSC_FREQ_MISMATCH", &fix_freq },	{ "NO_CALIBRATION_REFERENCE", &fix_calibration },
			{ "LARGE_GAPS", &fix_gaps },		{ "SOURCE_DRIFT", &fix_drift },
			{ "KERNEL_DEPENDENT", &fix_kernel },	{ "KVMCLOCK_WARP", &fix_kvmclock_warp },
		};
		for (size_t b = 0; b < ARRAY_SIZE(briefs); b++)
			if (str_equal(v->warnings[i].code, briefs[b].code))
				v->warnings[i].fix_brief = briefs[b].fix->brief;
	}
}

/* ---- the verdict ---------------------------------------------------------- */

static const char *const confidence_names[] = { "high", "medium", "low" };

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
static void fill_why_text(const struct facts *f, const struct model *m, struct verdict *v)
{
	struct strbuf sb;

	sb_init(&sb, v->why_text, sizeof(v->why_text));
	if (m->chosen != VERDICT_SRC_TSC && !m->vdso && tsc_present(f))
		evidence_why_not_better(&sb, f, m);
	else
		sb_str(&sb, m->note);
	const struct verdict_warning *w = verdict_find_warning(v, "KERNEL_DEPENDENT");
	if (!w || !str_equal(w->severity, "warning"))
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

void verdict_decide(struct verdict *out, const struct verdict_input *in)
{
	struct facts f;
	struct model m;

	memset(out, 0, sizeof(*out));
	digest(&f, in);
	out->linux_kernel = MAIN_KERNEL_NAME;
	predict(&f, MAIN_KERNEL, out, &m);
	note_unknowns(&f, &m, out);
	note_jiffies_watchdog_race(&f, &m, out);
	conclusion(&m, out);

	out->linux_clocksource = chosen_name(&m);
	out->current_clocksource = out->linux_clocksource;
	out->vdso = m.vdso;
	out->why = m.note;
	out->confidence = confidence_names[m.conf];
	predicted_cost(in, &m, out);
	fill_available(&m, out);
	fill_by_kernel(&f, out);
	add_warnings(&f, &m, out);
	fill_why_text(&f, &m, out);
}

const struct verdict_warning *verdict_find_warning(const struct verdict *v, const char *code)
{
	for (uint32_t i = 0; i < v->warning_count; i++)
		if (str_equal(v->warnings[i].code, code))
			return &v->warnings[i];
	return NULL;
}

/* ---- output --------------------------------------------------------------- */

void verdict_to_json(struct json *j, const struct verdict *v)
{
	json_object_begin(j, "verdict");
	json_string(j, "linux_clocksource", v->linux_clocksource);
	json_string(j, "linux_kernel", v->linux_kernel);
	json_bool(j, "vdso", v->vdso);
	if (v->read_cost_measured)
		json_fixed(j, "predicted_read_ns", (int64_t)v->predicted_read_ns_milli, 3);
	else
		json_null(j, "predicted_read_ns");
	json_u64(j, "syscall_overhead_ns_estimate", v->syscall_overhead_ns_estimate);
	json_string(j, "confidence", v->confidence);
	json_string(j, "current_clocksource", v->current_clocksource);
	json_string(j, "available_clocksource", v->available_clocksource);
	json_array_begin(j, "reasoning");
	for (uint32_t i = 0; i < v->reasoning_count; i++)
		json_string(j, NULL, v->reasoning[i]);
	json_array_end(j);
	json_array_begin(j, "by_kernel");
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		json_object_begin(j, NULL);
		json_string(j, "from", r->from);
		json_string(j, "to", r->to);
		json_string(j, "linux_clocksource", r->linux_clocksource);
		json_bool(j, "vdso", r->vdso);
		json_string(j, "note", r->note);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "warnings");
	for (uint32_t i = 0; i < v->warning_count; i++) {
		const struct verdict_warning *w = &v->warnings[i];
		json_object_begin(j, NULL);
		json_string(j, "code", w->code);
		json_string(j, "severity", w->severity);
		json_string(j, "message", w->message);
		json_string(j, "evidence", w->evidence);
		json_string(j, "fix", w->fix);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
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

static const struct verdict_warning *headline_warning(const struct verdict *v)
{
	static const char *const order[] = { "critical", "warning" };

	for (size_t o = 0; o < ARRAY_SIZE(order); o++)
		for (uint32_t i = 0; i < v->warning_count; i++)
			if (str_equal(v->warnings[i].severity, order[o]))
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
		if (v->tsc_read_ns_milli && !str_equal(v->linux_clocksource, "tsc")) {
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
