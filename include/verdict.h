/* The verdict: from what the probe discovered and measured, predict which
 * clocksource a Linux guest will select on this machine, whether
 * clock_gettime() stays in the vDSO, what one clock read will cost, and
 * which named problems (warnings) explain it, each with a concrete fix.
 *
 * The input is plain facts only, so the rules can be unit-tested on the host
 * with recorded platforms.  Every fact that the probe may fail to learn is a
 * tri-state (or 0 = unknown for counts): the rules then say "unknown" in
 * their reasoning instead of guessing silently.
 *
 * The rules and their kernel citations: docs/verdict-rules.md; the code:
 * src/verdict/. */
#ifndef CP_VERDICT_H
#define CP_VERDICT_H
#include "util.h"

struct json;

/* A set of guest kernels (kernels=lts|all|6.1,6.12): what a fleet runs.
 * lts: every long-term line still maintained on the rules' date, plus the
 * newest release; all: every release the rules know; list: those named.
 * Zero-initialised = lts. */
#define VERDICT_MAX_KERNEL_LIST 16

enum verdict_kernel_set_kind {
	VERDICT_KERNELS_LTS = 0,
	VERDICT_KERNELS_ALL,
	VERDICT_KERNELS_LIST,
};

struct verdict_kernel_set {
	enum verdict_kernel_set_kind kind;
	unsigned list[VERDICT_MAX_KERNEL_LIST];	/* KIND_LIST: KV values, ascending */
	uint32_t count;
};

/* "lts", "all", or releases separated by commas ("6.1,6.12"): false for
 * an unknown release, a repeated word or more than the list holds. */
bool verdict_kernel_set_parse(const char *text, size_t len, struct verdict_kernel_set *out);
const char *verdict_kernel_set_name(const struct verdict_kernel_set *k);
/* verdict_kernel_set_parse() without keeping the set: for the settings. */
bool verdict_kernel_set_valid(const char *text, size_t len);

/* The releases the rules judge, oldest first (4.19 .. the newest), and
 * whether each is a long-term line still maintained on the rules' date
 * (kernel.org's projected end of life): the one table host tools read,
 * through verdict-judge --releases. */
size_t verdict_release_count(void);
const char *verdict_release_name(size_t i);
bool verdict_release_maintained_longterm(size_t i);
/* Whether the set holds release i. */
bool verdict_kernel_set_has(const struct verdict_kernel_set *k, size_t i);

/* Zero-initialised input means "unknown" everywhere. */
enum verdict_tri {
	VERDICT_UNKNOWN = 0,
	VERDICT_NO,
	VERDICT_YES,
};

enum verdict_vendor {
	VERDICT_VENDOR_UNKNOWN = 0,
	VERDICT_VENDOR_INTEL,
	VERDICT_VENDOR_AMD,
	VERDICT_VENDOR_HYGON,
	VERDICT_VENDOR_CENTAUR,
	VERDICT_VENDOR_ZHAOXIN,
	VERDICT_VENDOR_OTHER,
};

/* Clock sources the rules know, named as Linux names its clocksource where
 * one exists (verdict_source_name() gives the string). */
enum verdict_source {
	VERDICT_SRC_TSC = 0,
	VERDICT_SRC_KVMCLOCK,
	VERDICT_SRC_HPET,
	VERDICT_SRC_ACPI_PM,
	VERDICT_SRC_PIT,
	VERDICT_SRC_HV_MSR,	/* Hyper-V reference counter MSR 0x40000020 */
	VERDICT_SRC_HV_TSC_PAGE,	/* Hyper-V reference TSC page */
	VERDICT_SRC_XEN,	/* Xen vcpu_time_info pvclock */
	VERDICT_SRC_COUNT,
};

enum verdict_read_path {
	VERDICT_PATH_UNKNOWN = 0,
	VERDICT_PATH_NATIVE,	/* no VM exit (instruction or shared page) */
	VERDICT_PATH_EXIT,	/* a VM exit handled in the hypervisor */
	VERDICT_PATH_DEVICE_MODEL,	/* an exit to the device model (QEMU) */
};

