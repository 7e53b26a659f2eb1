/* The first three steps of Linux's boot order as rule tables: CPU
 * capability flags, where tsc_khz comes from, and which clocksources
 * register at which rating.  Each rule names the kernel file and the
 * versions it holds for (docs/verdict-rules.md has the citations in full);
 * watchdog.c holds the later steps, predict.c runs them all in order. */
#include "verdict_model.h"

/* ---- CPU capability flags ------------------------------------------------ */

/* The invariant bit is turned into CONSTANT_TSC and NONSTOP_TSC by each
 * vendor's early_init_*() (intel, amd, hygon, centaur, zhaoxin.c): a CPU
 * whose vendor Linux has no cpu_dev for gets the generic default_cpu and
 * neither flag.  Zhaoxin ("  Shanghai  ") has one since 761fdd5e3327
 * (5.3); no other vendor string does on x86-64.  An unknown vendor is
 * taken as known. */
static bool linux_knows_vendor(const struct facts *f, const struct model *m)
{
	switch (f->in->vendor) {
	case VERDICT_VENDOR_ZHAOXIN: return m->kver >= KV(5, 3);
	case VERDICT_VENDOR_OTHER: return false;
	default: return true;
	}
}

static bool r_invariant_applies(const struct facts *f, const struct model *m)
{
	return yes(f->in->invariant_tsc) && linux_knows_vendor(f, m);
}

static bool r_vendor_unknown_applies(const struct facts *f, const struct model *m)
{
	return yes(f->in->invariant_tsc) && !linux_knows_vendor(f, m);
}

static void r_no_flags(const struct facts *f, struct model *m)
{
}

/* early_init_zhaoxin(): family >= 6 sets CONSTANT_TSC, invariant bit or not. */
static bool r_zhaoxin_constant_applies(const struct facts *f, const struct model *m)
{
	return f->in->vendor == VERDICT_VENDOR_ZHAOXIN && !m->constant_tsc && f->in->family >= 6;
}

/* early_init_centaur(): family 6 model >= 0xf (VIA Nano and later) sets
 * CONSTANT_TSC in every release here; family >= 7 from 33b4711df4c1. */
static bool r_centaur_constant_applies(const struct facts *f, const struct model *m)
{
	return f->in->vendor == VERDICT_VENDOR_CENTAUR && !m->constant_tsc && f->in->family == 6 &&
	       f->in->model >= 0xf;
}

static bool r_centaur7_constant_applies(const struct facts *f, const struct model *m)
{
	return f->in->vendor == VERDICT_VENDOR_CENTAUR && !m->constant_tsc && f->in->family >= 7;
}

static void r_invariant(const struct facts *f, struct model *m)
{
	m->constant_tsc = m->nonstop_tsc = true;
}

static bool r_intel_constant_applies(const struct facts *f, const struct model *m)
{
	uint32_t fam = f->in->family, model = f->in->model;

	return f->intel && !m->constant_tsc &&
	       ((fam == 0x6 && model >= 0x0e) || (fam == 0xf && model >= 0x03));
}

/* 6.15 bounded the model list to the CPUs that lack the invariant bit but
 * have a constant TSC: P4 Prescott..Cedarmill (0xf/3..6) and Core Yonah
 * (6/0x0e) .. Ivy Bridge (6/0x3a), compared as x86_vfm values. */
static bool r_intel_constant_bounded_applies(const struct facts *f, const struct model *m)
{
	uint32_t fam = f->in->family, model = f->in->model;

	return f->intel && !m->constant_tsc &&
	       ((fam == 0x6 && model >= 0x0e && model <= 0x3a) ||
		(fam == 0xf && model >= 0x03 && model <= 0x06));
}

static bool r_tdx_applies(const struct facts *f, const struct model *m)
{
	return yes(f->in->tdx);
}

static void r_reliable(const struct facts *f, struct model *m)
{
	m->tsc_reliable = true;
}

static void r_constant_only(const struct facts *f, struct model *m)
{
	m->constant_tsc = true;
}

static bool r_secure_tsc_applies(const struct facts *f, const struct model *m)
{
	return yes(f->in->secure_tsc);
}

static bool r_hv_invariant_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_invariant_control);
}

