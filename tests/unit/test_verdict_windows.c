/* verdict.windows: which counter QueryPerformanceCounter reads in a Windows
 * guest.  The expected answers come from Microsoft's "Acquiring
 * high-resolution time stamps" (the release families: Vista/2008 a
 * platform counter; 7/2008 R2 the TSC where it is invariant and
 * synchronised; 8 and later the TSC) and the Hyper-V TLFS "Timers" chapter
 * (the partition reference time, 100 ns units: the reference TSC page, or
 * the reference counter MSR 0x40000020 when the page is not valid), not
 * from the code under test; where Microsoft documents nothing (which
 * platform counter 7+ takes) the case says so. */
#include "check.h"
#include "settings.h"
#include "verdict.h"

#define Y VERDICT_YES
#define N VERDICT_NO

static struct verdict v;

static void source(struct verdict_input *in, enum verdict_source s, uint64_t cost_milli,
		   enum verdict_read_path path)
{
	in->sources[s].present = Y;
	in->sources[s].read_ns_milli = cost_milli;
	in->sources[s].read_path = path;
}

/* A KVM guest on q35: PIT, HPET (QEMU's 100 MHz), PM timer; 4 vCPUs that
 * the warp test found in step; TSC 20 ns, HPET 500 ns, PM timer 3 us. */
static struct verdict_input kvm(bool invtsc)
{
	struct verdict_input in = { 0 };
	in.vendor = VERDICT_VENDOR_INTEL;
	in.family = 6;
	in.model = 0x55;
	in.logical_cpus = in.possible_cpus = in.xcpu_tested = 4;
	in.packages = 1;
	in.tsc = Y;
	in.acpi = Y;
	in.hw_reduced = N;
	in.hypervisor_bit = Y;
	in.hypervisor = "kvm";
	in.signatures[0] = "kvm";
	in.signature_count = 1;
	in.kvm_clocksource = in.kvm_clocksource2 = in.kvm_stable_bit = in.pvclock_stable = Y;
	in.invariant_tsc = invtsc ? Y : N;
	in.xen_tsc_mode = -1;
	in.hv_isolation_type = -1;
	in.hpet_freq_hz = 100000000;
	source(&in, VERDICT_SRC_TSC, 20000, VERDICT_PATH_NATIVE);
	source(&in, VERDICT_SRC_KVMCLOCK, 30000, VERDICT_PATH_NATIVE);
	source(&in, VERDICT_SRC_HPET, 500000, VERDICT_PATH_DEVICE_MODEL);
	source(&in, VERDICT_SRC_ACPI_PM, 3000000, VERDICT_PATH_EXIT);
	source(&in, VERDICT_SRC_PIT, 0, VERDICT_PATH_DEVICE_MODEL);
	return in;
}

/* QEMU -cpu ...,hv-time,hv-frequencies on KVM: Hyper-V's leaves at
 * 0x40000000, KVM's moved to 0x40000100. */
static void hv_time(struct verdict_input *in)
{
	in->hypervisor = "hyperv";
	in->signatures[0] = "hyperv";
	in->signatures[1] = "kvm";
	in->signature_count = 2;
	in->hv_ref_counter = in->hv_tsc_page = in->hv_freq_msrs = Y;
	in->hv_tsc_page_valid = Y;
	in->hv_tsc_invariant_control = N;
	in->hv_root = in->hv_isolated = N;
	in->hv_isolation_type = 0;
	source(in, VERDICT_SRC_HV_TSC_PAGE, 25000, VERDICT_PATH_NATIVE);
	source(in, VERDICT_SRC_HV_MSR, 1200000, VERDICT_PATH_EXIT);
}

static const struct verdict_windows *judge(struct verdict_input in, const char *release)
{
	CHECK(verdict_windows_parse(release, strlen(release), &in.windows));
	verdict_decide(&v, &in);
	CHECK_STR(v.windows.release, release);
	/* Microsoft's selection is not all public: never more than medium */
	CHECK(v.windows.confidence != VERDICT_CONFIDENCE_HIGH);
	return &v.windows;
}

