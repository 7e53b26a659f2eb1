/* verdict.windows: which counter QueryPerformanceCounter (QPC) reads in a
 * Windows guest of this VM, whether that read exits and what it costs.
 *
 * The families and what they read are Microsoft's ("Acquiring
 * high-resolution time stamps", Windows Dev Center): Vista / Server 2008 a
 * platform counter (HPET or ACPI PM timer); 7 / Server 2008 R2 the TSC on
 * a single clock domain whose TSCs it can synchronise, else a platform
 * counter; 8 / Server 2012 and later the TSC, with a better
 * synchronisation.  In a Hyper-V partition Windows reads the partition
 * reference time instead (Hyper-V TLFS, "Timers"): the reference TSC page,
 * or the reference counter MSR 0x40000020 (an exit per read) when there is
 * no valid page.  Windows looks for Hyper-V at CPUID 0x40000000 only, so a
 * KVM with hv-* or Xen with viridian=1 (Hyper-V in front, the native
 * interface at 0x40000100) gets the enlightened path; Linux, by contrast,
 * prefers the native interface.  Which platform counter Windows 7 and later
 * pick, and when exactly they trust a TSC, is not documented: the verdict
 * is medium confidence at most (docs/verdict-rules.md, "Windows guests"). */
#include "verdict_model.h"
#include "json.h"

enum win_family {
	WIN_VISTA,
	WIN_7,
	WIN_8,	/* 8 and later */
};

static const struct {
	const char *name;
	enum win_family family;
} releases[] = {
	{ "11", WIN_8 },     /* the default: the newest */
	{ "vista", WIN_VISTA }, { "2008", WIN_VISTA }, { "7", WIN_7 },	   { "2008r2", WIN_7 },
	{ "8", WIN_8 },	      { "2012", WIN_8 },      { "8.1", WIN_8 },	   { "2012r2", WIN_8 },
	{ "10", WIN_8 },      { "2016", WIN_8 },      { "2019", WIN_8 },   { "2022", WIN_8 },
	{ "2025", WIN_8 },
};

static const char *const family_names[] = {
	[WIN_VISTA] = "vista",
	[WIN_7] = "7",
	[WIN_8] = "8+",
};

/* ids are table index + 1; 0 = the default, the first row */
bool verdict_windows_parse(const char *text, size_t len, unsigned *id)
{
	for (size_t i = 0; text && i < ARRAY_SIZE(releases); i++) {
		const char *n = releases[i].name;
		size_t k = 0;
		while (k < len && n[k] && (text[k] | 0x20) == n[k])
			k++;
		if (k == len && !n[k]) {
			*id = (unsigned)i + 1;
			return true;
		}
	}
	return false;
}

/* The Windows QPC units: the partition reference time counts 100 ns
 * (TLFS); the PM timer runs at 3.579545 MHz (ACPI). */
#define HV_REFERENCE_HZ 10000000u
#define ACPI_PM_HZ 3579545u

struct win {
	const struct verdict_input *in;
	struct verdict_windows *w;
	enum win_family family;
	bool hv_interface;	/* Hyper-V's leaves at 0x40000000 */
};

static void reason(struct win *c, const char *text)
{
	struct verdict_windows *w = c->w;

	if (w->reasoning_count < VERDICT_WIN_MAX_REASONS)
		str_copy(w->reasoning[w->reasoning_count++], VERDICT_REASON_LEN, text);
}

static void lower(struct verdict_windows *w, enum verdict_confidence at_most)
{
	if (w->confidence < at_most)
		w->confidence = at_most;
}

static bool has_signature(const struct verdict_input *in, const char *name)
{
	for (uint32_t i = 0; i < in->signature_count && i < VERDICT_MAX_SIGNATURES; i++)
		if (in->signatures[i] && str_equal(in->signatures[i], name))
			return true;
	return false;
}