static void r_reliable_invariant(const struct facts *f, struct model *m)
{
	m->constant_tsc = m->nonstop_tsc = m->tsc_reliable = true;
}

static bool r_vmware_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_VMWARE;
}

static void r_reliable_constant(const struct facts *f, struct model *m)
{
	m->constant_tsc = m->tsc_reliable = true;
}

static const struct rule cpu_flag_rules[] = {
	{ "cpu-invariant", "arch/x86/kernel/cpu/{intel,amd,hygon,centaur,zhaoxin}.c early_init: x86_power bit 8",
	  KV_OPEN, KV_OPEN, r_invariant_applies, r_invariant,
	  "CPUID 0x80000007 EDX[8] (invariant TSC): Linux sets CONSTANT_TSC and NONSTOP_TSC", { 0 } },
	{ "vendor-unknown", "arch/x86/kernel/cpu/common.c get_cpu_vendor(): no cpu_dev, default_cpu has no c_early_init",
	  KV_OPEN, KV_OPEN, r_vendor_unknown_applies, r_no_flags,
	  "a CPU vendor Linux has no support file for (Zhaoxin before 5.3): the invariant bit sets no CONSTANT_TSC/NONSTOP_TSC", { 0 } },
	{ "zhaoxin-constant", "arch/x86/kernel/cpu/zhaoxin.c early_init_zhaoxin(), 5.3+ (761fdd5e3327)",
	  KV(5, 3), KV_OPEN, r_zhaoxin_constant_applies, r_constant_only,
	  "Zhaoxin family >= 6: CONSTANT_TSC without invariant TSC (not NONSTOP)", { 0 } },
	{ "centaur-constant", "arch/x86/kernel/cpu/centaur.c early_init_centaur(): family 6 model >= 0xf",
	  KV_OPEN, KV_OPEN, r_centaur_constant_applies, r_constant_only,
	  "Centaur family 6 model >= 0xf: CONSTANT_TSC without invariant TSC (not NONSTOP)", { 0 } },
	{ "centaur7-constant", "arch/x86/kernel/cpu/centaur.c early_init_centaur(): family >= 7, 5.10+ (33b4711df4c1)",
	  KV(5, 10), KV_OPEN, r_centaur7_constant_applies, r_constant_only,
	  "Centaur family >= 7: CONSTANT_TSC without invariant TSC (not NONSTOP)", { 0 } },
	{ "intel-constant", "arch/x86/kernel/cpu/intel.c early_init_intel(), before 6.15",
	  KV_OPEN, KV(6, 14), r_intel_constant_applies, r_constant_only,
	  "Intel family 6 model >= 0x0e (or 0xf >= 3): CONSTANT_TSC without invariant TSC (not NONSTOP)", { 0 } },
	{ "intel-constant-bounded", "arch/x86/kernel/cpu/intel.c early_init_intel(), 6.15+ (fadb6f569b10)",
	  KV(6, 15), KV_OPEN, r_intel_constant_bounded_applies, r_constant_only,
	  "Intel Yonah..Ivy Bridge (6/0x0e..0x3a) or P4 0xf/3..6: CONSTANT_TSC without invariant TSC (not NONSTOP)", { 0 } },
	/* 9ee4318c157b was on tip x86/tdx before 6.6 was out but reached
	 * mainline in the x86/tdx pull for 6.7 (merged 2023-11-01; 6.6 was
	 * released 2023-10-29); no 6.6.y backport found (issue 39). */
	{ "tdx-reliable", "arch/x86/coco/tdx/tdx.c tdx_early_init(), 6.7+ (9ee4318c157b)",
	  KV(6, 7), KV_OPEN, r_tdx_applies, r_reliable,
	  "TDX guest: Linux forces TSC_RELIABLE (no watchdog, no sync check)", { 0 } },
	{ "secure-tsc-reliable", "arch/x86/mm/mem_encrypt_amd.c sme_early_init(): MSR_AMD64_SNP_SECURE_TSC, 6.14+ (0a2a98f691f2)",
	  KV(6, 14), KV_OPEN, r_secure_tsc_applies, r_reliable,
	  "SEV-SNP Secure TSC: Linux forces TSC_RELIABLE (no watchdog, no sync check)", { 0 } },
	{ "hyperv-invariant", "arch/x86/kernel/cpu/mshyperv.c ms_hyperv_init_platform(), 5.5+ (dce7cd62754b)",
	  KV(5, 5), KV_OPEN, r_hv_invariant_applies, r_reliable_invariant,
	  "Hyper-V offers TSC invariant control: Linux enables it, gets invariant TSC and forces TSC_RELIABLE", { 0 } },
	{ "vmware-reliable", "arch/x86/kernel/cpu/vmware.c vmware_set_capabilities()",
	  KV_OPEN, KV_OPEN, r_vmware_applies, r_reliable_constant,
	  "VMware platform: Linux forces CONSTANT_TSC and TSC_RELIABLE (no watchdog, no sync check)", { 0 } },
};

