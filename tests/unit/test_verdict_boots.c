/* Issue 39: guests a kernel cannot boot, and the TDX "TSC reliable" rule
 * dated by its mainline release.  Inputs are CONSTRUCTED (no SEV-SNP or
 * TDX hardware here); the expected outcomes are the kernel's:
 *  - SEV-SNP guest support first in 5.19; SEV-ES (#VC) in 5.10;
 *  - 8c29f0165405 "x86/sev: Add SEV-SNP guest feature negotiation
 *    support" (mainline 6.2; 6.1.y stable queue 2023-01-30): an SNP guest
 *    with a feature in SNP_FEATURES_IMPL_REQ but not SNP_FEATURES_PRESENT
 *    is terminated at boot (GHCB_SNP_UNSUPPORTED);
 *  - 0563ee35ae2c put MSR_AMD64_SNP_SECURE_TSC into SNP_FEATURES_PRESENT
 *    in 6.14 (with 73bbf3b0fbba, 0a2a98f691f2: the rate from Secure TSC,
 *    TSC_RELIABLE);
 *  - 9ee4318c157b (TDX: TSC_RELIABLE) reached mainline in 6.7, not 6.6. */
#include "check.h"
#include "verdict.h"
#include "verdict_probe.h"

#define Y VERDICT_YES
#define N VERDICT_NO


/* An SEV-SNP guest on QEMU/KVM: AMD Zen 3, invariant TSC, kvm-clock. */
static struct verdict_input snp_guest(bool secure_tsc)
{
	struct verdict_input in = { 0 };
	in.vendor = VERDICT_VENDOR_AMD;
	in.family = 0x19;
	in.model = 0x01;
	in.logical_cpus = in.possible_cpus = in.xcpu_tested = 4;
	in.packages = 1;
	in.tsc = in.acpi = in.hypervisor_bit = in.invariant_tsc = Y;
	in.hw_reduced = in.tsc_adjust = N;
	in.xen_tsc_mode = -1;
	in.hv_isolation_type = -1;
	in.hypervisor = in.signatures[0] = "kvm";
	in.signature_count = 1;
	in.kvm_clocksource = in.kvm_clocksource2 = in.kvm_stable_bit = in.pvclock_stable = Y;
	in.freq_by = VERDICT_FREQ_PVCLOCK;
	in.tsc_known_freq = Y;
	in.sev_es = in.sev_snp = Y;
	in.secure_tsc = secure_tsc ? Y : N;
	in.tdx = N;
	set_source(&in, VERDICT_SRC_TSC, Y, 20000);
	set_source(&in, VERDICT_SRC_KVMCLOCK, Y, 30000);
	set_source(&in, VERDICT_SRC_PIT, Y, 0);
	set_source(&in, VERDICT_SRC_HPET, Y, 500000);
	set_source(&in, VERDICT_SRC_ACPI_PM, Y, 3000000);
	return in;
}

static const struct verdict_kernel_range *range_of(const char *kernel)
{
	unsigned kv;
	CHECK(verdict_kernel_parse(kernel, strlen(kernel), &kv));
	for (uint32_t i = 0; i < v.by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v.by_kernel[i];
		unsigned from, to = 0;
		verdict_kernel_parse(r->from, strlen(r->from), &from);
		if (r->to)
			verdict_kernel_parse(r->to, strlen(r->to), &to);
		if (kv >= from && (!r->to || kv <= to))
			return r;
	}
	check_fail(__FILE__, __LINE__, "no by_kernel range holds %s", kernel);
	return NULL;
}

static bool range_warns(const struct verdict_kernel_range *r, const char *code)
{
	for (uint32_t w = 0; w < r->warning_count; w++)
		if (!strcmp(r->warning_codes[w], code))
			return r->warning_severity[w] == VERDICT_CRITICAL;
	return false;
}

/* The kernel cannot start the guest: no clocksource, the reason and the
 * first release that can, a critical GUEST_CANNOT_BOOT. */