static void choose(struct win *c, const char *source, int measured, bool exits_by_nature, bool kernel_call)
{
	const struct verdict_input *in = c->in;
	struct verdict_windows *w = c->w;
	const struct verdict_source_fact *sf = &in->sources[measured];

	w->qpc_source = source;
	w->kernel_call = kernel_call;
	w->read_ns_milli = sf->read_ns_milli;
	w->read_se_ns_milli = sf->read_se_ns_milli;
	w->read_ns_basis = sf->read_ns_milli ? "the probe's measured read of that counter (unbiased estimate)"
					     : "not measured: the probe has no reading of that counter here";
	if (sf->read_path == VERDICT_PATH_EXIT || sf->read_path == VERDICT_PATH_DEVICE_MODEL)
		w->exits = VERDICT_YES;
	else if (sf->read_path == VERDICT_PATH_NATIVE)
		w->exits = VERDICT_NO;
	else if (no(in->hypervisor_bit))
		w->exits = VERDICT_NO; /* bare metal: nothing to exit to */
	else if (yes(in->hypervisor_bit))
		w->exits = exits_by_nature ? VERDICT_YES : VERDICT_NO;
	else
		w->exits = VERDICT_UNKNOWN;
	/* RDTSC itself traps when the empty harness looked wrong */
	if (!exits_by_nature && in->harness_anomaly && yes(in->hypervisor_bit))
		w->exits = VERDICT_YES;
}

/* Which platform counter: Vista takes the HPET where there is one; from 7
 * the PM timer (the HPET with bcdedit useplatformclock), as widely
 * observed, not documented. */
static void platform_counter(struct win *c)
{
	const struct verdict_input *in = c->in;
	struct verdict_windows *w = c->w;
	bool hpet = yes(in->sources[VERDICT_SRC_HPET].present);
	bool pm = !no(in->acpi) && !yes(in->hw_reduced) && yes(in->sources[VERDICT_SRC_ACPI_PM].present);
	bool use_hpet = c->family == WIN_VISTA ? hpet : hpet && !pm;

	if (use_hpet) {
		choose(c, "hpet", VERDICT_SRC_HPET, true, true);
		w->qpc_frequency_hz = in->hpet_freq_hz;
		w->qpc_frequency_basis = in->hpet_freq_hz ? "the HPET's own rate (its capabilities register's period)"
							  : "the HPET's rate, not read";
		reason(c, c->family == WIN_VISTA ? "Vista/2008: QPC on a platform counter, the HPET here"
						 : "no usable TSC: QPC on a platform counter, the HPET (no PM timer)");
	} else if (pm) {
		choose(c, "acpi_pm", VERDICT_SRC_ACPI_PM, true, true);
		w->qpc_frequency_hz = ACPI_PM_HZ;
		w->qpc_frequency_basis = "the ACPI PM timer's 3.579545 MHz";
		reason(c, c->family == WIN_VISTA ?
				  "Vista/2008: QPC on a platform counter, the ACPI PM timer (no HPET)" :
				  "no usable TSC: QPC on a platform counter, the ACPI PM timer here (the HPET with "
				  "bcdedit useplatformclock; the choice is not documented)");
		if (c->family != WIN_VISTA && hpet)
			lower(w, VERDICT_CONFIDENCE_MEDIUM);
	} else {
		w->qpc_source = NULL;
		w->read_ns_basis = "no counter decided";
		w->qpc_frequency_basis = "no counter decided";
		lower(w, VERDICT_CONFIDENCE_LOW);
		reason(c, "no usable TSC and neither an HPET nor an ACPI PM timer: the counter is not decided");
	}
}

static bool tsc_usable(struct win *c)
{
	const struct verdict_input *in = c->in;

	if (!yes(in->invariant_tsc)) {
		if (in->invariant_tsc == VERDICT_UNKNOWN)
			lower(c->w, VERDICT_CONFIDENCE_LOW);
		reason(c, in->invariant_tsc == VERDICT_UNKNOWN ?
				  "invariant TSC unknown: taken as absent" :
				  "no invariant TSC (CPUID 0x80000007 EDX[8] = 0): Windows does not base QPC on the TSC");
		return false;
	}
	if (in->xcpu_warps) {
		reason(c, "the TSCs warp between CPUs: Windows cannot synchronise them, QPC leaves the TSC");
		return false;
	}
	if (in->xcpu_tested < 2 && in->logical_cpus > 1) {
		lower(c->w, VERDICT_CONFIDENCE_LOW);
		reason(c, "the cross-CPU TSC test did not cover 2+ CPUs: whether Windows finds the TSCs in step is "
			  "not known");
	}
	return true;
}