/* Who told the probe the TSC frequency (platform.tsc.freq_chosen.source). */
enum verdict_freq_by {
	VERDICT_FREQ_NONE = 0,
	VERDICT_FREQ_CPUID_15,	/* leaf 0x15 with a non-zero crystal */
	VERDICT_FREQ_CPUID_16,	/* leaf 0x16 base MHz */
	VERDICT_FREQ_HYPERVISOR_LEAF,	/* 0x40000010 EAX */
	VERDICT_FREQ_PVCLOCK,	/* kvm-clock / Xen mul+shift */
	VERDICT_FREQ_HYPERV_MSR,	/* HV_X64_MSR_TSC_FREQUENCY */
	VERDICT_FREQ_VMWARE_GETHZ,	/* VMware backdoor GETHZ */
};

#define VERDICT_MAX_CURVE 8

struct verdict_source_fact {
	enum verdict_tri present;
	/* cost of one read, ns * 1000 (fixed point): the engine's unbiased
	 * estimate, not the p50; 0 = not measured */
	uint64_t read_ns_milli;
	/* its standard error, ns * 1000; 0 = unknown (one sample window, or a
	 * report older than verdict.inputs.read_se_ns) */
	uint64_t read_se_ns_milli;
	enum verdict_read_path read_path;
	/* 99th percentile and slowest single read, ns; 0 = not measured.
	 * The watchdog's read-back check (cs_watchdog_read()) compares the
	 * time of two watchdog reads around one TSC read with a bound. */
	uint64_t read_p99_ns, read_max_ns;
	/* Read from several CPUs at once (the contention stage): the cost
	 * with one CPU reading and with verdict_input.contention_cpus reading,
	 * each with its standard error, ns * 1000; 0 = not measured. */
	uint64_t alone_ns_milli, alone_se_ns_milli;
	uint64_t contended_ns_milli, contended_se_ns_milli;
	/* The whole curve, for the evidence: CPUs reading at once and the
	 * cost per read then, ns * 1000. */
	uint32_t curve_points;
	uint32_t curve_cpus[VERDICT_MAX_CURVE];
	uint64_t curve_ns_milli[VERDICT_MAX_CURVE];
};

#define VERDICT_MAX_SIGNATURES 8
#define VERDICT_MAX_DRIFT 8

struct verdict_drift {
	const char *a, *b;	/* source names, as in the report's drift[] */
	int64_t ppm;
	uint64_t window_ms;
	uint64_t uncertainty_ppm;	/* of ppm; 0 = unknown */
};

struct verdict_input {
	/* CPU identity (CPUID leaf 0/1, display family/model). */
	enum verdict_vendor vendor;
	uint32_t family, model;

	/* Hypervisor: CPUID.1:ECX[31], the primary (lowest-range) name and
	 * every signature that answered ("kvm", "hyperv", "vmware", "xen",
	 * "tcg", "bhyve", "acrn", ...).  NULL name = none found. */
	enum verdict_tri hypervisor_bit;
	const char *hypervisor;
	const char *signatures[VERDICT_MAX_SIGNATURES];
	uint32_t signature_count;

	/* KVM leaf base+1 EAX bits 0, 3, 24; the pvclock flags byte as read
	 * from the registered page (Xen's vcpu_time_info uses the same bit). */
	enum verdict_tri kvm_clocksource, kvm_clocksource2, kvm_stable_bit;
	enum verdict_tri pvclock_stable;

	/* Hyper-V privileges (0x40000003): EAX[1] reference counter, EAX[9]
	 * TSC page, EAX[11]+EDX[8] frequency MSRs, EAX[15] TSC invariant
	 * control; whether the TSC page showed a valid (non-zero) sequence. */
	enum verdict_tri hv_ref_counter, hv_tsc_page, hv_freq_msrs;
	enum verdict_tri hv_tsc_invariant_control, hv_tsc_page_valid;
	/* EBX[0] (the root partition's view) and EBX[22] (an isolated VM,
	 * leaf 0x4000000C: EAX[0] paravisor, EBX[3:0] isolation type: 0 none,
	 * 1 VBS, 2 SNP, 3 TDX; -1 unknown). */
	enum verdict_tri hv_root, hv_isolated, hv_paravisor;
	int32_t hv_isolation_type;