static void check_cannot_boot(const struct verdict_input *in, const char *kernel, const char *reason_has,
			      const char *from)
{
	CHECK_STR(on(in, kernel), "none");
	CHECK(!v.boots);
	CHECK(strstr(v.boot_reason, reason_has) != NULL);
	CHECK_STR(v.boots_from, from);
	CHECK_STR(v.available_clocksource, "none");
	CHECK(!v.vdso);
	const struct verdict_warning *w = verdict_find_warning(&v, "GUEST_CANNOT_BOOT");
	CHECK(w != NULL);
	CHECK_EQ_U64(w->severity, VERDICT_CRITICAL);
	CHECK(range_warns(range_of(kernel), "GUEST_CANNOT_BOOT"));
	CHECK(!range_of(kernel)->boots);
}

/* SNP + Secure TSC.  5.15: no SNP guest support (5.19).  6.1: the 6.1.y
 * line carries 8c29f0165405, and Secure TSC is in SNP_FEATURES_IMPL_REQ but
 * not SNP_FEATURES_PRESENT: terminated.  6.6, 6.12: the same.  6.14:
 * 0563ee35ae2c adds it to SNP_FEATURES_PRESENT; sme_early_init() forces
 * TSC_RELIABLE (0a2a98f691f2) and the rate comes from Secure TSC
 * (73bbf3b0fbba): tsc 300 over kvm-clock 299, no watchdog.  7.2 alike. */
TEST(snp_secure_tsc_per_kernel)
{
	struct verdict_input in = snp_guest(true);

	check_cannot_boot(&in, "5.15", "before 5.19", "6.14");
	check_cannot_boot(&in, "6.1", "snp_check_features() (8c29f0165405) terminates", "6.14");
	check_cannot_boot(&in, "6.6", "SNP_FEATURES_PRESENT", "6.14");
	check_cannot_boot(&in, "6.12", "GHCB_SNP_UNSUPPORTED", "6.14");
	CHECK_EQ_U64(v.confidence, VERDICT_CONFIDENCE_HIGH);
	/* 6.0 has neither the feature nor the check: undefined, said so */
	check_cannot_boot(&in, "6.0", "unconfirmed", "6.14");
	CHECK_EQ_U64(v.confidence, VERDICT_CONFIDENCE_MEDIUM);

	CHECK_STR(on(&in, "6.14"), "tsc");
	CHECK(v.boots);
	CHECK(v.boot_reason == NULL);
	CHECK(verdict_find_warning(&v, "GUEST_CANNOT_BOOT") == NULL);
	CHECK(reasoning_says("Secure TSC: Linux forces TSC_RELIABLE"));
	CHECK(reasoning_says("TSC frequency from SEV-SNP Secure TSC"));
	CHECK_STR(on(&in, "7.2"), "tsc");
	CHECK(v.boots);
	CHECK(reasoning_says("TSC reliable: no clocksource watchdog"));

	/* by_kernel: 4.19-6.13 never boot (one reason per requirement), the
	 * headline's worst range names it, and 6.14+ uses tsc. */
	CHECK(!range_of("4.19")->boots);
	CHECK(!range_of("6.13")->boots);
	CHECK(range_of("6.14")->boots);
	CHECK_STR(range_of("6.14")->linux_clocksource, "tsc");
	in.kernels.kind = VERDICT_KERNELS_ALL;
	on(&in, "7.2");
	char line[512];
	verdict_summary_line(&v, line, sizeof line);
	CHECK(strstr(line, "Linux 6.14+: tsc") == line);
	CHECK(strstr(line, "; 4.19-6.13: cannot boot the guest (6.14+ can) - confidence") != NULL);
}

/* SNP without Secure TSC.  5.15: no SNP guest support yet (5.19): it
 * cannot validate its memory.  6.1: boots; kvm-clock 299 under the
 * invariant TSC, tsc wins (kvmclock_init(), 5.1+). */