static void hyperv_path(struct win *c)
{
	const struct verdict_input *in = c->in;
	struct verdict_windows *w = c->w;

	if (c->family == WIN_8 && yes(in->hv_tsc_page) && !no(in->hv_tsc_page_valid)) {
		choose(c, "hyperv_tsc_page", VERDICT_SRC_HV_TSC_PAGE, false, false);
		w->qpc_frequency_hz = HV_REFERENCE_HZ;
		w->qpc_frequency_basis = "the partition reference time's 100 ns units (TLFS)";
		reason(c, "Hyper-V at 0x40000000 offers the reference TSC page (0x40000003 EAX[9]): QPC reads it in "
			  "user mode, RDTSC and the page, no exit");
		if (in->hv_tsc_page_valid == VERDICT_UNKNOWN)
			reason(c, "the page's sequence was not read: a sequence of 0 would mean the MSR instead");
		return;
	}
	if (yes(in->hv_ref_counter)) {
		choose(c, "hyperv_msr", VERDICT_SRC_HV_MSR, true, true);
		w->qpc_frequency_hz = HV_REFERENCE_HZ;
		w->qpc_frequency_basis = "the partition reference time's 100 ns units (TLFS)";
		reason(c, c->family == WIN_7 ?
				  "Windows 7/2008 R2 on Hyper-V: the reference counter MSR 0x40000020 (the reference TSC "
				  "page came later, TLFS 3.0 / Server 2012), an exit per read" :
				  no(in->hv_tsc_page_valid) ?
				  "the reference TSC page is invalid (sequence 0): the reference counter MSR 0x40000020, "
				  "an exit per read" :
				  "Hyper-V offers the reference counter but no TSC page: MSR 0x40000020, an exit per read");
		if (c->family == WIN_7)
			lower(w, VERDICT_CONFIDENCE_MEDIUM);
		return;
	}
	reason(c, "Hyper-V at 0x40000000 offers no partition reference time (0x40000003 EAX[1], EAX[9] clear)");
	if (tsc_usable(c)) {
		choose(c, "tsc", VERDICT_SRC_TSC, false, false);
		w->qpc_frequency_basis = "not documented for a TSC-based QPC";
		reason(c, "invariant, synchronised TSC: QPC reads it in user mode");
	} else {
		platform_counter(c);
	}
}