	/* VMware backdoor GETHZ returned a frequency (EBX != 0xffffffff). */
	enum verdict_tri vmware_gethz;

	/* TSC capabilities. */
	enum verdict_tri tsc, invariant_tsc, tsc_adjust, tsc_deadline, rdtscp;

	/* CPU counts: logical = running, possible = MADT entries incl.
	 * disabled/online-capable ones (what num_possible_cpus() counts),
	 * packages = sockets (topology_max_packages()).  0 = unknown. */
	uint32_t logical_cpus, possible_cpus, packages;
	enum verdict_tri legacy_pic;	/* MADT flags PCAT_COMPAT */
	enum verdict_tri acpi, hw_reduced;

	struct verdict_source_fact sources[VERDICT_SRC_COUNT];

	/* Cross-CPU TSC warp test: CPUs tested (0 = not run). */
	uint32_t xcpu_tested;
	uint64_t xcpu_warps, xcpu_max_skew_cycles;
	/* The vCPUs did not run together in the cross-CPU test: no warp proves less. */
	bool xcpu_not_coscheduled;
	/* The same test on kvm-clock readings, when it ran. */
	uint64_t xcpu_kvmclock_warps, xcpu_kvmclock_max_warp_ns;

	/* TSC frequency: advertised (by whom) vs measured. */
	enum verdict_freq_by freq_by;
	uint64_t freq_advertised_hz, freq_measured_hz;
	bool freq_disagreement_known;
	int64_t freq_disagreement_ppm;
	uint64_t freq_disagreement_uncertainty_ppm;	/* 0 = unknown; the measurement's own */
	uint64_t freq_disagreement_tolerance_ppm;	/* the reference's stated tolerance: beside, not in the gate */
	/* The HPET and the PM timer measured the TSC at rates that differ by
	 * more than their combined uncertainty: one of them is wrong. */
	bool freq_references_disagree;
	int64_t freq_references_ppm;	/* rate vs a over rate vs b, - 1, of the pair below */
	uint64_t freq_references_uncertainty_ppm;
	const char *freq_references_pair; /* "hpet vs acpi_pm"; NULL: HPET and PM timer */

	/* Gaps (the vCPU did not run). */
	bool gaps_measured;
	uint64_t gap_count, gap_max_ns, gap_total_ns, gap_window_ms;
	/* The share of the measured window lost, as the summary prints it;
	 * 0 = unknown (an older report): derived from total and window_ms. */
	uint64_t gap_share_ppm;

	struct verdict_drift drift[VERDICT_MAX_DRIFT];
	uint32_t drift_count;

	/* The probe's empty measurement harness looked wrong (say an RDTSC
	 * that traps: the harness costs more than a CPUID), so every read
	 * cost is distorted.  The reason is quoted in the reasoning. */
	bool harness_anomaly;
	const char *harness_anomaly_reason;
	/* The probe's vCPU emulates every instruction (a plain one took
	 * insn_ps picoseconds): what a guest pays for every instruction,
	 * its clock reads included. */
	bool vcpu_emulated;
	uint64_t insn_ps;

	/* Linux reads these too (docs/verdict-rules.md, "Inputs"). */
	enum verdict_tri tsc_known_freq;	/* a frequency Linux takes as known */
	uint32_t numa_nodes;	/* SRAT proximity domains; 0 = unknown */
	enum verdict_tri xen_present;	/* Xen's CPUID leaves answered */
	int32_t xen_tsc_mode;	/* Xen leaf base+3 EBX; -1 = unknown */
	enum verdict_tri tdx;	/* an Intel TDX guest (CPUID 0x21 "IntelTDX") */
	/* An SEV-SNP guest with Secure TSC: SEV_STATUS (MSR 0xC0010131) bit 11,
	 * MSR_AMD64_SNP_SECURE_TSC. */
	enum verdict_tri secure_tsc;
	/* SEV_STATUS bit 1 (SEV-ES) and bit 2 (SEV-SNP), where that MSR was
	 * read: a kernel must implement each to boot such a guest. */
	enum verdict_tri sev_es, sev_snp;
	/* Watch mode's pauses in which the TSC ran on while the other
	 * counters stood still (QEMU stop/cont under KVM): how many, and the
	 * longest, ns.  0 = none seen or no watch run. */
	uint32_t pause_count;
	uint64_t pause_max_ns;
	/* Pauses the TSC sat out with the other counters (TCG's stop/cont):
	 * the watchdog sees no jump; counted so the verdict can say why no
	 * pause risk follows. */
	uint32_t pauses_tsc_stood;