const struct rule_step step_cpu_flags = { cpu_flag_rules, ARRAY_SIZE(cpu_flag_rules), NULL };

/* ---- tsc_khz: advertised, calibrated, or nothing ---------------------------- */

static void khz_from(struct model *m, enum khz_origin by)
{
	m->tsc_khz_known = true;
	m->khz_by = by;
}

static void r_khz_kvmclock(const struct facts *f, struct model *m) { khz_from(m, KHZ_KVMCLOCK); }
static void r_khz_hyperv(const struct facts *f, struct model *m) { khz_from(m, KHZ_HYPERV); }
static void r_khz_vmware(const struct facts *f, struct model *m) { khz_from(m, KHZ_VMWARE); }
static void r_khz_xen(const struct facts *f, struct model *m) { khz_from(m, KHZ_XEN); }
static void r_khz_acrn(const struct facts *f, struct model *m) { khz_from(m, KHZ_ACRN); }
static void r_khz_cpuid(const struct facts *f, struct model *m) { khz_from(m, KHZ_CPUID); }

/* Linux measures the rate itself: a loop against the PIT, HPET or PM timer
 * that a preempted vCPU can fool (the tsc-calibration race in watchdog.c). */
static void r_khz_calibrated(const struct facts *f, struct model *m)
{
	khz_from(m, KHZ_CALIBRATED);
	m->tsc_calibrated = true;
}

/* snp_secure_tsc_init() installs securetsc_get_tsc_khz() in tsc_early_init(),
 * after the hypervisor's platform setup, and sets TSC_KNOWN_FREQ. */
static bool r_khz_secure_tsc_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && yes(f->in->secure_tsc);
}

static void r_khz_secure_tsc(const struct facts *f, struct model *m)
{
	khz_from(m, KHZ_SECURE_TSC);
	m->tsc_known_freq = true;
}

static bool r_khz_kvmclock_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->kvmclock_advertised;
}

static bool r_khz_hyperv_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->plat == PLAT_HYPERV && yes(f->in->hv_freq_msrs);
}

static bool r_khz_vmware_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->plat == PLAT_VMWARE && yes(f->in->vmware_gethz);
}

static bool r_khz_xen_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->plat == PLAT_XEN;
}

static bool r_khz_acrn_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->acrn &&
	       f->in->freq_by == VERDICT_FREQ_HYPERVISOR_LEAF;
}

static bool r_khz_cpuid_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && f->intel &&
	       (f->in->freq_by == VERDICT_FREQ_CPUID_15 ||
		f->in->freq_by == VERDICT_FREQ_CPUID_16);
}

/* What pit_hpet_ptimer_calibrate_cpu() needs (quick_pit_calibrate()
 * needs no less).  Its PIT loop (pit_calibrate_tsc()) polls port 0x61
 * until channel 2's OUT goes high and gives up with fewer than loopmin
 * reads in the window: 1000 in 10 ms (CAL_PIT_LOOPS, CAL_MS), then 5000 in
 * 50 ms (CAL2_*), one read per 10 us either way; without a legacy PIC it
 * does not run at all.  The probe's PIT read is three port accesses (the
 * latch, two bytes): one of them stands for a loop iteration. */
#define PIT_LOOP_READ_MAX_NS 10000u
#define PIT_READ_PORT_ACCESSES 3u
/* Its reference reads (tsc_read_refs() with tsc_khz still 0) must take
 * under TSC_DEFAULT_THRESHOLD (0x20000) TSC cycles in one of five tries:
 * the HPET when is_hpet_enabled(), else the PM timer. */