TEST(snp_without_secure_tsc_per_kernel)
{
	struct verdict_input in = snp_guest(false);

	check_cannot_boot(&in, "5.15", "SEV-SNP guest before 5.19", "5.19");
	CHECK_STR(on(&in, "5.19"), "tsc");
	CHECK(v.boots);
	CHECK_STR(on(&in, "6.1"), "tsc");
	CHECK(v.boots);
	/* SEV-ES alone: #VC handling first in 5.10 */
	in.sev_snp = N;
	check_cannot_boot(&in, "5.4", "SEV-ES", "5.10");
	CHECK_STR(on(&in, "5.10"), "tsc");
}

/* A TDX guest on QEMU/KVM with hpet=off and no kvm-clock (TDX guests get
 * no kvm-clock from QEMU's TDX machine here): Intel, invariant TSC, the rate
 * from CPUID 0x15.  6.6: 9ee4318c157b is not in it, so the TSC is
 * MUST_VERIFY and acpi_pm watches it (confidence medium).  6.7: TSC_RELIABLE,
 * no watchdog.  Before 5.19 no TDX guest boots. */
TEST(tdx_on_kvm_hpet_off_6_6_and_6_7)
{
	struct verdict_input in = snp_guest(false);
	in.vendor = VERDICT_VENDOR_INTEL;
	in.family = 6;
	in.model = 0x8f;
	in.sev_es = in.sev_snp = N;
	in.secure_tsc = VERDICT_UNKNOWN;
	in.tdx = Y;
	in.kvm_clocksource = in.kvm_clocksource2 = in.kvm_stable_bit = in.pvclock_stable = N;
	set_source(&in, VERDICT_SRC_KVMCLOCK, N, 0);
	set_source(&in, VERDICT_SRC_HPET, N, 0);
	in.freq_by = VERDICT_FREQ_CPUID_15;
	in.freq_advertised_hz = 2000000000ull;

	CHECK_STR(on(&in, "6.6"), "tsc");
	CHECK(reasoning_says("the clocksource watchdog keeps checking it") ||
	      strstr(v.why, "watchdog keeps checking") != NULL);
	CHECK(!reasoning_says("TDX guest: Linux forces TSC_RELIABLE"));
	CHECK_EQ_U64(v.confidence, VERDICT_CONFIDENCE_MEDIUM);
	struct verdict_wd_era eras[VERDICT_MAX_WD_ERAS];
	unsigned n = verdict_watchdog_eras(&in, eras, VERDICT_MAX_WD_ERAS);
	bool six6_watched = false, six7_exempt = false;
	for (unsigned i = 0; i < n; i++) {
		if (eras[i].kver <= 606 && (!eras[i].to || strcmp(eras[i].to, "6.6") >= 0) && eras[i].watched)
			six6_watched |= eras[i].watchdog && !strcmp(eras[i].watchdog, "acpi_pm");
		if (eras[i].kver == 607)
			six7_exempt = eras[i].exempt;
	}
	CHECK(six6_watched);
	CHECK(six7_exempt);

	CHECK_STR(on(&in, "6.7"), "tsc");
	CHECK(reasoning_says("TDX guest: Linux forces TSC_RELIABLE"));
	CHECK(reasoning_says("6.7+ (9ee4318c157b)"));
	CHECK(reasoning_says("TSC reliable: no clocksource watchdog"));

	CHECK_STR(on(&in, "5.19"), "tsc");
	check_cannot_boot(&in, "5.15", "TDX guest before 5.19", "5.19");
}

/* Issue 39, smaller items.  Hyper-V 5.5-5.12 with TSC invariant control:
 * Linux enables it (dce7cd62754b, 5.5) but lowers the Hyper-V ratings only
 * from 5.13, so the TSC page (250 in 5.6-5.12... 400 in 5.5) wins on 5.5:
 * the note must not say "no TSC invariant control". */