	/* The contention stage: how many CPUs read at once at its top level
	 * (0 = it did not run past one), and whether fewer of them ran
	 * together than were asked to (the figures then hold the host's
	 * scheduling too). */
	uint32_t contention_cpus;
	enum verdict_tri contention_outnumbered;

	/* The HPET's counter rate (its capabilities register's period);
	 * 0 = unknown.  A Windows QueryPerformanceFrequency on the HPET. */
	uint64_t hpet_freq_hz;

	/* The kernel the main prediction is for, KV-style major*100+minor
	 * (612 = 6.12); 0 = the default, the newest long-term release.  Not
	 * one of the inputs: verdict.linux_kernel names it. */
	unsigned kernel;
	/* The kernels the headline and a gate judge (the kernels= setting);
	 * zero = lts.  Not an input either: verdict.kernel_set names it. */
	struct verdict_kernel_set kernels;
	/* The Windows release verdict.windows is for (verdict_windows_parse());
	 * 0 = the default, the newest.  Not an input either. */
	unsigned windows;
};

/* "10", "11", "2022", "7", "2008r2", "vista", ... -> *id for
 * verdict_input.windows; false for a name that is not a Windows release
 * the Windows verdict knows. */
bool verdict_windows_parse(const char *text, size_t len, unsigned *id);

/* "6.12" -> 612; false for anything that is not MAJOR.MINOR within the
 * kernels the rules know (4.19 up to the newest release). */
bool verdict_kernel_parse(const char *text, size_t len, unsigned *kv);

/* The inputs as the report's verdict.inputs object (json), and back from
 * the line format scripts/verdict feeds the host judge: one "key value"
 * per line, or "key name value" for per-source and per-drift-pair maps.
 * parse_line keeps pointers into `line` for strings, so the line must
 * outlive `in`; it returns false with a reason for an unknown key or a
 * bad value. */
void verdict_inputs_to_json(struct json *j, const struct verdict_input *in);
bool verdict_inputs_parse_line(struct verdict_input *in, char *line, const char **why);

#define VERDICT_MAX_REASONS 16
/* A reasoning line is a rule's text and its citation ("... [file fn()]"):
 * sized for the longest rule (verdict_longest_rule_text(), checked by a
 * unit test), so none is cut; any text cut anyway is counted in
 * verdict.text_cut, never silent. */
#define VERDICT_REASON_LEN 512
/* Every release can be a range of its own (45 releases judged). */
#define VERDICT_MAX_RANGES 48
#define VERDICT_MAX_WARNINGS 16
#define VERDICT_MSG_LEN 200
#define VERDICT_EVIDENCE_LEN 320
#define VERDICT_AVAILABLE_LEN 128

/* A race the TSC can lose on an unsteady vCPU, and what Linux picks if it
 * does (docs/verdict-rules.md, "Races"); reason NULL = none. */
struct verdict_risk {
	const char *reason;	/* "jiffies_watchdog" | "tsc_calibration" */
	const char *note;
	const char *linux_clocksource;
	bool vdso;
	char available_clocksource[VERDICT_AVAILABLE_LEN];
};

/* One by_kernel range: neighbouring releases with the same outcome --
 * clocksource, vDSO, what sysfs lists, risk, confidence, read cost and
 * warnings, each release judged as the main kernel is. */
