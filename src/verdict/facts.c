/* The input digested once, before any kernel version is considered: which
 * platform Linux will detect, which sources it will find, how many CPUs
 * and packages it will count. */
#include "verdict_model.h"

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

void add_reason(struct verdict *v, const char *text, const char *cite)
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

void digest(struct facts *f, const struct verdict_input *in)
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

bool tsc_present(const struct facts *f)
{
	/* Every x86-64 CPU has one; unknown is treated as present. */
	return !no(f->in->tsc);
}