TEST(hyperv_5_5_invariant_control_note)
{
	struct verdict_input in = snp_guest(false);
	in.vendor = VERDICT_VENDOR_INTEL;
	in.family = 6;
	in.model = 0x55;
	in.sev_es = in.sev_snp = N;
	in.hypervisor = in.signatures[0] = "hyperv";
	in.kvm_clocksource = in.kvm_clocksource2 = in.kvm_stable_bit = in.pvclock_stable = N;
	set_source(&in, VERDICT_SRC_KVMCLOCK, N, 0);
	in.hv_ref_counter = in.hv_tsc_page = in.hv_freq_msrs = in.hv_tsc_invariant_control = Y;
	in.hv_tsc_page_valid = Y;
	in.hv_root = in.hv_isolated = N;
	in.hv_isolation_type = 0;
	in.freq_by = VERDICT_FREQ_HYPERV_MSR;
	CHECK_STR(on(&in, "5.5"), "hyperv_clocksource_tsc_page");
	CHECK(strstr(v.why, "no TSC invariant control") == NULL);
	CHECK(strstr(v.why, "lowered only from 5.13") != NULL);
	in.hv_tsc_invariant_control = N;
	CHECK_STR(on(&in, "5.5"), "hyperv_clocksource_tsc_page");
	CHECK(strstr(v.why, "without TSC invariant control") != NULL);
}

/* Sean Christopherson's "x86/kvm: Mark TSC as reliable when it's constant
 * and nonstop" is not merged as of 7.3-rc: its row is kept but applies to
 * no release, so an invariant-TSC KVM guest without TSC_ADJUST is still
 * watched on 7.2. */
TEST(kvm_constant_nonstop_row_kept_but_off)
{
	struct verdict_input in = snp_guest(false);
	in.sev_es = in.sev_snp = N;
	CHECK_STR(on(&in, "7.2"), "tsc");
	CHECK(!reasoning_says("proposed patch"));
	CHECK(reasoning_says("keeps checking it") || v.confidence == VERDICT_CONFIDENCE_MEDIUM);
}

/* Issue 39 item 3, on a CONSTRUCTED verdict input (the watch section's
 * pause folded in as pause_count/pause_max_ns; not from a recorded watch
 * run).  A KVM guest, invariant TSC, no TSC_ADJUST: on 7.2 the TSC is
 * kept and watched by kvm-clock (299).  A 30 s stop/cont under KVM: the
 * TSC ran on, kvm-clock stood still.  The rewrite (763aacf86f1b, 7.1)
 * compares rounds up to max_idle_ns (kvm-clock's ~881 s) instead of
 * skipping those over 1 s (644649553508, 6.8): the risk is named, and
 * kvm-clock is what Linux picks if the TSC loses.  A pause longer than
 * max_idle_ns resets the round: no risk, and the reasoning says why.  6.12
 * skips rounds over 1 s: no risk. */
TEST(watch_pause_on_7_2)
{
	struct verdict_input in = snp_guest(false);
	in.sev_es = in.sev_snp = N;
	in.pause_count = 1;
	in.pause_max_ns = 30000000000ull;

	CHECK_STR(on(&in, "7.2"), "tsc");
	CHECK(v.risk.reason != NULL);
	CHECK_STR(v.risk.reason, "watchdog_pause");
	CHECK_STR(v.risk.linux_clocksource, "kvm-clock");
	CHECK(strstr(v.risk.note, "unconfirmed") != NULL);
	CHECK(reasoning_says("763aacf86f1b"));
	CHECK_EQ_U64(v.confidence, VERDICT_CONFIDENCE_MEDIUM);

	CHECK_STR(on(&in, "6.12"), "tsc");
	CHECK(v.risk.reason == NULL);

	in.pause_max_ns = 1000000000000ull; /* 1000 s > kvm-clock's max_idle_ns */
	CHECK_STR(on(&in, "7.2"), "tsc");
	CHECK(v.risk.reason == NULL);
	CHECK(reasoning_says("longer than the watchdog's max_idle_ns"));

	/* no pause measured: nothing said */
	in.pause_count = 0;
	in.pause_max_ns = 0;
	CHECK_STR(on(&in, "7.2"), "tsc");
	CHECK(v.risk.reason == NULL);
	CHECK(!reasoning_says("max_idle_ns"));
}