struct verdict_kernel_range {
	const char *from, *to;	/* "5.6"-style; to NULL = newest */
	const char *linux_clocksource;
	bool vdso;
	const char *note;
	char available_clocksource[VERDICT_AVAILABLE_LEN];
	struct verdict_risk risk;
	uint8_t first, last;	/* indexes into verdict_release_name() */
	uint8_t confidence;	/* enum verdict_confidence */
	bool read_cost_measured;
	uint64_t predicted_read_ns_milli;
	/* The measured part of predicted_read_ns_milli and its SE, and
	 * whether the syscall estimate is the rest (no vDSO). */
	uint64_t measured_read_ns_milli, measured_read_se_ns_milli;
	bool syscall_added;
	uint32_t warning_count;
	const char *warning_codes[VERDICT_MAX_WARNINGS];
	uint8_t warning_severity[VERDICT_MAX_WARNINGS];	/* enum verdict_severity */
	const char *warning_fix_brief[VERDICT_MAX_WARNINGS];
	/* false: this kernel cannot start the guest (a confidential-VM
	 * feature it lacks); the clocksource is then "none".  boot_reason
	 * says why, boots_from the first release that boots it. */
	bool boots;
	const char *boot_reason, *boots_from;
};

/* Ordered by weight: the summary leads with the heaviest. */
enum verdict_severity {
	VERDICT_INFO = 0,
	VERDICT_WARNING,
	VERDICT_CRITICAL,
};

/* Ordered by doubt: a later doubt can only move it down the list. */
enum verdict_confidence {
	VERDICT_CONFIDENCE_HIGH = 0,
	VERDICT_CONFIDENCE_MEDIUM,
	VERDICT_CONFIDENCE_LOW,
};

struct verdict_warning {
	const char *code;
	enum verdict_severity severity;
	char message[VERDICT_MSG_LEN];
	char evidence[VERDICT_EVIDENCE_LEN];
	const char *fix;
	const char *fix_brief;	/* the same fix in a few words, for the summary */
};

/* What QueryPerformanceCounter reads in a Windows guest of this VM
 * (verdict.windows; src/verdict/windows.c, docs/verdict-rules.md,
 * "Windows guests").  Microsoft documents the release families, not all
 * of the selection: confidence is medium at most. */
#define VERDICT_WIN_MAX_REASONS 8
#define VERDICT_WIN_MAX_WARNINGS 3

struct verdict_windows {
	const char *release;	/* "11", "2022", "7", ... */
	const char *family;	/* "vista" (Vista, 2008), "7" (7, 2008 R2), "8+" (8 and later) */
	const char *interface;	/* what sits at CPUID 0x40000000: "hyperv", another name, "none" */
	const char *qpc_source;	/* tsc, hyperv_tsc_page, hyperv_msr, hpet, acpi_pm; NULL = undecided */
	uint64_t qpc_frequency_hz;	/* QueryPerformanceFrequency; 0 = not derivable */
	const char *qpc_frequency_basis;
	enum verdict_tri exits;	/* one read is a VM exit */
	bool kernel_call;	/* QPC enters the kernel (no user-mode read) */
	uint64_t read_ns_milli;	/* the measured read of that counter; 0 = not measured */
	uint64_t read_se_ns_milli;	/* its standard error; 0 = unknown */
	const char *read_ns_basis;
	enum verdict_confidence confidence;
	char reasoning[VERDICT_WIN_MAX_REASONS][VERDICT_REASON_LEN];
	uint32_t reasoning_count;
	struct verdict_warning warnings[VERDICT_WIN_MAX_WARNINGS];
	uint32_t warning_count;
};

/* What one clock read costs in a large guest: the chosen clocksource read
 * by every CPU the contention stage started, at once (verdict.large_guest;
 * src/verdict/contention.c).  measured false: no curve for it. */
struct verdict_large_guest {
	bool measured;
	uint32_t cpus;
	uint64_t read_ns_milli, read_se_ns_milli; /* the syscall estimate added off the vDSO */
	uint64_t measured_read_ns_milli;         /* read_ns_milli without that estimate */
	bool syscall_added;                      /* read_ns_milli holds the syscall estimate */
	uint64_t alone_ns_milli;                 /* the same source, one CPU reading, same plan */
	uint64_t ratio_milli;                    /* source cost at cpus over at 1 */
	uint64_t per_added_cpu_ns_milli;         /* (at cpus - at 1) / (cpus - 1), 0 if it fell */
	enum verdict_tri outnumbered;
	char basis[VERDICT_REASON_LEN];
	uint32_t range_min_cpus, range_max_cpus; /* the CPU counts the figure is stated for (measured) */
};