#define REF_READ_MAX_CYCLES 0x20000u

static bool pit_calibration_usable(const struct facts *f, struct strbuf *why)
{
	const struct verdict_input *in = f->in;
	const struct verdict_source_fact *pit = &in->sources[VERDICT_SRC_PIT];

	if (no(pit->present)) {
		if (why)
			sb_str(why, "no PIT");
		return false;
	}
	if (no(in->legacy_pic)) {
		if (why)
			sb_str(why, "no legacy PIC (MADT PCAT_COMPAT clear): the PIT loop does not run");
		return false;
	}
	uint64_t per_read = pit->read_ns_milli / PIT_READ_PORT_ACCESSES;
	if (per_read <= PIT_LOOP_READ_MAX_NS * 1000ull)
		return true; /* or not measured: it may work */
	if (why) {
		sb_str(why, "a PIT port access costs ");
		sb_ns(why, per_read);
		sb_str(why, ", over the 10 us a loop iteration may take (1000 reads in 10 ms)");
	}
	return false;
}

static uint64_t tsc_hz_known(const struct verdict_input *in)
{
	return in->freq_measured_hz ? in->freq_measured_hz : in->freq_advertised_hz;
}

static bool ref_calibration_usable(const struct facts *f, struct strbuf *why)
{
	const struct verdict_input *in = f->in;
	int ref = !no(in->sources[VERDICT_SRC_HPET].present) ? VERDICT_SRC_HPET :
		  (f->has[VERDICT_SRC_ACPI_PM] || (!no(in->sources[VERDICT_SRC_ACPI_PM].present) && !no(in->acpi))) ?
								       VERDICT_SRC_ACPI_PM :
								       -1;
	if (ref < 0) {
		if (why)
			sb_str(why, "no HPET and no PM timer to calibrate against");
		return false;
	}
	uint64_t hz = tsc_hz_known(in), cost = in->sources[ref].read_ns_milli;
	uint64_t cycles = hz ? mul_div_u64(cost, hz, 1000000000000ull) : 0;
	if (cycles < REF_READ_MAX_CYCLES)
		return true; /* or not measured */
	if (why) {
		sb_str(why, verdict_source_name(ref));
		sb_str(why, " reads cost ");
		sb_ns(why, cost);
		sb_str(why, " (");
		sb_u64(why, cycles);
		sb_str(why, " TSC cycles), over tsc_read_refs()' 131072-cycle bound on every try");
	}
	return false;
}

bool calibration_fails(const struct facts *f, struct strbuf *why)
{
	if (pit_calibration_usable(f, NULL) || ref_calibration_usable(f, NULL))
		return false;
	if (why) {
		sb_str(why, "PIT: ");
		pit_calibration_usable(f, why);
		sb_str(why, "; ");
		ref_calibration_usable(f, why);
	}
	return true;
}

static bool r_khz_calibrate_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && !calibration_fails(f, NULL);
}

static bool r_khz_none_applies(const struct facts *f, const struct model *m)
{
	return !m->tsc_khz_known && tsc_present(f);
}

static void r_tsc_unregistered(const struct facts *f, struct model *m)
{
	m->tsc_unstable = true;
}

/* Platform code first (x86_platform.calibrate_tsc), then CPUID, then a
 * timer: the first that knows the rate wins. */