static const char *warning(const struct verdict_windows *w)
{
	return w->warning_count ? w->warnings[0].code : "(none)";
}

/* KVM without invariant TSC and without hv-*: "Windows VM uses high CPU".
 * 8 and later need a usable TSC; without one a platform counter.  The PM
 * timer is what 7+ take unless useplatformclock (observed, not
 * documented): 3.579545 MHz, a kernel call and a port exit per call. */
TEST(kvm_without_invtsc_or_hv_time_reads_a_platform_counter)
{
	const struct verdict_windows *w = judge(kvm(false), "10");
	CHECK_STR(w->family, "8+");
	CHECK_STR(w->interface, "kvm");
	CHECK_STR(w->qpc_source, "acpi_pm");
	CHECK_EQ_U64(w->qpc_frequency_hz, 3579545);
	CHECK(w->exits == Y);
	CHECK(w->kernel_call);
	CHECK_EQ_U64(w->read_ns_milli, 3000000);
	CHECK_STR(warning(w), "WINDOWS_PLATFORM_TIMER");
	CHECK(strstr(w->warnings[0].evidence, "acpi_pm read costs 3000 ns = 150x a TSC read"));
	CHECK(strstr(w->warnings[0].fix, "hv-time"));
	CHECK(strstr(w->warnings[0].fix, "useplatformclock"));
	/* Vista/2008: a platform counter always, the HPET where there is one */
	w = judge(kvm(true), "vista");
	CHECK_STR(w->qpc_source, "hpet");
	CHECK_EQ_U64(w->qpc_frequency_hz, 100000000);
	CHECK_STR(w->family, "vista");
}

/* Invariant TSC, in step across the vCPUs: 7 and later base QPC on it, in
 * user mode, no exit; the frequency of a TSC-based QPC is not documented. */
TEST(invariant_tsc_is_read_directly)
{
	const struct verdict_windows *w = judge(kvm(true), "11");
	CHECK_STR(w->qpc_source, "tsc");
	CHECK(w->exits == N);
	CHECK(!w->kernel_call);
	CHECK_EQ_U64(w->qpc_frequency_hz, 0);
	CHECK_EQ_U64(w->read_ns_milli, 20000);
	CHECK_EQ_U64(w->warning_count, 0);
	w = judge(kvm(true), "2008r2");
	CHECK_STR(w->qpc_source, "tsc");
	CHECK_STR(w->family, "7");
	/* TSCs that warp: no synchronised TSC, a platform counter */
	struct verdict_input in = kvm(true);
	in.xcpu_warps = 3;
	w = judge(in, "2022");
	CHECK_STR(w->qpc_source, "acpi_pm");
	/* the warp test did not run on 2+ CPUs: no evidence of sync */
	in = kvm(true);
	in.xcpu_tested = 0;
	w = judge(in, "10");
	CHECK_STR(w->qpc_source, "tsc");
	CHECK(w->confidence == VERDICT_CONFIDENCE_LOW);
	/* a trapping RDTSC (harness anomaly): the TSC read itself exits */
	in = kvm(true);
	in.harness_anomaly = true;
	w = judge(in, "10");
	CHECK_STR(w->qpc_source, "tsc");
	CHECK(w->exits == Y);
}

/* hv-time on KVM: Windows reads the Hyper-V leaves at 0x40000000 (Linux
 * takes KVM's at 0x40000100 and kvm-clock); 8+ use the reference TSC page
 * in user mode, 10 MHz; 7/2008 R2 predate the page (TLFS 3.0, Server
 * 2012) and read the reference counter MSR, an exit per call; a page whose
 * sequence is 0 is invalid and sends 8+ to the MSR too. */