static void qpc_warnings(struct win *c)
{
	const struct verdict_input *in = c->in;
	struct verdict_windows *w = c->w;
	struct strbuf sb;
	bool platform = w->qpc_source && (str_equal(w->qpc_source, "hpet") || str_equal(w->qpc_source, "acpi_pm"));
	bool msr = w->qpc_source && str_equal(w->qpc_source, "hyperv_msr");

	if (!platform && !msr)
		return;
	if (w->warning_count >= VERDICT_WIN_MAX_WARNINGS)
		return;
	struct verdict_warning *x = &w->warnings[w->warning_count++];
	memset(x, 0, sizeof *x);
	x->severity = VERDICT_WARNING;
	sb_init(&sb, x->message, sizeof x->message);
	sb_str(&sb, "A Windows ");
	sb_str(&sb, w->release);
	sb_str(&sb, " guest's QueryPerformanceCounter reads ");
	sb_str(&sb, w->qpc_source);
	sb_str(&sb, ": a kernel call and a VM exit per call");
	sb_init(&sb, x->evidence, sizeof x->evidence);
	sb_str(&sb, "CPUID 0x40000000: ");
	sb_str(&sb, w->interface);
	sb_str(&sb, yes(in->invariant_tsc) ? "; invariant TSC" : "; no invariant TSC");
	if (in->xcpu_warps)
		sb_str(&sb, ", warping between CPUs");
	if (w->read_ns_milli) {
		sb_str(&sb, "; ");
		sb_str(&sb, w->qpc_source);
		sb_str(&sb, " read costs ");
		sb_ns(&sb, w->read_ns_milli);
		if (in->sources[VERDICT_SRC_TSC].read_ns_milli) {
			sb_str(&sb, " = ");
			sb_ratio(&sb, w->read_ns_milli, in->sources[VERDICT_SRC_TSC].read_ns_milli);
		}
	}
	if (platform) {
		x->code = "WINDOWS_PLATFORM_TIMER";
		x->fix = "Give Windows a TSC or the Hyper-V reference time: expose invariant TSC (QEMU/KVM -cpu "
			 "<model>,+invtsc; libvirt <feature policy='require' name='invtsc'/>), or on KVM/QEMU the "
			 "Hyper-V enlightenments Windows reads at 0x40000000 (-cpu ...,hv-time,hv-frequencies; "
			 "libvirt <hyperv> with <timer name='hypervclock' present='yes'/>), on Xen viridian=1; in "
			 "the guest leave useplatformclock off (bcdedit /deletevalue useplatformclock).";
		x->fix_brief = "expose invariant TSC or hv-time (QEMU -cpu ...,+invtsc or hv-time,hv-frequencies)";
	} else {
		x->code = "WINDOWS_HYPERV_MSR";
		x->fix = "Offer the Hyper-V reference TSC page (AccessPartitionReferenceTsc): QEMU/KVM -cpu "
			 "...,hv-time (it needs a stable host TSC: host clocksource tsc); on Hyper-V a current host "
			 "and configuration version. Windows 7/2008 R2 predate the page: a newer guest reads it.";
		x->fix_brief = "offer the Hyper-V reference TSC page (QEMU hv-time)";
	}
}

void decide_windows(const struct verdict_input *in, struct verdict_windows *w)
{
	struct win c = { in, w, WIN_8, false };
	unsigned id = in->windows && in->windows <= ARRAY_SIZE(releases) ? in->windows : 1;

	memset(w, 0, sizeof *w);
	c.family = releases[id - 1].family;
	w->release = releases[id - 1].name;
	w->family = family_names[c.family];
	w->confidence = VERDICT_CONFIDENCE_MEDIUM;
	w->exits = VERDICT_UNKNOWN;
	/* the lowest range is the one at 0x40000000 */
	c.hv_interface = in->hypervisor && str_equal(in->hypervisor, "hyperv");
	w->interface = in->hypervisor ? in->hypervisor : no(in->hypervisor_bit) ? "none" : "unknown";
	if (in->vendor == VERDICT_VENDOR_UNKNOWN || (!in->hypervisor && !no(in->hypervisor_bit)))
		lower(w, VERDICT_CONFIDENCE_LOW);
	if (c.hv_interface && (has_signature(in, "kvm") || has_signature(in, "xen")))
		reason(&c, has_signature(in, "kvm") ?
				   "Hyper-V leaves at 0x40000000 in front of KVM's: Windows uses them (Linux prefers KVM's)" :
				   "Hyper-V leaves at 0x40000000 in front of Xen's (viridian): Windows uses them");
	else if (!c.hv_interface && has_signature(in, "hyperv"))
		reason(&c, "Hyper-V leaves, but not at 0x40000000: Windows does not look for them there");
	if (c.hv_interface && yes(in->hv_root)) {
		lower(w, VERDICT_CONFIDENCE_LOW);
		reason(&c, "the root partition's view (0x40000003 EBX[0]): a guest's privilege mask differs");
	}

	if (c.family == WIN_VISTA) {
		if (c.hv_interface) {
			lower(w, VERDICT_CONFIDENCE_LOW);
			reason(&c, "Vista/2008 under Hyper-V: whether its HAL reads the reference time is not documented");
		}
		platform_counter(&c);
	} else if (c.hv_interface) {
		hyperv_path(&c);
	} else if (tsc_usable(&c)) {
		choose(&c, "tsc", VERDICT_SRC_TSC, false, false);
		w->qpc_frequency_basis = "not documented for a TSC-based QPC";
		reason(&c, c.family == WIN_7 ? "Windows 7/2008 R2: invariant TSC synchronised across CPUs: QPC on the TSC" :
					       "Windows 8 and later: invariant TSC, synchronised: QPC on the TSC, in user mode");
	} else {
		platform_counter(&c);
	}
	qpc_warnings(&c);
}