static const struct rule tsc_khz_rules[] = {
	{ "khz-secure-tsc", "arch/x86/coco/sev/core.c snp_secure_tsc_init(), tsc.c tsc_early_init(), 6.14+ (73bbf3b0fbba)",
	  KV(6, 14), KV_OPEN, r_khz_secure_tsc_applies, r_khz_secure_tsc,
	  "TSC frequency from SEV-SNP Secure TSC (GUEST_TSC_FREQ), taken as known", { 0 } },
	{ "khz-kvmclock", "arch/x86/kernel/kvmclock.c kvm_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_kvmclock_applies, r_khz_kvmclock,
	  "TSC frequency from kvm-clock (pvclock mul/shift)", { 0 } },
	{ "khz-hyperv", "arch/x86/kernel/cpu/mshyperv.c hv_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_hyperv_applies, r_khz_hyperv,
	  "TSC frequency from the Hyper-V frequency MSR", { 0 } },
	{ "khz-vmware", "arch/x86/kernel/cpu/vmware.c vmware_platform_setup() GETHZ",
	  KV_OPEN, KV_OPEN, r_khz_vmware_applies, r_khz_vmware,
	  "TSC frequency from the VMware backdoor (GETHZ)", { 0 } },
	{ "khz-xen", "arch/x86/xen/time.c xen_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_xen_applies, r_khz_xen,
	  "TSC frequency from Xen's vcpu_time_info", { 0 } },
	{ "khz-acrn", "arch/x86/kernel/cpu/acrn.c acrn_get_tsc_khz()",
	  KV_OPEN, KV_OPEN, r_khz_acrn_applies, r_khz_acrn,
	  "TSC frequency from ACRN's CPUID 0x40000010", { 0 } },
	{ "khz-cpuid", "arch/x86/kernel/tsc.c native_calibrate_tsc() (Intel only)",
	  KV_OPEN, KV_OPEN, r_khz_cpuid_applies, r_khz_cpuid,
	  "TSC frequency from CPUID 0x15/0x16 (Linux reads them on Intel only)", { 0 } },
	{ "khz-calibrate", "arch/x86/kernel/tsc.c quick_pit_calibrate()/pit_hpet_ptimer_calibrate_cpu()",
	  KV_OPEN, KV_OPEN, r_khz_calibrate_applies, r_khz_calibrated,
	  "no advertised TSC frequency: Linux calibrates against the PIT, HPET or PM timer", { 0 } },
	{ "khz-none", "arch/x86/kernel/tsc.c pit_hpet_ptimer_calibrate_cpu() returns 0; tsc_init(): \"could not calculate TSC khz\"",
	  KV_OPEN, KV_OPEN, r_khz_none_applies, r_tsc_unregistered,
	  "no advertised TSC frequency and Linux's calibration cannot succeed (no usable PIT loop, no usable HPET/PM timer reference): TSC not registered", { 0 } },
};

/* TSC_KNOWN_FREQ (kvmclock.c, mshyperv.c, vmware.c, native_calibrate_tsc()
 * with a crystal, SEV-SNP Secure TSC) skips the refined calibration, so the
 * TSC never becomes CLOCK_SOURCE_CALIBRATED (the 7.1+ watchdog's margin). */
static void enter_tsc_khz(const struct facts *f, struct model *m)
{
	m->tsc_known_freq = yes(f->in->tsc_known_freq);
}

const struct rule_step step_tsc_khz = { tsc_khz_rules, ARRAY_SIZE(tsc_khz_rules), enter_tsc_khz };

/* ---- registration and ratings --------------------------------------------- */

static void register_source(struct model *m, enum verdict_source s, unsigned rating)
{
	m->reg[s] = true;
	m->rating[s] = rating;
}

static bool r_tsc_register_applies(const struct facts *f, const struct model *m)
{
	return m->tsc_khz_known && tsc_present(f);
}

static void r_tsc_register(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_TSC, RATING_TSC);
	m->tsc_must_verify = true;
}

static bool r_kvmclock_applies(const struct facts *f, const struct model *m)
{
	return f->kvmclock_advertised;
}

static void r_kvmclock(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_KVMCLOCK, RATING_KVMCLOCK);
}

static bool r_kvmclock_299_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_KVMCLOCK] && m->constant_tsc && m->nonstop_tsc;
}

static void r_kvmclock_299(const struct facts *f, struct model *m)
{
	m->rating[VERDICT_SRC_KVMCLOCK] = RATING_KVMCLOCK_INVARIANT;
}

static bool r_kvmclock_vdso_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_KVMCLOCK] && yes(f->in->kvm_stable_bit) &&
	       !no(f->in->pvclock_stable);
}

static void r_pv_vdso(const struct facts *f, struct model *m)
{
	m->pv_vdso = true;
	if (!yes(f->in->pvclock_stable))
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
}

static bool r_hv_page_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_page) && !m->hv_page_withheld;
}

/* HV_ISOLATION_TYPE_TDX (3) without a paravisor: ms_hyperv_init_platform()
 * clears HV_MSR_REFERENCE_TSC_AVAILABLE before hv_init_clocksource() looks
 * at it ("Mark the Hyper-V TSC page feature as disabled in a TDX VM without
 * paravisor so that the Invariant TSC ... is used instead"). */