TEST(hyperv_enlightenments_in_front_of_kvm)
{
	struct verdict_input in = kvm(false);
	hv_time(&in);
	const struct verdict_windows *w = judge(in, "10");
	CHECK_STR(v.linux_clocksource, "kvm-clock");
	CHECK_STR(w->interface, "hyperv");
	CHECK_STR(w->qpc_source, "hyperv_tsc_page");
	CHECK_EQ_U64(w->qpc_frequency_hz, 10000000);
	CHECK(w->exits == N);
	CHECK(!w->kernel_call);
	CHECK_EQ_U64(w->read_ns_milli, 25000);
	CHECK_EQ_U64(w->warning_count, 0);
	CHECK(strstr(w->reasoning[0], "in front of KVM's"));
	w = judge(in, "7");
	CHECK_STR(w->qpc_source, "hyperv_msr");
	CHECK(w->exits == Y);
	CHECK_STR(warning(w), "WINDOWS_HYPERV_MSR");
	in.hv_tsc_page_valid = N;
	w = judge(in, "11");
	CHECK_STR(w->qpc_source, "hyperv_msr");
	CHECK_EQ_U64(w->read_ns_milli, 1200000);
	/* Hyper-V leaves that are not at 0x40000000 are not Windows' */
	in = kvm(false);
	in.signatures[1] = "hyperv";
	in.signature_count = 2;
	in.hv_ref_counter = in.hv_tsc_page = Y;
	w = judge(in, "10");
	CHECK_STR(w->qpc_source, "acpi_pm");
}

/* Xen HVM with viridian=1: the same enlightened path in front of Xen. */
TEST(xen_viridian_is_enlightened)
{
	struct verdict_input in = kvm(false);
	hv_time(&in);
	in.signatures[1] = "xen";
	in.xen_present = Y;
	const struct verdict_windows *w = judge(in, "2019");
	CHECK_STR(w->qpc_source, "hyperv_tsc_page");
	CHECK(strstr(w->reasoning[0], "Xen's (viridian)"));
}

/* A root partition's CPUID (a Windows host with Hyper-V on): a guest of
 * that host is offered its own privileges, so at most low confidence. */
TEST(root_partition_view_is_low_confidence)
{
	struct verdict_input in = kvm(false);
	hv_time(&in);
	in.signature_count = 1;
	in.hv_root = Y;
	const struct verdict_windows *w = judge(in, "10");
	CHECK_STR(w->qpc_source, "hyperv_tsc_page");
	CHECK(w->confidence == VERDICT_CONFIDENCE_LOW);
}

/* Nothing Windows can read but an undecided counter: no invariant TSC, no
 * HPET, no ACPI. */
TEST(no_counter_is_undecided)
{
	struct verdict_input in = kvm(false);
	in.acpi = N;
	in.sources[VERDICT_SRC_HPET].present = N;
	in.sources[VERDICT_SRC_ACPI_PM].present = N;
	const struct verdict_windows *w = judge(in, "10");
	CHECK(w->qpc_source == NULL);
	CHECK(w->confidence == VERDICT_CONFIDENCE_LOW);
}

/* The release names and the windows= setting (one row in settings.c). */
TEST(windows_releases_and_setting)
{
	unsigned id;
	CHECK(verdict_windows_parse("2008R2", 6, &id));
	CHECK(verdict_windows_parse("8.1", 3, &id));
	CHECK(!verdict_windows_parse("xp", 2, &id));
	CHECK(!verdict_windows_parse("1", 1, &id));
	CHECK(!verdict_windows_parse("10.0", 4, &id));
	struct settings s;
	settings_defaults(&s);
	s.parse_windows = verdict_windows_parse; /* as the run does */
	CHECK_EQ_U64(s.windows_release, 0);
	settings_parse(&s, "windows=7");
	CHECK(s.windows_release != 0);
	CHECK_EQ_U64(s.problem_count, 0);
	settings_parse(&s, "windows=xp");
	CHECK_EQ_U64(s.problem_count, 1);
	/* the default release is the newest, 11 */
	struct verdict_input in = kvm(true);
	verdict_decide(&v, &in);
	CHECK_STR(v.windows.release, "11");
}