struct verdict {
	const char *linux_clocksource;
	const char *linux_kernel;	/* the kernel the main prediction is for */
	bool vdso;
	/* The source's measured read cost plus, on the syscall path, the
	 * syscall estimate below.  ns * 1000; 0 with !read_cost_measured. */
	uint64_t predicted_read_ns_milli;
	bool read_cost_measured;
	uint64_t syscall_overhead_ns_estimate;	/* an estimate, not measured */
	/* The range that estimate stands for: what a headline states beside
	 * a measured cost instead of one made-up figure. */
	uint64_t syscall_overhead_ns_low, syscall_overhead_ns_high;
	/* The measured part of predicted_read_ns_milli (the chosen source's
	 * read) with its SE (0 = unknown), and whether the syscall estimate
	 * was added to it. */
	uint64_t measured_read_ns_milli, measured_read_se_ns_milli;
	bool syscall_added;
	uint64_t tsc_read_ns_milli;	/* for "~M x a TSC read"; 0 = unknown */
	enum verdict_confidence confidence;
	const char *why;	/* the decisive rule in words */
	char why_text[VERDICT_REASON_LEN];	/* "Why: ..." of the summary */
	const char *current_clocksource;
	char available_clocksource[VERDICT_AVAILABLE_LEN];
	struct verdict_risk risk;
	/* false: linux_kernel cannot start this guest (verdict.boots). */
	bool boots;
	const char *boot_reason, *boot_feature, *boots_from;

	char reasoning[VERDICT_MAX_REASONS][VERDICT_REASON_LEN];
	uint32_t reasoning_count;

	struct verdict_kernel_range by_kernel[VERDICT_MAX_RANGES];
	uint32_t by_kernel_count;

	struct verdict_warning warnings[VERDICT_MAX_WARNINGS];
	uint32_t warning_count;

	struct verdict_windows windows;
	struct verdict_large_guest large_guest;

	/* The kernels the headline is for (inputs.kernels), and how many
	 * texts of this verdict did not fit their buffer: 0, or an error the
	 * report shows (verdict.text_cut). */
	struct verdict_kernel_set kernel_set;
	uint32_t text_cut;

	/* What the rules were given: verdict.inputs, so a saved report can be
	 * judged again on the host (scripts/verdict). */
	struct verdict_input inputs;
};

void verdict_decide(struct verdict *out, const struct verdict_input *in);

/* Emits "verdict":{...} into the enclosing report object (schema v1 names
 * plus current_clocksource, available_clocksource, confidence,
 * syscall_overhead_ns_estimate). */
void verdict_to_json(struct json *j, const struct verdict *v);

/* The line that opens the summary, over the kernel set: the newest
 * kernel's choice and read cost with its confidence, and, when the set
 * disagrees, the worst kernel's ("7.1+: tsc ~7.2 ns; 4.19-6.11 (Debian
 * 12's 6.1): acpi_pm ~215 ns per read - confidence low"). */
void verdict_summary_line(const struct verdict *v, char *buf, size_t cap);
/* The risk of the set's newest range, and where Linux ends then; false
 * (buf empty) when it has none. */
bool verdict_summary_risk(const struct verdict *v, char *buf, size_t cap);
/* "Fix: ..." when a kernel of the set is sent to a slow source or gets a
 * critical warning; false when nothing is to be fixed. */
bool verdict_summary_fix(const struct verdict *v, char *buf, size_t cap);
/* The one-line result (docs/verdict-rules.md, "The result line"): the
 * word clockprobe compare --fail-on would give this verdict over its
 * kernel_set -- FAILED where --fail-on critical fails, WARNING where only
 * --fail-on warning does, PASSED where neither does -- and the first hit
 * that decided it.  UNJUDGED where by_kernel covers none of the set. */