#define HV_ISOLATION_TYPE_TDX 3

static bool r_hv_tdx_no_page_applies(const struct facts *f, const struct model *m)
{
	const struct verdict_input *in = f->in;

	return f->plat == PLAT_HYPERV && yes(in->hv_tsc_page) && yes(in->hv_isolated) &&
	       in->hv_isolation_type == HV_ISOLATION_TYPE_TDX && no(in->hv_paravisor);
}

static void r_hv_tdx_no_page(const struct facts *f, struct model *m)
{
	m->hv_page_withheld = true;
}

static unsigned hv_page_rating(unsigned kver)
{
	return kver >= KV(5, 13) ? RATING_HV_TSC_PAGE : kver >= KV(5, 6) ? RATING_HV_5_6 : RATING_HV_OLD;
}

static unsigned hv_msr_rating(unsigned kver)
{
	return kver >= KV(6, 5)	   ? RATING_HV_MSR :
	       kver >= KV(5, 13) ? RATING_HV_MSR_5_12 :
	       kver >= KV(5, 6)	   ? RATING_HV_5_6 :
				     RATING_HV_OLD;
}

static void r_hv_page(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_HV_TSC_PAGE, hv_page_rating(m->kver));
	m->hv_page_vdso = !no(f->in->hv_tsc_page_valid);
}

/* Before 6.5 hv_init_clocksource() registered the MSR clocksource only
 * when the TSC page could not be set up; since, both (6.12.118 source). */
static bool r_hv_msr_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_ref_counter) &&
	       (m->kver >= KV(6, 5) || !m->reg[VERDICT_SRC_HV_TSC_PAGE]);
}

static void r_hv_msr(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_HV_MSR, hv_msr_rating(m->kver));
}

static bool r_hv_lower_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_HYPERV && yes(f->in->hv_tsc_invariant_control);
}

static void r_hv_lower(const struct facts *f, struct model *m)
{
	if (m->reg[VERDICT_SRC_HV_TSC_PAGE])
		m->rating[VERDICT_SRC_HV_TSC_PAGE] = RATING_HV_TSC_PAGE_INVARIANT;
	if (m->reg[VERDICT_SRC_HV_MSR])
		m->rating[VERDICT_SRC_HV_MSR] = m->kver >= KV(6, 5) ? RATING_HV_MSR_INVARIANT
								    : RATING_HV_MSR_INVARIANT_5_12;
}

static bool r_xen_applies(const struct facts *f, const struct model *m)
{
	return f->plat == PLAT_XEN;
}

static void r_xen(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_XEN, RATING_XEN);
	m->pv_vdso = yes(f->in->pvclock_stable);
	if (f->in->pvclock_stable == VERDICT_UNKNOWN)
		cap_confidence(m, VERDICT_CONFIDENCE_MEDIUM);
}

/* xen_tsc_safe_clocksource(): CONSTANT+NONSTOP, the TSC not unstable, and
 * Xen's TSC mode "never emulate". */
static bool r_xen_299_applies(const struct facts *f, const struct model *m)
{
	return m->reg[VERDICT_SRC_XEN] && m->constant_tsc && m->nonstop_tsc &&
	       f->in->xen_tsc_mode == XEN_TSC_MODE_NEVER_EMULATE;
}

static void r_xen_299(const struct facts *f, struct model *m)
{
	m->rating[VERDICT_SRC_XEN] = RATING_XEN_SAFE_TSC;
}

static bool r_hpet_applies(const struct facts *f, const struct model *m)
{
	return f->has[VERDICT_SRC_HPET];
}

static void r_hpet(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_HPET, RATING_HPET);
}

static bool r_acpi_pm_applies(const struct facts *f, const struct model *m)
{
	return f->has[VERDICT_SRC_ACPI_PM];
}

static void r_acpi_pm(const struct facts *f, struct model *m)
{
	register_source(m, VERDICT_SRC_ACPI_PM, RATING_ACPI_PM);
}

