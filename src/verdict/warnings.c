/* Named problems: each warning states what Linux will do, the evidence the
 * probe measured, and (from fixes.c) what to change.  They are checked on
 * the main kernel's model; KERNEL_DEPENDENT looks across by_kernel[]. */
#include "verdict_model.h"

/* tsc.c: tsc=recalibrate warns above 500 ppm, and 500 ppm is the most
 * NTP can slew (the kernel's MAXFREQ): beyond it a guest's clock runs off.
 * Checked against the measurement's own uncertainty; the reference's
 * stated tolerance (the HPET's 500 ppm) is reported beside, not added
 * into the gate, or a rate 700 ppm off would never be flagged. */
#define FREQ_MISMATCH_PPM 500
#define DRIFT_WARN_PPM 100
#define GAP_WARN_MAX_NS 5000000ull	/* 5 ms */
#define GAP_WARN_SHARE_PPM 10000	/* 1 % of the window */

static struct verdict_warning *add_warning(struct verdict *v, enum warn_code code,
					   enum verdict_severity severity)
{
	return verdict_add_warning(v, code, severity);
}

static void evidence_source_cost(struct strbuf *sb, const struct verdict_input *in, int s)
{
	uint64_t cost = in->sources[s].read_ns_milli;
	uint64_t tsc = in->sources[VERDICT_SRC_TSC].read_ns_milli;

	sb_str(sb, verdict_source_name(s));
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

static void warn_fallback(const struct facts *f, const struct model *m, struct verdict *v)
{
	struct verdict_warning *w;
	struct strbuf sb;

	if (m->chosen == VERDICT_SRC_ACPI_PM)
		w = add_warning(v, WARN_ACPI_PM_FALLBACK, VERDICT_CRITICAL);
	else if (m->chosen == VERDICT_SRC_HPET)
		w = add_warning(v, WARN_HPET_FALLBACK, VERDICT_WARNING);
	else if (m->chosen < 0)
		w = add_warning(v, WARN_JIFFIES_FALLBACK, VERDICT_CRITICAL);
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
	struct verdict_warning *w = add_warning(v, WARN_TSC_NOT_INVARIANT,
						info ? VERDICT_INFO : VERDICT_WARNING);
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
	struct verdict_warning *w = add_warning(v, WARN_TSC_UNSYNCED, VERDICT_CRITICAL);
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
	/* |offset| + rtt/2 over the pairs: what the skew is at most, not a
	 * skew that was seen (warps are what was seen). */
	sb_str(&sb, " CPUs; skew bound ");
	sb_u64(&sb, in->xcpu_max_skew_cycles);
	sb_str(&sb, " TSC ticks");
}

/* The same warp test as the TSC's, on pvclock readings (kvm-unit-tests'
 * kvmclock_test): with the stable bit Linux trusts kvm-clock across vCPUs
 * and drops its last-value guard, so any warp reaches user space. */
static void warn_kvmclock_warp(const struct facts *f, struct verdict *v)
{
	const struct verdict_input *in = f->in;
	if (!in->xcpu_kvmclock_warps)
		return;
	struct verdict_warning *w = add_warning(v, WARN_KVMCLOCK_WARP, VERDICT_CRITICAL);
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
		w = add_warning(v, WARN_KVMCLOCK_NOT_STABLE, used ? VERDICT_WARNING : VERDICT_INFO);
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
	w = add_warning(v, WARN_KVMCLOCK_HIDDEN, pushed_down ? VERDICT_CRITICAL : VERDICT_WARNING);
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

	if (in->freq_disagreement_known &&
	    beyond(in->freq_disagreement_ppm, FREQ_MISMATCH_PPM, in->freq_disagreement_uncertainty_ppm)) {
		w = add_warning(v, WARN_TSC_FREQ_MISMATCH, VERDICT_WARNING);
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
			sb_ppm(&sb, in->freq_disagreement_ppm, in->freq_disagreement_uncertainty_ppm);
			if (in->freq_disagreement_tolerance_ppm) {
				sb_str(&sb, " measured (the reference's stated tolerance, not in this gate: +/- ");
				sb_u64(&sb, in->freq_disagreement_tolerance_ppm);
				sb_str(&sb, " ppm)");
			}
		}
	}
	if (in->freq_references_disagree) {
		w = add_warning(v, WARN_FREQ_REFERENCES_DISAGREE, VERDICT_WARNING);
		if (w) {
			sb_init(&sb, w->message, sizeof(w->message));
			sb_str(&sb, in->freq_references_pair ? "The timers the TSC was measured against disagree on the rate of time"
							     : "The HPET and the PM timer disagree on the rate of time");
			sb_init(&sb, w->evidence, sizeof(w->evidence));
			sb_str(&sb, "TSC rate measured against ");
			sb_str(&sb, in->freq_references_pair ? in->freq_references_pair : "hpet vs acpi_pm");
			sb_str(&sb, ": ");
			sb_ppm(&sb, in->freq_references_ppm, in->freq_references_uncertainty_ppm);
			sb_str(&sb, " (beyond the combined uncertainty)");
		}
	}
	if (m->tsc_khz_known || !tsc_present(f))
		return;
	w = add_warning(v, WARN_NO_CALIBRATION_REFERENCE, VERDICT_CRITICAL);
	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "Linux cannot learn the TSC frequency: no advertised rate and its calibration cannot "
		    "succeed (boot may fail or hang)");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_str(&sb, "no hypervisor or CPUID 0x15 frequency Linux would use; ");
	calibration_fails(f, &sb);
}