/* ---- writing it out ---------------------------------------------------- */

static void tri_json(struct json *j, const char *key, enum verdict_tri t)
{
	if (t == VERDICT_UNKNOWN)
		json_null(j, key);
	else
		json_bool(j, key, t == VERDICT_YES);
}

void windows_to_json(struct json *j, const struct verdict_windows *w)
{
	json_object_begin(j, "windows");
	json_string(j, "release", w->release);
	json_string(j, "family", w->family);
	json_string(j, "interface", w->interface);
	json_string(j, "qpc_source", w->qpc_source);
	if (w->qpc_frequency_hz)
		json_u64(j, "qpc_frequency_hz", w->qpc_frequency_hz);
	else
		json_null(j, "qpc_frequency_hz");
	json_string(j, "qpc_frequency_basis", w->qpc_frequency_basis);
	tri_json(j, "exits", w->exits);
	json_bool(j, "kernel_call", w->kernel_call);
	if (w->read_ns_milli)
		json_fixed(j, "read_ns", (int64_t)w->read_ns_milli, 3);
	else
		json_null(j, "read_ns");
	if (w->read_ns_milli && w->read_se_ns_milli)
		json_fixed(j, "read_se_ns", (int64_t)w->read_se_ns_milli, 3);
	else
		json_null(j, "read_se_ns");
	json_string(j, "read_ns_basis", w->read_ns_basis);
	json_string(j, "confidence", verdict_confidence_name(w->confidence));
	json_array_begin(j, "reasoning");
	for (uint32_t i = 0; i < w->reasoning_count; i++)
		json_string(j, NULL, w->reasoning[i]);
	json_array_end(j);
	json_array_begin(j, "warnings");
	for (uint32_t i = 0; i < w->warning_count; i++) {
		const struct verdict_warning *x = &w->warnings[i];
		json_object_begin(j, NULL);
		json_string(j, "code", x->code);
		json_string(j, "severity", verdict_severity_name(x->severity));
		json_string(j, "message", x->message);
		json_string(j, "evidence", x->evidence);
		json_string(j, "fix", x->fix);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void verdict_windows_summary_line(const struct verdict *v, char *buf, size_t cap)
{
	const struct verdict_windows *w = &v->windows;
	struct strbuf sb;

	sb_init(&sb, buf, cap);
	sb_str(&sb, "A Windows ");
	sb_str(&sb, w->release ? w->release : "?");
	sb_str(&sb, " guest here: QueryPerformanceCounter ");
	if (!w->qpc_source) {
		sb_str(&sb, "undecided");
	} else {
		sb_str(&sb, "on ");
		sb_str(&sb, w->qpc_source);
		sb_str(&sb, w->exits == VERDICT_YES ? ", exits" : w->exits == VERDICT_NO ? ", no exit" : ", exit unknown");
		/* As the Linux headline says it: the measured read with its SE,
		 * and the kernel call QPC then makes as its range, not measured. */
		if (w->read_ns_milli) {
			sb_str(&sb, "; per read ");
			sb_ns_se(&sb, w->read_ns_milli, w->read_se_ns_milli);
			if (w->kernel_call)
				sb_unmeasured_term(&sb, "kernel call", v->syscall_overhead_ns_low,
						   v->syscall_overhead_ns_high, false);
		} else if (w->kernel_call) {
			sb_str(&sb, "; a kernel call per read, read cost not measured");
		}
		sb_char(&sb, ';');
	}
	sb_str(&sb, w->qpc_source ? " confidence " : ", confidence ");
	sb_str(&sb, verdict_confidence_name(w->confidence));
	if (w->warning_count && w->warnings[0].fix_brief) {
		sb_str(&sb, ". Fix: ");
		sb_str(&sb, w->warnings[0].fix_brief);
	}
	sb_char(&sb, '.');
}