static const struct rule register_rules[] = {
	{ "tsc-register", "arch/x86/kernel/tsc.c init_tsc_clocksource(): rating 300",
	  KV_OPEN, KV_OPEN, r_tsc_register_applies, r_tsc_register,
	  "tsc registered, rating 300", { 0 } },
	{ "kvmclock", "arch/x86/kernel/kvmclock.c kvmclock_init(): rating 400",
	  KV_OPEN, KV_OPEN, r_kvmclock_applies, r_kvmclock,
	  "KVM advertises kvm-clock: registered, rating 400", { 0 } },
	{ "kvmclock-299", "arch/x86/kernel/kvmclock.c kvmclock_init(), 5.1+",
	  KV(5, 1), KV_OPEN, r_kvmclock_299_applies, r_kvmclock_299,
	  "CONSTANT_TSC+NONSTOP_TSC: kvm-clock lowered to 299, so tsc (300) wins", { 0 } },
	{ "kvmclock-vdso", "arch/x86/kernel/kvmclock.c kvm_setup_vsyscall_timeinfo()",
	  KV_OPEN, KV_OPEN, r_kvmclock_vdso_applies, r_pv_vdso,
	  "kvm-clock stable bit (CPUID 0x40000001 EAX[24] and pvclock flags): vDSO PVCLOCK mode", { 0 } },
	{ "hyperv-tdx-no-page", "arch/x86/kernel/cpu/mshyperv.c ms_hyperv_init_platform(): TDX without paravisor clears HV_MSR_REFERENCE_TSC_AVAILABLE, 6.6+ (Dexuan Cui's TDX series, 68f2f2bc163d)",
	  KV(6, 6), KV_OPEN, r_hv_tdx_no_page_applies, r_hv_tdx_no_page,
	  "Hyper-V TDX guest without a paravisor: Linux withholds the reference TSC page (the TSC, or the MSR, is read instead)", { 0 } },
	{ "hyperv-tsc-page", "drivers/clocksource/hyperv_timer.c hv_init_tsc_clocksource(): 400, 250 (5.6, 9e0333ae38ee), 500 (5.13)",
	  KV_OPEN, KV_OPEN, r_hv_page_applies, r_hv_page,
	  "Hyper-V reference TSC page registered (vDSO HVCLOCK)", { 0 } },
	{ "hyperv-msr", "drivers/clocksource/hyperv_timer.c hv_init_clocksource(): 400, 250 (5.6), 500 (5.13), 495 (6.5, e5313f1c5404)",
	  KV_OPEN, KV_OPEN, r_hv_msr_applies, r_hv_msr,
	  "Hyper-V reference counter MSR registered (no vDSO: every read is a syscall and an exit)", { 0 } },
	{ "hyperv-lower", "drivers/clocksource/hyperv_timer.c hv_init_tsc_clocksource(), 5.13+ (\"Set clocksource rating based on Hyper-V feature\", Hyper-V pull for 5.13)",
	  KV(5, 13), KV_OPEN, r_hv_lower_applies, r_hv_lower,
	  "TSC invariant control offered: Hyper-V clocksources lowered to 250 (245 for the MSR from 6.5), so tsc wins", { 0 } },
	{ "xen", "arch/x86/xen/time.c xen_time_init(): rating 400",
	  KV_OPEN, KV_OPEN, r_xen_applies, r_xen,
	  "Xen clocksource registered, rating 400 (vDSO only with the stable bit)", { 0 } },
	{ "xen-299", "arch/x86/xen/time.c xen_tsc_safe_clocksource(), 6.3+ (caea091e48ed)",
	  KV(6, 3), KV_OPEN, r_xen_299_applies, r_xen_299,
	  "Xen TSC mode never-emulate with CONSTANT+NONSTOP TSC: xen lowered to 299, so tsc wins", { 0 } },
	{ "hpet", "arch/x86/kernel/hpet.c clocksource_hpet: rating 250, no vDSO since 4.7",
	  KV_OPEN, KV_OPEN, r_hpet_applies, r_hpet,
	  "hpet registered, rating 250", { 0 } },
	{ "acpi_pm", "drivers/clocksource/acpi_pm.c: rating 200",
	  KV_OPEN, KV_OPEN, r_acpi_pm_applies, r_acpi_pm,
	  "acpi_pm registered, rating 200", { 0 } },
};

const struct rule_step step_register = { register_rules, ARRAY_SIZE(register_rules), NULL };