enum verdict_result {
	VERDICT_RESULT_PASSED = 0,
	VERDICT_RESULT_WARNING,
	VERDICT_RESULT_FAILED,
	VERDICT_RESULT_UNJUDGED,
};
enum verdict_result verdict_result_line(const struct verdict *v, char *buf, size_t cap);
const char *verdict_result_name(enum verdict_result r);
/* The longest rule text with its citation, as a reasoning line holds it. */
size_t verdict_longest_rule_text(void);
/* The summary's line for a Windows guest (verdict.windows). */
void verdict_windows_summary_line(const struct verdict *v, char *buf, size_t cap);

/* Linux's clocksource watchdog as it treats the TSC on these facts, era by
 * era: the verdict's releases (those by_kernel judges) grouped where the
 * watchdog's figures and the TSC's standing are alike.  The only source of
 * those figures outside the verdict's own rules (watch mode's replay uses
 * them); docs/verdict-rules.md, "Kernel eras", cites them. */
#define VERDICT_MAX_WD_ERAS 16

enum verdict_wd_check {
	VERDICT_WD_MARGIN = 0,	/* |cs - wd| per round over a fixed margin */
	VERDICT_WD_FREQ,	/* 7.1+ watchdog_check_freq(): over interval >> shift */
};

struct verdict_wd_era {
	const char *from, *to;	/* release names; to NULL = newest */
	unsigned kver;		/* the first release, major * 100 + minor */
	bool watched;		/* tsc registered, MUST_VERIFY, and a watchdog clock exists */
	const char *not_watched;	/* !watched: why */
	bool exempt;		/* !watched because Linux trusts the TSC (not because it dropped it) */
	const char *watchdog;	/* Linux's name of the watchdog clock; NULL none */
	const char *clocksource;	/* what Linux reads while the TSC is kept */
	const char *fallback;	/* what it reads once the TSC is marked unstable */
	uint64_t interval_ns;	/* WATCHDOG_INTERVAL */
	enum verdict_wd_check check;
	uint64_t margin_ns;	/* VERDICT_WD_MARGIN: the sum of both margins */
	unsigned freq_shift;	/* VERDICT_WD_FREQ: 11 both calibrated, else 8 */
	uint32_t skew_ppm;	/* the threshold per WATCHDOG_INTERVAL, in ppm */
	/* cs_watchdog_read() (5.14 .. 7.0): a wd-cs-wd read-back over the bound
	 * marks the TSC unstable unless one watchdog read is over the skip
	 * limit, which skips and suspends the watchdog. */
	bool readback_check;
	uint64_t readback_bound_ns, readback_skip_ns, readback_suspend_ns;
	/* 7.1+: a read-out over this is retried next round, never fatal. */
	uint64_t readout_retry_ns;
	/* 6.8 and its backports, 7.1+: a round longer than this is skipped. */
	bool skip_long_interval;
	uint64_t long_interval_ns;
	const char *cite;
};

unsigned verdict_watchdog_eras(const struct verdict_input *in, struct verdict_wd_era *out, unsigned cap);

const char *verdict_source_name(enum verdict_source s);
/* The report's words: "info" | "warning" | "critical", "high" | "medium" |
 * "low". */
const char *verdict_severity_name(enum verdict_severity s);
const char *verdict_confidence_name(enum verdict_confidence c);
/* The source of that (Linux) name reads more than 2x slower, beyond its
 * noise, with every CPU of the contention stage reading it at once than
 * alone: what CLOCK_READ_CONTENDED is raised on. */
bool verdict_source_contended(const struct verdict_input *in, const char *name);
/* The warning codes the rules can raise (src/verdict/fixes.c's table), i
 * from 0 below the count; NULL past it.  verdict-judge --vocabulary prints
 * them for the host tools that take a code (--fail-on). */
size_t verdict_warning_code_count(void);
const char *verdict_warning_code_name(size_t i);
/* NULL when the warning is absent: for tests and the summary. */
const struct verdict_warning *verdict_find_warning(const struct verdict *v,
						   const char *code);
#endif