static void warn_gaps(const struct facts *f, struct verdict *v)
{
	const struct verdict_input *in = f->in;

	if (!in->gaps_measured || !in->gap_count)
		return;
	/* The measured window's share, so the warning and the summary's gaps
	 * line print the same figure; the nominal window only for inputs
	 * that lack it. */
	uint64_t window_ns = in->gap_window_ms * 1000000ull;
	uint64_t share_ppm = in->gap_share_ppm ? in->gap_share_ppm
			     : window_ns    ? mul_div_u64(in->gap_total_ns, 1000000, window_ns)
					    : 0;
	if (in->gap_max_ns < GAP_WARN_MAX_NS && share_ppm < GAP_WARN_SHARE_PPM)
		return;
	struct verdict_warning *w = add_warning(v, WARN_LARGE_GAPS,
						in->gap_max_ns >= ACPI_PM_WRAP_NS ? VERDICT_CRITICAL :
										    VERDICT_WARNING);
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
		if (!beyond(d->ppm, DRIFT_WARN_PPM, d->uncertainty_ppm))
			continue;
		if (!w) {
			w = add_warning(v, WARN_SOURCE_DRIFT, VERDICT_WARNING);
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
		sb_ppm(&sb, d->ppm, d->uncertainty_ppm);
		sb_str(&sb, " over ");
		sb_u64(&sb, d->window_ms);
		sb_str(&sb, " ms");
	}
}


static void warn_kernel_dependent(struct verdict *v)
{
	struct strbuf sb;
	bool older_slower = false;

	bool differs = false;

	/* Ranges also split where only the registered list changes. */
	for (uint32_t i = 1; i < v->by_kernel_count; i++)
		if (!str_equal(v->by_kernel[i].linux_clocksource, v->by_kernel[0].linux_clocksource) ||
		    v->by_kernel[i].vdso != v->by_kernel[0].vdso)
			differs = true;
	if (!differs)
		return;
	for (uint32_t i = 0; i < v->by_kernel_count; i++)
		if (!str_equal(v->by_kernel[i].linux_clocksource, v->linux_clocksource) &&
		    slow_source(v->by_kernel[i].linux_clocksource))
			older_slower = true;
	struct verdict_warning *w = add_warning(v, WARN_KERNEL_DEPENDENT,
						older_slower ? VERDICT_WARNING : VERDICT_INFO);
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
	struct verdict_warning *w = add_warning(v, WARN_HYPERV_MSR_CLOCKSOURCE, VERDICT_WARNING);
	if (!w)
		return;
	str_copy(w->message, sizeof(w->message),
		 "Hyper-V without the reference TSC page: every clock read is a syscall and an MSR exit");
	str_copy(w->evidence, sizeof(w->evidence),
		 "CPUID 0x40000003 EAX[9] (AccessPartitionReferenceTsc) clear, EAX[1] set");
}

/* The kernel cannot start the guest: the only thing to say about it. */
static void warn_cannot_boot(const struct model *m, struct verdict *v)
{
	struct strbuf sb;
	struct verdict_warning *w = add_warning(v, WARN_GUEST_CANNOT_BOOT, VERDICT_CRITICAL);

	if (!w)
		return;
	sb_init(&sb, w->message, sizeof(w->message));
	sb_str(&sb, "Linux ");
	sb_str(&sb, v->linux_kernel ? v->linux_kernel : "?");
	sb_str(&sb, " cannot boot this ");
	sb_str(&sb, m->boot_feature);
	sb_str(&sb, " guest; ");
	sb_str(&sb, m->boots_from);
	sb_str(&sb, " is the first release that can");
	sb_init(&sb, w->evidence, sizeof(w->evidence));
	sb_str(&sb, m->boot_reason);
}

/* The order is the report's: what Linux ends up doing first, then why. */
void add_warnings(const struct facts *f, const struct model *m, struct verdict *v)
{
	if (m->no_boot) {
		warn_cannot_boot(m, v);
		return;
	}
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
	warn_contended(f->in, m, v);
}

